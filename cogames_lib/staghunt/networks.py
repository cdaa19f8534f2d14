"""Q-networks and the double-DQN target, importable on their own (probes and users reuse them).

`QNetwork` is one agent's MLP (what frozen copies and checkpoints hold). `BatchedMLP` holds the MLPs
of a whole population stacked, so one call evaluates every agent: per-call overhead, not arithmetic,
dominates networks this small.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import torch
from torch import nn

from cogames_lib.staghunt.rules import NUM_ACTIONS


class QNetwork(nn.Module):
    """One agent's MLP from a flat observation to one Q-value per action."""

    def __init__(self, observation_size: int, hidden_sizes: Sequence[int] = (64, 64)) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = observation_size
        for hidden in hidden_sizes:
            layers += [nn.Linear(width, hidden), nn.ReLU()]
            width = hidden
        layers.append(nn.Linear(width, NUM_ACTIONS))
        self.layers = nn.Sequential(*layers)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.layers(observations)


class BatchedMLP(nn.Module):
    """`members` independent MLPs: (members, batch, observation_size) -> (members, batch, 5).

    Layer l of member m is `weights[l][m]` (in, out) and `biases[l][m]`; each member is initialised like
    `nn.Linear` from its own seed. One `baddbmm` per layer evaluates every member.
    """

    def __init__(
        self, members: int, observation_size: int, hidden_sizes: Sequence[int], seeds: Sequence[int]
    ) -> None:
        super().__init__()
        widths = [observation_size, *hidden_sizes, NUM_ACTIONS]
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for fan_in, fan_out in itertools.pairwise(widths):
            self.weights.append(nn.Parameter(torch.empty(members, fan_in, fan_out)))
            self.biases.append(nn.Parameter(torch.empty(members, 1, fan_out)))
        with torch.no_grad():
            for member, seed in enumerate(seeds):
                generator = torch.Generator().manual_seed(int(seed))
                for weight, bias in zip(self.weights, self.biases, strict=True):
                    bound = 1.0 / math.sqrt(weight.shape[1])  # nn.Linear's default initialisation
                    weight[member].uniform_(-bound, bound, generator=generator)
                    bias[member].uniform_(-bound, bound, generator=generator)
        # Plain tuple of the same Parameter objects: indexing a ParameterList costs ~15 us per access.
        self.layer_pairs = tuple(zip(self.weights, self.biases, strict=True))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        weight, bias = self.layer_pairs[0]
        return self.after_first(torch.baddbmm(bias, observations, weight))

    def after_first(self, first: torch.Tensor) -> torch.Tensor:
        """The rest of the network from the first layer's output (before its ReLU), (members, batch, width):
        the learner computes the first layer on sparse rows and joins here."""
        hidden = first
        for weight, bias in self.layer_pairs[1:]:
            hidden = torch.baddbmm(bias, torch.relu(hidden), blas_friendly(weight))
        return hidden

    def member_state_dict(self, member: int) -> dict[str, torch.Tensor]:
        """Member `member` as a `QNetwork` state dict (nn.Linear stores weights as (out, in))."""
        state = {}
        for index, (weight, bias) in enumerate(self.layer_pairs):
            state[f"layers.{2 * index}.weight"] = weight[member].detach().T.clone()
            state[f"layers.{2 * index}.bias"] = bias[member, 0].detach().clone()
        return state

    def load_member_state_dict(self, member: int, state: dict[str, torch.Tensor]) -> None:
        with torch.no_grad():
            for index, (weight, bias) in enumerate(self.layer_pairs):
                weight[member].copy_(state[f"layers.{2 * index}.weight"].T)
                bias[member, 0].copy_(state[f"layers.{2 * index}.bias"])


def blas_friendly(weight: torch.Tensor) -> torch.Tensor:
    """The same (members, in, out) weights, stored out-major when `out` is narrow: MKL's batched product
    takes a slow path for a narrow row-major right operand (the 5-wide Q head: 68 us against 25 us for
    3 x 128 rows on the Zen 4 machine of 28 Nov). Same values, so the same products up to the BLAS's order."""
    return weight.mT.contiguous().mT if weight.shape[-1] < 16 else weight


def n_step_double_dqn_targets(
    returns: torch.Tensor, discounts: torch.Tensor, online_next_q: torch.Tensor, target_next_q: torch.Tensor
) -> torch.Tensor:
    """R + discount * Q_target(s', argmax_a Q_online(s', a)); `discount` is gamma^n, or 0 after a terminal
    state (n-step double DQN, as in Rainbow)."""
    best = online_next_q.argmax(dim=-1, keepdim=True)
    return returns + discounts * target_next_q.gather(-1, best).squeeze(-1)
