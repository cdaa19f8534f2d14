"""The learners: acting paths equal the torch forward, hand-computed targets, n-step returns, a trivial case
learned, and batched training reproducible per (seed, worlds)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from cogames_lib.staghunt.engine import SparseObservations, StagHuntEngine
from cogames_lib.staghunt.learner import DQNConfig, DQNPopulation
from cogames_lib.staghunt.networks import QNetwork, n_step_double_dqn_targets
from cogames_lib.staghunt.replay import NStepCollector
from cogames_lib.staghunt.rules import PRESET_POPULATIONS
from cogames_lib.staghunt.train import preset, train
from cogames_lib.staghunt.world_config import world_config


def test_each_member_is_an_ordinary_qnetwork() -> None:
    population = DQNPopulation(3, 40, DQNConfig(hidden_sizes=(16, 8)), seeds=[1, 2, 3])
    observations = np.random.default_rng(0).integers(0, 2, size=(3, 40)).astype(np.float32)
    with torch.no_grad():
        stacked = population.network(torch.from_numpy(observations)[:, None, :])[:, 0].numpy()
    for index in range(3):  # what checkpoints and probes hold
        single = QNetwork(40, (16, 8))
        single.load_state_dict(population.network.member_state_dict(index))
        with torch.no_grad():
            expected = single(torch.from_numpy(observations[index])).numpy()
        np.testing.assert_allclose(stacked[index], expected, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(
            population.members[index].q_values(observations[index]), expected, rtol=1e-5, atol=1e-6
        )
        np.testing.assert_allclose(population.members[index].frozen_copy().q_values(observations[index]), expected,
                                   rtol=1e-5, atol=1e-6)  # fmt: skip


@pytest.mark.parametrize("world", ["sorrel_e3", "default"])
def test_sparse_acting_path_equals_the_forward_of_dense_observations(world: str) -> None:
    """The bag form of the first layer (padding dropped, the position code's rows weighted by its values in
    `sorrel_e3`, none in the default world) against each member's dense forward."""
    config = world_config(world)
    engine = StagHuntEngine(PRESET_POPULATIONS["all_can_hunt"], config, 4, seed=0)
    engine.reset_worlds(np.arange(4))
    sparse = engine.observe()
    assert (sparse.indices >= engine.size).any()  # the rows are padded: the bags must drop the padding
    table = engine.position_table if config.position_embedding else None
    learner = DQNPopulation(3, engine.size, DQNConfig(hidden_sizes=(16,)), [4, 5, 6], table)
    agents = np.tile(np.arange(3), 4)
    acting = learner.q_values_rows(sparse, agents)
    dense = engine.dense_observations(sparse)
    for row, agent in enumerate(agents):
        np.testing.assert_allclose(
            acting[row], learner.members[agent].q_values(dense[row]), rtol=1e-5, atol=1e-5
        )


