"""Grid operations of the hard-map generator: mirror, grow, baffle, scatter stations.

Pure functions over a mutable list of rows of object names (no engine, no certification). `hard_maps`
composes them and certifies the result with the oracle's bound.

- growing copies a station-free row or column next to itself: rooms grow and corridors lengthen while the
  topology and every station stay the base's. Which rows and columns, and how many of each, come from the
  draw's rng, so a map may end up tall, wide or both (`grow`);
- a baffle walls off the longest open run of an open column except one end cell (a wall between the agents
  and a target, with one way round); a serpentine does so every few columns with the gaps at alternate
  ends (`add_serpentine`: lanes);
- scattered stations (extra chargers, distractor stations) go only on open cells that an agent can walk to
  from a spawn and whose eight neighbours are all open: such a cell can never cut a way (its ring of
  neighbours stays connected), never touches a spawn or another station, and never sits in a pocket that
  a baffle or a lane walled off.
"""

from __future__ import annotations

import random

import numpy as np

from cogames_lib.cvc.maps import FLOOR_KINDS, SPAWN

Cells = list[list[str]]
BETWEEN_STATIONS = 0.7


def copyable(line: tuple[str, ...] | list[str]) -> bool:
    """A row or column of floor and walls only, with some floor, may be copied."""
    return set(line) <= FLOOR_KINDS and "empty" in line


def transpose(cells: Cells) -> Cells:
    return [list(column) for column in zip(*cells, strict=True)]


def mirror(cells: Cells, rng: random.Random) -> Cells:
    """Left-right and top-bottom, each with probability 1/2."""
    if rng.random() < 0.5:
        cells = [row[::-1] for row in cells]
    if rng.random() < 0.5:
        cells = cells[::-1]
    return cells


def _copy_rows(cells: Cells, count: int, rng: random.Random, frozen: list[bool]) -> Cells:
    """Copy `count` random copyable rows next to themselves; `frozen[r]` rows are never copied (the list
    is kept in step with the rows). With probability `BETWEEN_STATIONS` the row is drawn from those between
    the first and the last row holding a station or spawn (spreading the stations apart lengthens every
    trip), otherwise from all (open margins grow into large rooms)."""
    marked = [r for r, row in enumerate(cells) if not copyable(row) and set(row) - FLOOR_KINDS]
    first, last = (marked[0], marked[-1]) if marked else (0, len(cells))
    # Rows are only ever inserted as copies of copyable rows, so each row's test is made once and kept in
    # step with the rows (the map generator's hottest loop tested every row again for every copy).
    can_copy = [copyable(row) for row in cells]
    for _ in range(count):
        candidates = [r for r in range(1, len(cells) - 1) if not frozen[r] and can_copy[r]]
        inner = [r for r in candidates if first < r < last]
        if not candidates:
            break
        row = rng.choice(inner if inner and rng.random() < BETWEEN_STATIONS else candidates)
        cells.insert(row, list(cells[row]))
        frozen.insert(row, False)
        can_copy.insert(row, True)
        first, last = first + (row <= first), last + (row <= last)
    return cells


def between_spawns_and(cells: Cells, names: tuple[str, ...]) -> tuple[list[bool], list[bool]]:
    """Rows and columns strictly between each object of `names` and its nearest spawn: copying one of them
    would push the object away from the spawns (used to keep `in_view` objects in view while growing)."""
    rows, cols = [False] * len(cells), [False] * len(cells[0])
    spawns = [(r, c) for r, row in enumerate(cells) for c, name in enumerate(row) if name == SPAWN]
    for r, row in enumerate(cells):
        for c, name in enumerate(row):
            if name in names and spawns:
                sr, sc = min(spawns, key=lambda s: max(abs(s[0] - r), abs(s[1] - c)))
                for between in range(min(r, sr) + 1, max(r, sr)):
                    rows[between] = True
                for between in range(min(c, sc) + 1, max(c, sc)):
                    cols[between] = True
    return rows, cols


def grow(cells: Cells, rows: int, cols: int, rng: random.Random, keep_near: tuple[str, ...] = ()) -> Cells:
    """Copy `rows` station-free rows and `cols` station-free columns (fewer where none is left), none of
    them between a `keep_near` object and its nearest spawn."""
    frozen_rows, frozen_cols = between_spawns_and(cells, keep_near)
    cells = _copy_rows([list(row) for row in cells], rows, rng, frozen_rows)
    return transpose(_copy_rows(transpose(cells), cols, rng, frozen_cols))


