"""The batched engine plays exactly the one-world engine's rules: same states, same actions, same orders ->
same observations (before every act), rewards, kills, positions, resources and health, for every option."""

from __future__ import annotations

import numpy as np
import pytest

from cogames_lib.staghunt.batch_engine import BatchStagHunt
from cogames_lib.staghunt.engine import StagHuntEngine, observation_size
from cogames_lib.staghunt.env import start_episode
from cogames_lib.staghunt.rules import HARE, PRESET_POPULATIONS, STAG
from cogames_lib.staghunt.world_config import world_config

OPTION_SETS = {
    "default": {},
    "sorrel_e3": {"world": "sorrel_e3"},
    "area_turn_start": {"attack_shape": "area", "resource_density": 0.3},
    "line_before_act_next_act": {"observation_timing": "before_act", "payout_timing": "next_act", "resource_density": 0.3},
    "no_wounded_channel": {"world": "sorrel_e3", "wounded_stag_channel": False, "resource_density": 0.3},
    "embedding_random_start": {"position_embedding": True, "attack_range": 3, "resource_density": 0.3, "stag_probability": 0.6},
}  # fmt: skip


def _config(options: dict):
    options = dict(options)
    if options:  # crowded worlds, so stag kills shared by two hunters happen within the test's turns
        options = {"resource_density": 0.3, "stag_probability": 0.7, **options}
    return world_config(options.pop("world", "default"), episode_length="fixed", max_turns=40, **options)


@pytest.mark.parametrize("name", sorted(OPTION_SETS))
@pytest.mark.parametrize("condition", ["all_can_hunt", "not_all_can_hunt"])
def test_batched_engine_steps_like_the_one_world_engine(name: str, condition: str) -> None:
    config = _config(OPTION_SETS[name])
    population = PRESET_POPULATIONS[condition]
    worlds, turns = 8, config.max_turns
    rng = np.random.default_rng(7)
    singles = [StagHuntEngine.from_config(population, config) for _ in range(worlds)]
    batch = BatchStagHunt(population, config, worlds, seed=1)
    for world, engine in enumerate(singles):
        start_episode(engine, config, rng)
        batch.load_state(world, engine.resources, engine.health, engine.positions, engine.orientations, turns)
    assert batch.size == observation_size(config.view_radius, config.position_embedding)
    kills = np.zeros(2)
    for _ in range(turns):
        # A random policy biased to attack, so kills, shared stags and payouts happen often.
        actions = rng.choice(5, size=(worlds, 3), p=[0.15, 0.1, 0.15, 0.15, 0.45])
        order = batch.begin_turn()
        results = [engine.begin_turn() for engine in singles]
        if not batch.before_act:
            dense = batch.dense_observations(batch.observe()).reshape(worlds, 3, -1)
            for world, engine in enumerate(singles):
                np.testing.assert_array_equal(dense[world], engine.observe_all())
        for slot in range(3):
            agents = order[:, slot]
            if batch.before_act:
                dense = batch.dense_observations(batch.observe(agents))
                for world, engine in enumerate(singles):
                    np.testing.assert_array_equal(dense[world], engine.observe(int(agents[world])))
            batch.act(agents, actions[np.arange(worlds), agents])
            for world, engine in enumerate(singles):
                engine.act(int(agents[world]), int(actions[world, agents[world]]), results[world])
        ended = batch.end_turn()
        for world, engine in enumerate(singles):
            engine.end_turn()
            if engine.turn >= turns:
                results[world].rewards += engine.pay_pending()
            np.testing.assert_allclose(batch.rewards[world], results[world].rewards)
            assert batch.kills[world, STAG.code] == results[world].kills["stag"]
            assert batch.kills[world, HARE.code] == results[world].kills["hare"]
            np.testing.assert_array_equal(batch.positions[world], engine.positions)
            np.testing.assert_array_equal(batch.orientations[world], engine.orientations)
            np.testing.assert_array_equal(batch.resources[world], engine.resources)
            np.testing.assert_array_equal(batch.health[world], engine.health)
            kills += [results[world].kills["stag"], results[world].kills["hare"]]
    assert list(ended) == list(range(worlds))
    assert kills[1] > 0  # the comparison covered kills, not only moves
    if name != "default":
        assert kills[0] > 0


def test_batched_worlds_restart_on_their_own_with_uniform_lengths() -> None:
    config = world_config("sorrel_e3")
    batch = BatchStagHunt(PRESET_POPULATIONS["all_can_hunt"], config, 32, seed=3)
    batch.reset_worlds(np.arange(32))
    assert (batch.orientations == 3).all()  # sorrel_e3 starts everyone facing West
    lengths = batch.max_turns.copy()
    assert lengths.min() >= 1 and lengths.max() <= 50 and len(set(lengths)) > 5
    batch.begin_turn()
    ended = batch.end_turn()
    assert set(ended) == set(np.flatnonzero(lengths == 1))
