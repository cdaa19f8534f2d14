"""Which checkpoints a training run writes, and what is in them.

Modes (`TrainConfig.checkpoints`, `--checkpoints`):
- `none`: no checkpoint files;
- `last` (the default): one checkpoint at the end of training;
- `probes`: one at every probe epoch (0, `probe_every`, ...) and at the end;
- `all`: like `probes`, but each holds the full training state (target networks, Adam moments, counters).

`last` and `probes` hold the *probe state*: each agent's online network, all a probe (or a user's analysis)
reads. Files are `checkpoints/epoch_<E>.pt.gz`: `torch.save` bytes, gzip-compressed. Both steps are lossless,
so probes of a reloaded checkpoint equal probes of the live network exactly (tested). float16 was measured
and not used: it halves the float32 size but moved intention weights by up to 4e-5 (a 300-epoch run), so
probe results would no longer be identical. Measured sizes (3 agents, default 64x64 network): full state
3.7 MB as plain `torch.save`; probe state 0.94 MB, 0.55 MB compressed.

Read with `staghunt.load_checkpoint(path, config)` or `torch.load(gzip.open(path), weights_only=True)` (the safe loader).
"""

from __future__ import annotations

import gzip
import io as bytes_io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cogames_lib import io
from cogames_lib.errors import DataFileError, ParameterError

if TYPE_CHECKING:
    from cogames_lib.staghunt.learner import DQNPopulation

CHECKPOINT_MODES: tuple[str, ...] = ("none", "last", "probes", "all")
DEFAULT_CHECKPOINTS = "last"
CHECKPOINT_SUFFIX = ".pt.gz"
_GZIP_MAGIC = b"\x1f\x8b"


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
    """Write `population`'s state for `mode` (atomically, gzip-compressed) with `metadata` beside it."""
    import torch

    buffer = bytes_io.BytesIO()
    payload = {
        **metadata,
        "checkpoint_mode": mode,
        "population": checkpoint_state(population.state_dict(), mode),
    }
    torch.save(payload, buffer)
    # mtime=0: the same state gives the same bytes (runs can be compared file by file)
    return io.write_bytes(path, gzip.compress(buffer.getvalue(), compresslevel=6, mtime=0))


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """The checkpoint's payload (safe loader: `weights_only=True`); plain `.pt` files of earlier versions too."""
    import torch

    path = Path(path)
    try:
        data = path.read_bytes()
        raw = gzip.decompress(data) if data[:2] == _GZIP_MAGIC else data
        payload = torch.load(bytes_io.BytesIO(raw), weights_only=True)
    except (OSError, EOFError, RuntimeError, gzip.BadGzipFile) as error:
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
    population.turns_seen, population.updates_done = int(state["turns_seen"]), int(state["updates_done"])
