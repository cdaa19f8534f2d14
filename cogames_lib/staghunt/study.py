"""A stag-hunt study: pre-register, train every (condition, seed) with probes, reduce to small tables.

`run_study` does three things in order:
1. **Pre-registers** the study: before any training it writes `study.json` with a `preregistration`
   block (conditions and their populations, seeds, the epoch budget, probe settings, the final window, the
   primary scale and test, what each condition's effect should be if agents read the ability from the
   label). Resuming a study with another plan is refused; the block is never rewritten.
2. Trains with `train_many` under `out/runs/` (per-run folders with the last checkpoint, resumable; seed by
   seed, every condition of a seed together), locally or on a Dask cluster (`backend`, `scheduler`).
3. `finish_study` writes the result tables at the top of `out/` (no checkpoints, small enough to commit):
   - `training.parquet`: `TRAINING_COLUMNS` + `return_agent_<i>` + `condition`, `seed`, downsampled to at most
     `curve_points` rows per run (block means; `epoch` the block's last epoch, `updates`/`seconds` sums);
   - `probe_intention.parquet`, `probe_multistep.parquet`: every probe row of every run (Parquet, zstd);
   - `acting_partners.csv`: the behavioural validation with acting partners (`acting_partners`) from each
     run's last checkpoint;
   - `random_policy.csv`: random play in each condition's world with its standard errors, seed and worlds;
   - `study.json`: the preregistration, then `command`, `epochs`, `seeds`, `conditions`, `world`,
     `probe_every`, `code_version`, `provenance` (package versions, CPU, dirty-tree flag, of the training
     and of the finishing code), `wall_seconds`, `random_policy_stag_rate` and `random_policy`,
     `world_config`, `learner`, `worlds`, `populations`, `probe_settings`.
`finish_study` can be rerun on a trained study folder alone (e.g. with newer analysis code).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cogames_lib import io, outdir
from cogames_lib.errors import DataFileError, ParameterError
from cogames_lib.paths import PROJECT_ROOT, STAGHUNT_MAPS_DIR
from cogames_lib.staghunt.baselines import random_policy_score
from cogames_lib.staghunt.rules import PARTNER_TEST_FOCAL_KIND, PRESET_POPULATIONS
from cogames_lib.staghunt.world_config import WORLD_PRESETS

if TYPE_CHECKING:
    from cogames_lib.staghunt.train import TrainConfig

STUDY_FILE = "study.json"
STUDY_TABLES: tuple[str, ...] = (
    "training.parquet", "probe_intention.parquet", "probe_multistep.parquet", "acting_partners.csv",
    "random_policy.csv", STUDY_FILE,
)  # fmt: skip
SUM_COLUMNS: tuple[str, ...] = ("updates", "seconds")
PROBE_SUITE = "counterbalanced"
# `probe_settings.maps_dir` in a plan for the default maps: named, not this machine's absolute path
SHIPPED_MAPS = "shipped: cogames_lib/maps/staghunt"
FINAL_WINDOW = 0.2  # probe rounds in the last 20% of training are "final"
RANDOM_POLICY_SEED = 0
RANDOM_POLICY_WORLDS = 100
ACTING_EPISODES = 100
ACTING_SEED = 12_345  # the acting-partner worlds: SeedSequence([ACTING_SEED + seed, focal_id])
PACKAGES: tuple[str, ...] = ("numpy", "pandas", "scipy", "torch", "pettingzoo", "gymnasium", "pyarrow")
PRIMARY_ANALYSIS: dict[str, Any] = {
    "question": "Does a focal that can hunt prefer the stag less when its partner is of the other kind?",
    "focal": "every agent that can hunt, of the condition's focal kind (kind_shuffled: every hunter)",
    "primary_scale": "p_stag = w_stag / (w_stag + w_hare), the counterbalanced intention probe",
    "secondary_scales": ["q_gap = Q_stag - Q_hare", "argmax = 1 if Q_stag > Q_hare (0.5 on a tie)"],
    "per_seed_statistic": (
        "mean over the final window's probe rounds, focal agents and cases of P(stag | same-kind partner) - "
        "P(stag | other-kind partner), each stag_action half weighted equally (removes the left/right bias)"
    ),
    "primary_test": (
        "two-sided exact sign-flip permutation test over seeds (alpha 0.05), per condition; 95% percentile "
        "bootstrap interval over seeds"
    ),
    "unit": "seed",
    "behavioural_validation": (
        "acting partners: per seed, focal approached/attacked stag rate with a same-kind minus an "
        "other-kind trained partner, bootstrap interval over seeds"
    ),
}


def expected_effect(condition: str) -> str:
    """What the partner effect should be if agents read the partner's ability from its kind label."""
    population = PRESET_POPULATIONS[condition]
    focal = PARTNER_TEST_FOCAL_KIND[condition]
    abilities = {kind: {spec.can_hunt for spec in population if spec.kind == kind} for kind in ("AgentKindA", "AgentKindB")}  # fmt: skip
    if focal is None or any(len(values) != 1 for values in abilities.values()):
        return "zero: the label tells nothing about the ability"
    other = "AgentKindB" if focal == "AgentKindA" else "AgentKindA"
    if abilities[other] == {False}:
        return "positive: the other kind cannot hunt"
    return "zero: every agent can hunt"


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


