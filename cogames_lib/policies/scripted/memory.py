"""A dead-reckoned map memory built from egocentric observations only.

Coordinates are relative to the agent's spawn, shifted by `ORIGIN` so they index a fixed array big
enough for any diagnostic map. The memory keeps, per cell: what it is (unknown, empty, wall or a station
kind) and the last seen station state (clipped, uses left, stock). Other agents are kept from the
current view only: they move, so an old sighting is no obstacle.

The map's edge: the observation shows cells outside the map as walls, so standing within
`VIEW_RADIUS - 1` cells of the map's border wall the agent sees a band of at least `EDGE_BAND` full wall
rows (or columns) reaching the edge of its view. Such a band marks where the map ends on that side
(`edge`): what lies beyond is no map, and the frontier does not count it as unknown to be seen. A band of
one row is no evidence (a room's wall seen at the view's rim looks the same). Solid rock inside a map
(corridors cut through walls) shows the same band, so an edge is only a belief: it is dropped as soon as
an open cell is seen beyond it, and a band is never read as an edge with an open cell already known beyond.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cogames_lib.cvc.observation import CHANNEL, OBJECT_CHANNELS, VIEW_RADIUS, VIEW_SIZE

UNKNOWN, EMPTY, WALL = 0, 1, 2
STATION_NAMES: tuple[str, ...] = tuple(name for name in OBJECT_CHANNELS if name not in ("wall", "agent"))
STATION_CODE: dict[str, int] = {name: 3 + i for i, name in enumerate(STATION_NAMES)}
FIRST_STATION_CODE = 3
EDGE_BAND = 2  # full wall rows (columns) at the view's rim that show the map's edge (see the docstring)

SIZE = 352  # twice the largest map side the hard generator draws (170), plus the view radius on both sides
ORIGIN = SIZE // 2

# Object channel -> cell code minus EMPTY, so one dot product decodes the whole window.
_CODE_OFFSETS = np.array(
    [
        WALL - EMPTY if name == "wall" else 0 if name == "agent" else STATION_CODE[name] - EMPTY
        for name in OBJECT_CHANNELS
    ],
    dtype=np.int16,
)
_AGENT, _VIBE = CHANNEL["agent"], CHANNEL["agent_vibe"]
_CLIPPED, _USES, _STOCK = CHANNEL["clipped"], CHANNEL["uses_left"], CHANNEL["stock"]


class MapMemory:
    """What one agent knows of the map. `forget=True` keeps only the current view (the memory ablation)."""

    def __init__(self, forget: bool = False) -> None:
        self.forget = forget
        self.kind = np.zeros((SIZE, SIZE), dtype=np.int8)
        self.clipped = np.zeros((SIZE, SIZE), dtype=np.uint8)
        self.uses_left = np.zeros((SIZE, SIZE), dtype=np.uint8)
        self.stock = np.zeros((SIZE, SIZE), dtype=np.uint8)
        self.stations: dict[int, set[tuple[int, int]]] = {code: set() for code in STATION_CODE.values()}
        self.agents: dict[tuple[int, int], int] = {}  # visible other agents: cell -> vibe index
        self.bounds = [ORIGIN, ORIGIN, ORIGIN, ORIGIN]  # known rows [r0, r1), cols [c0, c1)
        self.version = 0  # bumped whenever a wall or station appears where it was not known
        # Inferred map edge: rows < edge[0] or >= edge[1], cols < edge[2] or >= edge[3] lie outside the map.
        self.edge = [0, SIZE, 0, SIZE]
        self.open_box = [SIZE, 0, SIZE, 0]  # rows [r0, r1), cols [c0, c1) holding every open cell seen

    def update(self, grid: np.ndarray, row: int, col: int) -> None:
        """Write the window centred on (row, col) into the memory."""
        r0, c0 = row - VIEW_RADIUS, col - VIEW_RADIUS
        r1, c1 = r0 + VIEW_SIZE, c0 + VIEW_SIZE
        window, changed = _decode(grid, _CODE_OFFSETS, self.kind[r0:r1, c0:c1], EMPTY, WALL)
        if self.forget:
            self.kind.fill(UNKNOWN)
            self.edge, self.open_box = [0, SIZE, 0, SIZE], [SIZE, 0, SIZE, 0]
            for cells in self.stations.values():
                cells.clear()
            self.bounds = [r0, r1, c0, c1]
            self.version += 1
        else:
            # Newly known obstacles invalidate cached plans; newly known empty cells never do.
            if changed:
                self.version += 1
            bounds = self.bounds
            bounds[0], bounds[1] = min(bounds[0], r0), max(bounds[1], r1)
            bounds[2], bounds[3] = min(bounds[2], c0), max(bounds[3], c1)
        self.kind[r0:r1, c0:c1] = window
        self._see_edge(window == WALL, r0, c0)
        self.clipped[r0:r1, c0:c1] = grid[_CLIPPED]
        self.uses_left[r0:r1, c0:c1] = grid[_USES]
        self.stock[r0:r1, c0:c1] = grid[_STOCK]
        station_rows, station_cols = np.nonzero(window >= FIRST_STATION_CODE)
        for r, c in zip(station_rows.tolist(), station_cols.tolist(), strict=True):
            self.stations[int(window[r, c])].add((r + r0, c + c0))
        agent_rows, agent_cols = np.nonzero(grid[_AGENT])
        vibes = grid[_VIBE]
        self.agents = {
            (r + r0, c + c0): int(vibes[r, c]) - 1
            for r, c in zip(agent_rows.tolist(), agent_cols.tolist(), strict=True)
            if (r, c) != (VIEW_RADIUS, VIEW_RADIUS)
        }

    def _see_edge(self, walls: np.ndarray, r0: int, c0: int) -> None:
        """Drop an edge belief an open cell contradicts; narrow `edge` where the view shows a wall band of
        `EDGE_BAND` or more at its rim and no open cell is known beyond it (compiled: `_edge_from_view`)."""
        (e0, e1, e2, e3), (s0, s1, s2, s3) = self.edge, self.open_box
        result = _edge_from_view(walls, r0, c0, e0, e1, e2, e3, s0, s1, s2, s3, EDGE_BAND, SIZE)
        self.edge, self.open_box = list(result[:4]), list(result[4:])

    def known(self, name: str) -> set[tuple[int, int]]:
        return self.stations[STATION_CODE[name]]

    def is_free(self, cell: tuple[int, int]) -> bool:
        """Walkable as far as we know (unknown counts as free: optimistic planning)."""
        return self.kind[cell] <= EMPTY


@njit(cache=True)
def _decode(grid, offsets, old, empty, wall):
    """The window's cell codes (`EMPTY` plus the code offset of its object channels, as int8) and whether a
    wall or station appears where `old` (the memory's cells there) showed something else."""
    size = grid.shape[1]
    window = np.empty((size, size), np.int8)
    changed = False
    for i in range(size):
        for j in range(size):
            code = empty
            for channel in range(offsets.shape[0]):
                code += offsets[channel] * grid[channel, i, j]
            window[i, j] = code
            if window[i, j] >= wall and old[i, j] != window[i, j]:
                changed = True
    return window, changed


@njit(cache=True)
def _edge_from_view(walls, r0, c0, e0, e1, e2, e3, s0, s1, s2, s3, band, size):
    """`MapMemory._see_edge` on plain numbers: the new (edge, open box) after a view whose walls are `walls`
    (its top-left cell at (r0, c0)). A band is the count of full wall rows (columns) from the view's rim,
    0 when the whole view is walls (no view shows that, so no evidence)."""
    rows, cols = walls.shape
    full_rows = np.ones(rows, np.bool_)
    full_cols = np.ones(cols, np.bool_)
    for i in range(rows):
        for j in range(cols):
            if not walls[i, j]:
                full_rows[i] = False
                full_cols[j] = False
    first_row, last_row, first_col, last_col = -1, -1, -1, -1
    for i in range(rows):
        if not full_rows[i]:
            if first_row < 0:
                first_row = i
            last_row = i
    for j in range(cols):
        if not full_cols[j]:
            if first_col < 0:
                first_col = j
            last_col = j
    s0, s1 = min(s0, r0 + first_row), max(s1, r0 + last_row + 1)
    s2, s3 = min(s2, c0 + first_col), max(s3, c0 + last_col + 1)
    if s0 < e0:
        e0 = 0
    if s1 > e1:
        e1 = size
    if s2 < e2:
        e2 = 0
    if s3 > e3:
        e3 = size
    top, bottom = _leading(full_rows, False), _leading(full_rows, True)
    left, right = _leading(full_cols, False), _leading(full_cols, True)
    if top >= band and r0 + top - 1 <= s0:
        e0 = max(e0, r0 + top - 1)
    if bottom >= band and r0 + rows - bottom + 1 >= s1:
        e1 = min(e1, r0 + rows - bottom + 1)
    if left >= band and c0 + left - 1 <= s2:
        e2 = max(e2, c0 + left - 1)
    if right >= band and c0 + cols - right + 1 >= s3:
        e3 = min(e3, c0 + cols - right + 1)
    return e0, e1, e2, e3, s0, s1, s2, s3


@njit(cache=True)
def _leading(full, backwards):
    """How many leading entries of `full` (from the end when `backwards`) are true; 0 when all are."""
    n = full.shape[0]
    for k in range(n):
        if not full[n - 1 - k if backwards else k]:
            return k
    return 0
