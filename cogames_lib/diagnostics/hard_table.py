"""The hard tier as data: one row of generator parameters per diagnostic, and the `<name>_hard` records.

A hard map is the base diagnostic's map stretched (copies of station-free rows and columns inserted, so
rooms grow and corridors lengthen while the topology, the stations and every rule stay the base's), mirrored
at random, and optionally crossed by wall baffles (walls between the agents and their targets). Each row
says how far the generator may go; `hard_maps.certified_map` draws a map from the episode seed and keeps
only maps the oracle's lower bound certifies (see docs/cvc_variants.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType

from cogames_lib.diagnostics.catalogue import DIAGNOSTICS, Diagnostic


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


# Base diagnostic (short name) -> generator parameters. Sizes are kept so the whole default sweep with the
# hard tier still runs in about a minute on two cores (benchmarks/sweep_speed.py). Where upstream cogames
# shipped a hand-made hard map (13 of them), the budget is upstream's: navigation 1-3, chest search,
# charge_up, radial and agile 350, assembler search 250, extract lab 230, memory 170 (docs/cvc_variants.md).
HARD_PARAMETERS: MappingProxyType[str, HardParameters] = MappingProxyType(
    {
        "chest_navigation1": HardParameters(350, extra_rows=6, extra_cols=24, baffles=2),
        "chest_navigation2": HardParameters(350, extra_rows=10, extra_cols=16, baffles=2),
        "chest_navigation3": HardParameters(350, extra_rows=10, extra_cols=20, baffles=2),
        "chest_deposit_near": HardParameters(250, extra_rows=8, extra_cols=12, in_view=("chest",)),
        "chest_deposit_search": HardParameters(
            350, extra_rows=10, extra_cols=16, out_of_view=("chest",), search=True
        ),
        "assemble_seeded_near": HardParameters(80, extra_rows=8, extra_cols=12),
        "assemble_seeded_search": HardParameters(
            250, extra_rows=10, extra_cols=16, out_of_view=("assembler",), search=True
        ),
        **{
            f"extract_missing_{resource}": HardParameters(
                230, extra_rows=10, extra_cols=10, out_of_view=(f"{resource}_extractor",), search=True
            )
            for resource in ("carbon", "oxygen", "germanium", "silicon")
        },
        "unclip_craft": HardParameters(400, extra_rows=10, extra_cols=12),
        "unclip_preseed": HardParameters(400, extra_rows=10, extra_cols=12),
        "charge_up": HardParameters(350, extra_rows=2, extra_cols=24, baffles=3),
        "memory": HardParameters(170, extra_rows=20, extra_cols=4, in_view=("chest",)),
        "radial": HardParameters(350, extra_rows=6, extra_cols=8),
        "agile": HardParameters(350, extra_rows=6, extra_cols=10),
        "extractor_contention": HardParameters(300, extra_rows=8, extra_cols=8),
        "chorus_pair": HardParameters(160, extra_rows=2, extra_cols=24),
        "chorus_quad": HardParameters(160, extra_rows=10, extra_cols=10),
        "vibe_swap": HardParameters(60, extra_rows=3, extra_cols=4),
        "chest_withdrawal": HardParameters(220, extra_rows=6, extra_cols=10),
        "multi_station": HardParameters(400, extra_rows=6, extra_cols=8, initial_energy=24),
    }
)

HARD_SUFFIX = "_hard"


def _hard_record(base: Diagnostic, parameters: HardParameters) -> Diagnostic:
    return replace(
        base,
        name=base.name + HARD_SUFFIX,
        max_steps=parameters.max_steps,
        description=f"{base.description} (hard: generated, certified map)",
        initial_energy=base.initial_energy
        if parameters.initial_energy is None
        else parameters.initial_energy,
        tier="hard",
        base=base.name,
        hard=parameters,
    )


def _energy_seeds(base: Diagnostic, parameters: HardParameters) -> Diagnostic:
    """A seed that sets "energy" itself (charge_up) gets the tighter energy there too."""
    record = _hard_record(base, parameters)
    if parameters.initial_energy is None:
        return record
    seeds = tuple(
        {**seed, "energy": parameters.initial_energy} if "energy" in seed else seed
        for seed in base.inventory_seeds
    )
    return replace(record, inventory_seeds=seeds)


HARD_DIAGNOSTICS = MappingProxyType(
    {
        name + HARD_SUFFIX: _energy_seeds(record, HARD_PARAMETERS[name.removeprefix("diagnostic_")])
        for name, record in DIAGNOSTICS.items()
    }
)
