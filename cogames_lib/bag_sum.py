"""Sparse first layers: sums of a table's rows per bag, with one compiled scatter as the table's gradient.

Both learners feed binary feature sets to an MLP: the Cogs vs Clips learned policy (`policies.learned_network`)
and the stag-hunt DQN (`staghunt.learner`). A dense product over those inputs spends most of its time on
zeros; `embedding_bag(mode="sum")` sums only the rows a sample selects. Its CPU backward sorts every index
first (`_embedding_bag_dense_backward`), which took most of the Cogs vs Clips learner's time, so on the CPU the
table's gradient here is one compiled pass instead: each sample's output gradient added to the rows it summed,
sample by sample in row order (a fixed order, so the same inputs give the same bits on every machine).
Imported only where torch is wanted (it starts torch).
"""

from __future__ import annotations

import numpy as np
import torch
from numba import njit
from torch import nn


@njit(cache=True)
def _scatter_bag_gradient(rows, offsets, weights, gradient, num_rows):
    """d(loss)/d(table) of a sum bag; `weights` is empty for an unweighted bag, else one weight per row."""
    samples, width = gradient.shape
    weighted = weights.shape[0] > 0
    table = np.zeros((num_rows, width), np.float32)
    for sample in range(samples):
        stop = offsets[sample + 1] if sample + 1 < samples else rows.shape[0]
        for at in range(offsets[sample], stop):
            row = rows[at]
            if weighted:
                weight = weights[at]
                for unit in range(width):
                    table[row, unit] += weight * gradient[sample, unit]
            else:
                for unit in range(width):
                    table[row, unit] += gradient[sample, unit]
    return table


_UNWEIGHTED = np.zeros(0, np.float32)


class _SumBag(torch.autograd.Function):
    """`embedding_bag(mode="sum")` whose table gradient is `_scatter_bag_gradient` (no gradient for the
    per-row weights: they are inputs, not parameters, in both learners)."""

    @staticmethod
    def forward(
        ctx, table: torch.Tensor, rows: torch.Tensor, offsets: torch.Tensor, weights: torch.Tensor | None
    ) -> torch.Tensor:
        ctx.save_for_backward(rows, offsets)
        ctx.weights = _UNWEIGHTED if weights is None else weights.numpy()
        ctx.num_rows = table.shape[0]
        return nn.functional.embedding_bag(rows, table, offsets, mode="sum", per_sample_weights=weights)

    @staticmethod
    def backward(ctx, gradient: torch.Tensor) -> tuple[torch.Tensor, None, None, None]:
        rows, offsets = ctx.saved_tensors
        table = _scatter_bag_gradient(
            rows.numpy(), offsets.numpy(), ctx.weights, np.ascontiguousarray(gradient.numpy()), ctx.num_rows
        )
        return torch.from_numpy(table), None, None, None


def bag_sum(
    table: torch.Tensor, rows: torch.Tensor, offsets: torch.Tensor, weights: torch.Tensor | None = None
) -> torch.Tensor:
    """Sum of `table`'s rows per bag (rows[offsets[i]:offsets[i+1]]), each row times its entry of `weights`
    when given (float32, one per row); the compiled gradient on the CPU."""
    if table.device.type != "cpu" or not table.requires_grad or not torch.is_grad_enabled():
        return nn.functional.embedding_bag(rows, table, offsets, mode="sum", per_sample_weights=weights)
    return _SumBag.apply(table, rows, offsets, weights)
