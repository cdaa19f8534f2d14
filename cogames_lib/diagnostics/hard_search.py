"""What a search costs on a hard map: a tour of 11 x 11 views over the ground closer than the target.

The oracle's bound knows where everything is; an agent that must find a station first walks until its view
(`VIEW_SIZE` x `VIEW_SIZE`, no occlusion) has passed over it. `search_tour` estimates that walk from the
layout: the open cells to be seen are the reachable ones no farther from the spawns (in moves) than the
farthest target kind (each at its nearest station), the cells an outward search covers before it has found
them all. The map is cut into view-sized tiles aligned on the first spawn (its first view is one tile);
every tile holding a cell not yet seen gets a representative (its open, to-be-seen cell nearest the tile's
centre), and one agent walks from the first spawn to the nearest representative of a tile that still holds
an unseen cell (breadth-first over open cells), marking everything its view passes over on the way, until
every cell is seen. The result is the walk's length: a full-knowledge nearest-neighbour tour of views.

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
    world = geometry.world
    starts = [a.position for a in world.agents]
    from_spawns = geometry.bfs(starts)
    reach = target_reach(geometry, from_spawns, targets)
    if reach is None or reach >= UNREACHABLE:
        return 0, starts[0]
    stride = world.stride
    # Tiles aligned so the first spawn's view is tile (0, 0).
    row0, col0 = divmod(starts[0], stride)
    row0, col0 = row0 - VIEW_RADIUS, col0 - VIEW_RADIUS
    tile_of = {
        cell: ((cell // stride - row0) // VIEW_SIZE, (cell % stride - col0) // VIEW_SIZE)
        for cell, steps in enumerate(from_spawns)
        if steps <= reach
    }
    left: dict[tuple[int, int], int] = {}
    for tile in tile_of.values():
        left[tile] = left.get(tile, 0) + 1

    def look(position: int) -> None:
        row, col = divmod(position, stride)
        for r in range(row - VIEW_RADIUS, row + VIEW_RADIUS + 1):
            base = r * stride
            for c in range(col - VIEW_RADIUS, col + VIEW_RADIUS + 1):
                tile = tile_of.pop(base + c, None)
                if tile is not None:
                    left[tile] -= 1

    for start in starts:
        look(start)
    # Each tile's representative: its unseen cell nearest the tile's centre (ties: the lowest position).
    representative: dict[int, tuple[int, int]] = {}
    chosen: dict[tuple[int, int], tuple[int, int]] = {}
    for cell, (tr, tc) in tile_of.items():
        centre_r, centre_c = row0 + tr * VIEW_SIZE + VIEW_RADIUS, col0 + tc * VIEW_SIZE + VIEW_RADIUS
        key = (abs(cell // stride - centre_r) + abs(cell % stride - centre_c), cell)
        if (tr, tc) not in chosen or key < chosen[(tr, tc)]:
            chosen[(tr, tc)] = key
    for tile, (_, cell) in chosen.items():
        representative[cell] = tile
    walkable = [steps < UNREACHABLE for steps in from_spawns]
    deltas = geometry.deltas
    here, walked = starts[0], 0
    while tile_of and representative:
        parent = {here: here}
        queue = deque([here])
        found = -1
        while queue:
            cell = queue.popleft()
            if cell in representative and left[representative[cell]] > 0:
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
        del representative[found]
        here = found
    return walked, here
