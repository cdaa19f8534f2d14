"""A training run on disk: `RUN_DIR/run.json` and `RUN_DIR/seed_<seed>/checkpoint_<step:010d>.pt`.

Each checkpoint is a `learned:` policy file (`cogames_lib.policies.learned`): play it with
`learned:RUN_DIR/seed_0/checkpoint_0000123456.pt`. `run.json` records the one command, the config
(curriculum, shaping, network), the seeds, the total steps, the code version, the library versions, the wall
time, and per seed its checkpoints and a training log (training-episode success per diagnostic).
Seeds train one after another in this process.
"""

from __future__ import annotations

import platform
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cogames_lib import io, outdir
from cogames_lib.errors import DataFileError
from cogames_lib.learn.ppo import TrainConfig, run_path, train_seed
from cogames_lib.policies.learned import checkpoint_payload

RUN_FILE = "run.json"
_CHECKPOINT = re.compile(r"checkpoint_(\d{10})\.pt$")


def library_versions() -> dict[str, str]:
    import numpy
    import torch

    return {"python": platform.python_version(), "numpy": numpy.__version__, "torch": torch.__version__}


def train_run(
    config: TrainConfig,
    seeds: Sequence[int],
    run_dir: str | Path,
    checkpoints: int = 10,
    device: str = "cpu",
    command: str | None = None,
    verbose: bool = False,
) -> dict[str, Any]:
    """Train every seed of `seeds` (one after another), writing checkpoints and `run.json`; returns it."""
    run_dir = Path(run_dir)
    io.make_dir(run_dir)
    started = time.time()
    record: dict[str, Any] = {
        "command": command or " ".join(sys.argv),
        "seeds": [int(s) for s in seeds],
        "checkpoints": checkpoints,
        "device": device,
        "config": config.to_dict(),
        "code_version": outdir.code_version(),
        "libraries": library_versions(),
        "started_utc": outdir.now_utc(),
        "runs": [],
    }
    for seed in seeds:

        def save(step: int, state: dict[str, Any], seed: int = int(seed)) -> None:
            payload = checkpoint_payload(config.network, state, step=step, seed=seed)
            io.write_torch(run_path(run_dir, seed, step), payload)

        def show(entry: dict[str, Any], seed: int = int(seed)) -> None:
            print(f"seed {seed} {entry}", flush=True)

        result = train_seed(config, int(seed), device, save, checkpoints, show if verbose else None)
        record["runs"].append(
            {
                "seed": result.seed,
                "steps": result.steps,
                "seconds": round(result.seconds, 1),
                "agent_steps_per_second": round(result.steps / max(result.seconds, 1e-9)),
                "final_checkpoint": str(run_path(run_dir, result.seed, result.steps).relative_to(run_dir)),
                "log": result.log,
            }
        )
        record["total_steps"] = sum(run["steps"] for run in record["runs"])
        record["wall_seconds"] = round(time.time() - started, 1)
        io.write_json(run_dir / RUN_FILE, record)
    record["finished_utc"] = outdir.now_utc()
    io.write_json(run_dir / RUN_FILE, record)
    return record


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
