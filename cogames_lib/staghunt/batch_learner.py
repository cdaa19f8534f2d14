"""Independent double-DQN learners fed by many worlds at once: n-step returns, stacked replay, batched updates.

Each agent keeps its own network (a slice of the stacked `BatchedMLP`), its own replay (a slice of the
stacked arrays; it only ever holds that agent's transitions) and its own RNG (exploration and replay
sampling). One gradient step updates every agent: the loss is the sum of the per-agent losses, so each
agent's gradient is its own, and Adam is element-wise. Replay stores the sparse observations of
`batch_engine` (int16 feature indices, ~7x smaller than the dense vector); an update makes its sampled
rows dense and differentiates the network with autograd. Acting evaluates the first layer on the sparse
rows (`embedding_bag`, forward only; docs/staghunt_training.md gives the measured gain).

`n_step`: the transition of turn t carries R = r_t + g r_(t+1) + ... + g^(k-1) r_(t+k-1) and bootstraps
from the observation k = n turns later with discount g^k; at an episode's end the last transitions are
cut short (k < n) and bootstrap from the final observation, or not at all (discount 0) when the end is
terminal (random episode lengths), not a time limit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from cogames_lib.staghunt.batch_engine import SparseObservations
from cogames_lib.staghunt.learner import DQNAgent, DQNConfig, QLearnerCore
from cogames_lib.staghunt.networks import n_step_double_dqn_targets
from cogames_lib.staghunt.rules import NUM_ACTIONS, POSITION_FEATURES


class StackedReplay:
    """Per-agent ring buffers of n-step transitions, stored stacked (agents, capacity, ...)."""

    def __init__(self, agents: int, capacity: int, width: int) -> None:
        # observation and next observation side by side: a sampled transition is one memory region
        self.observations = np.zeros((agents, capacity, 2, width), dtype=np.int16)
        self.cells = np.zeros((agents, capacity, 2), dtype=np.int16)
        self.actions = np.zeros((agents, capacity), dtype=np.int64)
        self.returns = np.zeros((agents, capacity), dtype=np.float32)
        self.discounts = np.zeros((agents, capacity), dtype=np.float32)
        self.capacity, self.size, self.cursor = capacity, 0, 0

    def add(self, columns: dict[str, np.ndarray]) -> None:
        """`columns[name]` is (agents, m, ...): m new transitions for every agent."""
        m = len(columns["actions"][0])
        slots = (self.cursor + np.arange(m)) % self.capacity
        for name, values in columns.items():
            getattr(self, name)[:, slots] = values
        self.cursor = int((self.cursor + m) % self.capacity)
        self.size = min(self.size + m, self.capacity)


class NStepCollector:
    """Turns per-turn (observation, action, reward) of every (world, agent) into n-step transitions."""

    def __init__(self, worlds: int, agents: int, width: int, n: int, gamma: float) -> None:
        self.n, self.gamma = n, gamma
        self.indices = np.zeros((n, worlds, agents, width), dtype=np.int16)
        self.cells = np.zeros((n, worlds, agents), dtype=np.int16)
        self.actions = np.zeros((n, worlds, agents), dtype=np.int64)
        self.rewards = np.zeros((n, worlds, agents), dtype=np.float32)
        self.count = np.zeros(worlds, dtype=np.int64)  # turns recorded in the current episode

    def record(
        self, indices: np.ndarray, cells: np.ndarray, actions: np.ndarray, live: np.ndarray
    ) -> dict | None:
        """Turn t of every live world: (worlds, agents, width) observations and actions. Emits the
        transitions of turn t - n, whose n rewards are known and whose next observation is this one."""
        worlds = np.flatnonzero(live)
        emitted = None
        ready = worlds[self.count[worlds] >= self.n]
        if len(ready):
            oldest = self.count[ready] % self.n
            powers = self.gamma ** np.arange(self.n, dtype=np.float64)
            slots = (oldest[None] + np.arange(self.n)[:, None]) % self.n  # (n, k)
            returns = (self.rewards[slots, ready[None]] * powers[:, None, None]).sum(axis=0)
            emitted = self._columns(self.indices[oldest, ready], self.cells[oldest, ready], self.actions[oldest, ready],
                                    returns, indices[ready], cells[ready], np.full(returns.shape, self.gamma**self.n))  # fmt: skip
        slot = self.count[worlds] % self.n
        self.indices[slot, worlds], self.cells[slot, worlds] = indices[worlds], cells[worlds]
        self.actions[slot, worlds] = actions[worlds]
        self.rewards[slot, worlds] = 0.0
        self.count[worlds] += 1
        return emitted

    def add_rewards(self, rewards: np.ndarray, live: np.ndarray) -> None:
        worlds = np.flatnonzero(live)
        self.rewards[(self.count[worlds] - 1) % self.n, worlds] = rewards[worlds]

    def finish(
        self, worlds: np.ndarray, indices: np.ndarray, cells: np.ndarray, bootstrap: bool
    ) -> dict | None:
        """Episodes of `worlds` ended with final observations `indices` (len(worlds), agents, width): emit
        their last min(turns, n) transitions, cut short, and forget them."""
        parts = []
        for row, world in enumerate(worlds):
            turns = int(self.count[world])
            for start in range(max(0, turns - self.n), turns):
                steps = turns - start
                slots = np.arange(start, turns) % self.n
                powers = self.gamma ** np.arange(steps, dtype=np.float64)
                returns = (self.rewards[slots, world] * powers[:, None]).sum(axis=0)
                discount = self.gamma**steps if bootstrap else 0.0
                slot = start % self.n
                parts.append(self._columns(self.indices[slot, world][None], self.cells[slot, world][None],
                                           self.actions[slot, world][None], returns[None], indices[row][None],
                                           cells[row][None], np.full((1, len(returns)), discount)))  # fmt: skip
            self.count[world] = 0
        if not parts:
            return None
        return {name: np.concatenate([part[name] for part in parts], axis=1) for name in parts[0]}

    @staticmethod
    def _columns(indices, cells, actions, returns, next_indices, next_cells, discounts) -> dict:
        """(m, agents, ...) arrays -> replay columns (agents, m, ...)."""
        swap = lambda array: np.swapaxes(np.asarray(array), 0, 1)  # noqa: E731
        pair = lambda now, later: swap(np.stack([now, later], axis=2))  # noqa: E731
        return {"observations": pair(indices, next_indices), "cells": pair(cells, next_cells),
                "actions": swap(actions), "returns": swap(returns).astype(np.float32),
                "discounts": swap(discounts).astype(np.float32)}  # fmt: skip


class BatchedDQN(QLearnerCore):
    """The learners of one run, fed by `worlds` lockstep worlds. Exposes what probes and checkpoints use
    (`members`, `network`, `rngs`, `config`, `observation_size`, `state_dict`) like `DQNPopulation`."""

    def __init__(self, num_agents: int, observation_size: int, width: int, worlds: int,
                 position_table: np.ndarray | None, config: DQNConfig, seeds: Sequence[int]) -> None:  # fmt: skip
        super().__init__(num_agents, observation_size, config, seeds)
        self.worlds = worlds
        self.replay = StackedReplay(num_agents, config.buffer_size, width)
        self.collector = NStepCollector(worlds, num_agents, width, config.n_step, config.gamma)
        self.position_table = None if position_table is None else np.asarray(position_table, dtype=np.float32)
        self.members = [DQNAgent(self, index) for index in range(num_agents)]  # type: ignore[arg-type]
        self.update_credit = 0.0
        self.transitions_seen = 0

    # --- acting --------------------------------------------------------------------------------------

    def q_values_rows(self, observations: SparseObservations, agents: np.ndarray) -> np.ndarray:
        """(K, 5) Q-values of row i by agent `agents[i]`'s network. The first layer sums the weight rows a
        row's features select (`embedding_bag`; padding points at a real row with weight 0, the position
        code's inputs are weighted by their values); each row then takes its own member's deeper layers."""
        agents = np.asarray(agents, dtype=np.int64)
        indices, weights = self._bag_inputs(observations.indices, observations.cells, agents)
        layers = self.network.layer_pairs
        with torch.no_grad():
            first, bias = layers[0]
            members, size, hidden_width = first.shape
            own = (torch.from_numpy(agents), torch.arange(len(agents)))
            hidden = (
                nn.functional.embedding_bag(
                    indices, first.view(members * size, hidden_width), mode="sum", per_sample_weights=weights
                )
                + bias[own[0], 0]
            )
            for weight, bias in layers[1:]:  # three small products cost less than sorting rows by member
                hidden = torch.baddbmm(bias, torch.relu(hidden).expand(members, -1, -1), weight)[own]
        return hidden.numpy()

    def _bag_inputs(
        self, indices: np.ndarray, cells: np.ndarray, agents: np.ndarray
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """`embedding_bag` inputs over the members' stacked first-layer rows (member * size + feature)."""
        size = self.observation_size
        padding = indices >= size
        offset = (agents * size)[:, None]
        flat = np.where(padding, 0, indices).astype(np.int64) + offset
        weights = (~padding).astype(np.float32)
        if self.position_table is not None:
            count = len(POSITION_FEATURES)
            flat = np.concatenate([flat, offset + np.arange(size - count, size)], axis=1)
            weights = np.concatenate([weights, self.position_table[np.asarray(cells, np.int64)]], axis=1)
        return torch.from_numpy(flat), torch.from_numpy(weights)

    def dense(self, indices: np.ndarray, cells: np.ndarray) -> torch.Tensor:
        """(..., width) sparse rows -> (..., observation_size) float32 dense observations (one flat index
        assignment: 3x faster than `put_along_axis` on an update's 768 rows)."""
        shape, size = indices.shape[:-1], self.observation_size
        rows = int(np.prod(shape))
        dense = np.zeros(rows * (size + 1), dtype=np.float32)  # a spare column per row takes the padding
        dense[(indices.reshape(rows, -1) + (np.arange(rows) * (size + 1))[:, None]).ravel()] = 1.0
        dense = dense.reshape(rows, size + 1)[:, :size]
        if self.position_table is not None:
            dense[:, size - len(POSITION_FEATURES) :] = self.position_table[
                np.asarray(cells, np.int64).reshape(-1)
            ]
        return torch.from_numpy(dense).reshape(*shape, size)

    def act_rows(
        self, observations: SparseObservations, agents: np.ndarray, epsilons: np.ndarray
    ) -> np.ndarray:
        """Epsilon-greedy actions; each agent's own RNG draws its rows' exploration, in row order."""
        actions = self.q_values_rows(observations, agents).argmax(axis=1)
        for agent, rng in enumerate(self.rngs):
            rows = np.flatnonzero(agents == agent)
            explore = rng.random(len(rows)) < epsilons[rows]
            actions[rows[explore]] = rng.integers(0, NUM_ACTIONS, size=int(explore.sum()))
        return actions

    # --- learning ------------------------------------------------------------------------------------

    def store(self, columns: dict | None) -> None:
        if columns is None:
            return
        self.replay.add(columns)
        self.transitions_seen += len(columns["actions"][0])

    def train_step(self, new_transitions: int) -> list[float]:
        """Run the updates owed for `new_transitions` new transitions per agent (the replay ratio)."""
        config = self.config
        if self.transitions_seen < max(config.learning_starts, config.batch_size):
            return []
        self.update_credit += new_transitions * config.samples_per_transition / config.batch_size
        losses = []
        while self.update_credit >= 1.0:
            self.update_credit -= 1.0
            losses.append(self.update())
        return losses

    def update(self) -> float:
        """One n-step double-DQN step for every agent on a batch from its own replay: the sampled rows made
        dense, the online and target networks on the next observations without gradients, then autograd
        through the online network on the observations (`QLearnerCore.descend`: Huber loss, Adam)."""
        members, batch = self.num_agents, self.config.batch_size
        picks = np.stack([rng.integers(0, self.replay.size, size=batch) for rng in self.rngs])
        agents = np.arange(members)[:, None]
        replay = self.replay
        # (2, agents, batch, size): observations, then next observations, each block contiguous
        rows = self.dense(np.moveaxis(replay.observations[agents, picks], 2, 0),
                          np.moveaxis(replay.cells[agents, picks], 2, 0))  # fmt: skip
        with torch.no_grad():
            targets = n_step_double_dqn_targets(
                torch.from_numpy(replay.returns[agents, picks]), torch.from_numpy(replay.discounts[agents, picks]),
                self.network(rows[1]), self.target_network(rows[1]),
            )  # fmt: skip
        actions = torch.from_numpy(replay.actions[agents, picks]).unsqueeze(-1)
        predicted = self.network(rows[0]).gather(-1, actions).squeeze(-1)
        return self.descend(predicted, targets)

    def state_dict(self) -> dict:
        """Same layout as `DQNPopulation.state_dict` (checkpoints load with `load_checkpoint`)."""
        return {
            "agents": [{"network": self.network.member_state_dict(i),
                        "target_network": self.target_network.member_state_dict(i)} for i in range(self.num_agents)],
            "optimizer": self.optimizer.state_dict(),
            "turns_seen": self.transitions_seen,
            "updates_done": self.updates_done,
        }  # fmt: skip
