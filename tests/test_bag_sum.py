"""The sparse first layer both learners share (`cogames_lib.bag_sum`): its compiled table gradient equals
torch's own `embedding_bag` backward, weighted or not, and repeats bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cogames_lib.bag_sum import bag_sum


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_bag_gradient_equals_torch_and_repeats_bit_for_bit(seed: int, weighted: bool) -> None:
    """Empty bags and repeated rows included; with per-row weights the gradient is each weight times the
    sample's output gradient (the stag-hunt position code), without them the plain sum (Cogs vs Clips)."""
    rng = np.random.default_rng(seed)
    table_rows, width, samples = 40, 8, 30
    counts = rng.integers(0, 7, samples)
    counts[rng.integers(samples)] = 0
    rows = torch.from_numpy(rng.integers(0, table_rows, int(counts.sum())))
    offsets = torch.from_numpy(np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64))
    weights = torch.from_numpy(rng.uniform(-2, 2, len(rows)).astype(np.float32)) if weighted else None
    upstream = torch.from_numpy(rng.standard_normal((samples, width)).astype(np.float32))
    start = rng.standard_normal((table_rows, width)).astype(np.float32)

    def table_gradient(sum_bags) -> torch.Tensor:
        table = torch.from_numpy(start.copy()).requires_grad_()
        (sum_bags(table) * upstream).sum().backward()
        assert table.grad is not None
        return table.grad

    def torch_bags(table: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.embedding_bag(rows, table, offsets, mode="sum", per_sample_weights=weights)

    compiled = table_gradient(lambda table: bag_sum(table, rows, offsets, weights))
    torch.testing.assert_close(compiled, table_gradient(torch_bags), rtol=1e-6, atol=1e-6)
    assert torch.equal(compiled, table_gradient(lambda table: bag_sum(table, rows, offsets, weights)))
    with torch.no_grad():
        torch.testing.assert_close(bag_sum(torch.from_numpy(start), rows, offsets, weights),
                                   torch_bags(torch.from_numpy(start)))  # fmt: skip


def test_bag_sum_moves_the_weighted_rows_by_their_weight_only() -> None:
    """A hand-computed case: bag 0 = 2 x row 1 + (-1) x row 3, bag 1 = 0.5 x row 1; the gradient of the sum
    of all outputs is each row's total weight."""
    table = torch.arange(12, dtype=torch.float32).reshape(4, 3).requires_grad_()
    rows, offsets = torch.tensor([1, 3, 1]), torch.tensor([0, 2])
    weights = torch.tensor([2.0, -1.0, 0.5])
    out = bag_sum(table, rows, offsets, weights)
    torch.testing.assert_close(out.detach(), torch.tensor([[-3.0, -2.0, -1.0], [1.5, 2.0, 2.5]]))
    out.sum().backward()
    assert table.grad is not None
    torch.testing.assert_close(table.grad[:, 0], torch.tensor([0.0, 2.5, 0.0, -1.0]))
