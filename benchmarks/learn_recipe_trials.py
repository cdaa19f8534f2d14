"""Short PPO trials of the learned-agent recipe on a few diagnostics: which tasks PPO learns alone, and what
two recipe variants do (docs/cvc_learned.md, "Recipe trials").

Run: `python benchmarks/learn_recipe_trials.py --diagnostics charge_up --worlds 32 0 0 --steps 400000
[--move-prior 2] [--energy-bonus 0.01] [--assembly 0] [--random] [--seed 0]`; prints, every 20 updates, the agent-steps
done, the seconds, each diagnostic's successes over its last 50 training episodes and the hearts assembled
(an agent's heart count rising without a withdrawal: every heart here comes from an assembler) since the
last line.

- `--move-prior B` adds B to the initial policy logits of noop and the four moves (13 of the 18 actions are
  vibe changes, so a fresh policy moves only 28% of the time);
- `--energy-bonus E` adds E per unit of energy an agent gains in a step (a charger's use), training only;
- `--chorus-bonus C` adds C the first time in an episode an agent shows `heart_a` beside an assembler (read
  from its own observation: the assembler channel of the four cells around it), training only.
None of these three is part of the trainer: this script patches them into one `SeedTrainer` to measure them.
`--assembly` is the trainer's own `ShapingConfig.assembly` (the heart chain's potential; 0 switches it off).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from cogames_lib.cvc.observation import SELF_INDEX
from cogames_lib.cvc.rules import HEART, VIBE_INDEX
from cogames_lib.learn.curriculum import BESIDE_ASSEMBLER, ShapingConfig
from cogames_lib.learn.ppo import PPOConfig, SeedTrainer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--diagnostics", nargs="+", default=["charge_up"], help="the curriculum")
    parser.add_argument("--worlds", nargs=3, type=int, default=[32, 0, 0], help="worlds with 1, 2, 4 agents")
    parser.add_argument("--steps", type=int, default=400_000, help="agent-steps to train")
    parser.add_argument("--move-prior", type=float, default=0.0, help="initial logit bonus of noop and moves")
    parser.add_argument("--energy-bonus", type=float, default=0.0, help="shaping per unit of energy gained")
    parser.add_argument("--chorus-bonus", type=float, default=0.0, help="heart_a beside an assembler, once")
    parser.add_argument("--assembly", type=float, default=ShapingConfig().assembly,
                        help="scale of the heart chain's potential (0: off, as in the first trials)")  # fmt: skip
    parser.add_argument("--random", action="store_true",
                        help="no training: uniform random actions for --steps agent-steps (the baseline)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = PPOConfig(total_steps=args.steps, worlds=tuple(args.worlds),
                       curriculum=tuple(f"diagnostic_{name}" for name in args.diagnostics),
                       # the documented trials ran with the novelty annealed to 0 at 1.5M (no gate)
                       shaping=ShapingConfig(assembly=args.assembly, novelty_gate=False,
                                             novelty_until=1_500_000))  # fmt: skip
    trainer = SeedTrainer(config, args.seed)
    if args.move_prior:
        import torch

        with torch.no_grad():
            trainer.network.policy.bias[:5] += args.move_prior
    if args.energy_bonus:
        energy = SELF_INDEX["energy"]
        shaped = trainer.shaper.rewards
        previous = trainer.batch.selves[:, energy].astype(np.int64)

        def with_energy(batch: Any, steps_done: int, unsolved: Any = None) -> np.ndarray:
            nonlocal previous
            now = batch.selves[:, energy].astype(np.int64)
            gain = np.clip(now - previous, 0, None) * ~batch.done  # a reset's fresh energy is no gain
            previous = now
            return shaped(batch, steps_done, unsolved) + args.energy_bonus * gain

        trainer.shaper.rewards = with_energy  # type: ignore[method-assign]
    if args.chorus_bonus:
        shaped_before = trainer.shaper.rewards
        paid = np.zeros(trainer.slots, bool)
        heart_a = VIBE_INDEX["heart_a"]

        def with_chorus(batch: Any, steps_done: int, unsolved: Any = None) -> np.ndarray:
            ready = (batch.selves[:, SELF_INDEX["vibe"]] == heart_a) & batch.grids[BESIDE_ASSEMBLER].any(1)
            bonus = np.where(ready & ~paid & ~batch.done, args.chorus_bonus, 0.0).astype(np.float32)
            paid[:] = (paid | ready) & ~batch.done
            return shaped_before(batch, steps_done, unsolved) + bonus

        trainer.shaper.rewards = with_chorus  # type: ignore[method-assign]
    hearts: dict[str, int] = {}
    held = trainer.batch.selves[:, HEART].copy()
    shaped_inner = trainer.shaper.rewards

    def counting(batch: Any, steps_done: int, unsolved: Any = None) -> np.ndarray:
        for slot in np.flatnonzero(batch.items[:, HEART] > held).tolist():
            world = int(batch.slot_world[slot])
            key = f"{batch.specs[world].key.removeprefix('diagnostic_')}@{batch.agent_counts[world]}"
            hearts[key] = hearts.get(key, 0) + 1
        held[:] = batch.selves[:, HEART]
        return shaped_inner(batch, steps_done, unsolved)

    trainer.shaper.rewards = counting  # type: ignore[method-assign]
    started = time.perf_counter()
    outcomes: dict[str, list[bool]] = {}
    if args.random:
        _random_play(trainer, args.steps, args.seed, counting, hearts)
        return
    while trainer.steps < args.steps:
        trainer.update()
        for key, agents, success in trainer.finished:
            outcomes.setdefault(f"{key.removeprefix('diagnostic_')}@{agents}", []).append(success)
        trainer.finished = []
        if trainer.updates % 20 == 0:
            recent = {key: f"{sum(v[-50:])}/{len(v[-50:])}" for key, v in sorted(outcomes.items())}
            print(
                trainer.steps,
                round(time.perf_counter() - started),
                recent,
                "hearts assembled",
                hearts,
                flush=True,
            )
            hearts.clear()


def _random_play(
    trainer: SeedTrainer,
    steps: int,
    seed: int,
    counting: Callable[..., np.ndarray],
    hearts: dict[str, int],
) -> None:
    """Uniform random actions through the trainer's own worlds and curriculum; prints the totals."""
    from cogames_lib.cvc.rules import ACTIONS

    rng = np.random.default_rng(seed)
    batch, done_steps = trainer.batch, 0
    tally: dict[str, tuple[int, int]] = {}
    while done_steps < steps:
        for episode in batch.step(rng.integers(0, len(ACTIONS), batch.num_slots)):
            key = f"{episode.key.removeprefix('diagnostic_')}@{episode.num_agents}"
            passed, played = tally.get(key, (0, 0))
            tally[key] = (passed + int(episode.success), played + 1)
        counting(batch, done_steps)
        done_steps += batch.num_slots
    print(done_steps, "random agent-steps;", {k: f"{p}/{n}" for k, (p, n) in sorted(tally.items())},
          "passed; hearts assembled", hearts)  # fmt: skip


if __name__ == "__main__":
    main()
