"""The two reference policies that need no intelligence: `noop` and (seeded) `random`."""

from __future__ import annotations

import random
from typing import Any

from cogames_lib.cvc import rules

NUM_ACTIONS = len(rules.ACTIONS)


class NoopPolicy:
    """Always the no-op action: the floor every diagnostic must fail."""

    def reset(self, agent_id: int, num_agents: int, seed: int) -> None:
        pass

    def act(self, observation: dict[str, Any]) -> int:
        return rules.NOOP


class RandomPolicy:
    """A uniformly random action each step, from the seed given to `reset` (deterministic per seed)."""

    def __init__(self) -> None:
        self._rng = random.Random(0)

    def reset(self, agent_id: int, num_agents: int, seed: int) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: dict[str, Any]) -> int:
        return self._rng.randrange(NUM_ACTIONS)
