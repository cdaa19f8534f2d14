"""What a training run plays: the multi-task curriculum, training episode seeds, and training-only shaping.

Curriculum: every world has a fixed agent count (1, 2 or 4); at each reset it draws one of the
curriculum's diagnostics that allows its count, with weight `1 - 0.75 * (recent success rate)` (a task it
already solves is drawn a quarter as often as one it does not; an unsolved task never drops out).

Seeds: evaluation episode seeds (`cogames_lib.sweep.seeds.episode_seed`) are hashes below 2**31; training
episode seeds are `2**31 + hash("train", run seed, world, episode)`, so the two sets are disjoint by
construction. Only the normal tier is trained on (its maps are fixed; the seed draws spawns and turn order).

Shaping (training only; `cogames_lib.sweep` never sees it; `ShapingConfig(novelty=0, pickup=0)` switches
it off):
- team success: the engine rewards the agent that deposits the heart; training gives that reward to every
  agent of the world (a chorus partner's part in the success is rewarded too);
- novelty: `novelty` per cell an agent enters for the first time in its episode, annealed linearly to 0 at
  `novelty_until` agent-steps of training (by steps, not by the run's length: a shorter run is a prefix). A quick trial's 0.02 per cell outbid the deposit in `chest_deposit_near`
  (about 100 new cells = 2.0 > 1.0); 0.005 caps a typical episode's novelty well below the success reward;
- pickup: `pickup` each time an agent holds more of an item than ever before in its episode (an
  extraction, a withdrawal, an assembled heart or decoder); seeded items count as already held.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from cogames_lib.cvc.batch import WorldSpec
from cogames_lib.diagnostics import DIAGNOSTICS, get_diagnostic
from cogames_lib.errors import ParameterError
from cogames_lib.seeding import SEED_BITS, stable_hash

TRAINING_SEED_BASE = 2**SEED_BITS
AGENT_COUNTS: tuple[int, ...] = (1, 2, 4)
SOLVED_WEIGHT_DROP = 0.75
SUCCESS_MEMORY = 0.05  # the recent success rate is an exponential average over finished episodes


def training_seed(run_seed: int, world: int, episode: int) -> int:
    """A training episode seed: at least 2**31, so never an evaluation seed."""
    return TRAINING_SEED_BASE + stable_hash("train", int(run_seed), int(world), int(episode))


def default_curriculum() -> tuple[str, ...]:
    """Every normal-tier diagnostic (documented and new)."""
    return tuple(DIAGNOSTICS)


@dataclass(frozen=True)
class ShapingConfig:
    novelty: float = 0.005
    novelty_until: int = 1_500_000
    pickup: float = 0.05

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    def novelty_at(self, steps_done: int) -> float:
        """The novelty bonus after `steps_done` agent-steps of training (linear to 0 at `novelty_until`)."""
        if self.novelty_until <= 0:
            return 0.0
        return self.novelty * max(0.0, 1.0 - steps_done / self.novelty_until)


NO_SHAPING = ShapingConfig(novelty=0.0, pickup=0.0)


class Curriculum:
    """Draws each world's next (diagnostic, seed); `record` feeds finished episodes back."""

    def __init__(self, names: Sequence[str], agent_counts: Sequence[int], run_seed: int) -> None:
        records = [get_diagnostic(name) for name in names]
        if not records:
            raise ParameterError("curriculum: need at least one diagnostic")
        self.names = tuple(record.name for record in records)
        self.agent_counts = list(agent_counts)
        self.run_seed = int(run_seed)
        self.rng = np.random.default_rng(stable_hash("curriculum", self.run_seed))
        self.specs: dict[int, list[WorldSpec]] = {}
        for count in sorted(set(self.agent_counts)):
            specs = [
                WorldSpec(r.name, r.episode_map(0, count), count, r.max_steps, r.env_config(count))
                for r in records
                if r.tier == "normal" and count in r.allowed_agent_counts
            ]
            if not specs:
                raise ParameterError(
                    f"curriculum: no diagnostic of {list(self.names)} allows {count} agent(s)"
                )
            self.specs[count] = specs
        self.success = {(spec.key, count): 0.0 for count, specs in self.specs.items() for spec in specs}
        self.episodes = [0] * len(self.agent_counts)

    def next_episode(self, world: int) -> tuple[WorldSpec, int]:
        count = self.agent_counts[world]
        specs = self.specs[count]
        weights = np.array([1.0 - SOLVED_WEIGHT_DROP * self.success[(s.key, count)] for s in specs])
        spec = specs[int(self.rng.choice(len(specs), p=weights / weights.sum()))]
        seed = training_seed(self.run_seed, world, self.episodes[world])
        self.episodes[world] += 1
        return spec, seed

    def record(self, key: str, num_agents: int, success: bool) -> None:
        previous = self.success[(key, num_agents)]
        self.success[(key, num_agents)] = previous + SUCCESS_MEMORY * (float(success) - previous)


class Shaper:
    """Training-only reward terms per slot (see the module docstring), reset per episode."""

    def __init__(self, config: ShapingConfig, num_slots: int, start_items: np.ndarray) -> None:
        self.config = config
        self.visited: list[set[int]] = [set() for _ in range(num_slots)]
        self.item_high = start_items.astype(np.int64).copy()

    def rewards(
        self,
        positions: np.ndarray,
        items: np.ndarray,
        done: np.ndarray,
        next_items: np.ndarray,
        steps_done: int,
    ) -> np.ndarray:
        """Shaping for the step just taken; then the slots whose episode ended start afresh."""
        bonus = np.zeros(len(positions), np.float32)
        novelty = self.config.novelty_at(steps_done)
        if novelty > 0:
            for slot, position in enumerate(positions.tolist()):
                seen = self.visited[slot]
                if position not in seen:
                    seen.add(position)
                    bonus[slot] += novelty
        if self.config.pickup > 0:
            bonus += self.config.pickup * (items > self.item_high).sum(axis=1)
            np.maximum(self.item_high, items, out=self.item_high)
        for slot in np.flatnonzero(done).tolist():
            self.visited[slot].clear()
            self.item_high[slot] = next_items[slot]
        return bonus
