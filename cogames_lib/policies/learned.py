"""A learned policy from a checkpoint file: the observation features, the checkpoint format and `LearnedPolicy`.

Features (the network's input, shared by the trainer in `cogames_lib.learn` and by this policy):
- the grid is sparse (about 50 non-zero values of 2,057), so the network's first layer sums one weight row
  per non-zero cell value (`torch.nn.EmbeddingBag`): one row per (channel, cell) for the 13 one-hot
  channels and `clipped`, per (bucket 1 / 2 / 3+, cell) for `uses_left` and `stock`, and one row per vibe
  for `agent_vibe` (where the agent stands is in the `agent` channel; 2,433 rows in all). With `frames` > 1 the previous frames (a frame stack: the network's only memory)
  get their own rows; before an episode's first step they are empty.
- the self vector and the previous action are 10 more rows: each item bucketed 0 / 1 / 2 / 3+, energy in
  16 buckets of 16, own vibe, last action succeeded, previous action (or "none" after a reset).

Checkpoint: a `torch.save` dict, loadable with `torch.load(path, weights_only=True)`: `format`
(`CHECKPOINT_FORMAT`), `network` (the `NetworkConfig` fields), `state_dict`, and the run's `step`, `seed`.

`LearnedPolicy(checkpoint, greedy=False)` plays with a numpy forward pass (no torch per step). By default it
samples its action from the network's distribution with a generator seeded by `reset`'s seed (deterministic
per episode seed; a stochastic policy escapes the loops a greedy one falls into under partial observability);
`greedy=True` (spec `learned:<path>#greedy`) takes the most likely action.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from cogames_lib.cvc import rules
from cogames_lib.cvc.observation import CHANNEL, GRID_CHANNELS, OBJECT_CHANNELS, SELF_INDEX, VIEW_SIZE
from cogames_lib.errors import DataFileError, PolicyLoadError

CHECKPOINT_FORMAT = "cogames_lib.learned_policy/1"
NUM_ACTIONS = len(rules.ACTIONS)
CELLS = VIEW_SIZE * VIEW_SIZE
BUCKETS = 3  # uses_left and stock: 1, 2, 3 or more


_VIBE_CELL_MARK = 1 << 20  # lookup entries below 0 by this much do not add the cell


def _grid_lookup() -> tuple[np.ndarray, int]:
    """`lookup[channel, value]`: the first feature row of that (channel, value) (add the cell), -1 for none."""
    lookup = np.full((len(GRID_CHANNELS), 256), -1, np.int64)
    rows = 0
    for name in (*OBJECT_CHANNELS, "clipped"):
        lookup[CHANNEL[name], 1:] = rows
        rows += CELLS
    # Other agents' vibes: one row per vibe, wherever the agent stands (the `agent` channel says where):
    # 13 rows instead of 13 x 121 keeps a checkpoint under 2 MB. The cell is subtracted back out below.
    for vibe in range(len(rules.VIBES)):
        lookup[CHANNEL["agent_vibe"], vibe + 1] = rows - _VIBE_CELL_MARK
        rows += 1
    for name in ("uses_left", "stock"):
        for bucket in range(BUCKETS):
            lookup[CHANNEL[name], bucket + 1 : 256 if bucket == BUCKETS - 1 else bucket + 2] = rows
            rows += CELLS
    return lookup, rows


GRID_LOOKUP, GRID_FEATURES = _grid_lookup()
_FRAME_SIZE = len(GRID_CHANNELS) * CELLS
ITEM_BUCKETS = 4
ENERGY_BUCKETS = 16
NUM_ITEMS = len(rules.ITEMS)
_ENERGY_BASE = NUM_ITEMS * ITEM_BUCKETS
_VIBE_BASE = _ENERGY_BASE + ENERGY_BUCKETS
_SUCCESS_BASE = _VIBE_BASE + len(rules.VIBES)
_ACTION_BASE = _SUCCESS_BASE + 2
NO_PREVIOUS_ACTION = NUM_ACTIONS  # the previous-action feature right after a reset
SELF_FEATURES = _ACTION_BASE + NUM_ACTIONS + 1
SELF_ROWS_PER_SAMPLE = NUM_ITEMS + 4


@dataclass(frozen=True)
class NetworkConfig:
    """The network's shape: `frames` grid frames (1 = no memory), `hidden` units in both hidden layers."""

    frames: int = 1
    hidden: int = 128
    grid_features: int = GRID_FEATURES
    self_features: int = SELF_FEATURES
    num_actions: int = NUM_ACTIONS

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


