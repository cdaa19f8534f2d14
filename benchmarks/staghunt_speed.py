"""Stag-hunt speed benchmark: env steps/s, training epochs/s, one full probe round.

Run: `.venv/bin/python benchmarks/staghunt_speed.py [--epochs 30] [--repeats 3] [--rounds 5]`; prints a Markdown table.
Training is measured after a warm-up past `learning_starts`, at epsilon 0.05 (nearly every action is a
network forward: the slowest phase of a run), with the default population (3 agents, 50 turns).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import torch

from cogames_lib.staghunt.engine import observation_size
from cogames_lib.staghunt.env import EpisodeRunner, StagHuntConfig, StagHuntEnv
from cogames_lib.staghunt.learner import DQNPopulation
from cogames_lib.staghunt.probes import load_probe_suite, run_intention_probe, run_multistep_probe
from cogames_lib.staghunt.train import TrainConfig, _run_epoch


def env_steps_per_second(turns: int) -> tuple[float, float]:
    """(PettingZoo dict API, engine array API) turns per second with random actions."""
    env = StagHuntEnv(StagHuntConfig())
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    started, done = time.perf_counter(), 0
    while done < turns:
        if not env.agents:
            env.reset()
        env.step({agent: int(rng.integers(5)) for agent in env.agents})
        done += 1
    dict_rate = turns / (time.perf_counter() - started)
    runner = EpisodeRunner(env.population, StagHuntConfig())
    world = np.random.default_rng(1)
    runner.reset(world)
    started, done = time.perf_counter(), 0
    while done < turns:
        _, _, finished = runner.step([int(a) for a in rng.integers(0, 5, size=3)])
        done += 1
        if finished:
            runner.reset(world)
    return dict_rate, turns / (time.perf_counter() - started)


def training_epochs_per_second(epochs: int, repeats: int, config: TrainConfig) -> dict[str, float]:
    """Training rates with learning on, over `repeats` blocks of `epochs` epochs: the best and the median
    block by wall clock (the best block is the one least disturbed by other jobs on a shared machine),
    epochs per CPU-second of this process over all blocks, and gradient updates per epoch."""
    torch.set_num_threads(1)
    population = config.agents
    learners = DQNPopulation(len(population), observation_size(), config.learner, [0, 1, 2])
    runner = EpisodeRunner(population, config.env)
    rng = np.random.default_rng(0)
    warmup = config.learner.learning_starts // config.env.max_turns + 2
    for epoch in range(warmup):
        _run_epoch(runner, learners, rng, 1.0, epoch)
    updates = learners.updates_done
    rates = []
    cpu_started = time.process_time()
    for _ in range(repeats):
        started = time.perf_counter()
        for epoch in range(epochs):
            _run_epoch(runner, learners, rng, config.epsilon_end, epoch)
        rates.append(epochs / (time.perf_counter() - started))
    cpu = time.process_time() - cpu_started
    return {
        "best": max(rates),
        "median": statistics.median(rates),
        "cpu": repeats * epochs / cpu,
        "updates": (learners.updates_done - updates) / (repeats * epochs),
    }


def probe_round_seconds(rounds: int, config: TrainConfig) -> float:
    """Median seconds of one full probe round (both modes, all partner conditions, 3 agents)."""
    learners = DQNPopulation(3, observation_size(), config.learner, [0, 1, 2])
    suite = load_probe_suite()
    times = []
    for epoch in range(rounds):
        started = time.perf_counter()
        run_intention_probe(learners.members, epoch, config.agents, suite)
        run_multistep_probe(learners.members, epoch, config.agents, suite)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20_000, help="env turns to time")
    parser.add_argument("--epochs", type=int, default=30, help="training epochs per timed block")
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed training blocks (best and median reported)"
    )
    parser.add_argument("--rounds", type=int, default=5, help="probe rounds to time (median)")
    args = parser.parse_args()
    config = TrainConfig()
    dict_rate, array_rate = env_steps_per_second(args.turns)
    training = training_epochs_per_second(args.epochs, args.repeats, config)
    probe_seconds = probe_round_seconds(args.rounds, config)
    agent_steps = training["best"] * config.env.max_turns * len(config.agents)
    learner = config.learner
    print(
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}, torch {torch.__version__}"
    )
    print("| measure | value | target |")
    print("|---|---|---|")
    print(f"| env turns/s, random actions, PettingZoo API (3 agents) | {dict_rate:,.0f} | |")
    print(f"| env turns/s, random actions, engine arrays (3 agents) | {array_rate:,.0f} | |")
    setting = (
        f"3 agents x 50 turns, learning on, train_every={learner.train_every}, batch {learner.batch_size}, "
        f"{training['updates']:.1f} updates/epoch"
    )
    print(
        f"| training epochs/s, best of {args.repeats} x {args.epochs} epochs ({setting}) | "
        f"{training['best']:.1f} ({agent_steps:,.0f} agent-steps/s) | >= 20 |"
    )
    print(f"| training epochs/s, median block | {training['median']:.1f} | |")
    print(f"| training epochs per CPU-second of the process | {training['cpu']:.1f} | |")
    print(
        f"| full probe round (both modes, 3 partner conditions, 3 agents) | {probe_seconds:.3f} s | < 0.5 s |"
    )


if __name__ == "__main__":
    main()
