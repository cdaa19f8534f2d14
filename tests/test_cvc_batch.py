"""`WorldBatch` against the PettingZoo env: the same episodes step by step on every diagnostic."""

from __future__ import annotations

import numpy as np
import pytest

from cogames_lib.cvc import rules
from cogames_lib.cvc.batch import WorldBatch, WorldSpec
from cogames_lib.diagnostics import DIAGNOSTICS, make_env
from cogames_lib.errors import ParameterError

CASES = [(name, count) for name, record in DIAGNOSTICS.items() for count in record.allowed_agent_counts]


def spec_of(name: str, count: int) -> WorldSpec:
    record = DIAGNOSTICS[name]
    return WorldSpec(
        record.name, record.episode_map(0, count), count, record.max_steps, record.env_config(count)
    )


@pytest.mark.parametrize(("name", "count"), CASES)
def test_batch_of_one_matches_the_env_step_by_step(name: str, count: int) -> None:
    """Random actions over more than one episode (a short budget forces auto-resets): observations, rewards
    and episode ends agree with `make_env` at every step."""
    spec = spec_of(name, count)
    spec = WorldSpec(spec.key, spec.grid_map, count, 30, spec.config)
    seeds = [11, 12, 13, 14]
    starts = iter(seeds)
    batch = WorldBatch([count], lambda world: (spec, next(starts)))
    batch.reset()
    env = make_env(name, count)
    env.max_steps = spec.max_steps
    episode = 0
    observations, _ = env.reset(seed=seeds[episode])
    rng = np.random.default_rng(0)
    for _ in range(75):
        for i, agent in enumerate(env.possible_agents):
            np.testing.assert_array_equal(batch.grids[i], observations[agent]["grid"])
            np.testing.assert_array_equal(batch.selves[i], observations[agent]["self"])
        actions = rng.integers(0, len(rules.ACTIONS), count)
        batch.step(actions)
        observations, rewards, terminations, truncations, _ = env.step(
            dict(zip(env.possible_agents, actions.tolist(), strict=True))
        )
        assert batch.rewards.tolist() == list(rewards.values())
        ended = [terminations[a] or truncations[a] for a in env.possible_agents]
        assert batch.done.tolist() == ended
        if ended[0]:
            episode += 1
            observations, _ = env.reset(seed=seeds[episode])


def test_mixed_agent_counts_and_finished_episodes() -> None:
    specs = {n: spec_of("diagnostic_assemble_seeded_near", n) for n in (1, 2, 4)}
    batch = WorldBatch([1, 2, 4], lambda world: (specs[[1, 2, 4][world]], world))
    batch.reset()
    assert batch.num_slots == 7 and batch.grids.shape == (7, 17, 11, 11)
    assert batch.slot_world.tolist() == [0, 1, 1, 2, 2, 2, 2]
    finished = []
    for _ in range(50):  # the budget is 50 steps: every world finishes once (noop never succeeds)
        finished += batch.step(np.zeros(7, np.int64))
    assert sorted((f.world, f.success, f.steps) for f in finished) == [
        (0, False, 50),
        (1, False, 50),
        (2, False, 50),
    ]


def test_bad_actions_and_counts_are_refused() -> None:
    spec = spec_of("diagnostic_chest_deposit_near", 1)
    batch = WorldBatch([1], lambda world: (spec, 0))
    batch.reset()
    with pytest.raises(ParameterError, match="shape"):
        batch.step(np.zeros(2, np.int64))
    with pytest.raises(ParameterError, match="action indices"):
        batch.step(np.array([18]))
    with pytest.raises(ParameterError, match="agent"):
        WorldBatch([2], lambda world: (spec, 0)).reset()
