"""`AgentState`: a read (and, for tests, write) view of one agent's row in its world's `agents` array.

The compiled step changes the arrays; a view always shows the current values. `items` is a tuple of plain ints
in `rules.ITEMS` order (a snapshot: assign the whole of `agent.items` to change them).
"""

from __future__ import annotations

import numpy as np

from cogames_lib.cvc import layout as L


class AgentState:
    __slots__ = ("_row", "index")

    def __init__(self, agents: np.ndarray, index: int) -> None:
        self._row = agents[index]
        self.index = index

    @property
    def position(self) -> int:
        return int(self._row[L.A_POSITION])

    @position.setter
    def position(self, value: int) -> None:
        self._row[L.A_POSITION] = value

    @property
    def row(self) -> int:
        return int(self._row[L.A_ROW])

    @property
    def col(self) -> int:
        return int(self._row[L.A_COL])

    @property
    def items(self) -> tuple[int, ...]:
        return tuple(self._row[L.A_ITEMS : L.A_ITEMS + L.NUM_ITEMS].tolist())

    @items.setter
    def items(self, values: list[int]) -> None:
        self._row[L.A_ITEMS : L.A_ITEMS + L.NUM_ITEMS] = values

    @property
    def energy(self) -> int:
        return int(self._row[L.A_ENERGY])

    @energy.setter
    def energy(self, value: int) -> None:
        self._row[L.A_ENERGY] = value

    @property
    def vibe(self) -> int:
        return int(self._row[L.A_VIBE])

    @property
    def last_success(self) -> int:
        return int(self._row[L.A_LAST_SUCCESS])

    def __repr__(self) -> str:
        return f"AgentState({self.index} at ({self.row}, {self.col}), energy {self.energy})"
