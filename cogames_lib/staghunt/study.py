"""A stag-hunt study: every (condition, seed) trained with probes in one world, reduced to small tables.

`run_study` trains with `train_many` under `out/runs/` (per-run folders with checkpoints, resumable), then
writes the study's result tables at the top of `out/` (no checkpoints, small enough to commit):
- `training.csv`: `TRAINING_COLUMNS` + `return_agent_<i>` + `condition`, `seed`, downsampled to at most
  `curve_points` rows per run: each row is the mean over a block of consecutive epochs, `epoch` the
  block's last epoch (`updates` and `seconds` are block sums);
- `probe_intention.csv`, `probe_multistep.csv`: every probe row of every run (they carry condition, seed);
- `study.json`: `command`, `epochs`, `seeds`, `conditions`, `world`, `probe_every`, `code_version`,
  `wall_seconds`, `random_policy_stag_rate` (condition -> stag kills per episode of uniformly random
  actions in the study's world, `random_policy_episodes` episodes, seeded) and `random_policy` (condition
  -> the full `RandomPolicyScore`, mean return included), `world_config`, `learner`, `worlds`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pandas as pd

from cogames_lib import io, outdir
from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.baselines import random_policy_score
from cogames_lib.staghunt.rules import PRESET_POPULATIONS
from cogames_lib.staghunt.world_config import WORLD_PRESETS

STUDY_TABLES: tuple[str, ...] = ("training.csv", "probe_intention.csv", "probe_multistep.csv", "study.json")
SUM_COLUMNS: tuple[str, ...] = ("updates", "seconds")


def validate_study_parameters(
    world: str, conditions: Sequence[str], seeds: int, epochs: int, probe_every: int
) -> None:
    """One-line `ParameterError` for a bad study argument (imports nothing heavy: the CLI calls it first)."""
    if world not in WORLD_PRESETS:
        raise ParameterError(f"--world: unknown {world!r}; known: {sorted(WORLD_PRESETS)}")
    if not conditions:
        raise ParameterError("--conditions: give at least one condition")
    for condition in conditions:
        if condition not in PRESET_POPULATIONS:
            raise ParameterError(f"--conditions: unknown {condition!r}; known: {sorted(PRESET_POPULATIONS)}")
    if len(set(conditions)) != len(conditions):
        raise ParameterError(f"--conditions: each condition may appear once, got {list(conditions)}")
    for name, value in (("--seeds", seeds), ("--epochs", epochs), ("--probe-every", probe_every)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ParameterError(f"{name} must be an integer >= 1, got {value!r}")


def downsample_curve(training: pd.DataFrame, points: int) -> pd.DataFrame:
    """Block means of one run's per-epoch rows: at most `points` rows, `epoch` = each block's last epoch."""
    if len(training) <= points:
        return training.copy()
    block = int(np.ceil(len(training) / points))
    groups = np.arange(len(training)) // block
    means = training.groupby(groups).mean(numeric_only=True)
    for column in SUM_COLUMNS:
        if column in training:
            means[column] = training[column].groupby(groups).sum()
    means["epoch"] = training["epoch"].groupby(groups).max()
    return means[list(training.columns)].reset_index(drop=True)


def run_study(
    world: str,
    conditions: Sequence[str],
    seeds: int,
    epochs: int,
    probe_every: int,
    out_dir: str | Path,
    workers: int = 1,
    command: str | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool = True,
    random_policy_episodes: int = 2_000,
    curve_points: int = 500,
) -> dict:
    """Train every (condition, seed) of the study and write its tables under `out_dir`; returns study.json."""
    from cogames_lib.staghunt.runs import train_many
    from cogames_lib.staghunt.train import preset

    validate_study_parameters(world, conditions, seeds, epochs, probe_every)
    started = time.perf_counter()
    out = outdir.prepare_out_dir(out_dir, job="probe_study", name="--out", resume=resume, overwrite=overwrite,
                             params={"world": world, "conditions": list(conditions), "seeds": seeds,
                                     "epochs": epochs, "probe_every": probe_every})  # fmt: skip
    configs = [replace(preset(condition, world=world), checkpoints="last") for condition in conditions]
    seed_list = list(range(seeds))
    train_many(configs, seed_list, epochs, probe_every, out / "runs", workers=workers, progress=progress,
               resume=True)  # fmt: skip
    from cogames_lib.staghunt.runs import combine_run_tables

    tables = combine_run_tables(out / "runs", [(c, s) for c in conditions for s in seed_list])
    training = tables["training"]
    curves = [downsample_curve(run.drop(columns=["condition", "seed"]), curve_points).assign(condition=c, seed=s)
              for (c, s), run in training.groupby(["condition", "seed"], sort=False)]  # fmt: skip
    io.write_csv(out / "training.csv", pd.concat(curves, ignore_index=True))
    for table in ("probe_intention", "probe_multistep"):
        if table in tables:
            io.write_csv(out / f"{table}.csv", tables[table])
    scores = {condition: random_policy_score(configs[i].env, configs[i].agents, random_policy_episodes, seed=0)
              for i, condition in enumerate(conditions)}  # fmt: skip
    summary = {
        "command": command,
        "epochs": epochs,
        "seeds": seed_list,
        "conditions": list(conditions),
        "world": world,
        "probe_every": probe_every,
        "code_version": outdir.code_version(),
        "wall_seconds": round(time.perf_counter() - started, 1),
        "date": outdir.now_utc()[:10],
        "random_policy_stag_rate": {c: score.stags_per_episode for c, score in scores.items()},
        "random_policy_episodes": random_policy_episodes,
        "random_policy": {c: asdict(score) for c, score in scores.items()},
        "world_config": asdict(configs[0].env),
        "learner": asdict(configs[0].learner),
        "worlds": configs[0].worlds,
        "epsilon_decay_epochs": configs[0].epsilon_decay_epochs,
    }
    io.write_json(out / "study.json", summary)
    return summary
