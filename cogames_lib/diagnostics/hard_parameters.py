"""How one diagnostic's hard maps are drawn: the row type of `hard_table.HARD_PARAMETERS`.

A leaf module (it imports nothing from `diagnostics`) so that the record (`catalogue.Diagnostic.hard`), the
table that fills it and the generator that reads it (`hard_maps`) can all name the type without importing
each other.
"""

from __future__ import annotations

from dataclasses import dataclass

ANY_EXTRACTOR = ("carbon_extractor", "oxygen_extractor", "germanium_extractor", "silicon_extractor")


@dataclass(frozen=True)
class HardParameters:
    """How one diagnostic's hard maps are drawn.

    max_steps: the hard variant's step budget.
    share_band: each instance draws a target bound / budget share from this band; the map grows until the
        oracle's bound reaches it (or the map reaches `max_side`). A "near" diagnostic keeps a low band.
    max_side: the generator stops growing a map whose height or width reaches this.
    baffles: wall segments drawn across open stretches of the map, each leaving one gap at an end.
    chargers: at most this many extra chargers are scattered over open floor.
    distractors: station kinds that may be scattered as distractors (kinds the episode never needs, so
        they change neither the recipe's sources nor the skill); at most `DISTRACTORS_AT_MOST` of them.
    initial_energy: a tighter starting energy (only where energy is the skill), None keeps the base's.
    in_view: objects some agent must see at the start (the base's skill needs them seen).
    out_of_view: objects no agent may see at the start (targets that must be searched for).
    search: the target is searched for: certification also asks that an outward sweep of every open cell
        closer to the spawns than the target fits in the budget with the bound (a test of search, not a
        lottery; see `hard_maps.search_time`).
    serpentine: half of a seed's first draws wall the map into lanes (`hard_layout.add_serpentine`); off
        where a view condition or a tiny map would not survive them.
    """

    max_steps: int
    share_band: tuple[float, float] = (0.3, 0.8)
    max_side: int = 120
    baffles: int = 0
    chargers: int = 6
    distractors: tuple[str, ...] = ()
    initial_energy: int | None = None
    in_view: tuple[str, ...] = ()
    out_of_view: tuple[str, ...] = ()
    search: bool = False
    serpentine: bool = True
