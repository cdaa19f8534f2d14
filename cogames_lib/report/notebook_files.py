"""The files a notebook leaves in its `out_dir`: tables (parquet and CSV) and its findings in `summary.json`.

Notebooks are views of the files they write: every table goes to `out_dir` as parquet and CSV, every
figure as PNG (`display.show`), and the capability's `Finding` records as `summary.json`; the report's
index reads only those files and renders the records as they are. Every write goes through `cogames_lib.io` (atomic).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib import io
from cogames_lib.errors import DataFileError, ParameterError
from cogames_lib.finding import Finding, findings_from_json, findings_to_json

SUMMARY_FILE = "summary.json"


def save_table(frame: pd.DataFrame, out_dir: str | os.PathLike[str], name: str) -> Path:
    """Write `name.parquet` and `name.csv` into out_dir (atomically); returns the parquet path."""
    folder = Path(out_dir)
    io.write_csv(folder / f"{name}.csv", frame)
    return io.write_parquet(folder / f"{name}.parquet", frame)


def plain_value(value: Any) -> Any:
    """`value` as JSON can hold it: numpy scalars become Python numbers, NaN and infinities null."""
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): plain_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_value(v) for v in value]
    return value


def write_findings(out_dir: str | os.PathLike[str], findings: Iterable[Finding]) -> Path:
    """Write a notebook's findings as `summary.json` (`{"findings": [...]}`, `finding.findings_to_json`):
    the only numbers the report's index shows."""
    records = findings_to_json(findings)
    if not records:
        raise ParameterError("write_findings: no findings to write (every notebook states at least one)")
    text = json.dumps({"findings": plain_value(records)}, indent=2)
    return io.write_text(Path(out_dir) / SUMMARY_FILE, text + "\n")


def read_findings(out_dir: str | os.PathLike[str]) -> list[Finding] | None:
    """The findings a notebook wrote to `summary.json`, or None when it wrote none; a file of another
    shape is a `DataFileError` naming it."""
    path = Path(out_dir) / SUMMARY_FILE
    summary = io.read_json_object(path)
    if summary is None:
        return None
    records = summary.get("findings")
    if not isinstance(records, list):
        raise DataFileError(f"{path}: holds no 'findings' list (written by an older notebook?)")
    return findings_from_json(records, str(path))
