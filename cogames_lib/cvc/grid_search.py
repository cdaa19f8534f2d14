"""Breadth-first distances on a grid, compiled: the one multi-source search that the oracle's geometry
(`diagnostics.oracle_geometry`) and the scripted policy's energy planning (`policies.scripted.planning`) share.

The grid is flat (row-major, bordered so that no move leaves it: callers pad it with cells that cannot be
entered); a move is one of `deltas`. Every source is at distance 0, passable or not (a station's approach
cell may be a source); every other cell is entered only if `passable`.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def bfs_distances(passable, sources, deltas, unreachable):
    """Moves from the nearest of `sources` to every cell (`unreachable` where no way leads)."""
    dist = np.full(passable.shape[0], unreachable, np.int64)
    queue = np.empty(passable.shape[0], np.int64)
    head = tail = 0
    for source in sources:
        if dist[source] != 0:
            dist[source] = 0
            queue[tail] = source
            tail += 1
    while head < tail:
        cell = queue[head]
        head += 1
        step = dist[cell] + 1
        for delta in deltas:
            neighbour = cell + delta
            if passable[neighbour] and dist[neighbour] > step:
                dist[neighbour] = step
                queue[tail] = neighbour
                tail += 1
    return dist
