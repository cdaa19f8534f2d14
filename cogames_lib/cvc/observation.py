"""The observation layout: an egocentric 11x11 window of channels plus a `self` vector.

`GRID_CHANNELS` is the documented channel order (a constant: policies index it by name). The engine keeps
one padded channel tensor of the whole map up to date incrementally, so building an agent's observation
is a single slice copy; cells outside the map read as walls.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np
from gymnasium import spaces

from cogames_lib.cvc import rules

VIEW_RADIUS = 5
VIEW_SIZE = 2 * VIEW_RADIUS + 1

# Object-type channels are one-hot (0/1); the last four carry values.
OBJECT_CHANNELS: tuple[str, ...] = (
    "wall",
    "agent",
    "assembler",
    "chest",
    "charger",
    "carbon_extractor",
    "oxygen_extractor",
    "germanium_extractor",
    "silicon_extractor",
    "chest_carbon",
    "chest_oxygen",
    "chest_germanium",
    "chest_silicon",
)
VALUE_CHANNELS: tuple[str, ...] = (
    "agent_vibe",  # vibe index + 1 of the agent in the cell (0: no agent), so "default" is 1
    "clipped",  # 1 on a clipped extractor
    "uses_left",  # an extractor's remaining uses (0: exhausted), capped at 255
    "stock",  # items in a chest: a resource chest's stock, the heart chest's hearts
)
GRID_CHANNELS: tuple[str, ...] = OBJECT_CHANNELS + VALUE_CHANNELS
CHANNEL: MappingProxyType[str, int] = MappingProxyType({name: i for i, name in enumerate(GRID_CHANNELS)})

# The `self` vector: own items in `rules.ITEMS` order, then energy, own vibe index, last action succeeded.
SELF_FIELDS: tuple[str, ...] = (*rules.ITEMS, "energy", "vibe", "last_action_succeeded")
SELF_INDEX: MappingProxyType[str, int] = MappingProxyType({name: i for i, name in enumerate(SELF_FIELDS)})


def observation_space() -> spaces.Dict:
    return spaces.Dict(
        {
            "grid": spaces.Box(0, 255, (len(GRID_CHANNELS), VIEW_SIZE, VIEW_SIZE), np.uint8),
            "self": spaces.Box(0, 255, (len(SELF_FIELDS),), np.uint8),
        }
    )


def empty_padded_grid(height: int, width: int) -> np.ndarray:
    """A channel tensor for a map of this size, padded by the view radius; the padding reads as wall."""
    grid = np.zeros((len(GRID_CHANNELS), height + 2 * VIEW_RADIUS, width + 2 * VIEW_RADIUS), dtype=np.uint8)
    grid[CHANNEL["wall"]] = 1
    grid[CHANNEL["wall"], VIEW_RADIUS:-VIEW_RADIUS, VIEW_RADIUS:-VIEW_RADIUS] = 0
    return grid
