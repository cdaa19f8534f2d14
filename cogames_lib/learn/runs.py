"""A training run on disk: `RUN_DIR/run.json` and `RUN_DIR/seed_<seed>/checkpoint_<step:010d>.pt`.

Each checkpoint is a `learned:` policy file (`cogames_lib.policies.learned`): play it with
`learned:RUN_DIR/seed_0/checkpoint_0000123456.pt`. `run.json` records the one command, the config
(curriculum, shaping, network), the seeds, the total steps, the code version, the library versions, the wall
time, and per seed its checkpoints and a training log (training-episode success per diagnostic).
The seeds train side by side in one process, taking turns update by update, or dealt out to several
processes (`workers`, recorded in run.json as the number of processes that ran); either way a seed's
checkpoints are the same. One process rewrites run.json at every checkpoint round; with several, each keeps
its seeds' entries in `progress_seeds_<seeds>.json` until the run ends and folds them into run.json (after a
failure those files hold the logs).
"""

from __future__ import annotations

import platform
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cogames_lib import io, outdir
from cogames_lib.errors import DataFileError, ParameterError
from cogames_lib.learn.ppo import PPOConfig, run_path
from cogames_lib.parallel import check_workers, fan_out
from cogames_lib.policies.learned import checkpoint_payload

RUN_FILE = "run.json"
_CHECKPOINT = re.compile(r"checkpoint_(\d{10})\.pt$")


def library_versions() -> dict[str, str]:
    import numpy
    import torch

    return {"python": platform.python_version(), "numpy": numpy.__version__, "torch": torch.__version__}


def train_run(
    config: PPOConfig,
    seeds: Sequence[int],
    run_dir: str | Path,
    checkpoints: int = 10,
    device: str = "cpu",
    command: str | None = None,
    verbose: bool = False,
    time_limit_s: float | None = None,
    workers: int = 1,
) -> dict[str, Any]:
    """Train every seed of `seeds` for `config.total_steps`, writing checkpoints and `run.json`; returns it.

    The seeds take turns, one update each, so they advance together. With `workers` > 1 the seeds are dealt
    out (round robin) to that many processes, each training its share side by side; a seed's numbers do not
    depend on the seeds beside it (nor on the process), so the checkpoints are the same for any `workers`.
    With `time_limit_s` (one process only), training stops before a round that would end past the limit
    (every seed then gets a final checkpoint at the same step; `run.json` says `stopped_by_time_limit`).
    Because the learning rate is constant and the shaping changes by steps, such a run is the prefix of the
    planned one: `--steps <steps done>` repeats its final checkpoints exactly. A time limit with
    `config.lr_anneal` is refused: a run stopped inside the anneal's window could not be repeated.
    """
    from cogames_lib.learn.curriculum import Curriculum

    check_workers(workers)
    seeds = [int(s) for s in seeds]
    if not seeds or len(set(seeds)) != len(seeds):
        raise ParameterError(f"seeds: give at least one, each once; got {seeds}")
    groups = [seeds[index::workers] for index in range(min(workers, len(seeds)))]
    if len(groups) > 1 and time_limit_s is not None:
        raise ParameterError(
            "time_limit_s (--time-limit) needs one process (--workers 1): processes would stop at different steps"
        )
    if time_limit_s is not None and config.lr_anneal > 0:
        raise ParameterError(
            "time_limit_s (--time-limit) with lr_anneal (--lr-anneal): the anneal follows the planned length, "
            "so a run stopped early could not be repeated with --steps; use one or the other"
        )
    # A curriculum that training would refuse is refused here, in one line, before any output.
    Curriculum(config.curriculum, config.agent_counts(), 0, config.map_symmetries, config.solved_drop)
    run_dir = Path(run_dir)
    io.make_dir(run_dir)
    started = time.time()
    record: dict[str, Any] = {
        "command": command or " ".join(sys.argv),
        "seeds": seeds,
        "planned_steps_per_seed": None,
        "checkpoints": checkpoints,
        "device": device,
        "workers": len(groups),
        "config": config.to_dict(),
        "code_version": outdir.code_version(),
        "libraries": library_versions(),
        "started_utc": outdir.now_utc(),
        "stopped_by_time_limit": False,
        "runs": [],
    }

    def write_record(runs: list[dict[str, Any]]) -> None:
        record["runs"] = sorted(runs, key=lambda run: record["seeds"].index(run["seed"]))
        record["total_steps"] = sum(run["steps"] for run in runs)
        record["wall_seconds"] = round(time.time() - started, 1)
        io.write_json(run_dir / RUN_FILE, record, inline_depth=4)  # one line per log entry

    record["planned_steps_per_seed"] = config.planned_updates() * config.rollout_size()
    job = _SeedGroup(config, [], run_dir, checkpoints, device, verbose, time_limit_s, started, None)
    if len(groups) == 1:
        runs, stopped = _train_seeds(replace(job, seeds=groups[0]), write_record)
    else:
        write_record([])
        jobs = [replace(job, seeds=group, progress_file=_progress_file(run_dir, group)) for group in groups]
        results = fan_out(
            _train_seeds,
            jobs,
            workers=len(groups),
            progress=False,
            start="spawn",  # torch's thread pools are not fork-safe
            describe=_describe_group,
        )
        runs, stopped = [run for group_runs, _ in results for run in group_runs], False
        for finished in jobs:  # folded into run.json below
            if finished.progress_file is not None:
                finished.progress_file.unlink(missing_ok=True)
    record["stopped_by_time_limit"] = stopped
    record["finished_utc"] = outdir.now_utc()
    write_record(runs)
    return record


