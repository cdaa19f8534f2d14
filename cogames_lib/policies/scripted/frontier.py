"""Frontier exploration: which unknown cell to walk to next, and the way there.

A frontier cell is an unknown cell next to a known-empty cell the agent can reach over known-empty
cells (an area glimpsed through a wall is no frontier until a known way leads there). The agent walks to
the frontier cell of most expected information per step:

    score = gain / (path length + TRAVEL_OVERHEAD + ORIGIN_WEIGHT x min(distance from the spawn, ORIGIN_REACH)
                   + SECTOR_PENALTY if the cell lies in a teammate's sector)

where gain counts the unknown cells of the 11 x 11 view centred on that cell (what standing there would
reveal; outside the known box everything is unknown, except beyond the map's edge where the agent has seen
it: `MapMemory.edge`, so the map's rim, whose view would also show what lies outside, is no richer than the
middle). So a large unseen room a few steps further beats the
strip of unknown cells next to the agent, and the search sweeps open rooms in wide lanes instead of row by
row near its start; in a corridor the cell straight ahead still has both the most gain and the shortest
way, so a corridor is walked to its end once. `TRAVEL_OVERHEAD` is added to every path length: at 0 (6 until
the seventh pass of issue 24, then 3, then 0 since 29 Nov, fourth) a pocket of one or two unknown cells at
hand is closed before the agent walks off to an opening that shows fewer unknown cells per step of the way,
instead of costing a walk back later (docs/cvc_scripted.md, "Issue 24, 29 Nov (fourth)": measured over
4,140 hard-tier tuning episodes; 1 and 2 failed 7% of the normal `unclip_craft` at one agent). The
breadth-first search stops once no farther cell could beat the best score (gain is at most 121). Ties go to the first cell in
row-major order: the choice is deterministic. The spawn term is small (a cell 40 away costs 2 steps more):
among frontier cells of about the same information per step it takes the one nearer the spawn, so the
search closes the strips it left beside its first lanes before it moves farther out (without it, a station
6-7 cells from the spawn, just between the first view and the first lane, was found last:
`unclip_preseed` took 170 of its 250 steps on average at 1 agent, 64 with it).

Sectors divide the search in a team: agent i owns the directions (north, east, south, west, counted from
its spawn) with index = i (mod N), so two agents split north/south from east/west and four agents take
one arm each of a radial map. Cells within `SHARED_RADIUS` (25) of the spawn belong to everyone, so the
two divisions of work do not overlap: sources farther than `behaviour.FAR_SOURCE` (30) go by sector (a
frontier cell 25 cells out shows cells up to 30 out), nearer ones by role, and near the spawn nobody
fetches my role's resource for me. With a radius of 2, 8 or 12-20 an agent searched its own sector first
while the extractor of its role stood 8-24 cells away in a teammate's (`unclip_preseed`, `multi_station`,
the normal `radial` map, whose arm ends lie 21-24 cells out: at 12-20 it lost episodes at 3 and 4 agents).
The price: on the generated long radials (arms of 20-40 cells) the agents no longer take different arms
from the start (tuning seeds 200000-200019 at 2 / 4 agents: 14 / 12 of 20 passed, 19 / 14 with a radius of
2).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cogames_lib.cvc.observation import VIEW_RADIUS, VIEW_SIZE
from cogames_lib.policies.scripted.memory import EMPTY, UNKNOWN, MapMemory
from cogames_lib.policies.scripted.planning import Cell, box_step

TRAVEL_OVERHEAD = 0  # steps added to every path length (see the module docstring; 3 until 29 Nov, fourth)
ORIGIN_WEIGHT = 0.05  # steps charged per cell of distance from the spawn (0.2 slowed far searches) ...
ORIGIN_REACH = 40  # ... counted up to this distance (far out, where the agent is matters, not the spawn)
SECTOR_PENALTY = 24  # extra steps charged for a frontier cell in a teammate's sector
SHARED_RADIUS = 25  # cells within this Manhattan distance of the spawn belong to every sector (see above)
OWN_RADIUS = 6  # an exclusive search (`frontier_target(exclusive=True)`) shares only this close a disk
DIRECTIONS = ("north", "east", "south", "west")
ALL_DIRECTIONS = frozenset(range(4))


def own_sector(agent_id: int, num_agents: int) -> frozenset[int]:
    """The direction indices (see `DIRECTIONS`) agent `agent_id` searches first; all four when alone."""
    if num_agents <= 1:
        return ALL_DIRECTIONS
    if num_agents >= 4:
        return frozenset({agent_id % 4})
    return frozenset(d for d in range(4) if d % num_agents == agent_id)


def direction_of(cell: Cell, origin: tuple[float, float]) -> int:
    """The sector direction index of `cell` as seen from `origin` (ties between axes go north/south)."""
    return int(_direction(float(cell[0] - origin[0]), float(cell[1] - origin[1])))


@njit(cache=True)
def _direction(dr, dc):
    """`direction_of` from the offset (rows, columns): the one definition, also used by the compiled search."""
    if abs(dr) >= abs(dc):
        return 0 if dr < 0 else 2
    return 3 if dc < 0 else 1


def view_gain(box: np.ndarray, edge: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """Per cell of `box` (memory kinds), how many unknown cells the view centred there would show.

    `edge` (top, bottom, left, right in box coordinates, see `MapMemory.edge`): cells outside it lie
    beyond the map's known edge and count for nothing."""
    pad = VIEW_RADIUS
    unknown = np.ones((box.shape[0] + 2 * pad, box.shape[1] + 2 * pad), dtype=np.int32)
    unknown[pad:-pad, pad:-pad] = box == UNKNOWN
    if edge is not None:
        top, bottom, left, right = (max(0, bound + pad) for bound in edge)
        unknown[:top] = 0
        unknown[bottom:] = 0
        unknown[:, :left] = 0
        unknown[:, right:] = 0
    total = np.zeros((unknown.shape[0] + 1, unknown.shape[1] + 1), dtype=np.int32)
    total[1:, 1:] = unknown.cumsum(0).cumsum(1)
    size = 2 * pad + 1
    return total[size:, size:] - total[:-size, size:] - total[size:, :-size] + total[:-size, :-size]


