"""Double DQN in torch (CPU) for a population of independent learners, readable top to bottom.

Every agent has its own MLP, target MLP, replay buffer and RNG, and learns only from its own
transitions. For speed the population's networks are stored stacked (`BatchedMLP`, weights of shape
(agents, in, out)): acting is one forward for all agents, and one gradient update updates every agent
at once (the loss is the sum of the per-agent losses, so each agent's gradient is its own; Adam is
element-wise, so stacked Adam equals one Adam per agent). `population.members[i]` (a `DQNAgent`) is the
single-agent view with `q_values(obs)`, `act(obs, epsilon)` and `frozen_copy()` that probes use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.networks import BatchedMLP, QNetwork, double_dqn_targets
from cogames_lib.staghunt.rules import NUM_ACTIONS


@dataclass(frozen=True)
class DQNConfig:
    """Learner hyper-parameters, one per line (CleanRL's style). `train_every` and `batch_size` are the one-world
    loop's speed knobs: 8 with batch 32 replays each transition 4 times on average (the DQN paper: 8); tuned
    with `benchmarks/staghunt_speed.py` and the hare-map learning test (batch 64 learned a little faster per
    epoch and trained ~35% slower). The batched loop uses `replay_ratio` instead (docs/staghunt_training.md)."""

    hidden_sizes: tuple[int, ...] = (64, 64)  # widths of the MLP's hidden layers (ReLU)
    learning_rate: float = 1e-3  # Adam step size
    gamma: float = 0.95  # discount factor
    huber_delta: float = 1.0  # Huber loss threshold between its quadratic and linear parts
    buffer_size: int = 10_000  # replay capacity per agent, in transitions
    batch_size: int = 32  # transitions per agent per gradient update
    learning_starts: int = 500  # transitions per agent collected before the first update
    train_every: int = 8  # one-world loop: one gradient update every `train_every` turns
    target_update_every: int = 100  # gradient updates between hard copies into the target networks
    n_step: int = 1  # return horizon: r_t + g r_t+1 + ... + g^(n-1) r_t+n-1 + g^n Q(s_t+n); batched loop only
    replay_ratio: float | None = None  # samples per collected transition; None = batch_size / train_every

    @property
    def samples_per_transition(self) -> float:
        return self.replay_ratio if self.replay_ratio is not None else self.batch_size / self.train_every

    def __post_init__(self) -> None:
        if self.replay_ratio is not None and self.replay_ratio <= 0:
            raise ParameterError(f"DQNConfig.replay_ratio must be > 0, got {self.replay_ratio}")
        for name in ("buffer_size", "batch_size", "train_every", "target_update_every", "n_step"):
            if getattr(self, name) < 1:
                raise ParameterError(f"DQNConfig.{name} must be >= 1, got {getattr(self, name)}")
        if not 0 <= self.gamma <= 1:
            raise ParameterError(f"DQNConfig.gamma must be in [0, 1], got {self.gamma}")


class ReplayBuffer:
    """Ring buffer of (obs, action, reward, next_obs, done) in numpy arrays; observations are stored
    as uint8 (ours are binary; 4x less memory than float32)."""

    def __init__(self, capacity: int, observation_size: int) -> None:
        self.observations = np.zeros((capacity, observation_size), dtype=np.uint8)
        self.next_observations = np.zeros((capacity, observation_size), dtype=np.uint8)
        self.actions = np.zeros(capacity, dtype=np.int64)
        self.rewards = np.zeros(capacity, dtype=np.float32)
        self.dones = np.zeros(capacity, dtype=np.float32)
        self.capacity, self.size, self.cursor = capacity, 0, 0

    def add(self, obs: np.ndarray, action: int, reward: float, next_obs: np.ndarray, done: bool) -> None:
        i = self.cursor
        self.observations[i], self.next_observations[i] = obs, next_obs
        self.actions[i], self.rewards[i], self.dones[i] = action, reward, float(done)
        self.cursor = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def sample_indices(self, rng: np.random.Generator, batch_size: int) -> np.ndarray:
        return rng.integers(0, self.size, size=batch_size)


class QLearnerCore:
    """What both learners (`DQNPopulation`, one world; `BatchedDQN`, lockstep worlds) share: one seeded
    online network per agent (stacked), its target copy and fused Adam, one generator per agent, and the
    gradient step that ends every update. Each learner samples its own batch and computes its own targets."""

    members: list[DQNAgent]

    def __init__(
        self, num_agents: int, observation_size: int, config: DQNConfig, seeds: Sequence[int]
    ) -> None:
        if len(seeds) != num_agents:
            raise ParameterError(f"need one seed per agent, got {len(seeds)} for {num_agents}")
        self.config = config
        self.observation_size = observation_size
        self.network = BatchedMLP(num_agents, observation_size, config.hidden_sizes, seeds)
        self.target_network = BatchedMLP(num_agents, observation_size, config.hidden_sizes, seeds)
        self.target_network.load_state_dict(self.network.state_dict())
        # fused Adam: one kernel per step instead of several per tensor (updates dominate training time)
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=config.learning_rate, fused=True)
        self.rngs = [np.random.default_rng(int(seed)) for seed in seeds]
        self.updates_done = 0
        self.last_loss = float("nan")

    @property
    def num_agents(self) -> int:
        return len(self.members)

    def descend(self, predicted: torch.Tensor, targets: torch.Tensor) -> float:
        """One optimizer step on the Huber loss of (agents, batch) predicted vs target Q-values; the target
        network is synced every `target_update_every` updates. Returns the mean loss per agent."""
        per_element = nn.functional.huber_loss(
            predicted, targets, reduction="none", delta=self.config.huber_delta
        )
        loss = per_element.mean(dim=1).sum()  # sum over agents of each agent's mean loss
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        return self.step_optimizer(loss)

    def step_optimizer(self, loss: torch.Tensor) -> float:
        """Apply the gradients now in `.grad` (Adam), count the update, sync the target network every
        `target_update_every` updates; `loss` is the summed per-agent loss. Returns the mean per agent."""
        self.optimizer.step()
        self.updates_done += 1
        if self.updates_done % self.config.target_update_every == 0:
            self.target_network.load_state_dict(self.network.state_dict())
        self.last_loss = float(loss.detach()) / self.num_agents
        return self.last_loss


class DQNPopulation(QLearnerCore):
    """The learners of one training run (one member per agent), updated in lockstep."""

    def __init__(
        self,
        num_agents: int,
        observation_size: int,
        config: DQNConfig,
        seeds: Sequence[int],
    ) -> None:
        super().__init__(num_agents, observation_size, config, seeds)
        self.buffers = [ReplayBuffer(config.buffer_size, observation_size) for _ in range(num_agents)]
        self.members = [DQNAgent(self, index) for index in range(num_agents)]
        self.turns_seen = 0

    def q_values_all(self, observations: np.ndarray) -> np.ndarray:
        """(agents, obs) -> (agents, 5): each agent's Q-values for its own observation, one forward."""
        batch = np.asarray(observations, dtype=np.float32)[:, None, :]
        return self.network.forward_numpy(batch)[:, 0]

    def act_all(self, observations: np.ndarray, epsilon: float) -> list[int]:
        """Epsilon-greedy action of every agent (its own RNG decides exploration)."""
        explore = [rng.random() < epsilon for rng in self.rngs]
        greedy = self.q_values_all(observations).argmax(axis=1) if not all(explore) else None
        return [
            int(rng.integers(NUM_ACTIONS)) if explore[i] else int(greedy[i])  # type: ignore[index]
            for i, rng in enumerate(self.rngs)
        ]

    def observe_all(
        self,
        observations: np.ndarray,
        actions: Sequence[int],
        rewards: np.ndarray,
        next_observations: np.ndarray,
        done: bool,
    ) -> None:
        """Store one transition per agent; every `train_every` turns run one gradient update."""
        for index, buffer in enumerate(self.buffers):
            buffer.add(
                observations[index], actions[index], float(rewards[index]), next_observations[index], done
            )
        self.turns_seen += 1
        ready = self.turns_seen >= max(self.config.learning_starts, self.config.batch_size)
        if ready and self.turns_seen % self.config.train_every == 0:
            self.update()

    def update(self) -> float:
        """One double-DQN step for every agent on a batch from its own buffer."""
        picks = [
            buffer.sample_indices(rng, self.config.batch_size)
            for buffer, rng in zip(self.buffers, self.rngs, strict=True)
        ]
        stack = lambda name, dtype: torch.from_numpy(  # noqa: E731 - a local shorthand
            np.stack([getattr(b, name)[i] for b, i in zip(self.buffers, picks, strict=True)]).astype(dtype)
        )
        obs, next_obs = stack("observations", np.float32), stack("next_observations", np.float32)
        actions, rewards, dones = (
            stack("actions", np.int64),
            stack("rewards", np.float32),
            stack("dones", np.float32),
        )
        predicted = self.network(obs).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
        with torch.no_grad():  # s' outside the graph: the backward pass then only spans the batch of s
            online_next, target_next = self.network(next_obs), self.target_network(next_obs)
            targets = double_dqn_targets(rewards, dones, online_next, target_next, self.config.gamma)
        return self.descend(predicted, targets)

    def state_dict(self) -> dict:
        """Everything needed to resume, loadable with `torch.load(weights_only=True)`. `agents[i]` holds
        QNetwork state dicts (`network`, `target_network`) so one agent can be loaded on its own."""
        return {
            "agents": [
                {
                    "network": self.network.member_state_dict(i),
                    "target_network": self.target_network.member_state_dict(i),
                }
                for i in range(self.num_agents)
            ],
            "optimizer": self.optimizer.state_dict(),
            "turns_seen": self.turns_seen,
            "updates_done": self.updates_done,
        }

    def load_state_dict(self, state: dict) -> None:
        for index, agent_state in enumerate(state["agents"]):
            self.network.load_member_state_dict(index, agent_state["network"])
            self.target_network.load_member_state_dict(index, agent_state["target_network"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.turns_seen, self.updates_done = int(state["turns_seen"]), int(state["updates_done"])


class DQNAgent:
    """One agent of a `DQNPopulation`: the probe protocol over that agent's live network."""

    def __init__(self, population: DQNPopulation, index: int) -> None:
        self.population = population
        self.index = index

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        """Q-values (shape 5) of one observation."""
        with torch.no_grad():
            # The stacked network evaluates every member; the other slots get zeros and are ignored.
            batch = torch.zeros(self.population.num_agents, 1, self.population.observation_size)
            batch[self.index, 0] = torch.as_tensor(obs, dtype=torch.float32).reshape(-1)
            return self.population.network(batch)[self.index, 0].numpy()

    def act(self, obs: np.ndarray, epsilon: float = 0.0) -> int:
        """Epsilon-greedy (this agent's RNG); ties go to the lowest action index."""
        rng = self.population.rngs[self.index]
        if epsilon > 0 and rng.random() < epsilon:
            return int(rng.integers(NUM_ACTIONS))
        return int(np.argmax(self.q_values(obs)))

    def network_state_dict(self) -> dict[str, torch.Tensor]:
        return self.population.network.member_state_dict(self.index)

    def frozen_copy(self) -> FrozenQAgent:
        """A `QNetwork` copy of this agent's parameters in eval mode (no buffer, optimizer or RNG)."""
        return FrozenQAgent.from_state_dict(self.network_state_dict(), self.population.observation_size,
                                            self.population.config.hidden_sizes)  # fmt: skip


class FrozenQAgent:
    """A `QNetwork` in the probe protocol: greedy `act` (epsilon is ignored), never learns."""

    def __init__(self, network: nn.Module) -> None:
        self.network = network.eval()

    @classmethod
    def from_state_dict(
        cls, state: dict, observation_size: int, hidden_sizes: Sequence[int] = (64, 64)
    ) -> FrozenQAgent:
        network = QNetwork(observation_size, hidden_sizes)
        network.load_state_dict(state)
        return cls(network)

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return self.network(torch.as_tensor(obs, dtype=torch.float32)).numpy()

    def act(self, obs: np.ndarray, epsilon: float = 0.0) -> int:
        return int(np.argmax(self.q_values(obs)))
