"""Many training runs (conditions x seeds) in parallel (`cogames_lib.parallel`): local processes or Dask,
same results.

Each run is independent and fully determined by (config, seed), so the worker count, the backend and the
order runs are started in (seed by seed, every condition of a seed together) never change a number.
Combined tables (`training_all.csv`, `probe_intention_all.csv`,
`probe_multistep_all.csv`) are written at the top of `out_dir`, in (condition, seed) order.

`out_dir` follows `cogames_lib.outdir.prepare_out_dir`: with `resume=True` (the default) a folder of an earlier
`train_many` with the same configs, epochs and probe interval is continued: a finished run (every epoch,
the final probe round and, unless it writes none, the final checkpoint on disk) is not trained again (its
row is read back from its `training.csv`; `seconds` is then the sum of its epoch times); `overwrite=True`
deletes the folder's contents first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib import io, outdir
from cogames_lib.errors import ParameterError
from cogames_lib.parallel import fan_out
from cogames_lib.staghunt.checkpoints import checkpoint_due, checkpoint_path
from cogames_lib.staghunt.parameters import validate_probe_parameters
from cogames_lib.staghunt.train import (
    TrainConfig,
    preset,
    run_directory,
    train,
)
from cogames_lib.tables import PROBE_RUNS


def _one_run(job: tuple[TrainConfig, int, int, int, str]) -> dict[str, Any]:
    import time

    config, epochs, probe_every, seed, out_dir = job
    started = time.perf_counter()
    result = train(config, epochs, probe_every, seed, out_dir, progress=False)
    return _run_row(
        config.condition, seed, result.run_dir, epochs, result.training, time.perf_counter() - started
    )


def _run_row(
    condition: str, seed: int, run_dir: Path | None, epochs: int, training: pd.DataFrame, seconds: float
) -> dict[str, Any]:
    returns = training["mean_return"]
    tail = max(1, len(returns) // 10)
    return {
        "condition": condition, "seed": seed, "run_dir": str(run_dir), "epochs": epochs,
        "final_mean_return": float(returns.iloc[-1]), "mean_return_last_10pct": float(returns.iloc[-tail:].mean()),
        "seconds": seconds,
    }  # fmt: skip


def _finished_row(
    config: TrainConfig, epochs: int, probe_every: int, seed: int, out_dir: str
) -> dict[str, Any] | None:
    """The row of a run an earlier call finished, else None. Finished: every epoch in `training.csv`,
    the final probe round in `probe_multistep.csv` (when probing) and the final checkpoint (unless the
    run writes none)."""
    run_dir = run_directory(out_dir, config.condition, seed)
    training_path, probes_path = run_dir / "training.csv", run_dir / "probe_multistep.csv"
    if not training_path.is_file():
        return None
    if checkpoint_due(config.checkpoints, epochs, epochs) and not checkpoint_path(run_dir, epochs).is_file():
        return None
    if probe_every and (not probes_path.is_file() or pd.read_csv(probes_path)["epoch"].max() != epochs):
        return None
    training = pd.read_csv(training_path)
    if len(training) != epochs:
        return None
    return _run_row(config.condition, seed, run_dir, epochs, training, float(training["seconds"].sum()))


def train_many(
    configs_or_conditions: Sequence[TrainConfig | str],
    seeds: Sequence[int],
    epochs: int,
    probe_every: int,
    out_dir: str | Path,
    workers: int = 1,
    backend: str = "local",
    scheduler: Any = None,
    progress: bool = True,
    resume: bool = True,
    overwrite: bool = False,
) -> pd.DataFrame:
    """Train every (config, seed) pair; returns one row per run (`tables.PROBE_RUNS`) and writes combined tables.

    backend="local": `workers` processes (1 = in this process). backend="dask": `scheduler` is a
    `dask.distributed.Client`, a scheduler address, or None for a private local cluster of `workers`
    processes (`cogames_lib.parallel.FanOut`). resume / overwrite: see the module docstring.
    """
    configs = [preset(c) if isinstance(c, str) else c for c in configs_or_conditions]
    validate_probe_parameters(epochs=epochs, seeds=list(seeds), workers=workers, backend=backend)
    if probe_every < 0:
        raise ParameterError(f"probe_every must be >= 0, got {probe_every}")
    # seed-major: runs finish a seed of every condition at a time, so a study stopped early holds whole seeds
    jobs = [(config, epochs, probe_every, seed, str(out_dir)) for seed in seeds for config in configs]
    if not jobs:
        raise ParameterError("nothing to run: give at least one condition and one seed")
    # Two runs with the same (condition, seed) share a run folder: they would overwrite each other's files
    # and the combined tables would count that run twice.
    run_keys = [(config.condition, seed) for config, _, _, seed, _ in jobs]
    repeated = sorted({key for key in run_keys if run_keys.count(key) > 1})
    if repeated:
        raise ParameterError(f"each (condition, seed) may appear once; repeated: {repeated}")
    new_folder, existed = outdir.is_new_out_dir(out_dir), Path(out_dir).expanduser().exists()
    outdir.prepare_out_dir(
        out_dir,
        job="probe_training",
        params={
            "configs": [asdict(config) for config in configs],
            "epochs": epochs,
            "probe_every": probe_every,
            "seeds": list(seeds),
        },
        resume=resume,
        overwrite=overwrite,
        compare=("configs", "epochs", "probe_every"),
        name="out_dir",
        same_code=True,  # runs trained by older code never pose as this code's
    )
    finished = {
        index: _finished_row(job[0], epochs, probe_every, job[3], job[4]) for index, job in enumerate(jobs)
    }
    done = {index: row for index, row in finished.items() if row is not None}
    jobs = [job for index, job in enumerate(jobs) if index not in done]
    try:
        rows = fan_out(
            _one_run,
            jobs,
            workers=min(workers, max(1, len(jobs))),
            backend=backend,
            scheduler=scheduler,
            progress=progress,
            description="runs",
            unit="run",
            start="spawn",  # torch's thread pools are not fork-safe
            describe=_describe_job,
        )
    except BaseException:
        # a run that trained nothing (e.g. a wrong scheduler address) leaves no folder behind
        if new_folder and not any(Path(out_dir).expanduser().rglob("training.csv")):
            outdir.discard_out_dir(out_dir, existed)
        raise
    ran = iter(rows)
    rows = [done[index] if index in done else next(ran) for index in range(len(run_keys))]
    by_condition = sorted(range(len(run_keys)), key=lambda i: (i % len(configs), i // len(configs)))
    rows = [rows[index] for index in by_condition]
    combine_run_tables(out_dir, [run_keys[index] for index in by_condition])
    outdir.record_results(out_dir, unit="training runs", computed=len(jobs), reused=len(done))
    return PROBE_RUNS.frame(rows)


def _describe_job(job: tuple[TrainConfig, int, int, int, str]) -> str:
    config, epochs, probe_every, seed, _ = job
    return f"{config.condition} seed {seed} ({epochs} epochs, probes every {probe_every})"


def combine_run_tables(out_dir: str | Path, runs: Sequence[tuple[str, int]]) -> dict[str, pd.DataFrame]:
    """Concatenate the per-run CSVs of `runs` into `out_dir/<table>_all.csv` (atomic writes)."""
    combined: dict[str, pd.DataFrame] = {}
    for table in ("training", "probe_intention", "probe_multistep"):
        frames = []
        for condition, seed in runs:
            path = run_directory(out_dir, condition, seed) / f"{table}.csv"
            if path.is_file():
                frame = pd.read_csv(path)
                if "condition" not in frame:
                    frame.insert(0, "seed", seed)
                    frame.insert(0, "condition", condition)
                frames.append(frame)
        if frames:
            combined[table] = pd.concat(frames, ignore_index=True)
            io.write_csv(Path(out_dir) / f"{table}_all.csv", combined[table])
    return combined
