"""The learned policy's network in torch (imported only by the trainer and by tests: it starts torch).

Sparse first layer (`EmbeddingBag` tables summed over the grid's non-zero features and the 10 self-vector
rows; on the CPU their gradient is one compiled scatter, `bag_sum`), then one hidden layer, then an 18-way
policy head and a value head, both on the same body (CleanRL's shared-trunk variant). `NumpyNetwork` in
`learned.py` is the same forward pass in numpy.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from numba import njit
from torch import nn

from cogames_lib.policies.learned import NetworkConfig


@njit(cache=True)
def _scatter_bag_gradient(rows, offsets, gradient, num_rows):
    """d(loss)/d(table) of a sum bag: each sample's output gradient added to the rows it summed, sample by
    sample in row order (a fixed order, so the same inputs give the same bits)."""
    samples, width = gradient.shape
    table = np.zeros((num_rows, width), np.float32)
    for sample in range(samples):
        stop = offsets[sample + 1] if sample + 1 < samples else rows.shape[0]
        for at in range(offsets[sample], stop):
            row = rows[at]
            for unit in range(width):
                table[row, unit] += gradient[sample, unit]
    return table


class _SumBag(torch.autograd.Function):
    """`embedding_bag(mode="sum")` whose table gradient is one compiled scatter instead of torch's
    sort-then-sum (`_embedding_bag_dense_backward` sorts every index first: most of the learner's time)."""

    @staticmethod
    def forward(ctx, table: torch.Tensor, rows: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(rows, offsets)
        ctx.num_rows = table.shape[0]
        return nn.functional.embedding_bag(rows, table, offsets, mode="sum")

    @staticmethod
    def backward(ctx, gradient: torch.Tensor):
        rows, offsets = ctx.saved_tensors
        table = _scatter_bag_gradient(
            rows.numpy(), offsets.numpy(), np.ascontiguousarray(gradient.numpy()), ctx.num_rows
        )
        return torch.from_numpy(table), None, None


def bag_sum(table: torch.Tensor, rows: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """Sum of `table`'s rows per bag (rows[offsets[i]:offsets[i+1]]); the compiled gradient on the CPU."""
    if table.device.type != "cpu" or not table.requires_grad or not torch.is_grad_enabled():
        return nn.functional.embedding_bag(rows, table, offsets, mode="sum")
    return _SumBag.apply(table, rows, offsets)


class LearnedNetwork(nn.Module):
    def __init__(self, config: NetworkConfig) -> None:
        super().__init__()
        self.config = config
        hidden = config.hidden
        self.grid_bag = nn.EmbeddingBag(config.frames * config.grid_features, hidden, mode="sum")
        self.self_bag = nn.EmbeddingBag(config.self_features, hidden, mode="sum")
        self.input_bias = nn.Parameter(torch.zeros(hidden))
        self.body = nn.Linear(hidden, hidden)
        self.policy = nn.Linear(hidden, config.num_actions)
        self.value = nn.Linear(hidden, 1)
        # About 60 rows are summed per sample: small rows keep the first layer's output near unit scale.
        nn.init.normal_(self.grid_bag.weight, std=1.0 / math.sqrt(60.0))
        nn.init.normal_(self.self_bag.weight, std=1.0 / math.sqrt(60.0))
        nn.init.orthogonal_(self.body.weight, math.sqrt(2.0))
        nn.init.zeros_(self.body.bias)
        nn.init.orthogonal_(self.policy.weight, 0.01)
        nn.init.zeros_(self.policy.bias)
        nn.init.orthogonal_(self.value.weight, 1.0)
        nn.init.zeros_(self.value.bias)

    def forward(
        self, grid_rows: torch.Tensor, offsets: torch.Tensor, self_rows: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits (samples, 18), values (samples,)) from the bag form of the features."""
        samples, per_sample = self_rows.shape
        self_offsets = torch.arange(0, samples * per_sample, per_sample, device=self_rows.device)
        grid = bag_sum(self.grid_bag.weight, grid_rows, offsets)
        own = bag_sum(self.self_bag.weight, self_rows.reshape(-1), self_offsets)
        hidden = torch.relu(grid + own + self.input_bias)
        hidden = torch.relu(self.body(hidden))
        return self.policy(hidden), self.value(hidden).squeeze(-1)
