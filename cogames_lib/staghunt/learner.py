"""Double DQN in torch (CPU) for a population of independent learners fed by lockstep worlds, top to bottom.

Every agent has its own MLP, target MLP, replay and RNG (exploration and replay sampling), and learns only
from its own transitions. For speed the population's networks are stored stacked (`BatchedMLP`, weights of
shape (agents, in, out)) and one gradient step updates every agent: the loss is the sum of the per-agent
losses, so each agent's gradient is its own, and Adam is element-wise (stacked Adam equals one Adam per
agent). Replay holds the engine's sparse observations (`replay.py`), and every forward, acting and
learning, starts from them: the first layer sums the weight rows a row's features select (`first_layer`,
`cogames_lib.bag_sum`, whose compiled scatter is the gradient), autograd does the rest. A dense product over
the 1,152 inputs, about 100 of them non-zero in `sorrel_e3`, was 1.8x slower end to end (docs/staghunt_training.md).
`population.members[i]` (a `DQNAgent`) is the single-agent view with `q_values(obs)`, `act(obs, epsilon)`
and `frozen_copy()` that probes use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from numba import njit
from torch import nn

from cogames_lib.bag_sum import bag_sum
from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.engine import SparseObservations
from cogames_lib.staghunt.networks import BatchedMLP, QNetwork, blas_friendly, n_step_double_dqn_targets
from cogames_lib.staghunt.replay import NStepCollector, StackedReplay
from cogames_lib.staghunt.rules import NUM_ACTIONS


@dataclass(frozen=True)
class DQNConfig:
    """Learner hyper-parameters, one per line (CleanRL's style). The default learner (64x64, batch 32, one
    update per 8 new transitions per agent) is the first version's; `train.STUDY_LEARNER` is the study's
    (docs/staghunt_training.md says why each value)."""

    hidden_sizes: tuple[int, ...] = (64, 64)  # widths of the MLP's hidden layers (ReLU)
    learning_rate: float = 1e-3  # Adam step size
    gamma: float = 0.95  # discount factor
    huber_delta: float = 1.0  # Huber loss threshold between its quadratic and linear parts
    buffer_size: int = 10_000  # replay capacity per agent, in transitions
    batch_size: int = 32  # transitions per agent per gradient update
    learning_starts: int = 500  # transitions per agent collected before the first update
    train_every: int = 8  # without `replay_ratio`: one update per `train_every` new transitions per agent
    target_update_every: int = 100  # gradient updates between hard copies into the target networks
    n_step: int = 1  # return horizon: r_t + g r_t+1 + ... + g^(n-1) r_t+n-1 + g^n Q(s_t+n)
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


@dataclass(frozen=True)
class SparseRows:
    """K observation rows as `bag_sum` inputs over a population's stacked first-layer rows (member * size +
    feature): `rows[offsets[i]:offsets[i+1]]` are row i's, `weights` the position code's values (1 for a
    binary feature; None without a position code), `members[i]` the member that reads row i."""

    rows: torch.Tensor
    offsets: torch.Tensor
    weights: torch.Tensor | None
    members: torch.Tensor
    member_major: bool  # rows are every member's equal block in member order (an update's batch)


_NO_POSITIONS = np.zeros((1, 0), dtype=np.float32)


@njit(cache=True)
def _stag_hunt_bag_rows(indices, cells, agents, size, position_table):
    """`SparseRows` arrays of padded sparse rows in one pass (numpy's masking and concatenation cost more
    than the sums on an update's 768 rows): each row's features below `size` in stored order, then the
    position code's `position_table.shape[1]` inputs (the last columns of the dense vector)."""
    count, width = indices.shape
    codes = position_table.shape[1]
    total = count * codes
    for row in range(count):
        for at in range(width):
            if indices[row, at] < size:
                total += 1
    rows = np.empty(total, np.int64)
    weights = np.ones(total, np.float32)
    offsets = np.empty(count, np.int64)
    filled = 0
    for row in range(count):
        offsets[row] = filled
        base = agents[row] * size
        for at in range(width):
            feature = indices[row, at]
            if feature < size:
                rows[filled] = base + feature
                filled += 1
        for code in range(codes):
            rows[filled] = base + size - codes + code
            weights[filled] = position_table[cells[row], code]
            filled += 1
    return rows, offsets, weights


class DQNPopulation:
    """The learners of one training run (one member per agent). `position_table` (cell -> position code,
    from the engine) is needed only to act on or learn from sparse observations of a world with the code."""

    def __init__(self, num_agents: int, observation_size: int, config: DQNConfig, seeds: Sequence[int],
                 position_table: np.ndarray | None = None) -> None:  # fmt: skip
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
        self.position_table = None if position_table is None else np.asarray(position_table, dtype=np.float32)
        self.members = [DQNAgent(self, index) for index in range(num_agents)]
        self.replay: StackedReplay | None = None  # allocated by `collect` (its width is the engine's)
        self.collector: NStepCollector | None = None
        self.updates_done = 0
        self.transitions_seen = 0
        self.update_credit = 0.0
        self.last_loss = float("nan")

    @property
    def num_agents(self) -> int:
        return len(self.members)

    def collect(self, worlds: int, width: int) -> NStepCollector:
        """Replay and an n-step collector for `worlds` lockstep worlds of sparse rows `width` wide."""
        self.replay = StackedReplay(self.num_agents, self.config.buffer_size, width)
        self.collector = NStepCollector(worlds, self.num_agents, width, self.config.n_step, self.config.gamma)
        return self.collector

    # --- acting --------------------------------------------------------------------------------------

    def q_values_rows(self, observations: SparseObservations, agents: np.ndarray) -> np.ndarray:
        """(K, 5) Q-values of row i by agent `agents[i]`'s network: the first layer on the sparse rows
        (`first_layer`), then each row takes its own member's deeper layers."""
        agents = np.asarray(agents, dtype=np.int64)
        layers = self.network.layer_pairs
        with torch.no_grad():
            hidden = self.first_layer(
                self.network, self.bags(observations.indices, observations.cells, agents)
            )
            members = layers[0][0].shape[0]
            own = (torch.from_numpy(agents), torch.arange(len(agents)))
            for weight, bias in layers[1:]:  # three small products cost less than sorting rows by member
                hidden = torch.baddbmm(
                    bias, torch.relu(hidden).expand(members, -1, -1), blas_friendly(weight)
                )[own]
        return hidden.numpy()

    def bags(
        self, indices: np.ndarray, cells: np.ndarray, agents: np.ndarray, member_major: bool = False
    ) -> SparseRows:
        """The first layer's bag inputs of K sparse rows (`indices` (K, L), padded with `observation_size`;
        `cells` (K,); row i read by member `agents[i]`; `member_major`: see `SparseRows`)."""
        agents, cells = np.asarray(agents, dtype=np.int64), np.asarray(cells, np.int64)
        table = _NO_POSITIONS if self.position_table is None else self.position_table
        if member_major and not np.array_equal(
            agents, np.repeat(np.arange(self.num_agents), len(agents) // self.num_agents)
        ):
            raise ParameterError("member_major rows must be every member's equal block in member order")
        if (
            self.position_table is not None
            and len(cells)
            and not 0 <= cells.min() <= cells.max() < len(table)
        ):
            raise ParameterError(
                f"cells must index the position table (0..{len(table) - 1}), got {cells.min()}..{cells.max()}"
            )
        rows, offsets, weights = _stag_hunt_bag_rows(
            np.ascontiguousarray(indices), cells, agents, self.observation_size, table
        )
        return SparseRows(torch.from_numpy(rows), torch.from_numpy(offsets),
                          None if self.position_table is None else torch.from_numpy(weights),
                          torch.from_numpy(agents), member_major)  # fmt: skip

    @staticmethod
    def first_layer(network: BatchedMLP, rows: SparseRows) -> torch.Tensor:
        """(K, width) first-layer outputs (before the ReLU): the sum of the weight rows a row's features
        select, the position code's rows weighted by its values, plus the member's bias (`bag_sum`: on the
        CPU one compiled scatter is the gradient). The same sums as the dense product, in another order."""
        weight, bias = network.layer_pairs[0]
        members, size, width = weight.shape
        summed = bag_sum(weight.view(members * size, width), rows.rows, rows.offsets, rows.weights)
        if rows.member_major:  # the bias broadcast: its gradient is a sum, not an indexed scatter
            return (summed.view(members, -1, width) + bias).view(-1, width)
        return summed + bias[rows.members, 0]

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
        assert self.replay is not None, "call collect() first"
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
        """One n-step double-DQN step for every agent on a batch from its own replay: the online and target
        networks on the next observations without gradients, then autograd through the online network on
        the observations (`descend`: Huber loss, Adam). Every forward starts from the sparse rows
        (`first_layer`)."""
        members, batch, replay = self.num_agents, self.config.batch_size, self.replay
        assert replay is not None, "call collect() first"
        picks = np.stack([rng.integers(0, replay.size, size=batch) for rng in self.rngs])
        agents = np.arange(members)[:, None]
        observations, cells = replay.observations[agents, picks], replay.cells[agents, picks]
        owners = np.repeat(np.arange(members), batch)  # rows are member-major: (agents, batch) flattened
        width = observations.shape[-1]
        now, later = (self.bags(observations[:, :, step].reshape(-1, width), cells[:, :, step].reshape(-1), owners,
                                member_major=True) for step in (0, 1))  # fmt: skip
        shape = (members, batch, -1)
        with torch.no_grad():
            targets = n_step_double_dqn_targets(
                torch.from_numpy(replay.returns[agents, picks]), torch.from_numpy(replay.discounts[agents, picks]),
                self.network.after_first(self.first_layer(self.network, later).view(shape)),
                self.target_network.after_first(self.first_layer(self.target_network, later).view(shape)),
            )  # fmt: skip
        actions = torch.from_numpy(replay.actions[agents, picks]).unsqueeze(-1)
        first = self.first_layer(self.network, now).view(shape)
        predicted = self.network.after_first(first).gather(-1, actions).squeeze(-1)
        return self.descend(predicted, targets)

    def descend(self, predicted: torch.Tensor, targets: torch.Tensor) -> float:
        """One Adam step on the Huber loss of (agents, batch) predicted vs target Q-values (the sum over
        agents of each agent's mean loss); the target network is synced every `target_update_every`
        updates. Returns the mean loss per agent."""
        per_element = nn.functional.huber_loss(
            predicted, targets, reduction="none", delta=self.config.huber_delta
        )
        loss = per_element.mean(dim=1).sum()
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        self.updates_done += 1
        if self.updates_done % self.config.target_update_every == 0:
            self.target_network.load_state_dict(self.network.state_dict())
        self.last_loss = float(loss.detach()) / self.num_agents
        return self.last_loss

    # --- state ---------------------------------------------------------------------------------------

    def state_dict(self) -> dict:
        """Everything needed to resume but the replay and the RNGs, loadable with `torch.load(weights_only=True)`.
        `agents[i]` holds QNetwork state dicts (`network`, `target_network`) so one agent loads on its own."""
        return {
            "agents": [{"network": self.network.member_state_dict(i),
                        "target_network": self.target_network.member_state_dict(i)} for i in range(self.num_agents)],
            "optimizer": self.optimizer.state_dict(),
            "turns_seen": self.transitions_seen,  # the key's name predates n-step transitions
            "updates_done": self.updates_done,
        }  # fmt: skip

    def load_state_dict(self, state: dict) -> None:
        for index, agent_state in enumerate(state["agents"]):
            self.network.load_member_state_dict(index, agent_state["network"])
            self.target_network.load_member_state_dict(index, agent_state["target_network"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.transitions_seen, self.updates_done = int(state["turns_seen"]), int(state["updates_done"])


class DQNAgent:
    """One agent of a `DQNPopulation`: the probe protocol over that agent's live network."""

    def __init__(self, population: DQNPopulation, index: int) -> None:
        self.population = population
        self.index = index

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        """Q-values (shape 5) of one flat observation."""
        layers = self.population.network.layer_pairs
        with torch.no_grad():
            hidden = torch.as_tensor(obs, dtype=torch.float32).reshape(1, -1)
            for index, (weight, bias) in enumerate(layers):
                hidden = torch.addmm(bias[self.index], hidden, weight[self.index])
                if index < len(layers) - 1:
                    hidden = torch.relu(hidden)
        return hidden[0].numpy()

    def act(self, obs: np.ndarray, epsilon: float = 0.0) -> int:
        """Epsilon-greedy (this agent's RNG); ties go to the lowest action index."""
        rng = self.population.rngs[self.index]
        if epsilon > 0 and rng.random() < epsilon:
            return int(rng.integers(NUM_ACTIONS))
        return int(np.argmax(self.q_values(obs)))

    def network_state_dict(self) -> dict[str, torch.Tensor]:
        return self.population.network.member_state_dict(self.index)

    def frozen_copy(self) -> FrozenQAgent:
        """A `QNetwork` copy of this agent's parameters in eval mode (no replay, optimizer or RNG)."""
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