def _wall_run(cells: Cells, column: int, gap_at_top: bool, gap: int = 1) -> bool:
    """Wall the longest open vertical run (at least 4 cells) of `column` except `gap` cells at its top or
    bottom; False when the column has no such run."""
    runs, start = [], None
    for r in range(len(cells) + 1):
        open_cell = r < len(cells) and cells[r][column] == "empty"
        if open_cell and start is None:
            start = r
        elif not open_cell and start is not None:
            runs.append((start, r))
            start = None
    runs = [run for run in runs if run[1] - run[0] >= 4]
    if not runs:
        return False
    top, bottom = max(runs, key=lambda run: run[1] - run[0])
    first, last = (top + gap, bottom) if gap_at_top else (top, bottom - gap)
    for r in range(first, last):
        cells[r][column] = "wall"
    return True


def add_baffle(cells: Cells, rng: random.Random) -> None:
    """Wall off the longest open vertical run of a random open column, except one end cell (the gap)."""
    height, width = len(cells), len(cells[0])
    columns = [c for c in range(2, width - 2) if copyable([cells[r][c] for r in range(height)])]
    rng.shuffle(columns)
    for column in columns[:4]:
        if _wall_run(cells, column, rng.random() < 0.5):
            return


def add_serpentine(cells: Cells, rng: random.Random, spacing: int) -> int:
    """Walls across the map at least `spacing` columns apart (station- and spawn-free columns only), each
    leaving its gap at the other end from the last: a large open room becomes lanes walked one after
    another, whose walls the view sees over (a long way round, not a longer search). The gaps are two cells
    wide, so two agents can pass each other in them. Returns how many walls were drawn."""
    width = len(cells[0])
    columns = [c for c in range(2, width - 2) if copyable([row[c] for row in cells])]
    if not columns:
        return 0
    # The first wall stands half a spacing or more from the first open column (no one-wide first lane).
    drawn, last, gap_at_top = 0, columns[0] + rng.randint(spacing // 2, spacing) - spacing, rng.random() < 0.5
    for column in columns:
        if column > columns[-1] - spacing // 2:
            break  # no one-wide last lane either
        if column - last >= spacing and _wall_run(cells, column, gap_at_top, gap=2):
            drawn, last, gap_at_top = drawn + 1, column, not gap_at_top
    return drawn


def _clear_around(cells: Cells, r: int, c: int) -> bool:
    """The cell and its eight neighbours are open floor and no spawn is within two cells."""
    height, width = len(cells), len(cells[0])
    if not (2 <= r < height - 2 and 2 <= c < width - 2):
        return False
    if any(cells[r + dr][c + dc] != "empty" for dr in (-1, 0, 1) for dc in (-1, 0, 1)):
        return False
    return not any(cells[r + dr][c + dc] == SPAWN for dr in range(-2, 3) for dc in range(-2, 3))


def _walkable_mask(names: np.ndarray) -> np.ndarray:
    """(height, width) bool: the cells of `names` (an object array of cell names) in a four-connected
    component of open cells and spawns that holds a spawn."""
    from scipy import ndimage  # only when a map is generated

    spawns = names == SPAWN
    labels, count = ndimage.label(spawns | (names == "empty"))  # the default structure: four neighbours
    holds_spawn = np.zeros(count + 1, dtype=bool)
    holds_spawn[labels[spawns]] = True  # spawns are never label 0 (the background)
    return holds_spawn[labels]


def walkable_from_spawns(cells: Cells) -> set[tuple[int, int]]:
    """The open cells (and spawns) an agent can walk to from some spawn (four-neighbour moves): the
    four-connected components of open cells that hold a spawn."""
    rows, cols = np.nonzero(_walkable_mask(np.array(cells, dtype=object)))
    return set(zip(rows.tolist(), cols.tolist(), strict=True))


def scatter(cells: Cells, names: list[str], rng: random.Random) -> int:
    """Place each of `names` on a random open cell clear all round that an agent can walk to (see the
    module docstring); returns how many were placed (fewer when the map has no such cell left)."""
    placed = 0
    grid = np.array(cells, dtype=object)
    rows, cols = np.nonzero(_walkable_mask(grid) & (grid == "empty"))  # row-major, as the shuffle expects
    open_cells = list(zip(rows.tolist(), cols.tolist(), strict=True))
    rng.shuffle(open_cells)
    pending = list(names)
    for r, c in open_cells:
        if not pending:
            break
        if _clear_around(cells, r, c):
            cells[r][c] = pending.pop()
            placed += 1
    return placed