def provenance() -> dict[str, Any]:
    """What ran the study: Python and package versions, the CPU, the commit and whether the tree was dirty."""
    versions: dict[str, str | None] = {}
    for package in PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            cpu = next(
                (line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), cpu
            )
    except OSError:
        pass
    return {
        "python": platform.python_version(), "packages": versions, "platform": platform.platform(),
        "cpu": cpu, "cpu_count": os.cpu_count(), "code_version": outdir.code_version(), "dirty_tree": _dirty(),
    }  # fmt: skip


def _dirty() -> bool | None:
    """True when the checkout has uncommitted changes to tracked files (None outside a git checkout)."""
    try:
        done = subprocess.run(["git", "-C", str(PROJECT_ROOT), "status", "--porcelain", "--untracked-files=no"],
                              capture_output=True, text=True, timeout=10, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return bool(done.stdout.strip()) if done.returncode == 0 else None


def study_configs(world: str, conditions: Sequence[str], epsilon_decay_epochs: int | None = None) -> list:
    """The training config of each condition: the world preset, the counterbalanced probe suite, and the
    last checkpoint kept (the acting-partner validation plays it); `epsilon_decay_epochs` overrides the
    preset's exploration schedule (a short study decays faster)."""
    from cogames_lib.staghunt.train import preset

    configs = []
    for condition in conditions:
        config = preset(condition, world=world)
        config = replace(config, checkpoints="last", probes=replace(config.probes, suite=PROBE_SUITE))
        if epsilon_decay_epochs is not None:
            config = replace(config, epsilon_decay_epochs=epsilon_decay_epochs)
        configs.append(config)
    return configs


def preregistration(world: str, conditions: Sequence[str], seeds: int, epochs: int, probe_every: int,
                    acting_episodes: int = ACTING_EPISODES, epsilon_decay_epochs: int | None = None) -> dict[str, Any]:  # fmt: skip
    """The plan written before training (module docstring); `registered_at` is added when it is written."""
    configs = study_configs(world, conditions, epsilon_decay_epochs)
    return {
        "conditions": list(conditions),
        "populations": {c: [asdict(spec) for spec in PRESET_POPULATIONS[c]] for c in conditions},
        "focal_kind": {c: PARTNER_TEST_FOCAL_KIND[c] for c in conditions},
        "expected_effect": {c: expected_effect(c) for c in conditions},
        "seeds": list(range(seeds)),
        "epochs": epochs,
        "probe_every": probe_every,
        "final_window": FINAL_WINDOW,
        "world": world,
        "epsilon_decay_epochs": configs[0].epsilon_decay_epochs,
        "learner": asdict(configs[0].learner),
        "worlds": configs[0].worlds,
        "probe_settings": recorded_probe_settings(configs[0]),
        "acting_partner_episodes": acting_episodes,
        "acting_partner_seed": ACTING_SEED,
        **PRIMARY_ANALYSIS,
    }


def recorded_probe_settings(config: TrainConfig) -> dict[str, Any]:
    """The probe settings the runs use (`train.probe_settings_for`: the world's attack shape, position code
    and channels, not the `ProbeSettings` defaults), with the shipped maps folder named rather than given as
    this machine's absolute path, so the plan does not change when the checkout moves."""
    from cogames_lib.staghunt.train import probe_settings_for

    settings = asdict(probe_settings_for(config))
    if Path(settings["maps_dir"]).resolve() == STAGHUNT_MAPS_DIR.resolve():
        settings["maps_dir"] = SHIPPED_MAPS
    return settings


def register_study(out: Path, plan: dict[str, Any], command: str | None) -> dict[str, Any]:
    """Write `study.json` with the plan before training; an existing plan must be the same one."""
    path = out / STUDY_FILE
    if path.is_file():
        existing = json.loads(path.read_text(encoding="utf-8")).get("preregistration")
        if existing is not None:
            recorded = {k: v for k, v in existing.items() if k != "registered_at"}
            if json.loads(json.dumps(plan)) != recorded:
                changed = sorted(k for k in set(plan) | set(recorded) if plan.get(k) != recorded.get(k))
                raise ParameterError(
                    f"{path}: this study was registered with another plan (differs in {changed})"
                )
            return existing
    registered = {**plan, "registered_at": outdir.now_utc()}
    io.write_json(path, {"status": "registered, training", "command": command, "preregistration": registered,
                         "provenance": provenance()})  # fmt: skip
    return registered


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
    backend: str = "local",
    scheduler: Any = None,
    acting_episodes: int = ACTING_EPISODES,
    epsilon_decay_epochs: int | None = None,
) -> dict:
    """Pre-register, train every (condition, seed) and write the study's tables under `out_dir`; returns
    study.json. backend/scheduler: `train_many`'s (`dask` with a scheduler address runs on a cluster)."""
    from cogames_lib.staghunt.runs import train_many

    validate_study_parameters(world, conditions, seeds, epochs, probe_every)
    started = time.perf_counter()
    out = outdir.prepare_out_dir(out_dir, job="probe_study", name="--out", resume=resume, overwrite=overwrite,
                                 params={"world": world, "conditions": list(conditions), "seeds": seeds,
                                         "epochs": epochs, "probe_every": probe_every})  # fmt: skip
    plan = preregistration(
        world, conditions, seeds, epochs, probe_every, acting_episodes, epsilon_decay_epochs
    )
    register_study(out, plan, command)
    train_many(study_configs(world, conditions, epsilon_decay_epochs), plan["seeds"], epochs, probe_every, out / "runs",
               workers=workers, backend=backend, scheduler=scheduler, progress=progress, resume=True)  # fmt: skip
    return finish_study(
        out, random_policy_episodes, curve_points, training_seconds=time.perf_counter() - started
    )


