"""Path planning over the map memory: BFS (optimistic about unknown cells), distance fields, the greedy
ablation. Frontier choice for exploration lives in `frontier.py`.

The BFS runs on the known bounding box grown by one cell, so unknown cells at the edge are reachable
(that is what frontier exploration walks into) while the search never floods the empty memory array.
Positions are (row, col) tuples in memory coordinates; a path excludes the start cell.
"""

from __future__ import annotations

import random
from collections.abc import Collection

import numpy as np
from numba import njit

from cogames_lib.cvc.grid_search import bfs_distances
from cogames_lib.policies.scripted.memory import EMPTY, UNKNOWN, MapMemory

Cell = tuple[int, int]
# (action index, row delta, col delta) in `rules.MOVES` order: north, south, west, east.
STEPS: tuple[tuple[int, int, int], ...] = ((1, -1, 0), (2, 1, 0), (3, 0, -1), (4, 0, 1))


def move_action(start: Cell, target: Cell) -> int:
    """The move action that goes from `start` to the orthogonally adjacent `target`."""
    dr, dc = target[0] - start[0], target[1] - start[1]
    for action, sr, sc in STEPS:
        if (sr, sc) == (dr, dc):
            return action
    raise ValueError(f"{target} is not next to {start}")


def neighbours(cell: Cell) -> list[Cell]:
    return [(cell[0] + dr, cell[1] + dc) for _, dr, dc in STEPS]


