"""Custom variants: does a user's map hold what a diagnostic needs?

`get_diagnostic("memory").variant(map="my.map", max_steps=300)` (see `catalogue.Diagnostic.variant`)
returns a frozen `Diagnostic` of tier "custom". Its map is checked here against what the base diagnostic
needs (its stations, enough spawns) when the variant is made, so a bad pairing fails at once with one line
naming the file, not in the middle of a sweep. The checks read the rules (`EnvConfig`) per agent count,
not the record, so this module sits below the catalogue.
"""

from __future__ import annotations

from collections.abc import Callable

from cogames_lib.cvc import rules
from cogames_lib.cvc.config import EnvConfig
from cogames_lib.cvc.maps import GridMap
from cogames_lib.errors import MapError


def required_objects(config: EnvConfig, num_agents: int) -> dict[str, str]:
    """Object name -> why a diagnostic with these rules needs it on its map with `num_agents` agents."""
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


def check_map_fits(
    grid_map: GridMap, base_name: str, agent_counts: tuple[int, ...], config_for: Callable[[int], EnvConfig]
) -> None:
    """Raise `MapError` (one line naming the file) when `grid_map` lacks what diagnostic `base_name` needs
    (`config_for(n)`: its rules with n agents) for any of its allowed agent counts."""
    fewest = min(agent_counts)
    if len(grid_map.spawns) < fewest:
        raise MapError(
            f"{grid_map.source}: {len(grid_map.spawns)} spawn(s), but {base_name} "
            f"needs at least {fewest} agents"
        )
    present = {name for row in grid_map.cells for name in row}
    for count in agent_counts:
        if count > len(grid_map.spawns):
            continue
        for object_name, why in required_objects(config_for(count), count).items():
            if object_name not in present:
                raise MapError(
                    f"{grid_map.source}: no {object_name!r} anywhere in the grid, which "
                    f"{base_name} needs ({why}); incompatible base diagnostic"
                )