def finish_study(
    out_dir: str | Path,
    random_policy_episodes: int = 2_000,
    curve_points: int = 500,
    training_seconds: float | None = None,
    deviations: Sequence[str] = (),
) -> dict:
    """Write the result tables of a trained study folder (module docstring) from its runs and its plan.

    Only whole seeds count: a seed is used when every condition's run of it finished (every epoch trained,
    the final probe round written); `seeds` in study.json lists them and `seeds_not_finished` the
    pre-registered seeds left out (a study stopped early). `deviations` (sentences) are recorded beside the
    untouched preregistration, so a reader sees every departure from the plan."""
    from cogames_lib.staghunt.runs import combine_run_tables

    out = Path(out_dir)
    path = out / STUDY_FILE
    if not path.is_file():
        raise DataFileError(f"{out}: no {STUDY_FILE}; run the study first")
    summary = json.loads(path.read_text(encoding="utf-8"))
    plan = summary.get("preregistration")
    if not plan:
        raise DataFileError(f"{path}: no preregistration; this folder was not written by run_study")
    conditions = plan["conditions"]
    seeds = [s for s in plan["seeds"] if all(_finished(out, c, s, plan["epochs"]) for c in conditions)]
    if not seeds:
        raise DataFileError(f"{out / 'runs'}: no seed has finished runs of every condition")
    configs = study_configs(plan["world"], conditions, plan.get("epsilon_decay_epochs"))
    tables = combine_run_tables(out / "runs", [(c, s) for c in conditions for s in seeds])
    if "training" not in tables:
        raise DataFileError(f"{out / 'runs'}: no trained runs")
    curves = [downsample_curve(run.drop(columns=["condition", "seed"]), curve_points).assign(condition=c, seed=s)
              for (c, s), run in tables["training"].groupby(["condition", "seed"], sort=False)]  # fmt: skip
    io.write_parquet(out / "training.parquet", pd.concat(curves, ignore_index=True))
    if "probe_intention" in tables:
        io.write_parquet(out / "probe_intention.parquet", tables["probe_intention"])
    if "probe_multistep" in tables:
        io.write_parquet(out / "probe_multistep.parquet", tables["probe_multistep"])
    io.write_csv(
        out / "acting_partners.csv",
        acting_partner_table(out, configs, seeds, plan["acting_partner_episodes"]),
    )
    scores = {c: random_policy_score(config.env, config.agents, random_policy_episodes, seed=RANDOM_POLICY_SEED,
                                     worlds=RANDOM_POLICY_WORLDS) for c, config in zip(conditions, configs, strict=True)}  # fmt: skip
    from cogames_lib.tables import RANDOM_POLICY

    io.write_csv(
        out / "random_policy.csv",
        RANDOM_POLICY.frame([{"condition": c, **asdict(s)} for c, s in scores.items()]),
    )
    training_provenance = summary.get("provenance", {})
    summary.update({
        "status": "finished",
        "epochs": plan["epochs"], "seeds": seeds, "conditions": conditions, "world": plan["world"],
        "seeds_not_finished": [s for s in plan["seeds"] if s not in seeds],
        "deviations": list(deviations),
        "probe_every": plan["probe_every"],
        "code_version": training_provenance.get("code_version"),
        "provenance": training_provenance,
        "finished_by": provenance(),
        "date": outdir.now_utc()[:10],
        "random_policy_stag_rate": {c: s.stags_per_episode for c, s in scores.items()},
        "random_policy_episodes": random_policy_episodes,
        "random_policy": {c: asdict(s) for c, s in scores.items()},
        "world_config": asdict(configs[0].env),
        "learner": asdict(configs[0].learner),
        "worlds": configs[0].worlds,
        "epsilon_decay_epochs": configs[0].epsilon_decay_epochs,
        "populations": plan["populations"],
        "probe_settings": plan["probe_settings"],
        "training_seconds": _run_seconds(out, conditions, seeds),
    })  # fmt: skip
    if training_seconds is not None:
        summary["wall_seconds"] = round(training_seconds, 1)
    summary.setdefault("wall_seconds", summary["training_seconds"])
    io.write_json(path, summary)
    return summary


