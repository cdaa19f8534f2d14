"""A probe study on disk: training curves and probe tables of several (condition, seed) runs plus `study.json`.

Layout read by `load_probe_study(path)` (what `cogames-lib probe study` writes, and what `train_many` writes
plus a `study.json`): for each table (`training`, `probe_intention`, `probe_multistep`) either one combined
file at the top (`<table>_all.csv` or `<table>.csv`, `.csv.gz` and `.parquet` too) or one file per run under
`<condition>/seed_<s>/<table>.csv`; `condition` and `seed` columns are taken from the run folder names when a
per-run file lacks them. `study.json` holds `STUDY_KEYS` (an optional `date`, else the file's time, dates it).
`random_policy_stag_rate` is one number or one per condition (`probe study` writes one per condition: in
`not_all_can_hunt` random play kills fewer stags); `random_policy` (optional, condition -> a
`RandomPolicyScore` as a dict) adds random play's mean return.

Columns checked (one line naming the file and what is missing or wrong): training `TRAINING_REQUIRED`
(numbers), probes their `cogames_lib.tables` schema plus `condition` and `seed`. The study's own `conditions` must all have training rows.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib import tables
from cogames_lib.errors import DataFileError
from cogames_lib.staghunt.social import baseline_by_condition
from cogames_lib.staghunt.sorrel_io import require_folder

STUDY_FILE = "study.json"
STUDY_KEYS: tuple[str, ...] = (
    "command", "epochs", "seeds", "conditions", "world", "code_version", "wall_seconds",
    "random_policy_stag_rate",
)  # fmt: skip
RUN_KEY: tuple[str, ...] = ("condition", "seed")
# What the study analysis reads from a training table (today's training.csv has these and more). A
# downsampled table holds block means, so its kill counts are numbers, not the schema's integers.
TRAINING_REQUIRED: tuple[str, ...] = tables.TRAINING.pick(
    "epoch", "epsilon", "mean_return", "stags_killed", "hares_killed"
)
SCHEMAS: dict[str, tables.TableSchema] = {
    "training": tables.TRAINING,
    "probe_intention": tables.PROBE_INTENTION,
    "probe_multistep": tables.PROBE_MULTISTEP,
    "acting_partners": tables.ACTING_PARTNERS,
    "random_policy": tables.RANDOM_POLICY,
}
# Tables a study from before the counterbalanced suite does not have (read when present).
OPTIONAL_TABLES: tuple[str, ...] = ("acting_partners", "random_policy")
_RUN_FOLDER = re.compile(r"^seed_(\d+)$")


@dataclass(frozen=True)
class ProbeStudy:
    """A loaded study: `metadata` (study.json) and three tidy tables keyed by (condition, seed)."""

    path: Path
    metadata: dict[str, Any]
    training: pd.DataFrame
    intention: pd.DataFrame
    multistep: pd.DataFrame
    date: str = field(default="")
    acting_partners: pd.DataFrame | None = None

    @property
    def random_policy(self) -> pd.DataFrame:
        """Random play per condition (`tables.RANDOM_POLICY`), from `random_policy.csv` or, for an older
        study, from study.json (standard errors NaN where it did not record them)."""
        path = self.path / "random_policy.csv"
        if path.is_file():
            return read_study_table(self.path, "random_policy")
        scores = self.metadata.get("random_policy") or {}
        rows = []
        for condition, rate in self.random_stag_rates.items():
            score = scores.get(condition, {})
            rows.append({"condition": condition, "episodes": score.get("episodes", self.metadata.get("random_policy_episodes", 0)),
                         "stags_per_episode": rate, "stags_standard_error": score.get("stags_standard_error", float("nan")),
                         "hares_per_episode": score.get("hares_per_episode", float("nan")),
                         "mean_return": score.get("mean_return", float("nan")),
                         "return_standard_error": score.get("return_standard_error", float("nan")),
                         "seed": score.get("seed", 0), "worlds": score.get("worlds", 0)})  # fmt: skip
        return tables.RANDOM_POLICY.frame(rows)

    @property
    def preregistration(self) -> pd.DataFrame:
        """The pre-registered expectation per condition (condition, expected_effect); empty if none."""
        plan = self.metadata.get("preregistration") or {}
        expected = plan.get("expected_effect") or {}
        return pd.DataFrame({"condition": list(expected), "expected_effect": list(expected.values())})

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """The study's tables keyed by name: what `study_findings.staghunt_findings` takes."""
        out = {"training": self.training, "probe_intention": self.intention, "probe_multistep": self.multistep,
               "random_policy": self.random_policy, "preregistration": self.preregistration}  # fmt: skip
        if self.acting_partners is not None:
            out["acting_partners"] = self.acting_partners
        return out

    @property
    def seed_count(self) -> int:
        seeds = self.metadata["seeds"]
        return seeds if isinstance(seeds, int) else len(seeds)

    @property
    def random_stag_rates(self) -> dict[str, float]:
        """Stag kills per episode of random play, per condition."""
        return baseline_by_condition(self.metadata["random_policy_stag_rate"], self.metadata["conditions"])

    @property
    def random_returns(self) -> dict[str, float]:
        """Mean return per episode of random play, per condition (empty if study.json does not say)."""
        scores = self.metadata.get("random_policy") or {}
        return {str(c): float(score["mean_return"]) for c, score in scores.items() if "mean_return" in score}

    @property
    def label(self) -> str:
        """'reference study (world, epochs, seeds, date)' in words, short enough for a figure title (the
        command, which can be long, is `command_line`)."""
        return (
            f"reference study: {self.metadata['epochs']:,} epochs, {self.seed_count} seeds per condition, "
            f"{self.metadata['world']} world, {self.date}"
        )

    @property
    def command_line(self) -> str:
        """The command that wrote the study, as `study.json` records it."""
        return str(self.metadata["command"])


