"""Stag-hunt speed benchmark: env steps/s, training epochs/s, one full probe round.

Run: `.venv/bin/python benchmarks/staghunt_speed.py [--epochs 128] [--repeats 3] [--worlds 64] [--only TEXT]`; prints a Markdown table.
Training is measured after a warm-up past `learning_starts`, at epsilon 0.05 (nearly every action is a
network forward: the slowest phase of a run), with the default population (3 agents, 50 turns).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import replace

import numpy as np
import torch

from cogames_lib.staghunt.engine import StagHuntEngine, observation_size
from cogames_lib.staghunt.env import StagHuntEnv
from cogames_lib.staghunt.learner import DQNPopulation
from cogames_lib.staghunt.probes import load_probe_suite, run_intention_probe, run_multistep_probe
from cogames_lib.staghunt.rules import PRESET_POPULATIONS
from cogames_lib.staghunt.train import STUDY_LEARNER, STUDY_WORLDS, TrainConfig, _trainer, preset
from cogames_lib.staghunt.world_config import StagHuntConfig, world_config

WARMUP_TURNS = 200  # untimed: the first calls load the engine's compiled code from numba's cache


def env_steps_per_second(turns: int) -> tuple[float, float]:
    """(PettingZoo parallel API, engine arrays with a batch of one world) turns per second, random actions,
    after `WARMUP_TURNS` untimed turns."""
    env = StagHuntEnv(StagHuntConfig())
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    started, done = time.perf_counter(), -WARMUP_TURNS  # the first turns load the compiled engine
    while done < turns:
        if not env.agents:
            env.reset()
        env.step({agent: int(rng.integers(5)) for agent in env.agents})
        done += 1
        if done == 0:
            started = time.perf_counter()
    dict_rate = turns / (time.perf_counter() - started)
    engine = StagHuntEngine(PRESET_POPULATIONS["all_can_hunt"], StagHuntConfig(), 1, seed=1)
    engine.reset_worlds(np.zeros(1, dtype=np.int64))
    for turn in range(-WARMUP_TURNS, turns):
        if turn == 0:
            started = time.perf_counter()
        order = engine.begin_turn()
        engine.observe()
        for slot in range(3):
            engine.act(order[:, slot], rng.integers(0, 5, size=1))
        engine.reset_worlds(engine.end_turn())
    return dict_rate, turns / (time.perf_counter() - started)


def training_epochs_per_second(config: TrainConfig, epochs: int, repeats: int) -> dict[str, float]:
    """Training rates with learning on, over `repeats` blocks of `epochs` epochs after a warm-up past
    `learning_starts` (epsilon at its floor throughout: nearly every action is a network forward): the best
    and the median block by wall clock (the best block is the one least disturbed by other jobs on a shared
    machine), epochs per CPU-second of this process over all blocks, and gradient updates per epoch."""
    torch.set_num_threads(1)
    config = replace(config, epsilon_start=config.epsilon_end, epsilon_decay_epochs=1)
    # transitions per agent per epoch (on average: a uniform episode length averages (max + 1) / 2 turns)
    mean_turns = (
        config.env.max_turns if config.env.episode_length == "fixed" else (config.env.max_turns + 1) / 2
    )
    turns = int(mean_turns * len(config.agents))
    warmup = -(-config.learner.learning_starts * len(config.agents) // turns) + 2 * config.worlds
    world_seed, *agent_seeds = np.random.SeedSequence(0).spawn(1 + len(config.agents))
    seeds = [int(seed.generate_state(1)[0]) for seed in agent_seeds]
    # One wave of spare epochs: the timed blocks never reach the run's last wave, where worlds stop
    # restarting and each turn would be shared by fewer episodes.
    learners, rows = _trainer(config, warmup + epochs * repeats + config.worlds, world_seed, seeds)
    for _ in range(warmup):
        next(rows)
    updates = learners.updates_done
    rates = []
    cpu_started = time.process_time()
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(epochs):
            next(rows)
        rates.append(epochs / (time.perf_counter() - started))
    cpu = time.process_time() - cpu_started
    return {
        "best": max(rates),
        "median": statistics.median(rates),
        "cpu": repeats * epochs / cpu,
        "updates": (learners.updates_done - updates) / (repeats * epochs),
    }


def benchmark_configs(worlds: int) -> dict[str, TrainConfig]:
    """The settings compared: the default world and learner (one world, as `preset("all_can_hunt")`), the
    study's learner on the default world, and the study's setting (`sorrel_e3`, the study learner, `worlds`
    lockstep worlds). The first three play 3 agents x 50 turns (episode length fixed, so an epoch is the
    same work in each); the last is `sorrel_e3` as its preset defines it and the study trains it (`preset
    ("all_can_hunt", "sorrel_e3")`: each episode's length drawn from 1..50, 25.5 turns on average, so an
    epoch is about half the work of a fixed 50-turn one)."""
    e3 = world_config("sorrel_e3", episode_length="fixed")
    study = preset("all_can_hunt", "sorrel_e3", worlds=worlds)
    return {
        "default world and learner, 1 world": TrainConfig(),
        f"study learner, {worlds} worlds (default world, 1-step)": TrainConfig(learner=replace(STUDY_LEARNER, n_step=1), worlds=worlds),
        f"study learner, {worlds} worlds (sorrel_e3 world, 50 turns)": TrainConfig(env=e3, learner=STUDY_LEARNER, worlds=worlds),
        f"study learner, {worlds} worlds (sorrel_e3 as the study trains it, 1-50 turns)": study,
    }  # fmt: skip


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
    parser.add_argument("--epochs", type=int, default=128, help="training epochs per timed block")
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed training blocks (best and median reported)"
    )
    parser.add_argument("--rounds", type=int, default=5, help="probe rounds to time (median)")
    parser.add_argument(
        "--worlds", type=int, default=STUDY_WORLDS, help="lockstep worlds of the batched loop"
    )
    parser.add_argument("--only", default=None, help="time only the settings whose name contains this text")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    dict_rate, array_rate = env_steps_per_second(args.turns)
    print(
        f"machine: {os.cpu_count()} cores, load average {load_before:.2f} at start, torch {torch.__version__}"
    )
    print("| measure | value |")
    print("|---|---|")
    print(f"| env turns/s, random actions, PettingZoo API (3 agents) | {dict_rate:,.0f} |")
    print(f"| env turns/s, random actions, engine arrays, one world (3 agents) | {array_rate:,.0f} |")
    for name, config in benchmark_configs(args.worlds).items():
        if args.only and args.only not in name:
            continue
        epochs = args.epochs if config.worlds == 1 else max(args.epochs, config.worlds)
        training = training_epochs_per_second(config, epochs, args.repeats)
        learner = config.learner
        print(
            f"| training epochs/s, {name}: best / median of {args.repeats} x {epochs} epochs; epochs per "
            f"CPU-second; ({learner.hidden_sizes} net, batch {learner.batch_size}, "
            f"{learner.samples_per_transition:g} samples per transition, {training['updates']:.2f} updates/epoch) | "
            f"{training['best']:.1f} / {training['median']:.1f}; {training['cpu']:.1f} per CPU-s |"
        )
    probe_seconds = probe_round_seconds(args.rounds, TrainConfig())
    print(f"| full probe round (both modes, 3 partner conditions, 3 agents) | {probe_seconds:.3f} s |")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
