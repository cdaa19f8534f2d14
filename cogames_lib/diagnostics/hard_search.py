"""What a search costs on a hard map: a tour of 11 x 11 views over the ground closer than the target.

The oracle's bound knows where everything is; an agent that must find a station first walks until its view
(`VIEW_SIZE` x `VIEW_SIZE`, no occlusion) has passed over it. `search_tour` estimates that walk from the
layout: the open cells to be seen are the reachable ones no farther from the spawns (in moves) than the
farthest target kind (each at its nearest station), the cells an outward search covers before it has found
them all. The map is cut into view-sized tiles aligned on the first spawn (its first view is one tile);
every tile holding a cell not yet seen has a representative (its unseen cell nearest the tile's centre),
and one agent walks from the first spawn to the nearest representative (breadth-first over open cells),
marking everything its view passes over on the way (the view is clipped at the map's edges); a tile whose
representative was reached with cells of it still unseen gets a new one. The walk ends when every cell is
seen; its length is the result: a full-knowledge nearest-neighbour tour of views.

Why a tour and not an area: the previous rule charged the count of cells / 11 (the ideal lane rate) / 0.35
everywhere, so a corridor 3 cells wide was charged under its length and a room 20 x 30 nearly three times
its two-lane sweep; the tour charges what the geometry asks (a corridor its length once, a room its lanes,
a dead end its way back). A searching agent does not know the map, so it does worse than this tour by a
factor `hard_maps.SEARCH_EFFICIENCY` accounts for.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numba import njit

from cogames_lib.cvc.observation import VIEW_RADIUS, VIEW_SIZE
from cogames_lib.diagnostics.oracle_geometry import UNREACHABLE, Geometry


def target_reach(geometry: Geometry, from_spawns: list[int], targets: Iterable[str]) -> int | None:
    """Moves from the spawns to the farthest of the `targets` kinds (each at its nearest station); None
    when no target kind has a station."""
    reaches = [
        min((from_spawns[c] for c in geometry.approach_cells(stations)), default=UNREACHABLE)
        for stations in (geometry.stations_by_kind.get(kind, ()) for kind in targets)
        if stations
    ]
    return max(reaches) if reaches else None


def search_tour(geometry: Geometry, targets: Iterable[str]) -> tuple[int, int]:
    """(steps, end position) of the nearest-neighbour view tour over the open cells closer than the
    farthest target (see the module docstring), starting at the first agent's position; (0, that
    position) without targets or when the spawns' first views show every such cell."""
    steps, end, _ = view_tour(geometry, targets)
    return steps, end


