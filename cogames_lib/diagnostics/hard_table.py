"""The hard tier as data: one row of generator parameters per diagnostic, and the `<name>_hard` records.

A hard map is the base diagnostic's map stretched (copies of station-free rows and columns inserted, so
rooms grow and corridors lengthen while the topology, the stations and every rule stay the base's), mirrored
at random, and optionally crossed by wall baffles (walls between the agents and their targets) or walled
into lanes (a long way round an open room; half of the first draws of rows with `serpentine`). Each row
says how far the generator may go; `hard_maps.certified_map` draws a map from the episode seed and keeps
only maps the oracle's lower bound certifies (see docs/cvc_variants.md).
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from cogames_lib.diagnostics.catalogue import DIAGNOSTICS, Diagnostic
from cogames_lib.diagnostics.hard_maps import certified_grid_map
from cogames_lib.diagnostics.hard_parameters import ANY_EXTRACTOR, HardParameters

# Base diagnostic (short name) -> generator parameters. Where upstream cogames shipped a hand-made hard map
# (13 of them), the budget is upstream's: navigation 1-3, chest search, charge_up, radial and agile 350,
# assembler search 250, extract lab 230, memory 170 (docs/cvc_variants.md). Upstream's hard layouts were
# measured with our oracle at 0.3 (assembler search) to 0.89 (radial, 2 agents) of the budget; every row
# aims at a spread of shares from 0.3 up to the 0.8 ceiling, except the "near" diagnostics (their target
# starts in view) and the search diagnostics, whose band is capped by the search rule (`hard_maps.search_time`).
_SEARCH_BAND = (0.3, 0.6)
_EVERYWHERE = (*ANY_EXTRACTOR, "assembler")  # distractors for an agent that holds its heart
HARD_PARAMETERS: MappingProxyType[str, HardParameters] = MappingProxyType(
    {
        "chest_navigation1": HardParameters(350, baffles=2, max_side=150, distractors=_EVERYWHERE),
        "chest_navigation2": HardParameters(350, baffles=2, distractors=_EVERYWHERE),
        "chest_navigation3": HardParameters(350, baffles=2, distractors=_EVERYWHERE),
        "chest_deposit_near": HardParameters(
            250,
            share_band=(0.0, 0.1),
            max_side=40,
            in_view=("chest",),
            distractors=_EVERYWHERE,
            serpentine=False,
        ),
        "chest_deposit_search": HardParameters(
            350,
            share_band=_SEARCH_BAND,
            out_of_view=("chest",),
            search=True,
            distractors=_EVERYWHERE,
        ),
        "assemble_seeded_near": HardParameters(
            80, share_band=(0.15, 0.45), distractors=ANY_EXTRACTOR, serpentine=False
        ),
        "assemble_seeded_search": HardParameters(
            250,
            share_band=_SEARCH_BAND,
            out_of_view=("assembler",),
            search=True,
            distractors=ANY_EXTRACTOR,
        ),
        **{
            f"extract_missing_{resource}": HardParameters(
                230,
                share_band=_SEARCH_BAND,
                out_of_view=(f"{resource}_extractor",),
                search=True,
                distractors=tuple(e for e in ANY_EXTRACTOR if not e.startswith(resource)),
            )
            for resource in ("carbon", "oxygen", "germanium", "silicon")
        },
        "unclip_craft": HardParameters(400),
        "unclip_preseed": HardParameters(400),
        "charge_up": HardParameters(350, baffles=3, chargers=3),
        "memory": HardParameters(170, in_view=("chest",), chargers=0, serpentine=False),
        "radial": HardParameters(350, max_side=150, serpentine=False),
        "agile": HardParameters(350),
        "extractor_contention": HardParameters(300),
        "chorus_pair": HardParameters(160),
        "chorus_quad": HardParameters(160),
        "vibe_swap": HardParameters(60, share_band=(0.35, 0.8), serpentine=False),
        "chest_withdrawal": HardParameters(220),
        "multi_station": HardParameters(
            400, share_band=(0.3, 0.6), max_side=50, initial_energy=24, chargers=0
        ),
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
        map_source=certified_grid_map,
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