def grid_features(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bag form of `frames` (samples, K, 17, 11, 11) uint8: (feature rows, start of each sample's rows).

    Rows come sample by sample, each sample's in the order of its non-zero values (frame, channel, cell): the
    order in which the network sums them. Compiled (`_bag_rows`): the trainer calls it at every step."""
    if frames.dtype != np.uint8:  # the word view below reads one byte per value
        raise ValueError(f"grid_features: frames must be uint8, got {frames.dtype}")
    samples, size = frames.shape[0], math.prod(frames.shape[1:])
    flat = np.ascontiguousarray(frames).reshape(samples * size)
    # The same bytes eight at a time: about 97% of a view is zero, so whole zero words are skipped.
    words = flat[: flat.size - flat.size % 8].view(np.uint64)
    return _bag_rows(flat, words, samples, size, GRID_LOOKUP, _position_tables(size))


@cache
def _position_tables(size: int) -> np.ndarray:
    """(size, 3): per position of one sample's K frames its channel, its cell, and its frame's first feature
    row (`frame * GRID_FEATURES`), so the compiled loop needs no division per value."""
    frame, offset = np.divmod(np.arange(size), _FRAME_SIZE)
    channel, cell = np.divmod(offset, CELLS)
    return np.stack([channel, cell, frame * GRID_FEATURES], axis=1)


@njit(cache=True)
def _bag_rows(flat, words, samples, size, lookup, positions):
    """(rows, offsets) of `flat` (samples x size values, sample by sample; `words` its first bytes as
    uint64; `positions` from `_position_tables`): see `grid_features`."""
    rows = np.empty(flat.shape[0], np.int64)
    offsets = np.zeros(samples, np.int64)
    n = 0
    sample, start = 0, 0  # the sample holding the current index, and the index where it starts
    for word in range(words.shape[0] + 1):
        if word < words.shape[0]:
            if words[word] == 0:
                continue
            first, last = 8 * word, 8 * word + 8
        else:  # the bytes after the last whole word
            first, last = 8 * words.shape[0], flat.shape[0]
        for index in range(first, last):
            value = flat[index]
            if value == 0:
                continue
            while index >= start + size:  # the next sample with a value starts here
                sample += 1
                start += size
                offsets[sample] = n
            within = index - start
            base = lookup[positions[within, 0], value]
            cell_row = base + _VIBE_CELL_MARK if base < 0 else base + positions[within, 1]
            rows[n] = cell_row + positions[within, 2]
            n += 1
    offsets[sample + 1 :] = n  # samples after the last value have none
    return rows[:n].copy(), offsets


def frame_rows(grid: np.ndarray) -> np.ndarray:
    """The feature rows of one grid (17, 11, 11) (frame 0): `grid_features` of a single frame, faster."""
    flat = grid.reshape(-1)
    where = np.flatnonzero(flat)
    channel, cell = np.divmod(where, CELLS)
    base = GRID_LOOKUP[channel, flat[where]]
    return np.where(base < 0, base + _VIBE_CELL_MARK, base + cell)


def self_features(selves: np.ndarray, previous_actions: np.ndarray) -> np.ndarray:
    """(samples, 10) feature rows of the self vectors (samples, 9) and the previous actions (samples,): each
    item's count (capped at ITEM_BUCKETS - 1), energy // 16 (capped), the vibe, whether the last action
    succeeded, the previous action; each in its own block of rows. Compiled: the trainer calls it at every
    step."""
    previous = np.asarray(previous_actions, np.int64)
    if selves.ndim != 2 or selves.shape[1] < len(SELF_INDEX) or previous.shape != (selves.shape[0],):
        raise ValueError(
            f"self_features: self vectors (samples, {len(SELF_INDEX)}) and one previous action per sample, "
            f"got {selves.shape} and {previous.shape}"
        )
    rows = np.empty((selves.shape[0], SELF_ROWS_PER_SAMPLE), np.int64)
    _self_rows(selves, previous, _SELF_LAYOUT, rows)
    return rows


# What the compiled rows read, handed in as an argument: numba's cache watches only this file, and these
# numbers come from `rules` and `observation`. (items, item buckets, energy buckets, the four blocks' first
# rows, the energy, vibe and success fields)
_SELF_LAYOUT = np.array(
    [
        NUM_ITEMS,
        ITEM_BUCKETS,
        ENERGY_BUCKETS,
        _ENERGY_BASE,
        _VIBE_BASE,
        _SUCCESS_BASE,
        _ACTION_BASE,
        SELF_INDEX["energy"],
        SELF_INDEX["vibe"],
        SELF_INDEX["last_action_succeeded"],
    ]
)


@njit(cache=True)
def _self_rows(selves, previous_actions, layout, rows):
    items, item_buckets, energy_buckets = layout[0], layout[1], layout[2]
    energy_base, vibe_base, success_base, action_base = layout[3], layout[4], layout[5], layout[6]
    energy, vibe, success = layout[7], layout[8], layout[9]
    for sample in range(selves.shape[0]):
        for item in range(items):
            rows[sample, item] = min(int(selves[sample, item]), item_buckets - 1) + item * item_buckets
        rows[sample, items] = energy_base + min(int(selves[sample, energy]) // 16, energy_buckets - 1)
        rows[sample, items + 1] = vibe_base + int(selves[sample, vibe])
        rows[sample, items + 2] = success_base + min(int(selves[sample, success]), 1)
        rows[sample, items + 3] = action_base + previous_actions[sample]


class FrameStack:
    """The last `depth` grids of each of `slots` agents, newest first; `restart(mask)` empties the history."""

    def __init__(self, slots: int, depth: int) -> None:
        self.frames = np.zeros((slots, depth, len(GRID_CHANNELS), VIEW_SIZE, VIEW_SIZE), np.uint8)

    def push(self, grids: np.ndarray, restart: np.ndarray | None = None) -> np.ndarray:
        if self.frames.shape[1] > 1:
            self.frames[:, 1:] = self.frames[:, :-1]
            if restart is not None:
                self.frames[restart, 1:] = 0
        self.frames[:, 0] = grids
        return self.frames

    def peek(self, grids: np.ndarray, restart: np.ndarray | None = None) -> np.ndarray:
        """What `push` would return, leaving the history as it is."""
        frames = np.empty_like(self.frames)
        frames[:, 1:] = self.frames[:, :-1]
        if restart is not None:
            frames[restart, 1:] = 0
        frames[:, 0] = grids
        return frames


# -- checkpoints -------------------------------------------------------------------------------------------
def checkpoint_payload(network_config: NetworkConfig, state_dict: dict[str, Any], **metadata: Any) -> dict:
    return {
        "format": CHECKPOINT_FORMAT,
        "network": network_config.to_dict(),
        "state_dict": state_dict,
        **metadata,
    }


def read_learned_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The payload of a learned-policy checkpoint (safe loader); one-line errors for a missing or foreign file."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise PolicyLoadError(f"learned policy: checkpoint {str(path)!r} not found")
    try:
        payload = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as error:  # a foreign file fails in many ways (pickle, zip, key errors): all one message
        first = (str(error).splitlines() or [type(error).__name__])[0].split(". ")[0][:100]
        raise DataFileError(f"{path}: not a readable learned-policy checkpoint ({first})") from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise DataFileError(f"{path}: not a learned-policy checkpoint (format is not {CHECKPOINT_FORMAT!r})")
    try:
        NetworkConfig(**payload["network"])
    except (KeyError, TypeError) as error:
        raise DataFileError(f"{path}: learned-policy checkpoint with a bad network entry ({error})") from None
    return payload


class NumpyNetwork:
    """The network's forward pass in numpy (float32), for playing one agent at a time without torch."""

    def __init__(self, config: NetworkConfig, state_dict: dict[str, Any]) -> None:
        def array(name: str) -> np.ndarray:
            return state_dict[name].detach().cpu().numpy().astype(np.float32)

        self.config = config
        self.grid_rows = array("grid_bag.weight")
        self.self_rows = array("self_bag.weight")
        self.bias = array("input_bias")
        self.body_weight, self.body_bias = array("body.weight").T.copy(), array("body.bias")
        self.policy_weight, self.policy_bias = array("policy.weight").T.copy(), array("policy.bias")

    def logits(self, grid_rows: np.ndarray, self_rows: np.ndarray) -> np.ndarray:
        hidden = self.grid_rows[grid_rows].sum(axis=0) + self.self_rows[self_rows].sum(axis=0) + self.bias
        hidden = np.maximum(hidden, 0.0)
        hidden = np.maximum(hidden @ self.body_weight + self.body_bias, 0.0)
        return hidden @ self.policy_weight + self.policy_bias


_NETWORKS: dict[tuple[str, float], NumpyNetwork] = {}


def load_numpy_network(path: str | os.PathLike[str]) -> NumpyNetwork:
    """The checkpoint's network, cached per process by (path, modification time)."""
    resolved = Path(path).resolve()
    try:
        key = (str(resolved), resolved.stat().st_mtime)
    except OSError:
        raise PolicyLoadError(f"learned policy: checkpoint {str(path)!r} not found") from None
    network = _NETWORKS.get(key)
    if network is None:
        payload = read_learned_checkpoint(resolved)
        try:
            network = NumpyNetwork(NetworkConfig(**payload["network"]), payload["state_dict"])
        except (KeyError, AttributeError) as error:
            raise DataFileError(f"{path}: learned-policy checkpoint without weight {error}") from None
        _NETWORKS[key] = network
    return network


class LearnedPolicy:
    """One agent playing a trained network (see the module docstring for the action choice)."""

    def __init__(self, checkpoint: str, greedy: bool = False) -> None:
        self.network = load_numpy_network(checkpoint)
        self.greedy = greedy
        self.history: list[np.ndarray] = []  # earlier frames' rows, newest first (frames - 1 at most)
        self.previous_action = NO_PREVIOUS_ACTION
        self._rng = np.random.default_rng(0)

    def reset(self, agent_id: int, num_agents: int, seed: int) -> None:
        self._rng = np.random.default_rng(seed)
        self.history = []
        self.previous_action = NO_PREVIOUS_ACTION

    def act(self, observation: dict[str, Any]) -> int:
        current = frame_rows(observation["grid"])
        rows = np.concatenate(
            [current, *(rows + (k + 1) * GRID_FEATURES for k, rows in enumerate(self.history))]
        )
        if self.network.config.frames > 1:
            self.history = [current, *self.history][: self.network.config.frames - 1]
        self_rows = self_features(observation["self"][None], np.array([self.previous_action]))[0]
        logits = self.network.logits(rows, self_rows).astype(np.float64)
        if self.greedy:
            action = int(np.argmax(logits))
        else:
            cumulative = np.cumsum(np.exp(logits - logits.max()))
            draw = self._rng.random() * cumulative[-1]
            action = min(int(np.searchsorted(cumulative, draw, side="right")), NUM_ACTIONS - 1)
        self.previous_action = action
        return action