def frontier_target(
    memory: MapMemory,
    start: Cell,
    origin: Cell,
    sector: frozenset[int] = ALL_DIRECTIONS,
    blocked: frozenset[Cell] = frozenset(),
    centre: tuple[float, float] | None = None,
    exclusive: bool = False,
) -> tuple[Cell, list[Cell]] | None:
    """The frontier cell of most information per step (see the module docstring) and the path to it; None
    if no frontier is reachable (everything reachable is known). `centre`: the point sectors are counted
    from (the team's centre, see `Navigator.centre`; default `origin`, the spawn). `exclusive`: only
    frontier cells of `sector` (by the way out of the centre, see `exit_sectors`) or within `OWN_RADIUS`
    of the centre count; None once the own sector holds no reachable frontier cell (it is searched out)."""
    r0, r1, c0, c1 = memory.bounds
    r0, r1, c0, c1 = r0 - 1, r1 + 1, c0 - 1, c1 + 1
    width = c1 - c0
    if not (r0 <= start[0] < r1 and c0 <= start[1] < c1):
        return None
    box = memory.kind[r0:r1, c0:c1]
    open_cells = (box == EMPTY).ravel()
    walkable = open_cells.copy()
    e0, e1, e2, e3 = memory.edge
    # At least 1: the frontier cell itself is unknown, whatever the edge inference says around it.
    gains = np.maximum(view_gain(box, (e0 - r0, e1 - r0, e2 - c0, e3 - c0)), 1).ravel().astype(np.int64)
    for r, c in blocked:
        if r0 <= r < r1 and c0 <= c < c1:
            walkable[(r - r0) * width + (c - c0)] = False
    source = (start[0] - r0) * width + (start[1] - c0)
    centre_row, centre_col = origin if centre is None else centre
    exits = (
        exit_sectors(open_cells, width, (centre_row - r0, centre_col - c0))
        if exclusive
        else np.empty(0, np.int64)
    )
    best, parent = _frontier_search(
        walkable,
        (box == UNKNOWN).ravel(),
        gains,
        width,
        source,
        origin[0] - r0,
        origin[1] - c0,
        float(centre_row - r0),
        float(centre_col - c0),
        np.array([direction in sector for direction in range(4)], np.bool_),
        sector != ALL_DIRECTIONS,
        exclusive,
        exits,
        VIEW_SIZE * VIEW_SIZE,
        float(TRAVEL_OVERHEAD),
    )
    if best < 0:
        return None
    path = [best]
    while parent[path[-1]] != source:
        path.append(int(parent[path[-1]]))
    path.reverse()
    return (best // width + r0, best % width + c0), [(p // width + r0, p % width + c0) for p in path]


def exit_sectors(open_cells: np.ndarray, width: int, centre: tuple[float, float]) -> np.ndarray:
    """Per cell of a box (`open_cells`: known empty, row-major, `width` columns), the sector direction in
    which the shortest way from the centre's disk (Manhattan radius `OWN_RADIUS`) to it leaves the disk;
    -1 inside the disk and for cells not reachable from it. A room behind a corridor belongs to the
    sector the corridor leaves by, wherever the room lies: counted by the cell's own direction, a room
    north-east reached by a corridor going north was east, and the agent searching the east never
    found the corridor's way in (it starts north). Compiled (`_exit_labels`)."""
    return _exit_labels(np.asarray(open_cells, np.bool_), width, float(centre[0]), float(centre[1]))


@njit(cache=True)
def _exit_labels(open_cells, width, crow, ccol):
    """`exit_sectors`: a breadth-first search out of the disk, layer by layer in ascending cell order, the
    moves north, south, west, east; a cell takes its parent's label, or its own direction where the parent
    lies in the disk."""
    size = open_cells.shape[0]
    labels = np.full(size, -1, np.int64)
    seen = np.zeros(size, np.bool_)
    layer = np.empty(size, np.int64)
    following = np.empty(size, np.int64)
    count = 0
    for index in range(size):
        row, col = index // width, index % width
        if open_cells[index] and abs(row - crow) + abs(col - ccol) <= OWN_RADIUS:
            seen[index] = True
            layer[count] = index
            count += 1
    while count:
        next_count = 0
        for k in range(count):
            here = layer[k]
            for move in range(4):
                there, ok = box_step(here, move, width, size)
                if not ok or seen[there] or not open_cells[there]:
                    continue
                seen[there] = True
                label = labels[here]
                if label < 0:
                    label = _direction(there // width - crow, there % width - ccol)
                labels[there] = label
                following[next_count] = there
                next_count += 1
        layer, following = following, layer
        count = next_count
    return labels


@njit(cache=True)
def _frontier_search(
    walkable,
    unknown,
    gains,
    width,
    source,
    orow,
    ocol,
    crow,
    ccol,
    in_sector,
    divided,
    exclusive,
    exits,
    max_gain,
    overhead,
):
    """The breadth-first search of `frontier_target` over a box (row-major, `width` columns): (the best
    frontier cell or -1, each cell's parent, -2 where unvisited). Layer by layer, the four moves in the order
    north, south, west, east; it stops once no farther cell could beat the best score."""
    size = walkable.shape[0]
    parent = np.full(size, -2, np.int64)
    parent[source] = -1
    layer = np.empty(size, np.int64)
    following = np.empty(size, np.int64)
    layer[0] = source
    count, depth, best_score, best = 1, 0, 0.0, -1
    while count and max_gain / (depth + 1 + overhead) > best_score:  # the spawn term only adds
        next_count = 0
        for k in range(count):
            here = layer[k]
            for move in range(4):
                there, ok = box_step(here, move, width, size)
                if not ok or parent[there] != -2:
                    continue
                if unknown[there]:
                    parent[there] = here
                    row_t, col_t = there // width, there % width
                    away = abs(row_t - orow) + abs(col_t - ocol)
                    steps = depth + 1 + overhead + ORIGIN_WEIGHT * min(away, ORIGIN_REACH)
                    if exclusive:
                        way = exits[here]
                        if way < 0 and abs(row_t - crow) + abs(col_t - ccol) > OWN_RADIUS:
                            way = _direction(row_t - crow, col_t - ccol)
                        if way >= 0 and not in_sector[way]:
                            continue
                    elif (
                        divided
                        and abs(row_t - crow) + abs(col_t - ccol) > SHARED_RADIUS
                        and not in_sector[_direction(row_t - crow, col_t - ccol)]
                    ):
                        steps += SECTOR_PENALTY
                    score = gains[there] / steps
                    if score > best_score + 1e-9 or (abs(score - best_score) <= 1e-9 and there < best):
                        best_score, best = score, there
                elif walkable[there]:
                    parent[there] = here
                    following[next_count] = there
                    next_count += 1
        layer, following = following, layer
        count = next_count
        depth += 1
    return best, parent
