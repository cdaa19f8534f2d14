"""The compiled step's guards: its frozen constants, its input checks, and a batch of large teams that switch maps."""

from __future__ import annotations

import numpy as np
import pytest

from cogames_lib.cvc import (
    CogsVsClipsEnv,
    EnvConfig,
    ExtractorOverride,
    kernel,
    observation,
    parse_map_text,
    rules,
)
from cogames_lib.cvc import layout as L
from cogames_lib.cvc.batch import WorldBatch, WorldSpec
from cogames_lib.cvc.maps import OBJECT_GLYPHS
from cogames_lib.cvc.world import World
from cogames_lib.errors import ParameterError

LEGEND = "\n".join(f'  "{glyph}": {name}' for name, glyph in OBJECT_GLYPHS.items())


def grid_map(rows: list[str], name: str):
    body = "\n".join("  " + row for row in rows)
    return parse_map_text(f"map_data: |-\n{body}\nchar_to_map_name:\n{LEGEND}\n", source=name, name=name)


# Two maps with eight spawns each, every station kind, different sizes: a 7-agent world alternates between them.
ROOM = grid_map(["##########", "#@@@@.&.C#", "#@@@@..=O#", "#..+...G.#", "#1234..S.#", "##########"], "room")
HALL = grid_map(["#############", "#@.@.@.@...##", "#@.@.@.@.&=+#", "#C.O.G.S.1234", "#############"], "hall")


def test_the_compiled_constants_are_the_python_values() -> None:
    """numba freezes module constants into its cached code; `kernel._flush_stale_cache` drops that code when
    rules.py, layout.py or observation.py change. If this fails, the cache was stale."""
    assert kernel.frozen_constants() == (
        rules.MOVE_ENERGY_COST,
        rules.CHARGER_ENERGY_GAIN,
        rules.ENERGY_CAPACITY,
        rules.ITEM_CAPACITY,
        rules.FIRST_VIBE_ACTION,
        len(observation.GRID_CHANNELS),
        observation.CHANNEL["stock"],
        L.A_FIELDS,
        L.S_FIELDS,
        L.R_FIELDS,
        rules.SUCCESS_REWARD,
    )


@pytest.mark.parametrize("actions", [[1], [1, 2, 3, 4], [0, 18, 0], [-1, 0, 0]], ids=str)
def test_world_step_refuses_actions_the_kernel_would_misread(actions: list[int]) -> None:
    world = World(ROOM, 3)
    with pytest.raises(ParameterError, match=r"3 action indices in 0\.\.17"):
        world.step(actions)
    assert world.step_count == 0


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (lambda: EnvConfig(heart_chest_capacity=2**31), "heart_chest_capacity"),
        (lambda: EnvConfig(resource_chest_capacity=-1), "resource_chest_capacity"),
        (lambda: EnvConfig(resource_chest_stock={"carbon": 2**40}), "resource_chest_stock"),
        (lambda: EnvConfig(extractor_overrides={"oxygen": ExtractorOverride(max_uses=2**31)}), "max_uses"),
    ],
)
def test_counts_beyond_the_engine_state_are_refused(config, field: str) -> None:
    with pytest.raises(ParameterError, match=field):
        config()


def test_a_batch_of_large_teams_switching_maps_plays_the_env_episodes() -> None:
    """A 7-agent world (its turn order shuffled in Python, beyond the compiled permutation table) and a 6-agent
    world alternate between two maps of different sizes across auto-resets; each episode equals the env's."""
    config = EnvConfig(
        inventory_seeds=({"carbon": 2, "oxygen": 2, "germanium": 1, "silicon": 3, "decoder": 1},)
    )
    maps = [ROOM, HALL]
    episodes = {0: 0, 1: 0}

    def next_episode(world: int) -> tuple[WorldSpec, int]:
        episode = episodes[world]
        episodes[world] += 1
        count = (7, 6)[world]
        return WorldSpec(f"w{world}", maps[(episode + world) % 2], count, 25, config), 100 * world + episode

    batch = WorldBatch([7, 6], next_episode)
    batch.reset()
    rng = np.random.default_rng(5)
    envs: list[CogsVsClipsEnv] = []
    for world in range(2):
        spec = batch.specs[world]
        envs.append(CogsVsClipsEnv(spec.grid_map, spec.num_agents, spec.max_steps, spec.config))
        envs[world].reset(seed=100 * world)
    for _ in range(80):  # more than three episodes of every world
        actions = rng.integers(0, len(rules.ACTIONS), batch.num_slots)
        previous_specs = list(batch.specs)
        batch.step(actions)
        for world, env in enumerate(envs):
            first, count = int(batch.first_slot[world]), previous_specs[world].num_agents
            chosen = actions[first : first + count].tolist()
            observations, rewards, _, _, _ = env.step(dict(zip(env.possible_agents, chosen, strict=True)))
            assert batch.rewards[first : first + count].tolist() == list(rewards.values())
            if env.agents:
                for i, agent in enumerate(env.possible_agents):
                    np.testing.assert_array_equal(batch.grids[first + i], observations[agent]["grid"])
                    np.testing.assert_array_equal(batch.selves[first + i], observations[agent]["self"])
            else:  # the batch restarted the world: follow it onto its next map
                spec = batch.specs[world]
                envs[world] = CogsVsClipsEnv(spec.grid_map, spec.num_agents, spec.max_steps, spec.config)
                envs[world].reset(seed=100 * world + episodes[world] - 1)
    assert min(episodes.values()) >= 4