def _is_rate(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def _read_metadata(folder: Path) -> tuple[dict[str, Any], str]:
    path = folder / STUDY_FILE
    if not path.is_file():
        raise DataFileError(f"{folder}: no {STUDY_FILE} (not a probe study folder)")
    try:
        metadata = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise DataFileError(f"{path}: not readable JSON ({str(error).splitlines()[0]})") from None
    if not isinstance(metadata, dict):
        raise DataFileError(f"{path}: must hold a JSON object, got {type(metadata).__name__}")
    missing = [key for key in STUDY_KEYS if key not in metadata]
    if missing:
        raise DataFileError(f"{path}: missing keys {missing}")
    checks = {
        "epochs": isinstance(metadata["epochs"], int) and metadata["epochs"] >= 1,
        "seeds": isinstance(metadata["seeds"], (int, list)),
        "conditions": isinstance(metadata["conditions"], list) and all(isinstance(c, str) for c in metadata["conditions"]),
        "random_policy_stag_rate": _is_rate(metadata["random_policy_stag_rate"])
        or (isinstance(metadata["random_policy_stag_rate"], dict)
            and all(_is_rate(v) for v in metadata["random_policy_stag_rate"].values())
            and set(metadata["conditions"]) <= set(metadata["random_policy_stag_rate"])),
    }  # fmt: skip
    for key, ok in checks.items():
        if not ok:
            raise DataFileError(f"{path}: key {key!r} has an unusable value {metadata[key]!r}")
    date = metadata.get("date") or datetime.fromtimestamp(path.stat().st_mtime, UTC).strftime("%Y-%m-%d")
    return metadata, str(date)


def _read_csv(path: Path) -> pd.DataFrame:
    """A CSV (gzip by its suffix) or a Parquet file; one line naming the file when it cannot be read."""
    kind = "Parquet" if path.suffix == ".parquet" else "CSV"
    try:
        return pd.read_parquet(path) if kind == "Parquet" else pd.read_csv(path)
    except (
        pd.errors.ParserError,
        pd.errors.EmptyDataError,
        UnicodeDecodeError,
        OSError,
        ValueError,
    ) as error:
        raise DataFileError(f"{path}: cannot read {kind} ({str(error).splitlines()[0]})") from None


def _run_of(path: Path, folder: Path) -> tuple[str, int] | None:
    """(condition, seed) from `<condition>/seed_<s>/<file>` under the study folder, else None."""
    match = _RUN_FOLDER.match(path.parent.name)
    if match and path.parent.parent != folder:
        return path.parent.parent.name, int(match.group(1))
    return None


def read_study_table(folder: Path, table: str) -> pd.DataFrame:
    """One study table: the combined file at the top if there is one, else every per-run file."""
    for name in (
        f"{table}_all.csv",
        f"{table}.csv",
        f"{table}_all.csv.gz",
        f"{table}.csv.gz",
        f"{table}.parquet",
    ):
        if (folder / name).is_file():
            frame, source = _read_csv(folder / name), folder / name
            break
    else:
        frames = []
        for path in sorted([*folder.rglob(f"{table}.csv"), *folder.rglob(f"{table}.csv.gz")]):
            frame = _read_csv(path)
            run = _run_of(path, folder)
            if run is not None:
                for column, value in zip(RUN_KEY, run, strict=True):
                    if column not in frame.columns:
                        frame[column] = value
            frames.append(frame)
        if not frames:
            raise DataFileError(
                f"{folder}: no {table} table ({table}_all.csv, {table}.csv or */seed_*/{table}.csv)"
            )
        frame, source = pd.concat(frames, ignore_index=True), folder / f"*/seed_*/{table}.csv"
    schema = SCHEMAS[table]
    required = TRAINING_REQUIRED if table == "training" else schema.columns
    run_key = () if table == "random_policy" else RUN_KEY
    missing = [c for c in (*required, *run_key) if c not in frame.columns]
    if missing:
        raise DataFileError(f"{source}: {table} table is missing columns {missing}")
    if table == "training":
        for column in TRAINING_REQUIRED:
            if not pd.api.types.is_numeric_dtype(frame[column]):
                raise DataFileError(f"{source}: column {column!r} of the training table holds non-numbers")
    else:
        schema.validate(frame, source)  # the probe tables' kinds of values, condition and seed included
    frame["condition"] = frame["condition"].astype(str)
    return frame


def load_probe_study(path: str | Path) -> ProbeStudy:
    """Read and check a study folder (module docstring); raises a one-line `DataFileError` on any problem."""
    folder = require_folder(path)
    metadata, date = _read_metadata(folder)
    training = read_study_table(folder, "training")
    absent = sorted(set(metadata["conditions"]) - set(training["condition"]))
    if absent:
        raise DataFileError(f"{folder / STUDY_FILE}: conditions {absent} have no training rows")
    acting = (
        read_study_table(folder, "acting_partners") if (folder / "acting_partners.csv").is_file() else None
    )
    return ProbeStudy(
        folder,
        metadata,
        training,
        read_study_table(folder, "probe_intention"),
        read_study_table(folder, "probe_multistep"),
        date,
        acting,
    )
