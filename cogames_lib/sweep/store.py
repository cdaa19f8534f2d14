"""Durable sweep results on disk: parquet parts written atomically, read back for resume.

Layout of `out_dir`:
    manifest.json              parameters of the last sweep run into this directory (`outdir.prepare_out_dir`)
    episodes/part-<key>.parquet  one part per finished chunk of episodes (plain columns, no categories)
    traces/part-<key>.parquet    the same chunk's traces (only with record_traces=True)
    episodes.parquet           the whole table of the last sweep (categorical columns), written at its end

A part is written atomically (`cogames_lib.io`: a temporary file in the same directory, then renamed), so a
part is either complete or absent: a sweep killed at any instant leaves no half-written part. The trace
part of a chunk is renamed into place before its episode part, so a chunk whose episodes are on disk
always has its traces too; a trace part without its episode part (a kill in between) is an orphan and is
removed on resume, before its episodes run again.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib import io
from cogames_lib.errors import DataFileError
from cogames_lib.sweep.seeds import stable_hash
from cogames_lib.tables import EPISODES

# The episodes table's contract lives in `cogames_lib.tables`; these names are kept for the sweep's users.
EPISODE_COLUMNS: tuple[str, ...] = EPISODES.columns
EPISODE_KEY: tuple[str, ...] = EPISODES.key
# The tier of a diagnostic: the shipped map, a map generated per seed (`<name>_hard`), or a user's variant
# (`<name>@<map>`, see diagnostics/variants.py).
EPISODE_TIERS: tuple[str, ...] = ("normal", "hard", "custom")
_PART_GLOB = "part-*.parquet"
TABLE = "episodes.parquet"


def episodes_dir(out_dir: Path) -> Path:
    return Path(out_dir) / "episodes"


def traces_dir(out_dir: Path) -> Path:
    return Path(out_dir) / "traces"


def part_name(keys: Iterable[tuple]) -> str:
    """A part's file name from the keys of its episodes: the same chunk always gets the same name."""
    return f"part-{stable_hash(*sorted(map(repr, keys)), bits=64):016x}.parquet"


def episode_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows (dicts) -> the plain-typed episode columns in their fixed order."""
    return EPISODES.frame(rows)


def read_parts(directory: Path, columns: Iterable[str] | None = None) -> pd.DataFrame:
    """All finished parts of a directory as one frame (empty frame with the episode columns if none)."""
    paths = sorted(Path(directory).glob(_PART_GLOB))
    frames = []
    for path in paths:
        try:
            frames.append(pd.read_parquet(path, columns=list(columns) if columns else None))
        except Exception as error:  # a part damaged outside the sweep: name it, do not guess
            raise DataFileError(
                f"{path}: unreadable parquet part ({error}); delete it to re-run its episodes"
            ) from None
    if not frames:
        return episode_frame([]) if columns is None else pd.DataFrame(columns=list(columns))
    return pd.concat(frames, ignore_index=True)


def prepare(out_dir: Path, record_traces: bool = False) -> None:
    """Make the part directories of a folder `outdir.prepare_out_dir` accepted; drop what a killed run left.

    Temporary files and orphan trace parts go. With `record_traces`, episode parts that were run without
    traces are dropped too, so their episodes run again and get the traces the caller asked for (resuming
    them would silently give none).
    """
    for directory in (episodes_dir(out_dir), traces_dir(out_dir)):
        directory.mkdir(parents=True, exist_ok=True)
        io.remove_temporary_files(directory)
    finished = {path.name for path in episodes_dir(out_dir).glob(_PART_GLOB)}
    traced = set()
    for trace_part in traces_dir(out_dir).glob(_PART_GLOB):
        if trace_part.name in finished:
            traced.add(trace_part.name)
        else:
            trace_part.unlink()  # an orphan
    if record_traces:
        for name in finished - traced:
            (episodes_dir(out_dir) / name).unlink()


def done_keys(out_dir: Path) -> set[tuple]:
    """Keys (see EPISODE_KEY) of every episode already on disk."""
    frame = read_parts(episodes_dir(out_dir), columns=EPISODE_KEY)
    return set(frame.itertuples(index=False, name=None)) if len(frame) else set()


def write_chunk(out_dir: Path, name: str, episodes: pd.DataFrame, traces: pd.DataFrame | None) -> None:
    """Traces first, episodes last: the episode part's rename is the commit point of the chunk."""
    if traces is not None:
        io.write_parquet(traces_dir(out_dir) / name, traces)
    io.write_parquet(episodes_dir(out_dir) / name, episodes)
