"""One hand-built scenario per world option (docs/staghunt_world.md), and the sorrel_e3 preset."""

from __future__ import annotations

import numpy as np
import pytest

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.engine import StagHuntEngine, observation_size
from cogames_lib.staghunt.env import EpisodeRunner, start_episode
from cogames_lib.staghunt.maps import parse_stag_hunt_map_text, random_map
from cogames_lib.staghunt.rules import CHANNEL_INDEX, HARE, PRESET_POPULATIONS, STAG, Action, AgentSpec
from cogames_lib.staghunt.train import preset
from cogames_lib.staghunt.world_config import StagHuntConfig, world_config

NORTH, EAST, SOUTH, WEST = range(4)
A, F = Action.ATTACK, Action.FORWARD
HUNTERS = [AgentSpec("AgentKindA")] * 3
SIDE = 9  # 9x9 crop; channel c of crop cell (dr, dc) relative to the agent is index c*81 + (4+dr)*9 + (4+dc)


def crop_index(channel: str, d_row: int, d_col: int) -> int:
    return CHANNEL_INDEX[channel] * SIDE * SIDE + (4 + d_row) * SIDE + (4 + d_col)


def engine_on(text: str, positions, orientations, **options) -> StagHuntEngine:
    grid = parse_stag_hunt_map_text(text, "scenario")
    engine = StagHuntEngine(HUNTERS[: len(positions)], **options)
    engine.reset(grid, grid.resources, positions, orientations)
    return engine


# Agent at (5,5) facing North. Area cells: rows 5,4,3 x cols 4,5,6. A wall at (4,5) sits between the
# agent and a hare at (3,5); a stag at (5,4) is beside the agent; a hare at (3,6) is ahead-right.
AREA_MAP = "\n".join(["WWWWWWWWW", "W       W", "W       W", "W    22 W", "W    W  W", "W   1   W", "W       W", "W       W", "WWWWWWWWW"])  # fmt: skip


def test_area_attack_hits_the_3x3_block_and_skips_walls_while_a_line_stops_at_them() -> None:
    area = engine_on(AREA_MAP, [(5, 5)], [NORTH], attack_shape="area")
    result = area.step([A], [0])
    assert result.kills["hare"] == 2  # (3,5) behind the wall and (3,6) ahead-right
    assert area.health[5, 4] == STAG.health  # the stag beside it was hit (1 damage) and healed at turn end
    assert result.attack_targets[0] == "stag"  # the nearest resource names the target
    assert area.beam[0][5, 4] and area.beam[0][5, 5] and not area.beam[0][4, 5]  # own row lit, wall skipped
    line = engine_on(AREA_MAP, [(5, 5)], [NORTH], attack_shape="line")
    result = line.step([A], [0])
    assert result.kills["hare"] == 0 and result.attack_targets[0] is None  # the wall stops the beam


def test_area_attack_near_the_border_stays_inside_the_grid() -> None:
    engine = engine_on(AREA_MAP, [(1, 1)], [NORTH], attack_shape="area")
    engine.step([A], [0])  # forward offsets reach row -1: skipped, no wrap-around
    assert engine.beam[0][1, 2] and not engine.beam[0][-1].any()


# Stag at (2,3); agent 0 above it facing South, agent 1 below it facing North.
DUEL = "WWWWWWW\nW     W\nW  1  W\nW     W\nW  2  W\nW     W\nWWWWWWW"


@pytest.mark.parametrize("timing", ["turn_start", "before_act"])
def test_before_act_observation_shows_damage_dealt_earlier_in_the_same_turn(timing: str) -> None:
    engine = engine_on(DUEL, [(1, 3), (3, 3)], [SOUTH, NORTH], observation_timing=timing)
    at_turn_start = engine.observe_all()
    seen: dict[int, np.ndarray] = {}

    def choose(index: int, obs: np.ndarray) -> int:
        seen[index] = obs
        return int(A)

    if timing == "before_act":
        result, _ = engine.step_with_policy(choose, [0, 1])
    else:
        result = engine.step([A, A], [0, 1])
        seen = {0: at_turn_start[0], 1: at_turn_start[1]}
    stag_from_agent_1 = (-1, 0)
    wounded = seen[1][crop_index("wounded_stag", *stag_from_agent_1)]
    assert wounded == (1.0 if timing == "before_act" else 0.0)
    assert seen[1][crop_index("stag", *stag_from_agent_1)] == 1.0 - wounded
    assert result.kills["stag"] == 1 and result.rewards.tolist() == [50.0, 50.0]


def test_turn_start_wounded_channel_shows_last_turns_hits_and_can_be_turned_off() -> None:
    for channel_on in (True, False):
        engine = engine_on(DUEL, [(1, 3)], [SOUTH], wounded_stag_channel=channel_on)
        engine.step([A], [0])  # a lone hit: the stag heals at the turn's end but is shown wounded
        obs = engine.observe(0)
        assert obs[crop_index("wounded_stag", 1, 0)] == float(channel_on)
        assert obs[crop_index("stag", 1, 0)] == float(not channel_on)


