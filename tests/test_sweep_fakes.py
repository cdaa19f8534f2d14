"""Tiny policies for the sweep tests, importable by path in worker processes (no tests here).

They follow the policy protocol (`reset(agent_id, num_agents, seed)`, `act(observation) -> int`) and
the PolicySpec shape (`name`, `make()`), so the sweep machinery is tested independently of the real
reference policies.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from cogames_lib.cvc import rules


class WanderPolicy:
    """Seeded uniform random moves; slow_s > 0 sleeps per action (to make a sweep killable mid-run)."""

    def __init__(self, slow_s: float = 0.0) -> None:
        self.slow_s = slow_s
        self.rng = random.Random(0)

    def reset(self, agent_id: int, num_agents: int, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: Any) -> int:
        if self.slow_s:
            time.sleep(self.slow_s)
        return self.rng.randrange(rules.FIRST_VIBE_ACTION)


class RaisingPolicy(WanderPolicy):
    """Raises on its 5th action."""

    def reset(self, agent_id: int, num_agents: int, seed: int) -> None:
        super().reset(agent_id, num_agents, seed)
        self.calls = 0

    def act(self, observation: Any) -> int:
        self.calls += 1
        if self.calls == 5:
            raise RuntimeError("policy exploded on purpose")
        return super().act(observation)


class BadActionPolicy(WanderPolicy):
    def act(self, observation: Any) -> int:
        return 99


KINDS = {"wander": WanderPolicy, "raise": RaisingPolicy, "bad_action": BadActionPolicy}


@dataclass(frozen=True)
class FakeSpec:
    """A picklable PolicySpec: `make()` gives a fresh policy of `kind`."""

    name: str
    kind: str = "wander"
    slow_s: float = 0.0

    def make(self) -> WanderPolicy:
        return KINDS[self.kind](self.slow_s)
