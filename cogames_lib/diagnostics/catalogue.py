"""The diagnostic catalogue: 17 documented diagnostics + 6 new ones, as frozen records in document order.

A diagnostic is data: its map, step limit, allowed agent counts, starting inventories, chorus rule, clipped
extractors, extractor overrides, energy settings and chest stock. The few rules that depend on the agent
count ("the first N resources start clipped", "the seed minus every clipped resource") are small named
configure hooks. `skills` names the capabilities a diagnostic claims to test; the capability matrix checks
each claim against the matching ablation of the scripted policy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from cogames_lib.cvc import rules
from cogames_lib.cvc.config import EnvConfig, ExtractorOverride
from cogames_lib.cvc.maps import GridMap, load_map
from cogames_lib.diagnostics.hard_parameters import HardParameters
from cogames_lib.diagnostics.shipped_maps import shipped_map
from cogames_lib.diagnostics.variants import check_map_fits
from cogames_lib.errors import ParameterError, UnknownNameError, close_matches_message

HEART_RECIPE: Mapping[str, int] = MappingProxyType(dict(rules.HEART_INPUTS))
CHORUS_ALL = "N"  # the heart needs every agent showing heart_a
ANY_COUNT = (1, 2, 3, 4)

Seeds = tuple[Mapping[str, int], ...]
MapSource = Callable[["Diagnostic", int, int], GridMap]
# Fields a variant may not change: they are what identifies it.
_FIXED_FIELDS = frozenset({"name", "tier", "base", "grid_map", "hard", "map_source", "map_name"})


def _without(recipe: Mapping[str, int], *resources: str) -> dict[str, int]:
    return {item: amount for item, amount in recipe.items() if item not in resources}


def clip_first_n(num_agents: int) -> frozenset[str]:
    """The first N of carbon, oxygen, germanium, silicon start clipped (N = number of agents)."""
    return frozenset(rules.RESOURCES[:num_agents])


def unclip_preseed_seeds(num_agents: int) -> Seeds:
    """C2 O2 G2 S2 minus every clipped resource, plus one decoder, per agent."""
    base = {resource: 2 for resource in rules.RESOURCES}
    return ({**_without(base, *clip_first_n(num_agents)), "decoder": 1},)


@dataclass(frozen=True)
class Diagnostic:
    """One pass/fail diagnostic mission. `inventory_seeds` entries apply to agent i modulo their count."""

    name: str
    map_name: str
    max_steps: int
    allowed_agent_counts: tuple[int, ...]
    description: str
    skills: tuple[str, ...] = ()
    inventory_seeds: Seeds = ({},)
    chorus: int | str = CHORUS_ALL
    clipped: frozenset[str] = frozenset()
    extractor_overrides: Mapping[str, ExtractorOverride] = field(default_factory=dict)
    energy_refill: bool = True
    initial_energy: int = rules.ENERGY_CAPACITY
    resource_chest_stock: Mapping[str, int] = field(default_factory=dict)
    documented: bool = True
    # Hooks for the rules that depend on the agent count (None: use the static field).
    clipped_for: Callable[[int], frozenset[str]] | None = None
    inventory_seeds_for: Callable[[int], Seeds] | None = None
    # Variants: "normal" (the shipped map), "hard" (a map generated per episode seed, see hard_maps.py)
    # or "custom" (a user's map or budget, see variants.py); `base` names the diagnostic it derives from.
    tier: str = "normal"
    base: str = ""
    grid_map: GridMap | None = field(default=None, repr=False, compare=False)
    hard: HardParameters | None = None
    # Where a generated map comes from: (record, episode seed, agent count) -> map. `hard_table` sets it to
    # the certified generator, so the record never needs to know the hard tier's modules.
    map_source: MapSource | None = field(default=None, repr=False, compare=False)

    @property
    def map_file(self) -> str:
        return f"diagnostic_{self.map_name}.map"

    @property
    def base_name(self) -> str:
        """The registered diagnostic this one derives from (itself for a shipped diagnostic)."""
        return self.base or self.name

    def episode_map(self, seed: int, num_agents: int) -> GridMap:
        """The map of one episode: (hard tier) the map its source generates from the episode seed for
        `num_agents` agents, the variant's own map, or the shipped file."""
        if self.map_source is not None:
            return self.map_source(self, int(seed), int(num_agents))
        if self.grid_map is not None:
            return self.grid_map
        return shipped_map(self.map_file)

    def variant(
        self, map: str | Path | GridMap | None = None, max_steps: int | None = None, **overrides: Any
    ) -> Diagnostic:
        """This diagnostic on another map and/or step budget (and any other field): a frozen record that
        `run_episode`, `run_sweep` and `make_env` accept like a name, named `<base>@<map stem>` plus
        `,field=value` per other change (two different variants never share a name in an episodes table).
        A variant of a hard or custom record derives from their registered base; the map is checked
        against what the base needs (`variants.check_map_fits`) at once."""
        known = {f.name for f in fields(self)} - _FIXED_FIELDS
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ParameterError(
                f"variant of {self.name}: unknown field(s) {unknown}; known: {sorted(known)}"
            )
        if max_steps is not None:
            if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1:
                raise ParameterError(
                    f"variant of {self.name}: max_steps must be an integer >= 1, got {max_steps!r}"
                )
            overrides["max_steps"] = max_steps
        if self.tier == "hard" and map is None:
            raise ParameterError(
                f"variant of {self.name}: a hard-tier map is drawn per seed; give a map, or vary {self.base_name}"
            )
        # The origin of a hard or custom record is looked up in this module's table: the record and the table
        # need each other, which is why both live in this file (in two modules they would import each other).
        origin = self if self.tier == "normal" else find_diagnostic(DIAGNOSTICS, self.base_name)
        label = []
        if map is not None:
            if not isinstance(map, GridMap):
                map = load_map(map)
            label.append(map.name)
        label += [f"{key}={overrides[key]}" for key in sorted(overrides)]
        if not label:
            raise ParameterError(
                f"variant of {self.name}: give a map, a max_steps or another field to change"
            )
        record = replace(
            origin,
            name=f"{origin.name}@{','.join(label)}",
            tier="custom",
            base=origin.name,
            grid_map=map if map is not None else self.grid_map,
            hard=None,
            map_source=None,
            **overrides,
        )
        if record.grid_map is not None:
            check_map_fits(record.grid_map, record.base_name, record.allowed_agent_counts, record.env_config)
        return record

    def env_config(self, num_agents: int) -> EnvConfig:
        return EnvConfig(
            inventory_seeds=self.inventory_seeds_for(num_agents)
            if self.inventory_seeds_for
            else self.inventory_seeds,
            chorus_size=None if self.chorus == CHORUS_ALL else int(self.chorus),
            clipped=self.clipped_for(num_agents) if self.clipped_for else self.clipped,
            extractor_overrides=self.extractor_overrides,
            energy_refill=self.energy_refill,
            initial_energy=self.initial_energy,
            resource_chest_stock=self.resource_chest_stock,
        )


