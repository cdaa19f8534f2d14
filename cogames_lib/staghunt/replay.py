"""Replay for the stag-hunt learners: n-step transitions collected from lockstep worlds, stored per agent.

`NStepCollector` turns each turn's (observation, action, reward) of every (world, agent) into n-step
transitions: the transition of turn t carries R = r_t + g r_(t+1) + ... + g^(k-1) r_(t+k-1) and bootstraps
from the observation k = n turns later with discount g^k; at an episode's end the last transitions are cut
short (k < n) and bootstrap from the final observation, or not at all (discount 0) when the end is
terminal (random episode lengths), not a time limit. `StackedReplay` keeps every agent's ring buffer in
one array (agents, capacity, ...) of sparse observations (int16 feature indices of `engine`, ~7x smaller
than the dense vector).
"""

from __future__ import annotations

import numpy as np


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
