"""The rules of the stag hunt as data tables: actions, orientations, resources, agent kinds, channels.

Nothing here steps a world; `engine.py` reads these tables so a rule change is a table edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np


class Action(IntEnum):
    """The five actions, in the order the Q-network outputs them."""

    FORWARD = 0
    BACKWARD = 1
    STEP_LEFT = 2
    STEP_RIGHT = 3
    ATTACK = 4


ACTION_NAMES: tuple[str, ...] = tuple(action.name.lower() for action in Action)
NUM_ACTIONS = len(Action)

# Quarter turns (clockwise) from the agent's orientation to the direction a move goes. Left and right
# are the agent's own (intuitive) left and right; sorrel had them mirror-labelled.
MOVE_TURNS: dict[int, int] = {  # Action keys (an IntEnum, so plain ints find them too)
    Action.FORWARD: 0,
    Action.STEP_RIGHT: 1,
    Action.BACKWARD: 2,
    Action.STEP_LEFT: 3,
}

ORIENTATION_NAMES: tuple[str, ...] = ("north", "east", "south", "west")
NUM_ORIENTATIONS = 4
WEST = 3  # where sorrel_e3 agents face at spawn
# (row, col) offset of one step in each orientation; rows grow southward.
ORIENTATION_DELTAS: tuple[tuple[int, int], ...] = ((-1, 0), (0, 1), (1, 0), (0, -1))


def move_direction(orientation: int, action: Action | int) -> int:
    """Orientation an agent faces after a successful move `action` from `orientation`."""
    return (orientation + MOVE_TURNS[action]) % NUM_ORIENTATIONS  # IntEnum keys match plain ints


@dataclass(frozen=True)
class ResourceKind:
    """One kind of huntable resource.

    `reward` goes to the agents that hit it in its killing turn, split equally; `needs_hunter` means
    attacks by agents with `can_hunt=False` do nothing to it.
    """

    code: int
    name: str
    health: int
    reward: float
    needs_hunter: bool


STAG = ResourceKind(code=1, name="stag", health=2, reward=100.0, needs_hunter=True)
HARE = ResourceKind(code=2, name="hare", health=1, reward=3.0, needs_hunter=False)
RESOURCES: dict[int, ResourceKind] = {STAG.code: STAG, HARE.code: HARE}
NO_RESOURCE = 0

AGENT_KINDS: tuple[str, ...] = ("AgentKindA", "AgentKindB")
PARTNER_KINDS: tuple[str, ...] = ("no_partner", *AGENT_KINDS)


@dataclass(frozen=True)
class AgentSpec:
    """One member of a population: its visible kind label and its abilities."""

    kind: str
    can_hunt: bool = True

    def __post_init__(self) -> None:
        if self.kind not in AGENT_KINDS:
            from cogames_lib.errors import ParameterError

            raise ParameterError(f"agent kind must be one of {list(AGENT_KINDS)}, got {self.kind!r}")


_A, _B = AGENT_KINDS
# Condition name -> population. Default population: two of KindA and one of KindB. The last three are the
# controls that separate the kind label from the ability (spec "Counterbalanced probes and controls"):
# `roles_swapped` (the kinds' roles exchanged: KindA cannot hunt), `kind_shuffled` (two of each kind, the
# ability independent of the label, so the label tells nothing) and `two_of_each` (not_all_can_hunt with two
# KindB agents, so the kind channel no longer names one agent's policy).
PRESET_POPULATIONS: dict[str, tuple[AgentSpec, ...]] = {
    "all_can_hunt": (AgentSpec(_A), AgentSpec(_A), AgentSpec(_B)),
    "not_all_can_hunt": (AgentSpec(_A), AgentSpec(_A), AgentSpec(_B, can_hunt=False)),
    "roles_swapped": (AgentSpec(_B), AgentSpec(_B), AgentSpec(_A, can_hunt=False)),
    "kind_shuffled": (
        AgentSpec(_A),
        AgentSpec(_A, can_hunt=False),
        AgentSpec(_B),
        AgentSpec(_B, can_hunt=False),
    ),
    "two_of_each": (
        AgentSpec(_A),
        AgentSpec(_A),
        AgentSpec(_B, can_hunt=False),
        AgentSpec(_B, can_hunt=False),
    ),
}
# The partner test of each condition: focal agents are the hunters of this kind (None: every hunter), and
# the effect is P(stag | same-kind partner) - P(stag | other-kind partner). What the effect should be if
# agents read the ability from the label: positive where the other kind cannot hunt, zero where the label
# carries no information about the partner's ability.
PARTNER_TEST_FOCAL_KIND: dict[str, str | None] = {
    "all_can_hunt": _A,
    "not_all_can_hunt": _A,
    "roles_swapped": _B,
    "kind_shuffled": None,
    "two_of_each": _A,
}

# Observation channels of the allocentric crop, in order. Agent channels are kind x orientation.
CELL_CHANNELS: tuple[str, ...] = ("empty", "wall", "stag", "wounded_stag", "hare", "attack_beam")
AGENT_CHANNELS: tuple[str, ...] = tuple(
    f"{kind}_{orientation}" for kind in AGENT_KINDS for orientation in ORIENTATION_NAMES
)
OBSERVATION_CHANNELS: tuple[str, ...] = CELL_CHANNELS + AGENT_CHANNELS
CHANNEL_INDEX: dict[str, int] = {name: index for index, name in enumerate(OBSERVATION_CHANNELS)}
# The vector after the flattened crop: own orientation (one-hot 4), own kind (one-hot 2).
VECTOR_FEATURES: tuple[str, ...] = tuple(f"own_{name}" for name in ORIENTATION_NAMES) + tuple(
    f"own_{kind}" for kind in AGENT_KINDS
)


@dataclass(frozen=True)
class AttackShape:
    """Cells an attack covers, as (forward, lateral) offsets from the attacker (lateral +1 = its right),
    nearest first (the first resource found names the attack's target). `walls_block`: a wall stops the
    beam (line) or is merely skipped (area)."""

    offsets: tuple[tuple[int, int], ...]
    walls_block: bool


def attack_shape(name: str, attack_range: int = 2) -> AttackShape:
    """`line`: 1..attack_range straight ahead; `area` (sorrel's E3): forward 0..2 x lateral -1..+1."""
    if name == "line":
        return AttackShape(tuple((distance, 0) for distance in range(1, attack_range + 1)), walls_block=True)
    if name == "area":
        offsets = tuple((forward, lateral) for forward in range(3) for lateral in (0, -1, 1))
        return AttackShape(offsets, walls_block=False)
    from cogames_lib.errors import ParameterError

    raise ParameterError(f"attack shape must be 'line' or 'area', got {name!r}")


# Position code (sorrel's): per axis, sin and cos of 2*pi*f*p/size for f in 1, 2, 4.
POSITION_FREQUENCIES: tuple[int, ...] = (1, 2, 4)
POSITION_FEATURES: tuple[str, ...] = tuple(
    f"position_{axis}_{wave}_{frequency}"
    for axis in ("row", "col")
    for frequency in POSITION_FREQUENCIES
    for wave in ("sin", "cos")
)


def position_code(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """(..., 12) float32 position embedding of cells (rows, cols) in a map of `shape`."""
    parts = []
    for values, size in ((np.asarray(rows), shape[0]), (np.asarray(cols), shape[1])):
        for frequency in POSITION_FREQUENCIES:
            angle = 2.0 * np.pi * frequency * values / size
            parts += [np.sin(angle), np.cos(angle)]
    return np.stack(parts, axis=-1).astype(np.float32)
