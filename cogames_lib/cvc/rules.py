"""Every rule number of Cogs vs Clips, as data.

The diagnostic document's "generous defaults" are the defaults here: every capacity 255, energy refilled
to capacity after every step, no cooldowns. A diagnostic changes these through `EnvConfig`, never by
editing a literal somewhere in the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

# Inventory slots, in the order of the observation's `self` vector. Energy is kept apart (it is not an item).
RESOURCES: tuple[str, ...] = ("carbon", "oxygen", "germanium", "silicon")
ITEMS: tuple[str, ...] = (*RESOURCES, "heart", "decoder")
ITEM_INDEX: MappingProxyType[str, int] = MappingProxyType({name: i for i, name in enumerate(ITEMS)})
HEART = ITEM_INDEX["heart"]
DECODER = ITEM_INDEX["decoder"]

ITEM_CAPACITY = 255
ENERGY_CAPACITY = 255
MOVE_ENERGY_COST = 2
STATION_USE_ENERGY_COST = 2  # every station use that succeeds, unless the station's row says otherwise
CHARGER_ENERGY_GAIN = 50
HEART_CHEST_CAPACITY = 1
RESOURCE_CHEST_CAPACITY = 255
GERMANIUM_MAX_OUTPUT = 5

VIBES: tuple[str, ...] = (
    "default",
    "charger",
    "carbon_a",
    "carbon_b",
    "oxygen_a",
    "oxygen_b",
    "germanium_a",
    "germanium_b",
    "silicon_a",
    "silicon_b",
    "heart_a",
    "heart_b",
    "gear",
)
VIBE_INDEX: MappingProxyType[str, int] = MappingProxyType({name: i for i, name in enumerate(VIBES)})
DEFAULT_VIBE = VIBE_INDEX["default"]

# 18 discrete actions: noop, the four moves (a move into a station uses it), one vibe change per vibe.
MOVES: tuple[tuple[str, int, int], ...] = (
    ("move_north", -1, 0),
    ("move_south", 1, 0),
    ("move_west", 0, -1),
    ("move_east", 0, 1),
)
ACTIONS: tuple[str, ...] = ("noop", *(name for name, _, _ in MOVES), *(f"change_vibe_{v}" for v in VIBES))
ACTION_INDEX: MappingProxyType[str, int] = MappingProxyType({name: i for i, name in enumerate(ACTIONS)})
NOOP = 0
FIRST_MOVE_ACTION = 1
FIRST_VIBE_ACTION = 1 + len(MOVES)


@dataclass(frozen=True)
class ExtractorRule:
    """One extractor's per-use output, number of uses and energy cost (upstream numbers)."""

    resource: str
    output: int
    max_uses: int
    energy_cost: int = STATION_USE_ENERGY_COST
    bonus_per_extra_adjacent_agent: int = 0
    max_output: int = ITEM_CAPACITY


EXTRACTOR_RULES: MappingProxyType[str, ExtractorRule] = MappingProxyType(
    {
        "carbon": ExtractorRule("carbon", output=2, max_uses=25),
        "oxygen": ExtractorRule("oxygen", output=10, max_uses=5),
        "germanium": ExtractorRule(
            "germanium",
            output=2,
            max_uses=5,
            bonus_per_extra_adjacent_agent=1,
            max_output=GERMANIUM_MAX_OUTPUT,
        ),
        "silicon": ExtractorRule("silicon", output=15, max_uses=10, energy_cost=20),
    }
)


@dataclass(frozen=True)
class Protocol:
    """An assembler recipe: the exact vibe multiset, alternative input bundles (first payable wins), output."""

    name: str
    vibes: tuple[tuple[str, int], ...]
    input_options: tuple[tuple[tuple[str, int], ...], ...]
    output: tuple[tuple[str, int], ...]


HEART_INPUTS: tuple[tuple[str, int], ...] = (("carbon", 2), ("oxygen", 2), ("germanium", 1), ("silicon", 3))
# The decoder takes one unit of three different resources; the options are tried in this order.
DECODER_INPUT_OPTIONS: tuple[tuple[tuple[str, int], ...], ...] = (
    (("oxygen", 1), ("germanium", 1), ("silicon", 1)),
    (("carbon", 1), ("germanium", 1), ("silicon", 1)),
    (("carbon", 1), ("oxygen", 1), ("silicon", 1)),
    (("carbon", 1), ("oxygen", 1), ("germanium", 1)),
)


def assembler_protocols(chorus_size: int) -> tuple[Protocol, ...]:
    """The two protocols of every diagnostic; the heart needs `chorus_size` agents showing `heart_a`."""
    return (
        Protocol("heart", (("heart_a", chorus_size),), (HEART_INPUTS,), (("heart", 1),)),
        Protocol("decoder", (("gear", 1),), DECODER_INPUT_OPTIONS, (("decoder", 1),)),
    )


# Vibes with which moving into the heart chest deposits hearts.
HEART_CHEST_DEPOSIT_VIBES: frozenset[str] = frozenset({"default", "heart_b"})
# Resource chest chest_<r>: vibe <r>_a withdraws the whole stock, <r>_b deposits all of the actor's r.
RESOURCE_CHEST_WITHDRAW_SUFFIX = "_a"
RESOURCE_CHEST_DEPOSIT_SUFFIX = "_b"

SUCCESS_REWARD = 1.0
