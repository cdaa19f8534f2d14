"""The scripted policy's grid path search against a plain BFS, on thousands of random grids.

The grid under test is exactly the search box (`MapMemory.bounds` grown by one cell), so every edge of
the box is a grid edge: a move off any side must be refused, never wrapped to the next row.
"""

from __future__ import annotations

import itertools
from collections import deque

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogames_lib.policies.scripted.memory import EMPTY, ORIGIN, UNKNOWN, WALL, MapMemory
from cogames_lib.policies.scripted.planning import bfs, distance_field

Cell = tuple[int, int]
EXAMPLES = 3000  # fixed budget, derandomized: the same grids on every run


def _memory(rows: list[list[int]]) -> MapMemory:
    memory = MapMemory()
    height, width = len(rows), len(rows[0])
    for r, row in enumerate(rows):
        memory.kind[ORIGIN + r, ORIGIN : ORIGIN + width] = row
    # bfs searches the bounds grown by one cell: make that exactly the grid.
    memory.bounds = [ORIGIN + 1, ORIGIN + height - 1, ORIGIN + 1, ORIGIN + width - 1]
    return memory


def _plain_bfs(rows: list[list[int]], start: Cell, goals: set[Cell] | None) -> int | None:
    """Steps to the nearest goal (a cell other than the start), or None; goals None = unknown cells."""
    height, width = len(rows), len(rows[0])
    seen = {start: 0}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if not (0 <= nr < height and 0 <= nc < width) or (nr, nc) in seen:
                continue
            if rows[nr][nc] > EMPTY:
                continue
            seen[(nr, nc)] = seen[(r, c)] + 1
            if (nr, nc) in goals if goals is not None else rows[nr][nc] == UNKNOWN:
                return seen[(nr, nc)]
            queue.append((nr, nc))
    return None


@st.composite
def grids(draw: st.DrawFn) -> tuple[list[list[int]], Cell, list[Cell]]:
    height = draw(st.integers(3, 13))
    width = draw(st.integers(3, 13))
    cells = st.sampled_from([EMPTY, EMPTY, EMPTY, WALL, UNKNOWN])
    rows = [[draw(cells) for _ in range(width)] for _ in range(height)]
    anywhere = st.tuples(st.integers(0, height - 1), st.integers(0, width - 1))
    start = draw(anywhere)
    goals = draw(st.lists(anywhere, min_size=1, max_size=3))
    for goal in goals:  # goals are stations' approach cells: walkable
        rows[goal[0]][goal[1]] = EMPTY
    return rows, start, goals


def _check_path(rows: list[list[int]], start: Cell, path: list[Cell]) -> None:
    steps = [start, *path]
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in itertools.pairwise(steps))
    assert all(0 <= r < len(rows) and 0 <= c < len(rows[0]) and rows[r][c] <= EMPTY for r, c in path)


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(grids(), st.permutations(range(4)))
def test_bfs_matches_a_plain_bfs(case: tuple[list[list[int]], Cell, list[Cell]], order: list[int]) -> None:
    rows, start, goals = case
    memory = _memory(rows)
    shift = [(r + ORIGIN, c + ORIGIN) for r, c in goals]
    found = bfs(memory, (start[0] + ORIGIN, start[1] + ORIGIN), shift, step_order=tuple(order))
    expected = _plain_bfs(rows, start, set(goals))
    if expected is None:
        assert found is None
        return
    assert found is not None and len(found) == expected
    local = [(r - ORIGIN, c - ORIGIN) for r, c in found]
    assert local[-1] in goals
    _check_path(rows, start, local)


@settings(
    max_examples=EXAMPLES // 3, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck)
)
@given(grids())
def test_bfs_to_the_nearest_unknown_matches_a_plain_bfs(
    case: tuple[list[list[int]], Cell, list[Cell]],
) -> None:
    rows, start, _ = case
    found = bfs(_memory(rows), (start[0] + ORIGIN, start[1] + ORIGIN), None)
    expected = _plain_bfs(rows, start, None)
    assert (None if found is None else len(found)) == expected


@settings(
    max_examples=EXAMPLES // 3, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck)
)
@given(grids())
def test_distance_field_matches_a_plain_bfs(case: tuple[list[list[int]], Cell, list[Cell]]) -> None:
    """The energy planner's distance field: every cell's true path length from the sources."""
    rows, _, goals = case
    field = distance_field(_memory(rows), [(r + ORIGIN, c + ORIGIN) for r, c in goals])
    for r, c in itertools.product(range(len(rows)), range(len(rows[0]))):
        if rows[r][c] > EMPTY:
            continue
        expected = 0 if (r, c) in goals else _plain_bfs(rows, (r, c), set(goals))
        assert field.get((r + ORIGIN, c + ORIGIN)) == expected


def test_three_by_five_grid_has_its_path() -> None:
    """The reported case: a 3x5 grid whose only way runs along the right-hand column."""
    rows = [
        [EMPTY, EMPTY, EMPTY, EMPTY, EMPTY],
        [WALL, WALL, WALL, WALL, EMPTY],
        [EMPTY, EMPTY, EMPTY, EMPTY, EMPTY],
    ]
    path = bfs(_memory(rows), (ORIGIN, ORIGIN), [(ORIGIN + 2, ORIGIN)])
    assert path is not None and len(path) == 10