@pytest.mark.parametrize("hidden_sizes", [(16,), (8, 8)])
@pytest.mark.parametrize("positions", [False, True])
def test_update_equals_the_textbook_step_on_the_engine_dense_observations(
    hidden_sizes, positions: bool
) -> None:
    """`DQNPopulation.update` against the textbook step written here on the same sampled batch: the engine's
    own dense observations, autograd through copies of the networks, then fused Adam. Loss, every
    parameter's gradient and the weights after the step must agree."""
    config = world_config("sorrel_e3", position_embedding=positions)
    engine = StagHuntEngine(PRESET_POPULATIONS["all_can_hunt"], config, 6, seed=1)
    engine.reset_worlds(np.arange(6))
    now = engine.observe()
    engine.begin_turn()
    for slot in range(3):
        engine.act(engine.order[:, slot], np.full(6, (2, 4, 4)[slot]))  # a turn, then attacks: beams in view
    later = engine.observe()
    table = engine.position_table if positions else None
    learner_config = DQNConfig(hidden_sizes=hidden_sizes, batch_size=8, learning_starts=1, buffer_size=64)
    learner = DQNPopulation(3, engine.size, learner_config, [7, 8, 9], table)
    learner.collect(6, now.indices.shape[1])
    rng = np.random.default_rng(3)
    agent_major = lambda values: np.swapaxes(values.reshape(6, 3, *values.shape[1:]), 0, 1)  # noqa: E731
    learner.store({"observations": np.stack([agent_major(now.indices), agent_major(later.indices)], axis=2).astype(np.int16),
                   "cells": np.stack([agent_major(now.cells), agent_major(later.cells)], axis=2).astype(np.int16),
                   "actions": rng.integers(0, 5, (3, 6)), "returns": rng.normal(size=(3, 6)).astype(np.float32),
                   "discounts": np.full((3, 6), 0.9, np.float32)})  # fmt: skip
    with torch.no_grad():  # the target network differs from the online one
        for weight, _ in learner.target_network.layer_pairs:
            weight.add_(0.05)
    network, target = copy.deepcopy(learner.network), copy.deepcopy(learner.target_network)
    optimizer = torch.optim.Adam(network.parameters(), lr=learner_config.learning_rate, fused=True)
    rngs = copy.deepcopy(learner.rngs)
    learner_loss = learner.update()

    picks = np.stack([rng.integers(0, learner.replay.size, size=8) for rng in rngs])
    agents, replay = np.arange(3)[:, None], learner.replay

    def dense(side: int) -> torch.Tensor:
        rows = SparseObservations(replay.observations[agents, picks, side].reshape(-1, now.indices.shape[1]),
                                  replay.cells[agents, picks, side].reshape(-1))  # fmt: skip
        return torch.from_numpy(engine.dense_observations(rows)).reshape(3, 8, engine.size)

    actions = torch.from_numpy(replay.actions[agents, picks]).unsqueeze(-1)
    predicted = network(dense(0)).gather(-1, actions).squeeze(-1)
    with torch.no_grad():
        targets = n_step_double_dqn_targets(torch.from_numpy(replay.returns[agents, picks]),
                                            torch.from_numpy(replay.discounts[agents, picks]),
                                            network(dense(1)), target(dense(1)))  # fmt: skip
    loss = torch.nn.functional.huber_loss(predicted, targets, reduction="none").mean(dim=1).sum()
    loss.backward()
    optimizer.step()
    assert learner_loss == pytest.approx(float(loss.detach()) / 3, rel=1e-5)
    for ours, reference in zip(learner.network.parameters(), network.parameters(), strict=True):
        assert reference.grad.abs().max() > 0
        torch.testing.assert_close(ours.grad, reference.grad, rtol=1e-4, atol=1e-6)
        torch.testing.assert_close(ours.detach(), reference.detach(), rtol=1e-4, atol=1e-6)


def test_double_dqn_target_by_hand_on_two_transitions() -> None:
    rewards = torch.tensor([1.0, 3.0])
    dones = torch.tensor([0.0, 1.0])
    online_next = torch.tensor([[0.0, 5.0, 1.0, 0.0, 0.0], [9.0, 0.0, 0.0, 0.0, 0.0]])
    target_next = torch.tensor([[7.0, 2.0, 8.0, 0.0, 0.0], [4.0, 0.0, 0.0, 0.0, 0.0]])
    # Transition 1: online picks action 1, the target net values it 2 -> 1 + 0.9 * 2 = 2.8 (not 1 + 0.9 * 8).
    # Transition 2: terminal -> its reward, 3.
    targets = n_step_double_dqn_targets(rewards, 0.9 * (1.0 - dones), online_next, target_next)
    np.testing.assert_allclose(targets.numpy(), [2.8, 3.0], rtol=1e-6)
    n_step = n_step_double_dqn_targets(rewards, torch.tensor([0.81, 0.0]), online_next, target_next)
    np.testing.assert_allclose(n_step.numpy(), [1.0 + 0.81 * 2.0, 3.0], rtol=1e-6)


