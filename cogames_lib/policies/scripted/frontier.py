"""Frontier exploration: which unknown cell to walk to next, and the way there.

A frontier cell is an unknown cell next to a known-empty cell the agent can reach over known-empty
cells (an area glimpsed through a wall is no frontier until a known way leads there). The agent walks
to the frontier cell of least cost

    cost = path length from the agent + ORIGIN_WEIGHT x min(Manhattan distance from the spawn, ORIGIN_REACH)
           + SECTOR_PENALTY if the cell lies outside the agent's own sector,

so the known area grows outwards from the spawn: a pocket next to the spawn is searched before a far
corner (a station just outside the first view is found early, and an agent never leaves one behind on
its way out), while in a corridor the cell straight ahead always stays cheapest, so a corridor is walked
to its end once instead of being revisited (a depth-first tour, within a factor of two of the shortest
walk that sees every corridor). Ties go to the cell with the most unknown cells around it, then to the
first in row-major order: the choice is deterministic.

Sectors divide the search in a team: agent i owns the directions (north, east, south, west, counted from
its spawn) with index = i (mod N), so two agents split north/south from east/west and four agents take
one arm each of a radial map. Cells near the spawn belong to everyone.
"""

from __future__ import annotations

import numpy as np

from cogames_lib.policies.scripted.memory import EMPTY, UNKNOWN, MapMemory
from cogames_lib.policies.scripted.planning import Cell

ORIGIN_WEIGHT = 0.3  # steps of walking worth one step of distance from the spawn
ORIGIN_REACH = 32  # ... counted up to this distance: far out, where the agent is matters, not the spawn
SECTOR_PENALTY = 24  # extra cost of a frontier cell in a teammate's sector (steps)
SHARED_RADIUS = 2  # cells within this Manhattan distance of the spawn belong to every sector
GAIN_RADIUS = 3  # unknown cells within this of a frontier cell make its worth (tie-break only)
DIRECTIONS = ("north", "east", "south", "west")
ALL_DIRECTIONS = frozenset(range(4))


def own_sector(agent_id: int, num_agents: int) -> frozenset[int]:
    """The direction indices (see `DIRECTIONS`) agent `agent_id` searches first; all four when alone."""
    if num_agents <= 1:
        return ALL_DIRECTIONS
    if num_agents >= 4:
        return frozenset({agent_id % 4})
    return frozenset(d for d in range(4) if d % num_agents == agent_id)


def direction_of(cell: Cell, origin: Cell) -> int:
    """The sector direction index of `cell` as seen from `origin` (ties between axes go north/south)."""
    dr, dc = cell[0] - origin[0], cell[1] - origin[1]
    if abs(dr) >= abs(dc):
        return 0 if dr < 0 else 2
    return 3 if dc < 0 else 1


def frontier_target(
    memory: MapMemory,
    start: Cell,
    origin: Cell,
    sector: frozenset[int] = ALL_DIRECTIONS,
    blocked: frozenset[Cell] = frozenset(),
) -> tuple[Cell, list[Cell]] | None:
    """The frontier cell of least cost (see the module docstring) and the path to it; None if no
    frontier is reachable (everything reachable is known)."""
    r0, r1, c0, c1 = memory.bounds
    r0, r1, c0, c1 = r0 - 1, r1 + 1, c0 - 1, c1 + 1
    height, width = r1 - r0, c1 - c0
    if not (r0 <= start[0] < r1 and c0 <= start[1] < c1):
        return None
    box = memory.kind[r0:r1, c0:c1]
    walkable = (box == EMPTY).ravel().tolist()
    unknown = (box == UNKNOWN).ravel().tolist()
    for r, c in blocked:
        if r0 <= r < r1 and c0 <= c < c1:
            walkable[(r - r0) * width + (c - c0)] = False
    size = height * width
    source = (start[0] - r0) * width + (start[1] - c0)
    parent = {source: -1}
    layer = [source]
    depth = 0
    best_cost = float("inf")
    best: list[int] = []
    orow, ocol = origin[0] - r0, origin[1] - c0
    while layer and depth < best_cost:
        next_layer = []
        for here in layer:
            col = here % width
            for there, ok in (
                (here - width, here >= width),
                (here + width, here + width < size),
                (here - 1, col > 0),
                (here + 1, col < width - 1),
            ):
                if not ok or there in parent:
                    continue
                if unknown[there]:
                    parent[there] = here
                    row_t, col_t = divmod(there, width)
                    away = abs(row_t - orow) + abs(col_t - ocol)
                    cost = depth + 1 + ORIGIN_WEIGHT * min(away, ORIGIN_REACH)
                    if away > SHARED_RADIUS and direction_of((row_t, col_t), (orow, ocol)) not in sector:
                        cost += SECTOR_PENALTY
                    if cost < best_cost - 1e-9:
                        best_cost, best = cost, [there]
                    elif cost <= best_cost + 1e-9:
                        best.append(there)
                elif walkable[there]:
                    parent[there] = here
                    next_layer.append(there)
        layer = next_layer
        depth += 1
    if not best:
        return None
    pick = min(best) if len(best) == 1 else _most_unknown_around(box, best, width)
    path = [pick]
    while parent[path[-1]] != source:
        path.append(parent[path[-1]])
    path.reverse()
    return (pick // width + r0, pick % width + c0), [(p // width + r0, p % width + c0) for p in path]


def _most_unknown_around(box: np.ndarray, cells: list[int], width: int) -> int:
    """Among tied frontier cells, the one with the most unknown cells within GAIN_RADIUS (outside the
    known box everything is unknown); the first in row-major order among equals."""
    pad = GAIN_RADIUS
    padded = np.ones((box.shape[0] + 2 * pad, box.shape[1] + 2 * pad), dtype=np.int32)
    padded[pad:-pad, pad:-pad] = box == UNKNOWN

    def gain(cell: int) -> int:
        r, c = divmod(cell, width)
        return int(padded[r : r + 2 * pad + 1, c : c + 2 * pad + 1].sum())

    return min(cells, key=lambda cell: (-gain(cell), cell))
