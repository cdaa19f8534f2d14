"""How one diagnostic's hard maps are drawn: the row type of `hard_table.HARD_PARAMETERS`.

A leaf module (it imports nothing from `diagnostics`) so that the record (`catalogue.Diagnostic.hard`), the
table that fills it and the generator that reads it (`hard_maps`) can all name the type without importing
each other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HardParameters:
    """How one diagnostic's hard maps are drawn.

    max_steps: the hard variant's step budget.
    extra_rows / extra_cols: at most this many station-free rows / columns are copied in (at least half).
    baffles: wall segments drawn across open stretches of the map, each leaving one gap at an end.
    initial_energy: a tighter starting energy (only where energy is the skill), None keeps the base's.
    in_view: objects some agent must see at the start (the base's skill needs them seen).
    out_of_view: objects no agent may see at the start (targets that must be searched for).
    search: the target is searched for: certification also asks that an 11-wide sweep of every open
        cell plus the bound fits in the budget (the hard tier stays a test of search, not a lottery).
    """

    max_steps: int
    extra_rows: int
    extra_cols: int
    baffles: int = 0
    initial_energy: int | None = None
    in_view: tuple[str, ...] = ()
    out_of_view: tuple[str, ...] = ()
    search: bool = False