def bfs(
    memory: MapMemory,
    start: Cell,
    goals: Collection[Cell] | None,
    blocked: Collection[Cell] = (),
    step_order: tuple[int, ...] = (0, 1, 2, 3),
    rng: random.Random | None = None,
    known_only: bool = False,
) -> list[Cell] | None:
    """Shortest path from `start` to the nearest goal cell (to the nearest unknown cell if `goals` is None).

    Walkable: known-empty and unknown cells (known-empty only with `known_only`) not in `blocked`. Goals
    must be walkable to be reached.
    `step_order` is a per-agent permutation of the four directions: ties break differently per agent.
    With `rng`, the goal is drawn among every goal at the smallest distance (so exploring agents
    do not all drift the same way).
    """
    r0, r1, c0, c1 = memory.bounds
    r0, r1, c0, c1 = r0 - 1, r1 + 1, c0 - 1, c1 + 1
    width = c1 - c0
    box = memory.kind[r0:r1, c0:c1]
    walkable = ((box == EMPTY) if known_only else (box <= EMPTY)).ravel()
    for r, c in blocked:
        if r0 <= r < r1 and c0 <= c < c1:
            walkable[(r - r0) * width + (c - c0)] = False
    if goals is None:
        is_goal = (box == UNKNOWN).ravel()
    else:
        is_goal = np.zeros(walkable.shape[0], np.bool_)
        inside = [(r - r0) * width + (c - c0) for r, c in goals if r0 <= r < r1 and c0 <= c < c1]
        if not inside:
            return None
        is_goal[inside] = True
    if not (r0 <= start[0] < r1 and c0 <= start[1] < c1):
        return None
    source = (start[0] - r0) * width + (start[1] - c0)
    found, ties, parent = _layered_search(
        walkable, is_goal, width, source, np.asarray(step_order, np.int64), rng is not None
    )
    if ties.size:  # with `rng`: every goal of the nearest layer, in the order the search met them
        found = rng.choice(ties.tolist()) if rng is not None else int(ties[0])
    if found < 0:
        return None
    path = []
    while found != source:
        path.append((found // width + r0, found % width + c0))
        found = int(parent[found])
    path.reverse()
    return path


@njit(cache=True)
def box_step(here, move, width, size):
    """One move (0-3: north, south, west, east) from flat cell `here` of a row-major box of `width` columns
    and `size` cells: (the cell it reaches, whether that cell is in the box). A west or east move is checked
    by the column, or it would wrap to the neighbouring row. The one move rule of the compiled searches."""
    if move == 0:
        return here - width, here >= width
    if move == 1:
        return here + width, here + width < size
    col = here % width
    if move == 2:
        return here - 1, col > 0
    return here + 1, col < width - 1


@njit(cache=True)
def _layered_search(walkable, is_goal, width, source, step_order, all_ties):
    """The search of `bfs`, layer by layer from `source`, the moves in `step_order` (indices into north,
    south, west, east): (the first goal met or -1, the goals of the first layer that holds any when
    `all_ties` (else empty), each cell's parent (-2: unvisited))."""
    size = walkable.shape[0]
    parent = np.full(size, -2, np.int64)
    parent[source] = -1
    frontier = np.empty(size, np.int64)
    following = np.empty(size, np.int64)
    ties = np.empty(size, np.int64)
    frontier[0] = source
    count, tie_count, found = 1, 0, -1
    while count and found < 0:
        next_count = 0
        for k in range(count):
            here = frontier[k]
            for move in step_order:
                there, inside = box_step(here, move, width, size)
                if inside and parent[there] == -2 and walkable[there]:
                    parent[there] = here
                    if is_goal[there]:
                        if not all_ties:
                            found = there
                            break
                        ties[tie_count] = there
                        tie_count += 1
                    following[next_count] = there
                    next_count += 1
            if found >= 0:
                break
        if tie_count:
            break
        frontier, following = following, frontier
        count = next_count
    return found, ties[:tie_count].copy(), parent


class DistanceField:
    """True path lengths (moves over known-empty and unknown cells) from a set of source cells."""

    def __init__(self, dist: np.ndarray, row0: int, col0: int) -> None:
        self.dist, self.row0, self.col0 = dist, row0, col0

    def get(self, cell: Cell) -> int | None:
        """Moves from the nearest source to `cell`; None if it is unreachable or outside the search box."""
        r, c = cell[0] - self.row0, cell[1] - self.col0
        if not (0 <= r < self.dist.shape[0] and 0 <= c < self.dist.shape[1]):
            return None
        value = int(self.dist[r, c])
        return None if value < 0 else value


def distance_field(memory: MapMemory, sources: Collection[Cell]) -> DistanceField:
    """Multi-source BFS over the search box of `bfs` (walkable: known-empty and unknown cells).

    One search answers "how far is the nearest charger" from every cell at once, so energy planning
    uses true path lengths (a charger behind a wall is far) without one search per question. Compiled
    (`cvc.grid_search`): the policy asks for several fields a step on large maps.
    """
    r0, r1, c0, c1 = memory.bounds
    r0, r1, c0, c1 = r0 - 1, r1 + 1, c0 - 1, c1 + 1
    walkable = memory.kind[r0:r1, c0:c1] <= EMPTY
    height, width = walkable.shape
    # Bordered by cells that cannot be entered, so that no move leaves the box (`grid_search`'s contract).
    passable = np.zeros((height + 2, width + 2), np.bool_)
    passable[1:-1, 1:-1] = walkable
    starts = [
        (r - r0 + 1) * (width + 2) + (c - c0 + 1)
        for r, c in sources
        if r0 <= r < r1 and c0 <= c < c1 and walkable[r - r0, c - c0]
    ]
    deltas = np.array([-(width + 2), width + 2, -1, 1], np.int64)
    far = np.iinfo(np.int64).max
    dist = bfs_distances(passable.ravel(), np.array(starts, np.int64), deltas, far)
    dist = dist.reshape(height + 2, width + 2)[1:-1, 1:-1]
    return DistanceField(np.where(dist == far, -1, dist).astype(np.int32), r0, c0)


def greedy_step(
    memory: MapMemory, start: Cell, goal: Cell, blocked: Collection[Cell], rng: random.Random
) -> Cell | None:
    """The pathfinding ablation: a straight-line step that reduces the distance to `goal`, if one is free."""
    dr, dc = goal[0] - start[0], goal[1] - start[1]
    options = []
    if dr:
        options.append((start[0] + (1 if dr > 0 else -1), start[1]))
    if dc:
        options.append((start[0], start[1] + (1 if dc > 0 else -1)))
    if abs(dc) > abs(dr):
        options.reverse()
    for cell in options:
        if memory.is_free(cell) and cell not in blocked:
            return cell
    # Stuck against an obstacle: a random free step, the best a planner without search can do.
    free = [cell for cell in neighbours(start) if memory.is_free(cell) and cell not in blocked]
    return rng.choice(free) if free else None
