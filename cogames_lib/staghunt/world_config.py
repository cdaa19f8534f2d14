"""World parameters of the stag hunt (pure data, no gymnasium): one frozen config and the named worlds.

`StagHuntConfig` holds every option of the world; `WORLD_PRESETS` names the two worlds we ship:
`default` (the project's world) and `sorrel_e3` (the settings of
sorrel's E3 studies, see `docs/staghunt_world.md` for the row-by-row comparison). The option values are
small string vocabularies checked here, so a typo fails when the config is built, not mid-run.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from cogames_lib.errors import ParameterError

ATTACK_SHAPES: tuple[str, ...] = ("line", "area")
OBSERVATION_TIMINGS: tuple[str, ...] = ("turn_start", "before_act")
START_ORIENTATIONS: tuple[str, ...] = ("random", "west")
EPISODE_LENGTHS: tuple[str, ...] = ("fixed", "uniform")
PAYOUT_TIMINGS: tuple[str, ...] = ("immediate", "next_act")


@dataclass(frozen=True)
class StagHuntConfig:
    """World parameters.

    size, resource_density, stag_probability: the random training map drawn per episode (a wall border
        around `size` x `size`; each interior cell is a resource with `resource_density`, a stag with
        `stag_probability`, else a hare).
    map_path: a fixed ASCII map instead of random maps (its `a` cells still draw stag/hare per episode;
        agents spawn on its `A`/`P` cells if it has enough, else on random free cells).
    max_turns: turns per episode (the longest episode when `episode_length="uniform"`).
    attack_range: beam length of the `line` attack; view_radius: crop radius (4 -> 9x9).
    attack_shape: `line` hits cells 1..attack_range straight ahead, a wall stops it; `area` (sorrel's
        E3) hits the 3x3 block lateral -1..+1 x forward 0..2 (own row included), wall cells are skipped
        but do not stop it.
    observation_timing: `turn_start` (every agent observes the world as the turn starts) or `before_act`
        (sorrel: each agent observes just before it acts, so it sees what earlier movers did this turn).
    start_orientation: `random` (uniform over N/E/S/W) or `west` (sorrel: every agent starts facing West).
    episode_length: `fixed` (always `max_turns`) or `uniform` (sorrel's `random_max_turns`: drawn
        uniformly from 1..max_turns per episode; the learner then treats the end as terminal).
    payout_timing: `immediate` (a kill pays in the turn it happens) or `next_act` (sorrel: a payout is
        delivered when its recipient next acts; payouts still pending when the episode ends are paid at
        its last turn, so no reward crosses into the next episode).
    position_embedding: append 12 floats to the observation: sin/cos of the agent's (row, col) at 3
        frequencies per axis, scaled by the map size (sorrel's position code).
    wounded_stag_channel: show a damaged stag in its own channel (`wounded_stag`); off, a damaged stag
        looks like any stag and the channel stays zero (sorrel has no such channel).
    """

    size: int = 13
    resource_density: float = 0.1
    stag_probability: float = 0.3
    max_turns: int = 50
    attack_range: int = 2
    view_radius: int = 4
    map_path: str | None = None
    attack_shape: str = "line"
    observation_timing: str = "turn_start"
    start_orientation: str = "random"
    episode_length: str = "fixed"
    payout_timing: str = "immediate"
    position_embedding: bool = False
    wounded_stag_channel: bool = True

    def __post_init__(self) -> None:
        for name in ("max_turns", "attack_range", "view_radius"):
            if getattr(self, name) < 1:
                raise ParameterError(f"StagHuntConfig.{name} must be >= 1, got {getattr(self, name)}")
        for name, allowed in (
            ("attack_shape", ATTACK_SHAPES),
            ("observation_timing", OBSERVATION_TIMINGS),
            ("start_orientation", START_ORIENTATIONS),
            ("episode_length", EPISODE_LENGTHS),
            ("payout_timing", PAYOUT_TIMINGS),
        ):
            if getattr(self, name) not in allowed:
                raise ParameterError(
                    f"StagHuntConfig.{name} must be one of {list(allowed)}, got {getattr(self, name)!r}"
                )


# sorrel's E3 studies (read from its code; see docs/staghunt_world.md). The wounded-stag channel is ours
# and stays on: it is an observation cue, not a rule, and with observation just before acting it shows
# damage dealt earlier in the same turn, the cue that makes coordination learnable.
WORLD_PRESETS: dict[str, StagHuntConfig] = {
    "default": StagHuntConfig(),
    "sorrel_e3": StagHuntConfig(
        size=13,
        resource_density=0.15,
        stag_probability=0.5,
        max_turns=50,
        attack_shape="area",
        observation_timing="before_act",
        start_orientation="west",
        episode_length="uniform",
        payout_timing="next_act",
        position_embedding=True,
        wounded_stag_channel=True,
    ),
}


def world_config(world: str = "default", **overrides: Any) -> StagHuntConfig:
    """The named world (`default` or `sorrel_e3`) with optional field overrides."""
    if world not in WORLD_PRESETS:
        raise ParameterError(f"unknown world {world!r}; known: {sorted(WORLD_PRESETS)}")
    return replace(WORLD_PRESETS[world], **overrides)
