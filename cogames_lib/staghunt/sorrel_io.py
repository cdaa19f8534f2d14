"""Read probe results from disk: sorrel's one-row-per-file CSVs, or our run folders.

sorrel writes one small CSV per probe case. Its file names come in three variants, all read here:
- by partner kind: `test_intention_epoch_{E}_agent_{i}_map_{map}_partner_{kind}_{ver1|ver2}.csv`,
  `multi_step_probe_test_epoch_{E}_agent_{i}_map_test_multi_step_partner_{kind}.csv`;
- identity-aware, kind and id: `..._partner_{kind}_id_{pid}_{ver}.csv` / `..._partner_{kind}_id_{pid}.csv`;
- identity-aware, id only (its newest code): `..._map_{map}_id_{pid}_{ver}.csv` / `..._map_{map}_id_{pid}.csv`.
Identity-aware bodies add `partner_agent_id, partner_agent_kind` (empty for `no_partner`); they are kept
as extra columns. Fields missing from a file's body are filled from its name. What we change on reading:
- `map_name` loses a `.txt` suffix (some sorrel versions keep it), so maps match our tables;
- `version` `upper`/`lower` (an older spelling) becomes `ver1`/`ver2`;
- sorrel's step actions are mirror-labelled (its STEP_LEFT from North moves East, our STEP_RIGHT), so its
  `q_val_step_left` is our `q_val_step_right` and vice versa: the two columns are swapped
  (`mirrored_steps=False` reads files already in our labels). The stag/hare weights are by geometry in
  both codes and need no change.
The result has our table columns first.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from cogames_lib.errors import DataFileError, ParameterError
from cogames_lib.staghunt.probes import INTENTION_COLUMNS, MULTISTEP_COLUMNS
from cogames_lib.staghunt.rules import PARTNER_KINDS

# Optional `_partner_{kind}` and `_id_{pid}` parts cover the three naming variants (module docstring).
INTENTION_NAME = re.compile(
    r"^test_intention_epoch_(?P<epoch>\d+)_agent_(?P<agent_id>\d+)_map_(?P<map_name>.+?)"
    r"(?:_partner_(?P<partner_kind>.+?))?(?:_id_(?P<partner_agent_id>\d+))?"
    r"_(?P<version>ver[12]|upper|lower)\.csv$"
)
MULTISTEP_NAME = re.compile(
    r"^multi_step_probe_test_epoch_(?P<epoch>\d+)_agent_(?P<agent_id>\d+)_map_(?P<map_name>.+?)"
    r"(?:_partner_(?P<partner_kind>.+?))?(?:_id_(?P<partner_agent_id>\d+))?\.csv$"
)
IDENTITY_COLUMNS: tuple[str, ...] = ("partner_agent_id", "partner_agent_kind")
_FROM_NAME = {"epoch": int, "agent_id": int, "map_name": str, "partner_kind": str, "version": str,
              "partner_agent_id": int}  # fmt: skip
VERSION_SPELLINGS: dict[str, str] = {"upper": "ver1", "lower": "ver2"}
MIRRORED_STEP_COLUMNS: tuple[str, str] = ("q_val_step_left", "q_val_step_right")
# Columns the summaries average or sort by: checked on reading, so a bad cell is named with its file and row.
NUMERIC_COLUMNS: frozenset[str] = frozenset(
    {"epoch", "agent_id", "result", "turn_of_first_attack", "partner_agent_id"}
    | {c for c in INTENTION_COLUMNS if c.startswith(("q_val_", "weight_facing_"))}
)


class ProbeTables(NamedTuple):
    """The two probe tables (our column order first; extras after)."""

    intention: pd.DataFrame
    multistep: pd.DataFrame


def _read_one(path: Path, fields: dict[str, str | None], columns: tuple[str, ...]) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise DataFileError(f"{path}: cannot read probe CSV ({str(error).splitlines()[0]})") from None
    for key, value in fields.items():
        if value is not None and (key in columns or key in IDENTITY_COLUMNS) and key not in frame.columns:
            frame[key] = _FROM_NAME[key](value)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataFileError(f"{path}: missing columns {missing}")
    _check_numbers(frame, path, (*columns, *IDENTITY_COLUMNS))
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
    for column in (c for c in columns if c in NUMERIC_COLUMNS and c in frame.columns):
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


def _in_our_labels(frame: pd.DataFrame, mirrored_steps: bool) -> pd.DataFrame:
    """sorrel's spellings and step labels turned into ours (module docstring)."""
    if "map_name" in frame.columns:
        frame["map_name"] = frame["map_name"].astype(str).str.removesuffix(".txt")
    if "version" in frame.columns:
        frame["version"] = frame["version"].astype(str).replace(VERSION_SPELLINGS)
    left, right = MIRRORED_STEP_COLUMNS
    if mirrored_steps and left in frame.columns and right in frame.columns:
        frame[[left, right]] = frame[[right, left]].to_numpy()
    if "partner_agent_id" in frame.columns:  # empty for no_partner: a nullable integer, not a float
        frame["partner_agent_id"] = frame["partner_agent_id"].astype("Int64")
    return frame


def load_sorrel_probe_csvs(folder: str | Path, mirrored_steps: bool = True) -> ProbeTables:
    """All sorrel probe CSVs under `folder` (searched recursively, every naming variant) as our two
    tables in our labels, sorted by epoch. `mirrored_steps`: swap sorrel's mirror-labelled step columns
    (True for files sorrel wrote)."""
    folder = require_folder(folder)
    intention, multistep = [], []
    for path in sorted(folder.rglob("*.csv")):
        if match := INTENTION_NAME.match(path.name):
            intention.append(_read_one(path, match.groupdict(), INTENTION_COLUMNS))
        elif match := MULTISTEP_NAME.match(path.name):
            multistep.append(_read_one(path, match.groupdict(), MULTISTEP_COLUMNS))
    tables = [
        _in_our_labels(_ordered(intention, INTENTION_COLUMNS), mirrored_steps),
        _in_our_labels(_ordered(multistep, MULTISTEP_COLUMNS), mirrored_steps),
    ]
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
