"""Which checkpoints a training run writes, and what is in them.

Modes (`TrainConfig.checkpoints`, `--checkpoints`):
- `none`: no checkpoint files;
- `last` (the default): one checkpoint at the end of training;
- `probes`: one at every probe epoch (0, `probe_every`, ...) and at the end;
- `all`: like `probes`, but each holds the full training state (target networks, Adam moments, counters).

`last` and `probes` hold the *probe state*: each agent's online network in float32, all a probe (or a
user's analysis) reads. Dropping the rest is lossless for probes: probes of a reloaded checkpoint equal
probes of the live network exactly (tested). Measured by `benchmarks/staghunt_checkpoint_size.py` (300
epochs, 3 agents, default 64x64 network): full state 3.74 MB, probe state 0.94 MB. Also measured and not used: gzip saves only
8% of the probe state (trained float32 weights barely compress) and would break a plain `torch.load`;
float16 halves it but moved intention weights by up to 4e-5, so probe results would no longer be identical.

Files: `checkpoints/epoch_<E>.pt`, read with `staghunt.load_checkpoint(path, config)` or
`torch.load(path, weights_only=True)` (the safe loader).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cogames_lib import io
from cogames_lib.errors import DataFileError, ParameterError

if TYPE_CHECKING:
    from cogames_lib.staghunt.learner import DQNPopulation

CHECKPOINT_MODES: tuple[str, ...] = ("none", "last", "probes", "all")
DEFAULT_CHECKPOINTS = "last"
CHECKPOINT_SUFFIX = ".pt"


def validate_checkpoint_mode(mode: str) -> str:
    if mode not in CHECKPOINT_MODES:
        raise ParameterError(f"checkpoints must be one of {list(CHECKPOINT_MODES)}, got {mode!r}")
    return mode


def checkpoint_due(mode: str, epoch: int, epochs: int) -> bool:
    """Whether a run in `mode` writes a checkpoint at `epoch` (called at probe epochs and at the end)."""
    return mode in ("probes", "all") or (mode == "last" and epoch == epochs)


def checkpoint_path(run_dir: str | Path, epoch: int) -> Path:
    return Path(run_dir) / "checkpoints" / f"epoch_{epoch}{CHECKPOINT_SUFFIX}"


def checkpoint_state(state: dict[str, Any], mode: str) -> dict[str, Any]:
    """`state` (a population's `state_dict()`) as the mode stores it: everything for `all`, else each
    agent's online network and the counters."""
    if mode == "all":
        return state
    return {
        "agents": [{"network": agent["network"]} for agent in state["agents"]],
        "turns_seen": state.get("turns_seen", 0),
        "updates_done": state.get("updates_done", 0),
    }


def save_checkpoint(population: Any, path: str | Path, mode: str = "probes", **metadata: object) -> Path:
    """Write `population`'s state for `mode` (atomically) with `metadata` beside it."""
    payload = {
        **metadata,
        "checkpoint_mode": mode,
        "population": checkpoint_state(population.state_dict(), mode),
    }
    return io.write_torch(path, payload)


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """The checkpoint's payload (safe loader: `weights_only=True`), earlier versions' full-state files too."""
    import pickle

    import torch

    path = Path(path)
    try:
        payload = torch.load(path, weights_only=True)
    except (OSError, EOFError, RuntimeError, pickle.UnpicklingError) as error:
        raise DataFileError(f"{path}: not a readable checkpoint ({str(error).splitlines()[0]})") from None
    if not isinstance(payload, dict) or "population" not in payload:
        raise DataFileError(f"{path}: not a probe-training checkpoint (no 'population' entry)")
    return payload


def load_population_state(population: DQNPopulation, state: dict[str, Any], path: str | Path) -> None:
    """Load a checkpoint's `population` entry into a freshly built population.

    A full-state checkpoint (`all`) restores networks, target networks and the optimizer; a probe-state one
    the online networks (the target networks start as copies of them, the optimizer fresh)."""
    try:
        if "optimizer" in state:
            population.load_state_dict(state)
            return
        for index, agent in enumerate(state["agents"]):
            population.network.load_member_state_dict(index, agent["network"])
            population.target_network.load_member_state_dict(index, agent["network"])
    except (RuntimeError, KeyError, ValueError) as error:  # another network shape than the config describes
        raise DataFileError(
            f"{path}: does not match the given TrainConfig ({str(error).splitlines()[0]})"
        ) from None
    population.transitions_seen, population.updates_done = (
        int(state["turns_seen"]),
        int(state["updates_done"]),
    )