@pytest.mark.parametrize("bootstrap", [True, False])
def test_n_step_returns_by_hand(bootstrap: bool) -> None:
    collector = NStepCollector(worlds=1, agents=1, width=1, n=2, gamma=0.5)
    live = np.array([True])
    emitted = []
    for turn, reward in enumerate([1.0, 2.0, 3.0, 4.0]):
        columns = collector.record(np.full((1, 1, 1), turn), np.zeros((1, 1)), np.full((1, 1), turn), live)
        if columns is not None:
            emitted.append(columns)
        collector.add_rewards(np.array([[reward]]), live)
    emitted.append(collector.finish(np.array([0]), np.full((1, 1, 1), 4), np.zeros((1, 1)), bootstrap))
    merged = {name: np.concatenate([part[name] for part in emitted], axis=1)[0] for name in emitted[0]}
    assert merged["actions"].tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(merged["returns"], [1 + 0.5 * 2, 2 + 0.5 * 3, 3 + 0.5 * 4, 4])
    assert merged["observations"][:, 0, 0].tolist() == [0, 1, 2, 3]
    assert merged["observations"][:, 1, 0].tolist() == [2, 3, 4, 4]  # the next observation, n turns later
    expected = [0.25, 0.25, 0.25, 0.5] if bootstrap else [0.25, 0.25, 0.0, 0.0]
    np.testing.assert_allclose(merged["discounts"], expected)


def test_batched_learner_learns_a_one_state_bandit() -> None:
    """Action 4 pays 1, the others 0, every transition terminal: Q(s, 4) -> 1, the rest -> 0."""
    config = DQNConfig(
        hidden_sizes=(16,), learning_rate=1e-2, batch_size=32, learning_starts=1, buffer_size=256
    )
    learner = DQNPopulation(2, 10, config, [0, 1])
    learner.collect(1, 3)
    actions = np.tile(np.arange(5), 40)[None].repeat(2, axis=0)
    same = np.tile(np.array([1, 4, 10], dtype=np.int16), (2, 200, 2, 1))  # index 10 pads
    learner.store({"observations": same, "cells": np.zeros((2, 200, 2), np.int16), "actions": actions,
                   "returns": (actions == 4).astype(np.float32), "discounts": np.zeros((2, 200), np.float32)})  # fmt: skip
    first = learner.update()
    for _ in range(300):
        last = learner.update()
    assert last < first / 10
    obs = np.zeros(10, dtype=np.float32)
    obs[[1, 4]] = 1.0
    for member in learner.members:
        q_values = member.q_values(obs)
        assert q_values.argmax() == 4 and abs(q_values[4] - 1.0) < 0.1 and np.abs(q_values[:4]).max() < 0.1


TINY = DQNConfig(
    hidden_sizes=(16,), batch_size=16, learning_starts=50, buffer_size=2_000, n_step=3, replay_ratio=1.0
)


def _tiny(worlds: int, **env) -> object:
    return preset("all_can_hunt", world="sorrel_e3", learner=TINY, worlds=worlds, epsilon_decay_epochs=20,
                  env=world_config("sorrel_e3", max_turns=12, **env))  # fmt: skip


def test_batched_training_is_reproducible_per_seed_and_worlds() -> None:
    first = train(_tiny(8), 40, probe_every=0, seed=3, progress=False)
    again = train(_tiny(8), 40, probe_every=0, seed=3, progress=False)
    columns = [c for c in first.training.columns if c != "seconds"]
    assert first.training[columns].equals(again.training[columns])
    assert first.population.updates_done > 0
    for a, b in zip(
        first.population.network.parameters(), again.population.network.parameters(), strict=True
    ):
        assert torch.equal(a, b)
    other = train(_tiny(8), 40, probe_every=0, seed=4, progress=False)
    assert not first.training[columns].equals(other.training[columns])


def test_batched_training_with_probes_ends_like_without_and_writes_probe_rows(tmp_path) -> None:
    quiet = train(_tiny(4), 30, probe_every=0, seed=1, progress=False)
    probed = train(_tiny(4), 30, probe_every=10, seed=1, out_dir=tmp_path, progress=False)
    for a, b in zip(
        quiet.population.network.parameters(), probed.population.network.parameters(), strict=True
    ):
        assert torch.equal(a, b)
    assert sorted(probed.intention["epoch"].unique()) == [0, 10, 20, 30]
    assert probed.training["epoch"].tolist() == list(range(1, 31))
    assert (tmp_path / "all_can_hunt" / "seed_1" / "checkpoints" / "epoch_30.pt").is_file()
