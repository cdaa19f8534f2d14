"""The named worlds: `sorrel_e3` sets every option, `default` stays the project's world, and bad options
fail when the config is built (each option's rule is pinned in tests/test_staghunt_engine.py)."""

from __future__ import annotations

import pytest

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.rules import PRESET_POPULATIONS
from cogames_lib.staghunt.train import preset
from cogames_lib.staghunt.world_config import StagHuntConfig, world_config


def test_sorrel_e3_preset_sets_every_option_and_default_is_unchanged() -> None:
    e3 = preset("not_all_can_hunt", world="sorrel_e3")
    assert e3.env == world_config("sorrel_e3")
    assert (e3.env.attack_shape, e3.env.observation_timing, e3.env.start_orientation) == (
        "area",
        "before_act",
        "west",
    )
    assert (e3.env.episode_length, e3.env.payout_timing) == ("uniform", "next_act")
    assert e3.env.position_embedding and (e3.env.resource_density, e3.env.stag_probability) == (0.15, 0.5)
    assert e3.agents == PRESET_POPULATIONS["not_all_can_hunt"] and e3.worlds > 1
    default = preset("all_can_hunt")
    assert default.env == StagHuntConfig() and default.worlds == 1
    with pytest.raises(ParameterError, match="unknown world"):
        preset("all_can_hunt", world="sorrel")


@pytest.mark.parametrize(
    ("options", "message"),
    [({"attack_shape": "cone"}, "attack_shape"), ({"observation_timing": "late"}, "observation_timing"),
     ({"max_turns": 0}, "max_turns"), ({"view_radius": 0}, "view_radius"), ({"attack_range": 0}, "attack_range")],
)  # fmt: skip
def test_bad_world_options_are_one_line_errors(options: dict, message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        StagHuntConfig(**options)
