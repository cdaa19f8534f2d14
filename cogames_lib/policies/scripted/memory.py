"""A dead-reckoned map memory built from egocentric observations only.

Coordinates are relative to the agent's spawn, shifted by `ORIGIN` so they index a fixed array big
enough for any diagnostic map. The memory keeps, per cell: what it is (unknown, empty, wall or a station
kind) and the last seen station state (clipped, uses left, stock). Other agents are kept from the
current view only: they move, so an old sighting is no obstacle.
"""

from __future__ import annotations

import numpy as np

from cogames_lib.cvc.observation import CHANNEL, OBJECT_CHANNELS, VIEW_RADIUS, VIEW_SIZE

UNKNOWN, EMPTY, WALL = 0, 1, 2
STATION_NAMES: tuple[str, ...] = tuple(name for name in OBJECT_CHANNELS if name not in ("wall", "agent"))
STATION_CODE: dict[str, int] = {name: 3 + i for i, name in enumerate(STATION_NAMES)}
FIRST_STATION_CODE = 3

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

    def update(self, grid: np.ndarray, row: int, col: int) -> None:
        """Write the window centred on (row, col) into the memory."""
        r0, c0 = row - VIEW_RADIUS, col - VIEW_RADIUS
        r1, c1 = r0 + VIEW_SIZE, c0 + VIEW_SIZE
        window = (EMPTY + _CODE_OFFSETS @ grid[:_N_OBJECTS].reshape(_N_OBJECTS, -1)).astype(np.int8)
        window = window.reshape(VIEW_SIZE, VIEW_SIZE)
        if self.forget:
            self.kind.fill(UNKNOWN)
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

    def known(self, name: str) -> set[tuple[int, int]]:
        return self.stations[STATION_CODE[name]]

    def is_free(self, cell: tuple[int, int]) -> bool:
        """Walkable as far as we know (unknown counts as free: optimistic planning)."""
        return self.kind[cell] <= EMPTY