def _finished(out: Path, condition: str, seed: int, epochs: int) -> bool:
    """Did the run train every epoch and write its final probe round?"""
    from cogames_lib.staghunt.train import run_directory

    run_dir = run_directory(out / "runs", condition, seed)
    training, probes = run_dir / "training.csv", run_dir / "probe_multistep.csv"
    if not training.is_file() or not probes.is_file():
        return False
    return (
        len(pd.read_csv(training, usecols=["epoch"])) == epochs
        and int(pd.read_csv(probes, usecols=["epoch"])["epoch"].max()) == epochs
    )


def _run_seconds(out: Path, conditions: Sequence[str], seeds: Sequence[int]) -> float:
    """Training seconds summed over runs (each run's `training.csv` records its epochs' times)."""
    from cogames_lib.staghunt.train import run_directory

    total = 0.0
    for condition in conditions:
        for seed in seeds:
            path = run_directory(out / "runs", condition, seed) / "training.csv"
            if path.is_file():
                total += float(pd.read_csv(path, usecols=["seconds"])["seconds"].sum())
    return round(total, 1)


def acting_partner_table(out: Path, configs: Sequence, seeds: Sequence[int], episodes: int) -> pd.DataFrame:
    """`acting_partners` rows of every (condition, seed) whose last checkpoint is on disk."""
    import torch

    from cogames_lib.staghunt.acting_partners import acting_partner_rows
    from cogames_lib.staghunt.train import load_checkpoint, run_directory
    from cogames_lib.tables import ACTING_PARTNERS

    torch.set_num_threads(1)  # tiny networks: threads cost more than they bring
    frames = []
    for config in configs:
        for seed in seeds:
            run_dir = run_directory(out / "runs", config.condition, seed)
            done = sorted(run_dir.glob("checkpoints/epoch_*.pt"), key=lambda p: int(p.stem.split("_")[1]))
            if not done:
                continue
            agents = [member.frozen_copy() for member in load_checkpoint(done[-1], config).members]
            rows = acting_partner_rows(agents, config.agents, config.env, episodes, ACTING_SEED + seed,
                                       PARTNER_TEST_FOCAL_KIND.get(config.condition))  # fmt: skip
            frames.append(rows.assign(condition=config.condition, seed=seed))
    if not frames:
        return ACTING_PARTNERS.frame()
    return ACTING_PARTNERS.ordered(pd.concat(frames, ignore_index=True))