def test_before_act_beam_stays_until_its_attacker_acts_again() -> None:
    engine = engine_on(DUEL, [(1, 3), (5, 3)], [SOUTH, NORTH], observation_timing="before_act")
    engine.step([A, F], [0, 1])
    assert (
        engine.observe(1)[crop_index("attack_beam", -3, 0)] == 1.0
    )  # agent 0's beam at (2,3), seen from (5,3)
    engine.step([F, F], [1, 0])  # agent 1 acts first and still sees it; then agent 0 acts and it goes
    assert not engine.beam[0].any()


def test_west_start_and_uniform_episode_lengths() -> None:
    rng = np.random.default_rng(0)
    config = world_config("sorrel_e3")
    engine = StagHuntEngine.from_config(HUNTERS, config)
    lengths = {start_episode(engine, config, rng) for _ in range(200)}
    assert (engine.orientations == WEST).all()
    assert min(lengths) >= 1 and max(lengths) <= 50 and len(lengths) > 30
    fixed = StagHuntConfig()
    assert {start_episode(StagHuntEngine(HUNTERS), fixed, rng) for _ in range(20)} == {50}
    runner = EpisodeRunner(HUNTERS, StagHuntConfig(episode_length="uniform", max_turns=3))
    runner.reset(rng)
    turns, done = 0, False
    while not done:
        _, _, done = runner.step([0, 0, 0])
        turns += 1
    assert turns == runner.episode_turns <= 3


def test_next_act_payout_arrives_when_the_recipient_next_acts_and_at_the_episode_end() -> None:
    engine = engine_on(DUEL, [(1, 3), (3, 3)], [SOUTH, NORTH], payout_timing="next_act")
    result = engine.step([A, A], [0, 1])
    assert result.kills["stag"] == 1 and result.rewards.tolist() == [0.0, 0.0]
    result = engine.step([None, F], [0, 1])  # agent 0 takes no action but its turn comes: paid
    assert result.rewards.tolist() == [50.0, 50.0]
    # A kill in an episode's last turn is paid into that turn (nothing crosses into the next episode).
    runner = EpisodeRunner(HUNTERS[:2], StagHuntConfig(payout_timing="next_act", max_turns=1, map_path=None))
    runner.engine = engine_on(DUEL, [(1, 3), (3, 3)], [SOUTH, NORTH], payout_timing="next_act")
    runner.episode_turns = 1
    _, result, done = runner.step([A, A])
    assert done and result.rewards.tolist() == [50.0, 50.0]


def test_stag_reward_is_split_among_the_agents_that_damaged_it_since_it_last_healed() -> None:
    text = "WWWWWWW\nW     W\nW  1  W\nW     W\nW     W\nWWWWWWW"
    engine = engine_on(text, [(1, 3), (3, 3), (2, 2)], [SOUTH, NORTH, EAST])
    engine.step([A, None, None], [0, 1, 2])  # agent 0 hits alone: the stag heals at the turn's end
    result = engine.step([None, A, A], [0, 1, 2])  # agents 1 and 2 kill it: agent 0 gets nothing
    assert result.rewards.tolist() == [0.0, 50.0, 50.0]
    engine = engine_on(text, [(1, 3), (3, 3), (2, 2)], [SOUTH, NORTH, EAST], attack_shape="area")
    result = engine.step([A, A, A], [2, 0, 1])  # the first two kill it; the third finds nothing
    assert result.kills["stag"] == 1 and result.rewards.tolist() == [50.0, 0.0, 50.0]


def test_position_embedding_appends_the_sinusoidal_code_of_the_cell() -> None:
    engine = engine_on(DUEL, [(1, 3)], [SOUTH], position_embedding=True)
    obs = engine.observe(0)
    assert len(obs) == observation_size(4, position_embedding=True) == observation_size(4) + 12
    expected = []
    for value in (1, 3):  # row 1, col 3 of a 7x7 map
        for frequency in (1, 2, 4):
            angle = 2 * np.pi * frequency * value / 7
            expected += [np.sin(angle), np.cos(angle)]
    np.testing.assert_allclose(obs[-12:], expected, rtol=1e-6)


def test_sorrel_densities_give_the_expected_map_statistics() -> None:
    rng = np.random.default_rng(0)
    config = world_config("sorrel_e3")
    maps = [
        random_map(rng, config.size, config.resource_density, config.stag_probability) for _ in range(300)
    ]
    interior = np.concatenate([grid.resources[1:-1, 1:-1].ravel() for grid in maps])
    present = interior != 0
    assert abs(present.mean() - 0.15) < 0.01
    assert abs((interior[present] == STAG.code).mean() - 0.5) < 0.03
    assert HARE.code in interior


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
    with pytest.raises(ParameterError, match="attack_shape"):
        StagHuntConfig(attack_shape="cone")
