"""Rule parameters of one diagnostic: what differs from the generous defaults of `rules.py`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from cogames_lib.cvc import rules
from cogames_lib.errors import ParameterError


@dataclass(frozen=True)
class ExtractorOverride:
    """Replace an extractor's per-use output and/or its number of uses (None keeps the rule's value)."""

    output: int | None = None
    max_uses: int | None = None


MAX_COUNT = 2**31 - 1  # the largest capacity, stock, output or use count the engine's int32 state holds


def _frozen(mapping: Mapping | None) -> MappingProxyType:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class EnvConfig:
    """Everything a diagnostic may change.

    inventory_seeds: starting items (and optionally "energy") per agent; agent i gets
        `inventory_seeds[i % len(inventory_seeds)]`, so one entry means "the same for every agent".
    chorus_size: number of `heart_a` agents the heart protocol needs; None means "all agents" (chorus N).
    clipped: resources whose extractors start clipped.
    extractor_overrides: per resource, a different output / max_uses.
    energy_refill: the generous default (energy back to capacity after every step); False = no regen at all.
    initial_energy: energy of every agent at reset unless its seed says "energy".
    resource_chest_stock / resource_chest_capacity: per resource chest kind.
    heart_chest_capacity: hearts the heart chest accepts before it refuses.
    """

    inventory_seeds: tuple[Mapping[str, int], ...] = ({},)
    chorus_size: int | None = None
    clipped: frozenset[str] = frozenset()
    extractor_overrides: Mapping[str, ExtractorOverride] = field(default_factory=dict)
    energy_refill: bool = True
    initial_energy: int = rules.ENERGY_CAPACITY
    resource_chest_stock: Mapping[str, int] = field(default_factory=dict)
    resource_chest_capacity: int = rules.RESOURCE_CHEST_CAPACITY
    heart_chest_capacity: int = rules.HEART_CHEST_CAPACITY

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "inventory_seeds", tuple(_frozen(seed) for seed in self.inventory_seeds) or ({},)
        )
        object.__setattr__(self, "clipped", frozenset(self.clipped))
        object.__setattr__(self, "extractor_overrides", _frozen(self.extractor_overrides))
        object.__setattr__(self, "resource_chest_stock", _frozen(self.resource_chest_stock))
        known_seed_keys = set(rules.ITEMS) | {"energy"}
        for index, seed in enumerate(self.inventory_seeds):
            for key, amount in seed.items():
                if key not in known_seed_keys:
                    raise ParameterError(f"EnvConfig.inventory_seeds[{index}]: unknown item {key!r}")
                if not 0 <= amount <= rules.ITEM_CAPACITY:
                    raise ParameterError(f"EnvConfig.inventory_seeds[{index}][{key!r}] must be in 0..255")
        for name, resources in (
            ("clipped", self.clipped),
            ("extractor_overrides", self.extractor_overrides),
            ("resource_chest_stock", self.resource_chest_stock),
        ):
            unknown = set(resources) - set(rules.RESOURCES)
            if unknown:
                raise ParameterError(f"EnvConfig.{name}: unknown resource(s) {sorted(unknown)}")
        if self.chorus_size is not None and self.chorus_size < 1:
            raise ParameterError(f"EnvConfig.chorus_size must be >= 1 or None, got {self.chorus_size}")
        if not 0 <= self.initial_energy <= rules.ENERGY_CAPACITY:
            raise ParameterError(f"EnvConfig.initial_energy must be in 0..255, got {self.initial_energy}")
        # The engine keeps station state in int32 arrays (cvc/layout.py).
        counts = {
            "resource_chest_capacity": self.resource_chest_capacity,
            "heart_chest_capacity": self.heart_chest_capacity,
            **{f"resource_chest_stock[{r!r}]": n for r, n in self.resource_chest_stock.items()},
            **{
                f"extractor_overrides[{r!r}].{name}": value
                for r, override in self.extractor_overrides.items()
                for name, value in (("output", override.output), ("max_uses", override.max_uses))
                if value is not None
            },
        }
        for name, value in counts.items():
            if not 0 <= value <= MAX_COUNT:
                raise ParameterError(f"EnvConfig.{name} must be in 0..{MAX_COUNT}, got {value}")

    def seed_for(self, agent_index: int) -> Mapping[str, int]:
        return self.inventory_seeds[agent_index % len(self.inventory_seeds)]

    def extractor_rule(self, resource: str) -> rules.ExtractorRule:
        rule = rules.EXTRACTOR_RULES[resource]
        override = self.extractor_overrides.get(resource)
        if override is None:
            return rule
        from dataclasses import replace

        return replace(
            rule,
            output=rule.output if override.output is None else override.output,
            max_uses=rule.max_uses if override.max_uses is None else override.max_uses,
        )
