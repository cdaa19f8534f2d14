"""Full-knowledge geometry of a Cogs vs Clips world for the oracle: BFS distance fields to stations.

Reads the engine's state directly (`World`): allowed here, for the reference oracle and its lower bound
only; the policies under `cogames_lib.policies` never do. Distances ignore other agents (they move) and
count moves to a cell from which a station is used (an orthogonal neighbour), or, for the assembler's
chorus, any of its eight neighbours.
"""

from __future__ import annotations

import numpy as np

from cogames_lib.cvc.grid_search import bfs_distances
from cogames_lib.cvc.layout import CELL_KIND
from cogames_lib.cvc.world import EMPTY, World

UNREACHABLE = 10**6


class Geometry:
    """Distance fields of one world's layout, computed on demand and cached (the layout never changes)."""

    def __init__(self, world: World) -> None:
        self.world = world
        stride = world.stride
        self.deltas = (-stride, stride, -1, 1)  # by move action index - 1 (north, south, west, east)
        self.ring = world.ring
        self.stations_by_kind: dict[str, list[int]] = {}
        for position, station in world.stations.items():
            self.stations_by_kind.setdefault(station.kind, []).append(position)
        self._fields: dict[tuple, list[int]] = {}
        self._betweens: dict[tuple, int] = {}  # the bound asks the same legs for every order of a tour
        self._open = world.cells[CELL_KIND] == EMPTY
        # Open cells some agent can walk to: a station is used only from these. A station in a wall gap
        # has cells on both sides; the far side, if no agent can reach it, is no approach at all (else a
        # path could "walk through" the station and a cut-off target would look reachable).
        spawn_field = self._bfs_array([a.position for a in world.agents])
        self.reachable = set(np.flatnonzero(spawn_field < UNREACHABLE).tolist())

    def open_cell(self, position: int) -> bool:
        return self.world.kind[position] == EMPTY

    def approach_cells(self, stations: list[int] | tuple[int, ...], diagonal: bool = False) -> list[int]:
        offsets = self.ring if diagonal else self.deltas
        return sorted({s + d for s in stations for d in offsets if s + d in self.reachable})

    def bfs(self, sources: list[int]) -> list[int]:
        """Moves from the nearest of `sources` to every cell over open cells (`UNREACHABLE` where none leads):
        compiled (`cvc.grid_search`), since certifying a hard map computes hundreds of these fields."""
        return self._bfs_array(sources).tolist()

    def _bfs_array(self, sources: list[int]) -> np.ndarray:
        return bfs_distances(
            self._open, np.asarray(sources, dtype=np.int64), np.asarray(self.deltas, np.int64), UNREACHABLE
        )

    def field(self, stations: tuple[int, ...], diagonal: bool = False) -> list[int]:
        """Moves from every cell to a cell from which one of `stations` is used (or, diagonal, neighboured)."""
        key = (stations, diagonal)
        if key not in self._fields:
            self._fields[key] = self.bfs(self.approach_cells(stations, diagonal))
        return self._fields[key]

    def kind_field(self, kind: str, diagonal: bool = False) -> list[int]:
        return self.field(tuple(self.stations_by_kind.get(kind, ())), diagonal)

    def between(
        self,
        start: tuple[int, ...],
        target: tuple[int, ...],
        diagonal_target: bool = False,
        diagonal_start: bool = False,
    ) -> int:
        """Fewest moves from a cell using (neighbouring) one of `start` to one using (neighbouring) `target`
        (a function of the layout alone, so each leg is computed once per geometry)."""
        key = (start, target, diagonal_target, diagonal_start)
        moves = self._betweens.get(key)
        if moves is None:
            field = self.field(target, diagonal_target)
            cells = self.approach_cells(start, diagonal_start)
            moves = self._betweens[key] = min((field[c] for c in cells), default=UNREACHABLE)
        return moves
