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
_N_OBJECTS = len(OBJECT_CHANNELS)
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
        window = (EMPTY + _CODE_OFFSETS @ grid[:_N_OBJECTS].reshape(_N_OBJECTS, -1)).astype(np.int8)
        window = window.reshape(VIEW_SIZE, VIEW_SIZE)
        if self.forget:
            self.kind.fill(UNKNOWN)
            self.edge, self.open_box = [0, SIZE, 0, SIZE], [SIZE, 0, SIZE, 0]
            for cells in self.stations.values():
                cells.clear()
            self.bounds = [r0, r1, c0, c1]
            self.version += 1
        else:
            old = self.kind[r0:r1, c0:c1]
            # Newly known obstacles invalidate cached plans; newly known empty cells never do.
            if ((window >= WALL) & (old != window)).any():
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
        `EDGE_BAND` or more at its rim and no open cell is known beyond it."""
        edge, seen = self.edge, self.open_box
        full_rows, full_cols = np.asarray(walls.all(axis=1)), np.asarray(walls.all(axis=0))
        open_rows, open_cols = np.flatnonzero(~full_rows), np.flatnonzero(~full_cols)
        seen[0], seen[1] = min(seen[0], r0 + int(open_rows[0])), max(seen[1], r0 + int(open_rows[-1]) + 1)
        seen[2], seen[3] = min(seen[2], c0 + int(open_cols[0])), max(seen[3], c0 + int(open_cols[-1]) + 1)
        if seen[0] < edge[0]:
            edge[0] = 0
        if seen[1] > edge[1]:
            edge[1] = SIZE
        if seen[2] < edge[2]:
            edge[2] = 0
        if seen[3] > edge[3]:
            edge[3] = SIZE
        top, bottom = _band(full_rows), _band(full_rows[::-1])
        left, right = _band(full_cols), _band(full_cols[::-1])
        if top >= EDGE_BAND and r0 + top - 1 <= seen[0]:
            edge[0] = max(edge[0], r0 + top - 1)
        if bottom >= EDGE_BAND and r0 + VIEW_SIZE - bottom + 1 >= seen[1]:
            edge[1] = min(edge[1], r0 + VIEW_SIZE - bottom + 1)
        if left >= EDGE_BAND and c0 + left - 1 <= seen[2]:
            edge[2] = max(edge[2], c0 + left - 1)
        if right >= EDGE_BAND and c0 + VIEW_SIZE - right + 1 >= seen[3]:
            edge[3] = min(edge[3], c0 + VIEW_SIZE - right + 1)

    def known(self, name: str) -> set[tuple[int, int]]:
        return self.stations[STATION_CODE[name]]

    def is_free(self, cell: tuple[int, int]) -> bool:
        """Walkable as far as we know (unknown counts as free: optimistic planning)."""
        return self.kind[cell] <= EMPTY


def _band(full: np.ndarray) -> int:
    """How many leading entries of `full` (rows or columns that are all wall, from the view's rim) are true."""
    return 0 if full.all() else int(np.argmin(full))  # all wall: no view shows that, so no evidence
