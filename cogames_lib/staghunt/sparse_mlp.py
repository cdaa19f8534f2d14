"""A `BatchedMLP` evaluated on sparse observations, with its gradient written out by hand.

Why: in the batched trainer the first layer (1,152 inputs in the `sorrel_e3` world, ~99 of them non-zero:
one channel per crop cell, the lit beam cells, two own-state features, the 12-number position code) is
most of the arithmetic. Summing the weight rows a row's features select (`embedding_bag`, padding dropped,
position features weighted by their values) is ~4x cheaper than the dense product (0.14 vs 0.54 ms for
3 x 128 rows), and adding each row's gradient into the weight rows it selected (a small numba kernel) is
about half the cost of the dense product X^T dH1 plus building the dense X (0.43 vs ~0.95 ms). Autograd
cannot be used: its `embedding_bag` backward sorts the indices and is slower than the dense product on CPU.
Every other gradient is the textbook MLP backward. `tests/test_staghunt_learner.py` checks the acting
Q-values against the dense forward, and one whole update (loss, every gradient, the weights after Adam)
against autograd on the dense network.

A row is one (agent, observation): `indices` (K, L) feature indices padded with `size` (the observation
length), `agents` (K,) which member's network evaluates it, and optionally `positions` (K, P), the dense
position code that fills the last P inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import torch
from torch import nn

from cogames_lib.staghunt.networks import BatchedMLP


@dataclass(frozen=True)
class FeatureBags:
    """K rows in `embedding_bag` form over the members' stacked first-layer weights (members * size rows):
    `flat` the non-zero features of every row, offset by `agent * size`, `weights` their values,
    `bounds` (K + 1,) where each row starts and the last one ends; `weighted` is False when every
    weight is 1 (the forward then skips the multiplication)."""

    flat: np.ndarray
    weights: np.ndarray
    bounds: np.ndarray
    agents: np.ndarray
    weighted: bool

    @classmethod
    def from_indices(
        cls, indices: np.ndarray, agents: np.ndarray, size: int, positions: np.ndarray | None
    ) -> FeatureBags:
        agents = np.asarray(agents, dtype=np.int64)
        dense_tail = np.zeros((len(indices), 0), np.float32) if positions is None else positions
        flat, weights, bounds = _compact_rows(
            indices, agents, size, np.ascontiguousarray(dense_tail, np.float32)
        )
        return cls(flat, weights, bounds, agents, positions is not None)

    def tail(self, start: int) -> FeatureBags:
        """The rows from `start` on."""
        first = self.bounds[start]
        return FeatureBags(self.flat[first:], self.weights[first:], self.bounds[start:] - first,
                           self.agents[start:], self.weighted)  # fmt: skip


def _first_layer(network: BatchedMLP, bags: FeatureBags) -> torch.Tensor:
    """(K, hidden): each row's non-zero inputs times its own member's first-layer weights (no bias)."""
    weight = network.layer_pairs[0][0].detach()
    members, size, hidden = weight.shape
    return nn.functional.embedding_bag(
        torch.from_numpy(bags.flat), weight.view(members * size, hidden), torch.from_numpy(bags.bounds[:-1]),
        mode="sum", per_sample_weights=torch.from_numpy(bags.weights) if bags.weighted else None,
    )  # fmt: skip


def stacked_forward(network: BatchedMLP, bags: FeatureBags, batch: int) -> list[torch.Tensor]:
    """Forward of rows in blocks of `batch` rows of one member, blocks cycling through the members
    (member-major, possibly several times over): the pre-activations of every layer, each (blocks, batch,
    width) (the last one is the Q-values). No autograd graph."""
    with torch.no_grad():
        weight, bias = network.layer_pairs[0]
        members, hidden = weight.shape[0], weight.shape[2]
        first = _first_layer(network, bags).view(-1, batch, hidden)
        copies = first.shape[0] // members
        pre = [first + (bias.repeat(copies, 1, 1) if copies > 1 else bias)]
        for weight, bias in network.layer_pairs[1:]:
            if copies > 1:
                weight, bias = weight.repeat(copies, 1, 1), bias.repeat(copies, 1, 1)
            pre.append(torch.baddbmm(bias, torch.relu(pre[-1]), weight))
    return pre


def rows_forward(network: BatchedMLP, bags: FeatureBags) -> torch.Tensor:
    """(K, 5) Q-values of rows of any members, in row order (acting: each row by its own agent). Past the
    first layer every member evaluates every row and each row keeps its own member's result: three small
    products cost less than sorting the rows by member."""
    with torch.no_grad():
        own = (torch.from_numpy(bags.agents), torch.arange(len(bags.agents)))
        hidden = _first_layer(network, bags) + network.layer_pairs[0][1][own[0], 0]
        members = network.layer_pairs[0][0].shape[0]
        for weight, bias in network.layer_pairs[1:]:
            hidden = torch.baddbmm(bias, torch.relu(hidden).expand(members, -1, -1), weight)[own]
    return hidden


def stacked_gradients(
    network: BatchedMLP, pre: list[torch.Tensor], bags: FeatureBags, output_grad: torch.Tensor
) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(weight, bias) gradients of every layer given d loss / d Q (`output_grad`, like `pre[-1]`), the
    pre-activations of `stacked_forward` (one block per member) and bags whose first rows are those rows."""
    grads = []
    delta = output_grad
    for layer in range(len(pre) - 1, 0, -1):
        grads.append((torch.bmm(torch.relu(pre[layer - 1]).transpose(1, 2), delta),
                      delta.sum(dim=1, keepdim=True)))  # fmt: skip
        delta = torch.bmm(delta, network.layer_pairs[layer][0].detach().transpose(1, 2))
        delta.mul_(pre[layer - 1] > 0)
    first = network.layer_pairs[0][0]
    weight_grad = np.zeros(first.shape, dtype=np.float32)
    _add_rows(bags.flat, bags.weights, bags.bounds, delta.reshape(-1, delta.shape[2]).numpy(),
              weight_grad.reshape(-1, first.shape[2]))  # fmt: skip
    grads.append((torch.from_numpy(weight_grad), delta.sum(dim=1, keepdim=True)))
    return grads[::-1]


