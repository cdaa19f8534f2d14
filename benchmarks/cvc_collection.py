"""Experience collection: agent-steps/s of `WorldBatch` (random actions, array observations), and of training.

One thread per process. Rows:
- `loop of envs`: the quick trial's way, one `make_env` per world stepped in a Python loop (dict observations);
- `WorldBatch`: the same worlds through `cogames_lib.cvc.batch.WorldBatch` (arrays, auto-reset), with
  `--workers N` (N > 1) through `batch_processes.ProcessWorldBatch` stepping them in N worker processes,
  timed after `--warmup` untimed agent-steps (every world builds each map it meets once, in the first
  seconds of a run); `WorldBatch, cold` times the same from the first step;
- `WorldBatch + features`: plus the network's sparse input rows (`grid_features`, `self_features`, computed
  in the calling process);
and, with `--train`, `PPO end to end`: `learn.ppo.train_seed` with the default config (collection, forward,
updates), its worlds stepped by `collect_workers` = each N; with `--run-seeds S`, `PPO run, S seeds, W
processes`: `learn.runs.train_run` of seeds 0..S-1 for `--train` agent-steps each, dealt to W processes (each
of `--run-workers`), agent-steps of all seeds per second of wall clock (process starts included): what the
machine delivers to a run of several seeds.
The worlds are the trainer's default mix: 48 one-agent, 12 two-agent and 6 four-agent worlds drawing
normal-tier diagnostics. Targets (issue 19): collection >= 300,000 agent-steps/s, training >= 30,000.
Usage: python benchmarks/cvc_collection.py [--steps N] [--warmup N] [--train STEPS] [--workers N [N ...]] [--worlds N1 N2 N4]
       [--run-seeds S --run-workers W [W ...]]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace

import numpy as np

from cogames_lib.cvc import rules
from cogames_lib.cvc.batch import WorldBatch
from cogames_lib.cvc.batch_processes import ProcessWorldBatch, make_world_batch
from cogames_lib.diagnostics import make_env
from cogames_lib.learn.curriculum import Curriculum
from cogames_lib.learn.ppo import PPOConfig, train_seed
from cogames_lib.learn.runs import train_run
from cogames_lib.policies.learned import NO_PREVIOUS_ACTION, FrameStack, grid_features, self_features


def batch_of(config: PPOConfig, workers: int = 1) -> WorldBatch | ProcessWorldBatch:
    counts = config.agent_counts()
    batch = make_world_batch(counts, Curriculum(config.curriculum, counts, 0).next_episode, workers)
    batch.reset()
    return batch


def measure_batch(config: PPOConfig, steps: int, features: bool, workers: int = 1, warmup: int = 0) -> float:
    """Agent-steps/s over `steps`, after `warmup` agent-steps untimed (a world builds each map it meets once:
    a long run pays that in its first seconds)."""
    batch = batch_of(config, workers)  # workers start before the clock does
    rng = np.random.default_rng(0)
    stack = FrameStack(batch.num_slots, config.network.frames)
    previous = np.full(batch.num_slots, NO_PREVIOUS_ACTION)
    rounds = max(1, steps // batch.num_slots)
    actions = rng.integers(0, len(rules.ACTIONS), size=(rounds, batch.num_slots))
    try:
        for row in rng.integers(0, len(rules.ACTIONS), size=(warmup // batch.num_slots, batch.num_slots)):
            batch.step(row)
        start = time.perf_counter()
        for row in actions:
            if features:
                grid_features(stack.push(batch.grids, batch.done))
                self_features(batch.selves, previous)
            batch.step(row)
        return rounds * batch.num_slots / (time.perf_counter() - start)
    finally:
        batch.close()


def measure_env_loop(config: PPOConfig, steps: int) -> float:
    batch = batch_of(config)  # the same diagnostics and agent counts, as PettingZoo envs
    envs = [make_env(spec.key, spec.num_agents, seed=i) for i, spec in enumerate(batch.specs)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    rng = np.random.default_rng(0)
    slots = batch.num_slots
    rounds = max(1, steps // slots)
    start = time.perf_counter()
    for _ in range(rounds):
        for i, env in enumerate(envs):
            names = env.possible_agents
            env.step(dict(zip(names, rng.integers(0, len(rules.ACTIONS), len(names)).tolist(), strict=True)))
            if not env.agents:
                env.reset(seed=i)
    return rounds * slots / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--warmup", type=int, default=200_000,
                        help="untimed agent-steps before the WorldBatch rows (each world meets its maps)")  # fmt: skip
    parser.add_argument("--train", type=int, default=0, help="also time this many training agent-steps")
    parser.add_argument("--workers", type=int, nargs="+", default=[1], help="collection processes (each N)")
    parser.add_argument("--worlds", type=int, nargs=3, default=None, metavar=("N1", "N2", "N4"),
                        help="worlds with 1, 2 and 4 agents (default: the trainer's 48 12 6)")  # fmt: skip
    parser.add_argument("--run-seeds", type=int, default=0, help="also time a run of this many seeds")
    parser.add_argument(
        "--run-workers", type=int, nargs="+", default=[1, 2], help="processes of that run (each W)"
    )
    args = parser.parse_args()
    if args.run_seeds and not args.train:
        parser.error("--run-seeds needs --train STEPS (agent-steps per seed)")
    config = PPOConfig() if args.worlds is None else PPOConfig(worlds=tuple(args.worlds))
    print(f"{'path':<36} {'agent-steps/s':>14}")
    print(f"{'loop of envs':<36} {measure_env_loop(config, args.steps):>14,.0f}")
    for workers in args.workers:
        suffix = "" if workers == 1 else f", {workers} workers"
        cold = measure_batch(config, args.steps, False, workers)
        print(f"{'WorldBatch, cold' + suffix:<36} {cold:>14,.0f}")
        warm = measure_batch(config, args.steps, False, workers, args.warmup)
        print(f"{'WorldBatch' + suffix:<36} {warm:>14,.0f}")
        features = measure_batch(config, args.steps, True, workers, args.warmup)
        print(f"{'WorldBatch + features' + suffix:<36} {features:>14,.0f}")
    if args.train:
        import torch

        torch.set_num_threads(1)
        for workers in args.workers:
            result = train_seed(replace(config, total_steps=args.train, collect_workers=workers), 0)
            name = "PPO end to end" + ("" if workers == 1 else f", {workers} collect workers")
            print(f"{name:<36} {result.steps / result.seconds:>14,.0f}")
        for workers in args.run_workers if args.run_seeds else []:
            with tempfile.TemporaryDirectory() as run_dir:
                started = time.perf_counter()
                record = train_run(
                    replace(config, total_steps=args.train),
                    range(args.run_seeds),
                    run_dir,
                    1,
                    workers=workers,
                )
                rate = record["total_steps"] / (time.perf_counter() - started)
            print(f"{f'PPO run, {args.run_seeds} seeds, {workers} processes':<36} {rate:>14,.0f}")


if __name__ == "__main__":
    main()
