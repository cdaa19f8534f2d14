"""Custom variants: a registered diagnostic on a user's map, step budget or other settings.

`get_diagnostic("memory").variant(map="my.map", max_steps=300)` returns a frozen `Diagnostic` whose name
is `<base>@<map stem>` (plus `,field=value` for every other change, so two different variants never share a
name in an episodes table) and whose tier is "custom". The map is checked against what the base diagnostic
needs (its stations, enough spawns) when the variant is made, so a bad pairing fails at once with one line
naming the file, not in the middle of a sweep.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cogames_lib.cvc import rules
from cogames_lib.cvc.maps import GridMap, load_map
from cogames_lib.errors import MapError, ParameterError

if TYPE_CHECKING:
    from cogames_lib.diagnostics.catalogue import Diagnostic

# Fields a variant may not change: they are what identifies it.
_FIXED_FIELDS = frozenset({"name", "tier", "base", "grid_map", "hard", "map_name"})


def make_variant(
    base: Diagnostic, grid_map: str | Path | GridMap | None, max_steps: int | None, **overrides: Any
) -> Diagnostic:
    known = {f.name for f in fields(base)} - _FIXED_FIELDS
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ParameterError(f"variant of {base.name}: unknown field(s) {unknown}; known: {sorted(known)}")
    if max_steps is not None:
        if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1:
            raise ParameterError(
                f"variant of {base.name}: max_steps must be an integer >= 1, got {max_steps!r}"
            )
        overrides["max_steps"] = max_steps
    if base.tier == "hard" and grid_map is None:
        raise ParameterError(
            f"variant of {base.name}: a hard-tier map is drawn per seed; give a map, or vary {base.base_name}"
        )
    origin = base if base.tier == "normal" else _registered(base.base_name)
    label = []
    if grid_map is not None:
        if not isinstance(grid_map, GridMap):
            grid_map = load_map(grid_map)
        label.append(grid_map.name)
    label += [f"{key}={overrides[key]}" for key in sorted(overrides)]
    if not label:
        raise ParameterError(f"variant of {base.name}: give a map, a max_steps or another field to change")
    record = replace(
        origin,
        name=f"{origin.name}@{','.join(label)}",
        tier="custom",
        base=origin.name,
        grid_map=grid_map if grid_map is not None else base.grid_map,
        hard=None,
        **overrides,
    )
    if record.grid_map is not None:
        check_map_fits(record, record.grid_map)
    return record


def _registered(name: str) -> Diagnostic:
    from cogames_lib.diagnostics import get_diagnostic

    return get_diagnostic(name)


def required_objects(diagnostic: Diagnostic, num_agents: int) -> dict[str, str]:
    """Object name -> why the diagnostic needs it on its map with `num_agents` agents."""
    config = diagnostic.env_config(num_agents)
    needed = {"chest": "the heart is deposited there"}
    held: dict[str, int] = {}
    for index in range(num_agents):
        for item, amount in config.seed_for(index).items():
            held[item] = held.get(item, 0) + amount
    if held.get("heart", 0) < 1:
        needed["assembler"] = "the heart is assembled there"
        for resource, amount in rules.HEART_INPUTS:
            if held.get(resource, 0) >= amount:
                continue
            if config.resource_chest_stock.get(resource, 0) > 0:
                needed[f"chest_{resource}"] = f"the {resource} of the recipe is stocked there"
            else:
                needed[f"{resource}_extractor"] = f"the recipe needs {resource} that no agent holds"
    if not config.energy_refill:
        needed["charger"] = "energy does not refill in this diagnostic"
    return needed


def check_map_fits(diagnostic: Diagnostic, grid_map: GridMap) -> None:
    """Raise `MapError` (one line naming the file) when `grid_map` lacks what the diagnostic needs."""
    fewest = min(diagnostic.allowed_agent_counts)
    if len(grid_map.spawns) < fewest:
        raise MapError(
            f"{grid_map.source}: {len(grid_map.spawns)} spawn(s), but {diagnostic.base_name} "
            f"needs at least {fewest} agents"
        )
    present = {name for row in grid_map.cells for name in row}
    for count in diagnostic.allowed_agent_counts:
        if count > len(grid_map.spawns):
            continue
        for object_name, why in required_objects(diagnostic, count).items():
            if object_name not in present:
                raise MapError(
                    f"{grid_map.source}: no {object_name!r} anywhere in the grid, which "
                    f"{diagnostic.base_name} needs ({why}); incompatible base diagnostic"
                )


VARIANT_KEYS = ("base", "map", "max_steps")


def with_variant(diagnostics: Any, variant: Mapping[str, Any] | None) -> Any:
    """Sweep diagnostics plus one custom variant: the CLI's --base/--map/--max-steps and the sweep notebook's
    `variant` parameter, a mapping {"base": NAME, "map": FILE, "max_steps": N} (None values are left out).

    Without a variant, `diagnostics` (None: "all") is returned as it is; with one, `diagnostics` (None: none)
    gets it appended. The map is checked here, before any episode runs."""
    given = {key: value for key, value in dict(variant or {}).items() if value is not None}
    unknown = sorted(set(given) - set(VARIANT_KEYS))
    if unknown:
        raise ParameterError(f"variant: unknown key(s) {unknown}; known: {list(VARIANT_KEYS)}")
    if not given:
        return "all" if diagnostics is None else diagnostics
    if "base" not in given:
        raise ParameterError(
            "variant: a map or max_steps needs its base diagnostic (--base / variant['base'])"
        )
    record = _registered(given["base"]).variant(map=given.get("map"), max_steps=given.get("max_steps"))
    if diagnostics is None:
        return [record]
    listed = [diagnostics] if isinstance(diagnostics, str) else list(diagnostics)
    return [*listed, record]