@numba.njit(cache=True, boundscheck=False)
def _add_rows(
    flat: np.ndarray, weights: np.ndarray, bounds: np.ndarray, grads: np.ndarray, out: np.ndarray
) -> None:
    """out[flat[i]] += weights[i] * grads[k] for every entry i of row k < len(grads): the first layer's
    weight gradient X^T dH1 without forming X (entries in row order, so the sums are the same on every run)."""
    for k in range(grads.shape[0]):
        gradient = grads[k]
        for i in range(bounds[k], bounds[k + 1]):
            row, weight = out[flat[i]], weights[i]
            for h in range(gradient.shape[0]):
                row[h] += weight * gradient[h]


@numba.njit(cache=True, boundscheck=False)
def _compact_rows(
    indices: np.ndarray, agents: np.ndarray, size: int, tail: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bags of (K, L) rows padded with `size`, whose last `tail.shape[1]` inputs hold the dense values
    `tail` (the position code): every non-padding index and every tail input, offset by `agent * size`;
    weights 1 for indices, the value for tail inputs. One pass in row order."""
    rows, width = indices.shape
    extra = tail.shape[1]
    bounds = np.zeros(rows + 1, dtype=np.int64)
    for k in range(rows):
        count = extra
        for j in range(width):
            if indices[k, j] < size:
                count += 1
        bounds[k + 1] = bounds[k] + count
    flat = np.empty(bounds[rows], dtype=np.int64)
    weights = np.empty(bounds[rows], dtype=np.float32)
    for k in range(rows):
        base, at = agents[k] * size, bounds[k]
        for j in range(width):
            if indices[k, j] < size:
                flat[at], weights[at] = base + indices[k, j], 1.0
                at += 1
        for j in range(extra):
            flat[at], weights[at] = base + size - extra + j, tail[k, j]
            at += 1
    return flat, weights, bounds