def view_tour(geometry: Geometry, targets: Iterable[str]) -> tuple[int, int, int]:
    """`search_tour` and how many of the cells to be seen it left unseen: 0 unless some are out of the
    first agent's reach (a spawn walled off from the first one's)."""
    world = geometry.world
    starts = [a.position for a in world.agents]
    from_spawns = geometry.bfs(starts)
    reach = target_reach(geometry, from_spawns, targets)
    if reach is None or reach >= UNREACHABLE:
        return 0, starts[0], 0
    stride = world.stride
    cells = len(from_spawns)
    rows = cells // stride
    # Tiles aligned so the first spawn's view is tile (0, 0); each tile that holds a cell to be seen gets an id.
    row0, col0 = divmod(starts[0], stride)
    row0, col0 = row0 - VIEW_RADIUS, col0 - VIEW_RADIUS
    distances = np.asarray(from_spawns)
    unseen = distances <= reach  # the cells still to be seen (flat), and as rows of the padded map
    grid_unseen = unseen.reshape(rows, stride)
    tile_rows = (np.arange(cells) // stride - row0) // VIEW_SIZE
    tile_cols = (np.arange(cells) % stride - col0) // VIEW_SIZE
    # One integer per (tile row, tile column), ordered as the pairs are: a 1-D unique is several times
    # faster than `np.unique(..., axis=1)` and numbers the tiles the same way.
    low_row, low_col = int(tile_rows.min()), int(tile_cols.min())
    span = int(tile_cols.max()) - low_col + 1
    flat_keys, tile_id = np.unique(
        ((tile_rows - low_row) * span + (tile_cols - low_col))[unseen], return_inverse=True
    )
    keys = np.stack([flat_keys // span + low_row, flat_keys % span + low_col])
    tile_of = np.full(cells, -1, np.int64)
    tile_of[unseen] = tile_id.ravel()
    grid_tile = tile_of.reshape(rows, stride)
    left = np.bincount(tile_id.ravel(), minlength=keys.shape[1])
    # Each tile's cells, ascending (a stable sort of the ascending cells by tile).
    to_see = np.flatnonzero(unseen)
    members = np.split(to_see[np.argsort(tile_id.ravel(), kind="stable")], np.cumsum(left)[:-1])
    remaining = int(unseen.sum())

    def look(position: int) -> None:
        # Clipped at the edges: a column past the last would be the next row's first (flat indices).
        nonlocal remaining
        row, col = divmod(position, stride)
        r0, r1 = max(0, row - VIEW_RADIUS), min(rows, row + VIEW_RADIUS + 1)
        c0, c1 = max(0, col - VIEW_RADIUS), min(stride, col + VIEW_RADIUS + 1)
        window = grid_unseen[r0:r1, c0:c1]
        seen = grid_tile[r0:r1, c0:c1][window]
        if seen.size:
            np.subtract.at(left, seen, 1)
            remaining -= seen.size
            window[...] = False

    def nearest_centre(tile: int) -> int:
        """The tile's unseen cell nearest its centre (ties: the lowest position)."""
        centre_r = row0 + int(keys[0, tile]) * VIEW_SIZE + VIEW_RADIUS
        centre_c = col0 + int(keys[1, tile]) * VIEW_SIZE + VIEW_RADIUS
        candidates = members[tile][unseen[members[tile]]]
        spread = np.abs(candidates // stride - centre_r) + np.abs(candidates % stride - centre_c)
        return int(candidates[np.argmin(spread)])  # argmin keeps the first, the lowest position, on ties

    for start in starts:
        look(start)
    representative = {nearest_centre(tile): tile for tile in range(keys.shape[1]) if left[tile] > 0}
    walkable = distances < UNREACHABLE
    is_representative = np.zeros(cells, np.bool_)
    is_representative[list(representative)] = True
    deltas = np.asarray(geometry.deltas, np.int64)
    here, walked = starts[0], 0
    while remaining and representative:
        path = _path_to_nearest(walkable, is_representative, here, deltas)
        if path.size == 0:
            break
        found = int(path[0])
        walked += path.size - 1
        for cell in path.tolist():
            look(cell)
        # Tiles the walk finished lose their representative; one reached with cells still unseen (a
        # wall or a corner kept them out of view) gets a new one.
        for cell, tile in list(representative.items()):
            if left[tile] == 0 or cell == found:
                del representative[cell]
                is_representative[cell] = False
                if left[tile] > 0:
                    new_cell = nearest_centre(tile)
                    representative[new_cell] = tile
                    is_representative[new_cell] = True
        here = found
    return walked, here, remaining


@njit(cache=True)
def _path_to_nearest(walkable, targets, here, deltas):
    """Breadth-first from `here` over walkable cells (moves in `deltas` order) to the first cell marked in
    `targets`; the path from that cell back to `here` (both included), or an empty array when none is reached."""
    parent = np.full(walkable.shape[0], -1, np.int64)
    queue = np.empty(walkable.shape[0], np.int64)
    parent[here], queue[0] = here, here
    head, tail, found = 0, 1, -1
    while head < tail:
        cell = queue[head]
        head += 1
        if targets[cell]:
            found = cell
            break
        for delta in deltas:
            step = cell + delta
            if walkable[step] and parent[step] < 0:
                parent[step] = cell
                queue[tail] = step
                tail += 1
    if found < 0:
        return np.empty(0, np.int64)
    length, cell = 1, found
    while cell != here:
        cell = parent[cell]
        length += 1
    path = np.empty(length, np.int64)
    cell = found
    for i in range(length):
        path[i] = cell
        cell = parent[cell]
    return path
