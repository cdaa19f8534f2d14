"""The PettingZoo adapters over the one engine: the API tests and observation containment in every world
preset (Melting Pot's substrate-test pattern), seeding, truncation, and what each API observes."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.engine import observation_size
from cogames_lib.staghunt.env import StagHuntAECEnv, StagHuntEnv
from cogames_lib.staghunt.world_config import WORLD_PRESETS, StagHuntConfig, world_config


def _observations_of_random_play(world: str, episodes: int = 3) -> list[np.ndarray]:
    """Every observation the AEC env and the parallel env hand out over random episodes."""
    config = world_config(world, max_turns=15)
    seen = []
    aec = StagHuntAECEnv(config, "not_all_can_hunt")
    for episode in range(episodes):
        aec.reset(seed=episode)
        rng = np.random.default_rng(episode)
        for _agent in aec.agent_iter():
            observation, _, terminated, truncated, _ = aec.last()
            seen.append(observation)
            aec.step(None if terminated or truncated else int(rng.integers(5)))
    parallel = StagHuntEnv(config)
    for episode in range(episodes):
        observations, _ = parallel.reset(seed=episode)
        seen += list(observations.values())
        while parallel.agents:
            observations, *_ = parallel.step({agent: int(rng.integers(5)) for agent in parallel.agents})
            seen += list(observations.values())
    return seen


@pytest.mark.parametrize("world", sorted(WORLD_PRESETS))
def test_every_world_preset_passes_the_pettingzoo_api_tests(world: str) -> None:
    config = world_config(world, max_turns=25)
    api_test(StagHuntAECEnv(config), num_cycles=80)
    parallel_api_test(StagHuntEnv(config), num_cycles=80)
    seed_test(lambda: StagHuntAECEnv(config), num_cycles=30)
    parallel_seed_test(lambda: StagHuntEnv(config))


@pytest.mark.parametrize("world", sorted(WORLD_PRESETS))
def test_every_observation_lies_inside_the_declared_space(world: str) -> None:
    env = StagHuntEnv(world_config(world))
    space = env.observation_space("agent_0")
    config = WORLD_PRESETS[world]
    assert space.shape == (observation_size(config.view_radius, config.position_embedding),)
    observations = _observations_of_random_play(world)
    assert len(observations) > 100
    for observation in observations:
        assert observation.shape == space.shape and observation.dtype == space.dtype
        assert space.contains(observation)
    if config.position_embedding:  # the code's negative values are inside the space, not clipped
        assert min(float(obs[-12:].min()) for obs in observations) < 0


def test_episode_truncates_after_max_turns_and_infos_name_kinds_and_abilities() -> None:
    env = StagHuntEnv(StagHuntConfig(max_turns=5), population="not_all_can_hunt")
    env.reset(seed=1)
    for turn in range(5):
        _, _, terminations, truncations, infos = env.step(dict.fromkeys(env.agents, 0))
        assert not any(terminations.values())
        assert all(truncations.values()) == (turn == 4)
    assert env.agents == []
    assert infos["agent_2"]["can_hunt"] is False and infos["agent_2"]["kind"] == "AgentKindB"
    with pytest.raises(ParameterError, match="finished episode"):
        env.step({})


def test_aec_agent_selection_follows_a_random_turn_order_and_rewards_land_at_the_turns_end() -> None:
    env = StagHuntAECEnv(world_config("sorrel_e3", max_turns=50, episode_length="fixed"))
    env.reset(seed=3)
    orders = set()
    for _ in range(20):
        order = list(env.agents)
        assert sorted(order) == env.possible_agents
        orders.add(tuple(order))
        for position, agent in enumerate(order):
            assert env.agent_selection == agent
            env.step(4)  # everyone attacks
            if position < len(order) - 1:
                assert set(env.rewards.values()) == {0.0}
    assert len(orders) > 1


@pytest.mark.parametrize("world", sorted(WORLD_PRESETS))
def test_aec_observation_follows_the_worlds_observation_timing(world: str) -> None:
    env = StagHuntAECEnv(world_config(world))
    env.reset(seed=0)
    empty = np.zeros(
        env.engine.shape, dtype=np.int8
    )  # three agents within each other's 9x9 crop, facing east
    env.engine.load_state(0, empty, [(2, 2), (2, 6), (6, 6)], [1, 1, 1], max_turns=50)
    if not env.engine.before_act:
        env._turn_start = env.engine.observe_dense()  # the turn starts from the staged state
    second = env.agents[1]
    before = env.observe(second)
    env.step(0)  # the first mover steps forward into a free cell
    moved = not np.array_equal(before, env.observe(second))
    assert moved == env.engine.before_act  # turn_start: the second acts on the turn's start


def test_same_seed_same_episode_and_out_of_range_actions_are_parameter_errors() -> None:
    def run(seed: int) -> list:
        env = StagHuntEnv(StagHuntConfig(max_turns=20))
        observations, _ = env.reset(seed=seed)
        trace = [observations["agent_0"].copy()]
        rng = np.random.default_rng(seed)
        while env.agents:
            observations, rewards, *_ = env.step({a: int(rng.integers(5)) for a in env.agents})
            trace.append(sum(rewards.values()))
        return trace

    first, second = run(7), run(7)
    assert np.array_equal(first[0], second[0]) and first[1:] == second[1:]
    env = StagHuntEnv(StagHuntConfig(max_turns=3))
    env.reset(seed=0)
    with pytest.raises(ParameterError, match=r"agent_1: action must be in 0\.\.4, got 9"):
        env.step({"agent_0": 0, "agent_1": 9, "agent_2": 0})
    with pytest.raises(ParameterError, match="agent_2: action must be"):
        env.step({"agent_0": 0, "agent_1": 0})
    with pytest.raises(ParameterError, match="unknown population"):
        StagHuntEnv(population="everyone")


def test_ascii_render_reads_like_the_map_legend() -> None:
    from cogames_lib.staghunt.env import render_ascii

    env = StagHuntAECEnv(StagHuntConfig(size=7), population=("all_can_hunt"), render_mode="ansi")
    env.reset(seed=0)
    engine = env.engine
    engine.resources[0] = 0
    engine.resources[0, 2, 3], engine.resources[0, 4, 3] = 1, 2
    engine.agent_at[0] = -1
    engine.positions[0] = [(1, 3), (5, 1), (5, 5)]
    engine.orientations[0] = [2, 1, 0]
    assert env.render() == render_ascii(engine)
    assert render_ascii(engine).splitlines() == [
        "WWWWWWW", "W  v  W", "W  1  W", "W     W", "W  2  W", "W>   ^W", "WWWWWWW"
    ]  # fmt: skip
