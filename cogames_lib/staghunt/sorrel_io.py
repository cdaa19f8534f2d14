"""Read probe results from disk: sorrel's one-row-per-file CSVs, or our run folders.

sorrel writes one small CSV per probe case, named
`test_intention_epoch_{E}_agent_{i}_map_{map}_partner_{kind}_{ver1|ver2}.csv` and
`multi_step_probe_test_epoch_{E}_agent_{i}_map_test_multi_step_partner_{kind}.csv`.
Fields missing from a file's body are filled from its name; the result has our table columns.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from cogames_lib.errors import DataFileError, ParameterError
from cogames_lib.staghunt.probes import INTENTION_COLUMNS, MULTISTEP_COLUMNS
from cogames_lib.staghunt.rules import PARTNER_KINDS

INTENTION_NAME = re.compile(
    r"^test_intention_epoch_(?P<epoch>\d+)_agent_(?P<agent_id>\d+)_map_(?P<map_name>.+?)"
    r"_partner_(?P<partner_kind>.+)_(?P<version>ver[12])\.csv$"
)
MULTISTEP_NAME = re.compile(
    r"^multi_step_probe_test_epoch_(?P<epoch>\d+)_agent_(?P<agent_id>\d+)_map_(?P<map_name>.+?)"
    r"_partner_(?P<partner_kind>.+)\.csv$"
)
_FROM_NAME = {"epoch": int, "agent_id": int, "map_name": str, "partner_kind": str, "version": str}
# Columns the summaries average or sort by: checked on reading, so a bad cell is named with its file and row.
NUMERIC_COLUMNS: frozenset[str] = frozenset(
    {"epoch", "agent_id", "result", "turn_of_first_attack"}
    | {c for c in INTENTION_COLUMNS if c.startswith(("q_val_", "weight_facing_"))}
)


class ProbeTables(NamedTuple):
    """The two probe tables (our column order first; extras after)."""

    intention: pd.DataFrame
    multistep: pd.DataFrame


def _read_one(path: Path, fields: dict[str, str], columns: tuple[str, ...]) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise DataFileError(f"{path}: cannot read probe CSV ({str(error).splitlines()[0]})") from None
    for key, value in fields.items():
        if key in columns and key not in frame.columns:
            frame[key] = _FROM_NAME[key](value)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataFileError(f"{path}: missing columns {missing}")
    _check_numbers(frame, path, columns)
    # The summaries order partner kinds as a fixed category: an unknown kind would silently vanish there.
    unknown = ~frame["partner_kind"].isin(PARTNER_KINDS)
    if unknown.any():
        index = int(unknown.to_numpy().nonzero()[0][0])
        raise DataFileError(
            f"{path}: row {index + 2} column 'partner_kind': unknown {frame['partner_kind'].iloc[index]!r};"
            f" known: {list(PARTNER_KINDS)}"
        )
    frame["source_file"] = path.name
    return frame


def _check_numbers(frame: pd.DataFrame, path: Path, columns: tuple[str, ...]) -> None:
    for column in (c for c in columns if c in NUMERIC_COLUMNS):
        numbers = pd.to_numeric(frame[column], errors="coerce")
        bad = frame[column].notna() & numbers.isna()
        if bad.any():
            index = int(bad.to_numpy().nonzero()[0][0])
            raise DataFileError(
                f"{path}: row {index + 2} column {column!r}: {frame[column].iloc[index]!r} is not a number"
            )
        frame[column] = numbers


def _ordered(frames: list[pd.DataFrame], columns: tuple[str, ...]) -> pd.DataFrame:
    if not frames:
        return pd.DataFrame(columns=list(columns))
    frame = pd.concat(frames, ignore_index=True)
    return frame[list(columns) + [c for c in frame.columns if c not in columns]]


def require_folder(folder: str | Path) -> Path:
    """`folder` as a Path; a one-line `ParameterError` if it is missing or is a file."""
    folder = Path(folder)
    if not folder.is_dir():
        problem = "is a file, not a folder" if folder.exists() else "does not exist"
        raise ParameterError(f"folder {str(folder)!r} {problem}")
    return folder


def load_sorrel_probe_csvs(folder: str | Path) -> ProbeTables:
    """All sorrel probe CSVs under `folder` (searched recursively) as our two tables, sorted by epoch."""
    folder = require_folder(folder)
    intention, multistep = [], []
    for path in sorted(folder.rglob("*.csv")):
        if match := INTENTION_NAME.match(path.name):
            intention.append(_read_one(path, match.groupdict(), INTENTION_COLUMNS))
        elif match := MULTISTEP_NAME.match(path.name):
            multistep.append(_read_one(path, match.groupdict(), MULTISTEP_COLUMNS))
    tables = ProbeTables(_ordered(intention, INTENTION_COLUMNS), _ordered(multistep, MULTISTEP_COLUMNS))
    return ProbeTables(
        *(t.sort_values(["epoch", "agent_id"], kind="stable", ignore_index=True) for t in tables)
    )


def load_probe_tables(folder: str | Path) -> ProbeTables:
    """Probe tables of a folder: our runs (`**/probe_intention.csv`, `**/probe_multistep.csv`) if there
    are any, else sorrel's per-file CSVs. Raises if the folder holds neither."""
    folder = require_folder(folder)
    ours = sorted(folder.rglob("probe_intention.csv"))
    if ours:
        intention = [_read_one(p, {}, INTENTION_COLUMNS).drop(columns="source_file") for p in ours]
        multistep = [
            _read_one(p, {}, MULTISTEP_COLUMNS).drop(columns="source_file")
            for p in sorted(folder.rglob("probe_multistep.csv"))
        ]
        return ProbeTables(_ordered(intention, INTENTION_COLUMNS), _ordered(multistep, MULTISTEP_COLUMNS))
    tables = load_sorrel_probe_csvs(folder)
    if tables.intention.empty and tables.multistep.empty:
        raise DataFileError(
            f"{folder}: no probe CSVs found (neither probe_intention.csv nor sorrel's per-file CSVs)"
        )
    return tables
