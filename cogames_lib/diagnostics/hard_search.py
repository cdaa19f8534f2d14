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

from collections import deque
from collections.abc import Iterable

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
    # Tiles aligned so the first spawn's view is tile (0, 0).
    row0, col0 = divmod(starts[0], stride)
    row0, col0 = row0 - VIEW_RADIUS, col0 - VIEW_RADIUS
    tile_of = {
        cell: ((cell // stride - row0) // VIEW_SIZE, (cell % stride - col0) // VIEW_SIZE)
        for cell, steps in enumerate(from_spawns)
        if steps <= reach
    }
    cells_of: dict[tuple[int, int], list[int]] = {}
    for cell, tile in tile_of.items():
        cells_of.setdefault(tile, []).append(cell)
    left = {tile: len(cells) for tile, cells in cells_of.items()}

    rows = len(from_spawns) // stride

    def look(position: int) -> None:
        # Clipped at the edges: a column past the last would be the next row's first (flat indices).
        row, col = divmod(position, stride)
        for r in range(max(0, row - VIEW_RADIUS), min(rows, row + VIEW_RADIUS + 1)):
            base = r * stride
            for c in range(max(0, col - VIEW_RADIUS), min(stride, col + VIEW_RADIUS + 1)):
                tile = tile_of.pop(base + c, None)
                if tile is not None:
                    left[tile] -= 1

    def nearest_centre(tile: tuple[int, int]) -> int:
        """The tile's unseen cell nearest its centre (ties: the lowest position)."""
        centre_r, centre_c = (
            row0 + tile[0] * VIEW_SIZE + VIEW_RADIUS,
            col0 + tile[1] * VIEW_SIZE + VIEW_RADIUS,
        )
        return min(
            (abs(cell // stride - centre_r) + abs(cell % stride - centre_c), cell)
            for cell in cells_of[tile]
            if cell in tile_of
        )[1]

    for start in starts:
        look(start)
    representative = {nearest_centre(tile): tile for tile, count in left.items() if count > 0}
    walkable = [steps < UNREACHABLE for steps in from_spawns]
    deltas = geometry.deltas
    here, walked = starts[0], 0
    while tile_of and representative:
        parent = {here: here}
        queue = deque([here])
        found = -1
        while queue:
            cell = queue.popleft()
            if cell in representative:
                found = cell
                break
            for delta in deltas:
                nxt = cell + delta
                if walkable[nxt] and nxt not in parent:
                    parent[nxt] = cell
                    queue.append(nxt)
        if found < 0:
            break
        path = [found]
        while path[-1] != here:
            path.append(parent[path[-1]])
        walked += len(path) - 1
        for cell in path:
            look(cell)
        # Tiles the walk finished lose their representative; one reached with cells still unseen (a
        # wall or a corner kept them out of view) gets a new one.
        for cell, tile in list(representative.items()):
            if left[tile] == 0 or cell == found:
                del representative[cell]
                if left[tile] > 0:
                    representative[nearest_centre(tile)] = tile
        here = found
    return walked, here, len(tile_of)
