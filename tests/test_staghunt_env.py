"""Rules of the stag hunt (engine) and PettingZoo conformance of the adapter."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from cogames_lib.staghunt.engine import StagHuntEngine, observation_size
from cogames_lib.staghunt.env import StagHuntConfig, StagHuntEnv
from cogames_lib.staghunt.maps import parse_stag_hunt_map_text
from cogames_lib.staghunt.rules import CHANNEL_INDEX, HARE, STAG, Action, AgentSpec

# Stag at (2,3); agents at (1,3) facing S and (3,3) facing N both have it in range.
ARENA = "WWWWWWW\nW     W\nW  1  W\nW     W\nW  2  W\nW     W\nWWWWWWW\n"
NORTH, EAST, SOUTH, WEST = range(4)
A, F, B, L, R = Action.ATTACK, Action.FORWARD, Action.BACKWARD, Action.STEP_LEFT, Action.STEP_RIGHT


def engine_with(positions, orientations, can_hunt=(True, True)) -> StagHuntEngine:
    grid = parse_stag_hunt_map_text(ARENA, "arena")
    engine = StagHuntEngine([AgentSpec("AgentKindA", c) for c in can_hunt[: len(positions)]])
    engine.reset(grid, grid.resources, positions, orientations)
    return engine


def test_pettingzoo_parallel_api() -> None:
    parallel_api_test(StagHuntEnv(StagHuntConfig(max_turns=30)), num_cycles=100)


def test_pettingzoo_parallel_seed() -> None:
    parallel_seed_test(lambda: StagHuntEnv(StagHuntConfig(max_turns=30)))


def test_episode_truncates_after_max_turns() -> None:
    env = StagHuntEnv(StagHuntConfig(max_turns=5), population="not_all_can_hunt")
    env.reset(seed=1)
    for turn in range(5):
        _, _, terminations, truncations, infos = env.step(dict.fromkeys(env.agents, 0))
        assert not any(terminations.values())
        assert all(truncations.values()) == (turn == 4)
    assert env.agents == []
    assert infos["agent_2"]["can_hunt"] is False and infos["agent_2"]["kind"] == "AgentKindB"


def test_lone_agent_cannot_kill_a_stag_even_hitting_every_turn() -> None:
    engine = engine_with([(1, 3)], [SOUTH])
    for _ in range(6):
        result = engine.step([A], [0])
        assert result.kills["stag"] == 0 and result.rewards[0] == 0
        assert result.attack_targets[0] == "stag"
    assert engine.resources[2, 3] == STAG.code


def test_two_hunters_in_the_same_turn_kill_the_stag_and_share_the_reward() -> None:
    engine = engine_with([(1, 3), (3, 3)], [SOUTH, NORTH])
    result = engine.step([A, A], [1, 0])
    assert result.kills["stag"] == 1
    assert result.rewards.tolist() == [STAG.reward / 2, STAG.reward / 2]
    assert engine.resources[2, 3] == 0


def test_hits_in_consecutive_turns_by_two_agents_do_not_kill() -> None:
    engine = engine_with([(1, 3), (3, 3)], [SOUTH, NORTH])
    engine.step([A, None], [0, 1])
    obs = engine.observe(1)
    side = 9
    center = CHANNEL_INDEX["wounded_stag"] * side * side + 4 * side + 4 - side  # one row north of agent 1
    assert obs[center] == 1.0  # the partner sees the stag wounded...
    result = engine.step([None, A], [0, 1])
    assert result.kills["stag"] == 0  # ...but it healed before this hit


def test_agent_that_cannot_hunt_does_nothing_to_a_stag() -> None:
    engine = engine_with([(1, 3), (3, 3)], [SOUTH, NORTH], can_hunt=(True, False))
    result = engine.step([A, A], [0, 1])
    assert result.kills["stag"] == 0 and result.rewards.sum() == 0
    assert result.attack_targets == ["stag", "stag"]  # the beam still covers it (the probe counts that)


def test_hare_dies_from_one_hit_and_pays_the_hitter() -> None:
    engine = engine_with([(5, 3)], [NORTH])
    result = engine.step([A], [0])
    assert result.kills["hare"] == 1 and result.rewards[0] == HARE.reward
    assert engine.resources[4, 3] == 0


def test_attack_range_is_two_cells_and_walls_stop_the_beam() -> None:
    engine = engine_with([(5, 3)], [NORTH])
    engine.resources[4, 3] = 0
    assert engine.step([A], [0]).attack_targets[0] is None  # stag at distance 3
    engine = engine_with([(1, 1)], [NORTH])
    engine.step([A], [0])
    assert not engine.beam.any()


def test_moves_are_intuitive_and_turn_the_agent() -> None:
    engine = engine_with([(3, 1)], [NORTH])
    engine.step([R], [0])  # own right of north is east
    assert tuple(engine.positions[0]) == (3, 2) and engine.orientations[0] == EAST
    engine.step([L], [0])  # own left of east is north
    assert tuple(engine.positions[0]) == (2, 2) and engine.orientations[0] == NORTH
    engine.step([B], [0])  # backward goes south and faces south
    assert tuple(engine.positions[0]) == (3, 2) and engine.orientations[0] == SOUTH


def test_blocked_moves_do_nothing() -> None:
    engine = engine_with([(1, 3), (3, 3)], [SOUTH, WEST])
    engine.step([F, None], [0, 1])  # into the stag
    engine.step([None, R], [0, 1])  # own right of west is north: the stag again
    assert tuple(engine.positions[0]) == (1, 3) and engine.orientations[0] == SOUTH
    assert tuple(engine.positions[1]) == (3, 3) and engine.orientations[1] == WEST
    engine = engine_with([(1, 1)], [NORTH])
    engine.step([F], [0])
    assert tuple(engine.positions[0]) == (1, 1)


def test_observation_is_allocentric_and_shows_true_orientations() -> None:
    engine = engine_with([(1, 3), (3, 3)], [EAST, WEST])
    obs = engine.observe_all()
    assert obs.shape == (2, observation_size()) and obs.dtype == np.float32
    grid = obs[0, :-6].reshape(-1, 9, 9)
    assert grid[CHANNEL_INDEX["AgentKindA_east"], 4, 4] == 1  # self in the centre
    assert grid[CHANNEL_INDEX["AgentKindA_west"], 6, 4] == 1  # partner two rows south, not rotated
    assert grid[CHANNEL_INDEX["stag"], 5, 4] == 1
    assert grid[CHANNEL_INDEX["wall"], 0:4, :].all()  # above the top wall row the crop is padded with wall
    assert obs[0, -6 + EAST] == 1 and obs[0, -2] == 1


@pytest.mark.parametrize("seed", [0, 7])
def test_same_seed_same_episode(seed: int) -> None:
    def run() -> list:
        env = StagHuntEnv(StagHuntConfig(max_turns=20))
        observations, _ = env.reset(seed=seed)
        trace = [observations["agent_0"].copy()]
        rng = np.random.default_rng(seed)
        while env.agents:
            observations, rewards, *_ = env.step({a: int(rng.integers(5)) for a in env.agents})
            trace.append(sum(rewards.values()))
        return trace

    first, second = run(), run()
    assert np.array_equal(first[0], second[0]) and first[1:] == second[1:]


def test_out_of_range_action_is_a_parameter_error() -> None:
    from cogames_lib.errors import ParameterError

    env = StagHuntEnv(StagHuntConfig(max_turns=3))
    env.reset(seed=0)
    with pytest.raises(ParameterError, match=r"agent_1: action must be in 0\.\.4, got 9"):
        env.step({"agent_0": 0, "agent_1": 9, "agent_2": 0})


def test_ascii_render_reads_like_the_map_legend() -> None:
    from cogames_lib.staghunt.env import render_ascii

    engine = engine_with([(1, 3), (5, 1)], [SOUTH, EAST])
    assert render_ascii(engine).splitlines() == [
        "WWWWWWW", "W  v  W", "W  1  W", "W     W", "W  2  W", "W>    W", "WWWWWWW"
    ]  # fmt: skip
