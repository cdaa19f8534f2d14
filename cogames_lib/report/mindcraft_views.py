"""The Mindcraft page's derived tables: its task-file parameter and the folders with errors (the numbers are
`mindcraft.mindcraft_findings`).

Pure functions (tidy in, tidy out), so the notebook stays one call per cell and the selection rules are
tested here rather than buried in a notebook.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib.tables import MINDCRAFT_AGENTS

ERROR_COLUMNS = MINDCRAFT_AGENTS.pick(
    "experiment", "task_id", "file_name", "completion_status", "parsing_errors"
)


def json_files(paths: Iterable[str | Path]) -> list[str]:
    """Task-file parameters: files as given, folders expanded to their `*.json` (sorted, for a fixed order).

    A path that does not exist is passed through unchanged so validation can name it.
    """
    files: list[str] = []
    for path in [paths] if isinstance(paths, (str, Path)) else paths:
        folder = Path(path)
        files.extend(sorted(str(p) for p in folder.glob("*.json")) if folder.is_dir() else [str(path)])
    return files


def error_folders(agents: pd.DataFrame, skipped: Iterable[Mapping[str, Any]] = ()) -> pd.DataFrame:
    """Agent logs that could not be read or parsed cleanly, plus skipped non-task folders.

    One row per problem: experiment, task_id, file_name, completion_status, parsing_errors (text from the
    logs; the HTML export escapes it).
    """
    errors = agents["parsing_errors"].fillna("").astype(str)
    broken = agents[(errors != "") | (agents["completion_status"].astype(str) == "LOG_FILE_ERROR")]
    table = broken[list(ERROR_COLUMNS)].astype({"completion_status": str}).reset_index(drop=True)
    extra = pd.DataFrame(
        [
            {
                "experiment": Path(item["path"]).parent.name,
                "task_id": Path(item["path"]).name,
                "file_name": "",
                "completion_status": "SKIPPED",
                "parsing_errors": str(item["reason"]),
            }
            for item in skipped
        ],
        columns=list(ERROR_COLUMNS),
    )
    return pd.concat([table, extra], ignore_index=True) if len(extra) else table
