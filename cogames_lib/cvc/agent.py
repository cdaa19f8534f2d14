"""An agent's state in the Cogs vs Clips engine (its own module so that stations and the world both use it
without importing each other)."""

from __future__ import annotations

from cogames_lib.cvc import rules


class AgentState:
    __slots__ = ("col", "energy", "index", "items", "last_success", "position", "row", "vibe")

    def __init__(self, index: int, position: int, row: int, col: int, items: list[int], energy: int) -> None:
        self.index = index
        self.position = position
        self.row = row
        self.col = col
        self.items = items
        self.energy = energy
        self.vibe = rules.DEFAULT_VIBE
        self.last_success = 1