@dataclass(frozen=True)
class _SeedGroup:
    """The seeds one process trains side by side, and what it needs to train them (picklable: with
    `workers` > 1 it crosses a spawn boundary)."""

    config: PPOConfig
    seeds: list[int]
    run_dir: Path
    checkpoints: int
    device: str
    verbose: bool
    time_limit_s: float | None
    started: float
    progress_file: Path | None  # where a worker process keeps its seeds' entries of run.json up to date


def _progress_file(run_dir: Path, seeds: Sequence[int]) -> Path:
    """A worker's record of its seeds while they train (kept if the run fails; removed when it finishes)."""
    return run_dir / f"progress_seeds_{'_'.join(map(str, seeds))}.json"


def _describe_group(job: _SeedGroup) -> str:
    """How a failed process is named in its one-line error."""
    return f"training seeds {job.seeds}"


def _train_seeds(
    job: _SeedGroup, on_progress: Callable[[list[dict[str, Any]]], None] | None = None
) -> tuple[list[dict[str, Any]], bool]:
    """Train `job.seeds` side by side, one update each in turn, saving their checkpoints; returns (each seed's
    entry of `run.json`'s "runs", whether the time limit stopped them). `on_progress(runs)` after every
    checkpoint round."""
    from cogames_lib.learn.ppo import SeedTrainer, checkpoint_steps

    config, run_dir = job.config, job.run_dir
    progress_file = job.progress_file
    if on_progress is None and progress_file is not None:

        def on_progress(runs: list[dict[str, Any]]) -> None:
            io.write_json(progress_file, {"seeds": job.seeds, "runs": runs}, inline_depth=4)

    trainers: list[SeedTrainer] = []
    stopped = False
    try:
        for seed in job.seeds:
            trainers.append(SeedTrainer(config, seed, job.device))
        updates = config.planned_updates()
        targets = checkpoint_steps(updates * config.rollout_size(), job.checkpoints)
        logs: dict[int, list[dict[str, Any]]] = {trainer.seed: [] for trainer in trainers}
        saved: dict[int, list[int]] = {trainer.seed: [] for trainer in trainers}

        def save_all() -> None:
            for trainer in trainers:
                if trainer.steps not in saved[trainer.seed]:
                    payload = checkpoint_payload(
                        config.network, trainer.state_dict(), step=trainer.steps, seed=trainer.seed
                    )
                    io.write_torch(run_path(run_dir, trainer.seed, trainer.steps), payload)
                    saved[trainer.seed].append(trainer.steps)

        def runs() -> list[dict[str, Any]]:
            return [
                {
                    "seed": trainer.seed,
                    "steps": trainer.steps,
                    "seconds": round(trainer.seconds, 1),
                    "agent_steps_per_second": round(trainer.steps / max(trainer.seconds, 1e-9)),
                    "checkpoint_steps": saved[trainer.seed],
                    "final_checkpoint": str(
                        run_path(run_dir, trainer.seed, trainer.steps).relative_to(run_dir)
                    ),
                    "log": logs[trainer.seed],
                }
                for trainer in trainers
            ]

        round_seconds = 0.0
        for update in range(updates + 1):
            if targets and targets[0] <= trainers[0].steps:
                while targets and targets[0] <= trainers[0].steps:
                    targets.pop(0)
                save_all()
                if on_progress is not None:
                    on_progress(runs())
            if update == updates:
                break
            limit = job.time_limit_s
            if limit is not None and time.time() - job.started + round_seconds > limit:
                stopped = True
                save_all()
                break
            round_started = time.time()
            for trainer in trainers:
                trainer.update()
                if job.verbose or trainer.updates % 10 == 0 or trainer.updates == updates:
                    entry = trainer.log_entry()
                    logs[trainer.seed].append(entry)
                    if job.verbose:
                        print(f"seed {trainer.seed} {entry}", flush=True)
            round_seconds = time.time() - round_started
        return runs(), stopped
    finally:
        for trainer in trainers:  # stops the collection workers (config.collect_workers > 1)
            trainer.close()


def run_checkpoints(run_dir: str | Path) -> list[tuple[int, int, Path]]:
    """(seed, step, path) of every checkpoint in a run directory, by seed then step."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise DataFileError(f"{run_dir}: not a training run directory (not found)")
    found = []
    for seed_dir in run_dir.glob("seed_*"):
        try:
            seed = int(seed_dir.name.removeprefix("seed_"))
        except ValueError:
            continue
        for path in seed_dir.glob("checkpoint_*.pt"):
            match = _CHECKPOINT.search(path.name)
            if match:
                found.append((seed, int(match.group(1)), path))
    if not found:
        raise DataFileError(f"{run_dir}: no seed_<seed>/checkpoint_<step>.pt files")
    return sorted(found)