def _chest_navigation(number: int, description: str) -> Diagnostic:
    return Diagnostic(
        f"diagnostic_chest_navigation{number}",
        f"chest_navigation{number}",
        250,
        (1,),
        description,
        skills=("navigation",),
        inventory_seeds=({"heart": 1},),
        chorus=1,
    )


def _extract_missing(resource: str) -> Diagnostic:
    return Diagnostic(
        f"diagnostic_extract_missing_{resource}",
        "extract_lab",
        130,
        ANY_COUNT,
        f"seeded with everything but {resource}: find its extractor, extract, assemble, deposit",
        skills=("extraction",),
        inventory_seeds=(_without(HEART_RECIPE, resource),),
    )


_CATALOGUE: tuple[Diagnostic, ...] = (
    _chest_navigation(1, "carry a heart through a maze of rooms to the chest"),
    _chest_navigation(2, "carry a heart around walls to the chest"),
    _chest_navigation(3, "carry a heart around obstacles to the chest"),
    Diagnostic(
        "diagnostic_chest_deposit_near",
        "chest_near",
        250,
        (1,),
        "deposit a heart in a chest in view",
        skills=("deposit",),
        inventory_seeds=({"heart": 1},),
        chorus=1,
    ),
    Diagnostic(
        "diagnostic_chest_deposit_search",
        "chest_search",
        250,
        (1,),
        "find a chest outside the first view and deposit a heart",
        skills=("explore",),
        inventory_seeds=({"heart": 1},),
        chorus=1,
    ),
    Diagnostic(
        "diagnostic_assemble_seeded_near",
        "assembler_near",
        50,
        ANY_COUNT,
        "seeded with the recipe: chorus at a nearby assembler, deposit",
        skills=("chorus",),
        inventory_seeds=(dict(HEART_RECIPE),),
    ),
    Diagnostic(
        "diagnostic_assemble_seeded_search",
        "assembler_search",
        150,
        ANY_COUNT,
        "seeded with the recipe: find the assembler out of view, chorus, deposit",
        skills=("explore", "chorus"),
        inventory_seeds=(dict(HEART_RECIPE),),
    ),
    *(_extract_missing(resource) for resource in rules.RESOURCES),
    Diagnostic(
        "diagnostic_unclip_craft",
        "unclip",
        250,
        ANY_COUNT,
        "the first N extractors start clipped: craft a decoder (gear), unclip, extract, assemble",
        skills=("unclip", "extraction", "chorus"),
        # The document's seed is C1 O1 G1 S1 per agent; pooled over 2+ agents that covers the heart without
        # any unclipping. Carbon is always clipped, so dropping it keeps "decoders must be crafted" true at
        # every agent count: N agents hold exactly N decoders' worth (oxygen, germanium, silicon).
        inventory_seeds=({"oxygen": 1, "germanium": 1, "silicon": 1},),
        clipped_for=clip_first_n,
    ),
    Diagnostic(
        "diagnostic_unclip_preseed",
        "unclip",
        250,
        ANY_COUNT,
        "the first N extractors start clipped, a decoder is given: unclip, extract, assemble",
        skills=("unclip", "extraction", "chorus"),
        clipped_for=clip_first_n,
        inventory_seeds_for=unclip_preseed_seeds,
    ),
    Diagnostic(
        "diagnostic_charge_up",
        "charge_up",
        250,
        (1,),
        "energy 60 and no regen: use chargers on the way to the chest",
        skills=("recharge",),
        inventory_seeds=({"heart": 1, "energy": 60},),
        chorus=1,
        energy_refill=False,
    ),
    Diagnostic(
        "diagnostic_memory",
        "memory",
        110,
        (1,),
        "see the chest at the start, then remember it on a long trip out of view",
        skills=("memory",),
        inventory_seeds=({"heart": 1},),
        chorus=1,
    ),
    Diagnostic(
        "diagnostic_radial",
        "radial",
        250,
        ANY_COUNT,
        "extract all four resources from the ends of four arms, assemble, deposit",
        skills=("extraction", "explore", "chorus"),
    ),
    Diagnostic(
        "diagnostic_agile",
        "agile",
        250,
        ANY_COUNT,
        "every extractor gives exactly the recipe once: no second chances",
        skills=("extraction", "chorus"),
        extractor_overrides={
            resource: ExtractorOverride(output=amount, max_uses=1)
            for resource, amount in HEART_RECIPE.items()
        },
    ),
    # New diagnostics (the document's "Gaps & Future Additions").
    Diagnostic(
        "diagnostic_extractor_contention",
        "extractor_contention",
        200,
        (4,),
        "four agents, empty hands, one dead-end approach per extractor: queue, extract, chorus",
        skills=("extraction", "chorus"),
        documented=False,
    ),
    Diagnostic(
        "diagnostic_chorus_pair",
        "chorus_pair",
        100,
        (2,),
        "two agents spawn far apart holding halves of the recipe: meet and chorus",
        skills=("chorus",),
        documented=False,
        inventory_seeds=({"carbon": 2, "oxygen": 2}, {"germanium": 1, "silicon": 3}),
    ),
    Diagnostic(
        "diagnostic_chorus_quad",
        "chorus_quad",
        100,
        (4,),
        "four agents in the corners each hold a quarter of the recipe: meet and chorus",
        skills=("chorus",),
        documented=False,
        inventory_seeds=({"carbon": 2}, {"oxygen": 2}, {"germanium": 1}, {"silicon": 3}),
    ),
    Diagnostic(
        "diagnostic_vibe_swap",
        "vibe_swap",
        50,
        (1,),
        "resources only in resource chests: six vibe changes in order under a tight step limit",
        skills=("vibes",),
        chorus=1,
        documented=False,
        resource_chest_stock=dict(HEART_RECIPE),
    ),
    Diagnostic(
        "diagnostic_chest_withdrawal",
        "chest_withdrawal",
        150,
        ANY_COUNT,
        "empty hands, the recipe pre-stocked in resource chests: withdraw, assemble, deposit",
        skills=("vibes", "chorus"),
        documented=False,
        resource_chest_stock=dict(HEART_RECIPE),
    ),
    Diagnostic(
        "diagnostic_multi_station",
        "multi_station",
        300,
        (2, 3, 4),
        "low energy and no regen, extractors far apart: recharge between extraction trips",
        skills=("recharge", "extraction", "chorus"),
        documented=False,
        energy_refill=False,
        initial_energy=30,
    ),
)

DIAGNOSTICS: Mapping[str, Diagnostic] = MappingProxyType({d.name: d for d in _CATALOGUE})


def find_diagnostic(table: Mapping[str, Diagnostic], name: str) -> Diagnostic:
    """The record of `name` in `table`; the `diagnostic_` prefix may be left out."""
    record = table.get(name) or table.get(f"diagnostic_{name}")
    if record is None:
        raise UnknownNameError(close_matches_message("diagnostic", name, list(table)))
    return record
