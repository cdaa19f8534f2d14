"""The files a notebook leaves in its `out_dir`: tables (parquet and CSV) and the headline `summary.json`.

Notebooks are views of the files they write: every table goes to `out_dir` as parquet and CSV, every
figure as PNG (`display.show`), and the headline numbers as `summary.json`; the report's index reads only
those files. Every write goes through `cogames_lib.io` (atomic).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib import io

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


def write_summary(out_dir: str | os.PathLike[str], headline: Mapping[str, Any]) -> Path:
    """Write the headline numbers as `summary.json` (flat name -> number or short text)."""
    text = json.dumps(plain_value(dict(headline)), indent=2, sort_keys=False)
    return io.write_text(Path(out_dir) / SUMMARY_FILE, text + "\n")


def read_summary(out_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    return io.read_json_object(Path(out_dir) / SUMMARY_FILE)
