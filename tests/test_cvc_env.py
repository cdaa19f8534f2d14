"""The PettingZoo adapter: conformance, determinism, episode end, observations, rendering."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from cogames_lib.cvc import CHANNEL, SELF_INDEX, CogsVsClipsEnv, EnvConfig, rules
from cogames_lib.errors import ParameterError
from cogames_lib.paths import DIAGNOSTIC_MAPS_DIR

EXTRACT_LAB = DIAGNOSTIC_MAPS_DIR / "diagnostic_extract_lab.map"
RADIAL = DIAGNOSTIC_MAPS_DIR / "diagnostic_radial.map"


@pytest.mark.parametrize("num_agents", [1, 2, 4])
def test_parallel_api(num_agents: int) -> None:
    parallel_api_test(CogsVsClipsEnv(EXTRACT_LAB, num_agents=num_agents, max_steps=60), num_cycles=100)


def test_parallel_seed() -> None:
    parallel_seed_test(lambda: CogsVsClipsEnv(RADIAL, num_agents=3, max_steps=40))


def rollout(seed: int, num_agents: int = 4, steps: int = 200) -> list[tuple]:
    env = CogsVsClipsEnv(
        EXTRACT_LAB,
        num_agents=num_agents,
        max_steps=steps,
        config=EnvConfig(inventory_seeds=({"carbon": 2, "oxygen": 2, "germanium": 1, "silicon": 3},)),
    )
    observations, _ = env.reset(seed=seed)
    actions = np.random.default_rng(seed).integers(0, len(rules.ACTIONS), size=(steps, num_agents))
    trace = []
    for row in actions:
        if not env.agents:
            break
        observations, rewards, _, _, _ = env.step(dict(zip(env.possible_agents, row.tolist(), strict=True)))
        trace.append(
            (
                tuple(o["grid"].tobytes() + o["self"].tobytes() for o in observations.values()),
                tuple(rewards.values()),
            )
        )
    return trace


def test_same_seed_same_actions_identical_trajectory() -> None:
    assert rollout(7) == rollout(7)
    assert rollout(7) != rollout(8)


def test_spawns_are_a_seeded_subset() -> None:
    positions = set()
    for seed in range(10):
        env = CogsVsClipsEnv(EXTRACT_LAB, num_agents=1)
        env.reset(seed=seed)
        agent = env.world.agents[0]
        positions.add((agent.row, agent.col))
    assert len(positions) > 1
    assert positions <= set(env.world.grid_map.spawns)


def test_deposit_terminates_with_reward_one() -> None:
    env = CogsVsClipsEnv(
        DIAGNOSTIC_MAPS_DIR / "diagnostic_vibe_swap.map", config=EnvConfig(inventory_seeds=({"heart": 1},))
    )
    env.reset(seed=0)  # the single spawn is at (3, 4), the heart chest at (4, 5)
    env.step({"agent_0": rules.ACTION_INDEX["move_east"]})
    _, rewards, terminations, truncations, _ = env.step({"agent_0": rules.ACTION_INDEX["move_south"]})
    assert rewards == {"agent_0": 1.0}
    assert terminations == {"agent_0": True} and truncations == {"agent_0": False}
    assert env.agents == []
    with pytest.raises(ParameterError, match="finished episode"):
        env.step({"agent_0": 0})


@pytest.mark.parametrize("action", [-1, len(rules.ACTIONS), 99, 1.5, "move_east", None])
def test_an_action_outside_the_action_space_is_refused_and_changes_nothing(action) -> None:
    env = CogsVsClipsEnv(EXTRACT_LAB, num_agents=2, max_steps=5)
    env.reset(seed=3)
    agent = env.unwrapped.world.agents[1]
    before = (agent.row, agent.col, agent.vibe)
    with pytest.raises(ParameterError, match=r"actions\['agent_1'\]: .* is not an action index in 0\.\.17"):
        env.step({"agent_0": 0, "agent_1": action})
    assert (agent.row, agent.col, agent.vibe) == before and env.unwrapped.world.step_count == 0
    env.step({"agent_0": np.int64(1), "agent_1": 2.0})  # numpy integers and integral floats are fine


def test_truncation_at_max_steps_with_reward_zero() -> None:
    env = CogsVsClipsEnv(EXTRACT_LAB, num_agents=2, max_steps=5)
    env.reset(seed=0)
    total = 0.0
    for step in range(5):
        _, rewards, terminations, truncations, _ = env.step(dict.fromkeys(env.possible_agents, rules.NOOP))
        total += sum(rewards.values())
        assert not any(terminations.values())
        assert all(truncations.values()) is (step == 4)
    assert total == 0.0 and env.agents == []


def test_observation_is_egocentric_with_documented_channels() -> None:
    env = CogsVsClipsEnv(
        EXTRACT_LAB,
        num_agents=1,
        config=EnvConfig(inventory_seeds=({"carbon": 3, "energy": 77},), energy_refill=False),
    )
    observations, _ = env.reset(seed=0)
    observation = observations["agent_0"]
    assert env.observation_space("agent_0").contains(observation)
    grid, own = observation["grid"], observation["self"]
    agent = env.world.agents[0]
    assert grid[CHANNEL["agent"], 5, 5] == 1 and grid[CHANNEL["agent_vibe"], 5, 5] == rules.DEFAULT_VIBE + 1
    assert own[SELF_INDEX["carbon"]] == 3 and own[SELF_INDEX["energy"]] == 77
    # The window matches the map around the agent; outside the map reads as wall.
    cells = env.world.grid_map.cells
    for dr in range(-5, 6):
        for dc in range(-5, 6):
            r, c = agent.row + dr, agent.col + dc
            inside = 0 <= r < len(cells) and 0 <= c < len(cells[0])
            expected_wall = (not inside) or cells[r][c] == "wall"
            assert grid[CHANNEL["wall"], 5 + dr, 5 + dc] == int(expected_wall)
            if inside and cells[r][c] == "assembler":
                assert grid[CHANNEL["assembler"], 5 + dr, 5 + dc] == 1


def test_station_state_channels_follow_the_world() -> None:
    env = CogsVsClipsEnv(
        DIAGNOSTIC_MAPS_DIR / "diagnostic_vibe_swap.map", config=EnvConfig(resource_chest_stock={"carbon": 2})
    )
    observations, _ = env.reset(seed=0)
    # agent at (3, 4); chest_carbon at (1, 1) -> window offset (-2, -3)
    assert observations["agent_0"]["grid"][CHANNEL["chest_carbon"], 3, 2] == 1
    assert observations["agent_0"]["grid"][CHANNEL["stock"], 3, 2] == 2


def test_render_modes() -> None:
    env = CogsVsClipsEnv(EXTRACT_LAB, num_agents=2, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "&" in text and "0" in text and "1" in text and text.endswith("step 0")
    env = CogsVsClipsEnv(EXTRACT_LAB, num_agents=2, render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.shape == (15 * 8, 13 * 8, 3)
    with pytest.raises(ParameterError, match="render_mode"):
        CogsVsClipsEnv(EXTRACT_LAB, render_mode="human")


def test_bad_parameters_give_one_line_errors() -> None:
    with pytest.raises(ParameterError, match="max_steps"):
        CogsVsClipsEnv(EXTRACT_LAB, max_steps=0)
    with pytest.raises(ParameterError, match=r"inventory_seeds\[0\]: unknown item 'gold'"):
        EnvConfig(inventory_seeds=({"gold": 1},))
    with pytest.raises(ParameterError, match="clipped: unknown resource"):
        EnvConfig(clipped={"heart"})
