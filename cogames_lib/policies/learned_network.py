"""The learned policy's network in torch (imported only by the trainer and by tests: it starts torch).

Sparse first layer (`EmbeddingBag` tables summed over the grid's non-zero features and the 10 self-vector
rows; on the CPU their gradient is one compiled scatter, `cogames_lib.bag_sum`), then one hidden layer, then an 18-way
policy head and a value head, both on the same body (CleanRL's shared-trunk variant). `NumpyNetwork` in
`learned.py` is the same forward pass in numpy.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from cogames_lib.bag_sum import bag_sum
from cogames_lib.policies.learned import NetworkConfig


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
