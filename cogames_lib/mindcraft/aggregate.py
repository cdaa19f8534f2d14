"""Many tasks -> the `mindcraft_runs`, `mindcraft_agents` and `mindcraft_skipped` tables.

`aggregate_results` returns one row per task (columns `RUN_COLUMNS`, in this order; the
contract is `tables.MINDCRAFT_RUNS`), then the nested `agent_outcomes`. Every text is
valid UTF-8, so the frame as returned writes with plain `to_parquet`, `to_csv`, `to_html` or a print:

| column | meaning |
|---|---|
| `experiment` | name of the experiment folder (a task folder's parent; the folder holding flat / per-run logs) |
| `model_name` | the `model_name` argument, else `model` of the experiment's `results.txt`, else NA |
| `task_id`, `task_type` | folder name (layout-aware); definition's `type` (else guessed from the id; NA if unknown) |
| `layout` | where the logs were found: `current`, `s3_download`, `per_run`, `flat` (`discovery.py`) |
| `agent_count` | distinct agents with logs (the expected count for an empty folder) |
| `expected_agent_count`, `expected_agent_count_mismatch` | from the definition / id; NA when unknown |
| `total_agent_logs_found`, `repetition_count`, `successful_repetitions` | counts over the task's logs |
| `overall_completion_status` | categorical in `STATUS_ORDER` |
| `overall_is_successful`, `overall_raw_score` | best repetition: success flag, score in 0..1 |
| `success_for_rate` | what rates count: `overall_is_successful`, or NA when `no_score_policy="exclude"` drops the run |
| `end_reason` | how the run ended as far as the logs tell (`rows.END_REASONS`; timeouts, missing agents) |
| `stale_log_count` | logs judged stale (`stale.py`); a repetition holding one is LOG_FILE_ERROR |
| `has_task_definition`, `score_scale` | definition found; 100 (construction) or 1 |
| task metrics | `timeout_s, depth, max_depth, missing_item_count, plan_availability, requires_crafting_table, blocked_agent_count, total_recipe_steps, max_steps_per_recipe, unique_target_items, overall_difficulty_score, difficulty_category, material_count, level_count, block_count` (see `tasks.py`) |
| `ignored_files` | non-log files beside the logs (`;`-joined) |
| `folder_display`, `folder_path` | the folder holding the logs, printable (undecodable bytes as `\\xNN`, control characters escaped; the same text in both) |
| `folder_path_bytes` | the folder's exact path, as bytes (`os.fsencode`; `os.fsdecode` gives the str `os` functions take): binary in parquet, a `b'...'` literal in CSV |
| `agent_outcomes` | the outcome dict of each log (`logs.py`; dropped by `runs_table`, one row each in `agents_table`) |

`frame.attrs` carries `no_score_policy` and `skipped_folders` (list of {kind, path, reason, path_hex}: the
printable path and reason, and the exact path's bytes as hex, so the attributes stay JSON as parquet
stores them); `skipped_table` makes the `mindcraft_skipped` table of them.

The denominator policy (`no_score_policy`): "failure" (default) keeps runs without a verdict
(NO_SCORE_LOGGED, LOG_FILE_ERROR, empty folders) in every rate as failures; "exclude" drops them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft.collect import collect_columns
from cogames_lib.mindcraft.discovery import as_path_list, validate_analysis_parameters
from cogames_lib.mindcraft.files import DEFAULT_MAX_LOG_BYTES, display_text
from cogames_lib.mindcraft.tasks import load_task_definitions, task_file_paths
from cogames_lib.outcomes import status_categorical
from cogames_lib.tables import MINDCRAFT_AGENTS, MINDCRAFT_RUNS, MINDCRAFT_SKIPPED, TableSchema

# The tables' contracts live in `cogames_lib.tables`; the runs frame carries the nested per-run values
# after its columns.
RUN_COLUMNS: tuple[str, ...] = MINDCRAFT_RUNS.columns
NESTED_COLUMNS: tuple[str, ...] = ("agent_outcomes",)
AGENT_COLUMNS: tuple[str, ...] = MINDCRAFT_AGENTS.columns
SKIPPED_COLUMNS: tuple[str, ...] = MINDCRAFT_SKIPPED.columns


def _typed(values: list[Any], dtype: str) -> Any:
    """A list as pandas values of `dtype` (a logged NaN stays NaN in a plain float column, distinct from NA)."""
    if dtype == "category":
        return status_categorical(pd.Series(values, dtype=object))
    return pd.Series(values, dtype=object) if dtype == "object" else pd.array(values, dtype=dtype)


def _typed_frame(columns: Mapping[str, Any], schema: TableSchema, order: Iterable[str] = ()) -> pd.DataFrame:
    """Columns (lists, typed as `schema` says, objects where it lacks one; or typed arrays) -> a frame, its
    columns in `order` (else as given)."""
    typed = {
        c: _typed(v, schema.dtypes.get(c, "object")) if isinstance(v, list) else v for c, v in columns.items()
    }
    return pd.DataFrame({column: typed[column] for column in order or typed})


def aggregate_results(
    folders_or_experiment_roots: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    task_definitions: Mapping[str, Any] | str | os.PathLike[str] | Iterable[Any] | None = None,
    model_name: str | None = None,
    no_score_policy: str = "failure",
    *,
    workers: int | None = 1,
    progress: bool = False,
    max_log_bytes: int = DEFAULT_MAX_LOG_BYTES,
) -> pd.DataFrame:
    """The `mindcraft_runs` frame (columns in the module docstring) for experiment roots or task folders.

    `task_definitions`: task-file paths or folders of them (every `*.json`), or a loaded {task_id:
    definition} mapping. `workers`: processes; None chooses (every core above 64 MB of logs). Logs larger
    than `max_log_bytes` are not read (LOG_FILE_ERROR). Raises `ParameterError` for a missing root or
    an unknown policy; never raises on log content.
    """
    roots = as_path_list(folders_or_experiment_roots)
    validate_analysis_parameters(roots, None, no_score_policy)
    if workers is not None and workers < 1:
        raise ParameterError(f"workers: must be >= 1, got {workers}")
    definitions = task_definitions  # task files or folders of them are read here
    if not isinstance(definitions, Mapping):
        definitions = load_task_definitions(task_file_paths(as_path_list(definitions or [])))
    columns, skipped = collect_columns(
        roots,
        definitions,
        model_name=model_name,
        no_score_policy=no_score_policy,
        workers=workers,
        progress=progress,
        max_bytes=max_log_bytes,
    )
    index = np.asarray(columns.task_index, dtype=np.intp)  # task-id columns: typed once per id, taken per row
    typed = {c: _typed(v, MINDCRAFT_RUNS.dtypes[c]).take(index) for c, v in columns.per_task_id.items()}
    frame = _typed_frame({**columns.per_run, **typed}, MINDCRAFT_RUNS, (*RUN_COLUMNS, *NESTED_COLUMNS))
    frame.attrs["no_score_policy"] = no_score_policy
    frame.attrs["skipped_folders"] = [
        {
            "kind": item.kind,
            "path": display_text(item.path),
            "reason": display_text(item.reason),
            "path_hex": os.fsencode(item.path).hex(),
        }
        for item in skipped
    ]
    return frame


def runs_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The `mindcraft_runs` table: the runs frame without its nested columns."""
    return runs.drop(columns=[column for column in NESTED_COLUMNS if column in runs.columns])


def agents_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The `mindcraft_agents` table: one row per agent log of the runs frame (columns AGENT_COLUMNS).

    `parsing_errors` is joined with " | "; `completion_status` is categorical in STATUS_ORDER.
    """
    keys = ("experiment", "model_name", "task_id", "task_type", "layout", "folder_display")
    rows = []
    for run in runs[[*keys, "agent_outcomes"]].itertuples(index=False):
        context = dict(zip(keys, run[: len(keys)], strict=True))
        for outcome in run.agent_outcomes:
            rows.append({**outcome, **context, "parsing_errors": " | ".join(outcome["parsing_errors"])})
    return _typed_frame({column: [row[column] for row in rows] for column in AGENT_COLUMNS}, MINDCRAFT_AGENTS)


def skipped_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The `mindcraft_skipped` table: every folder or file under the roots that was not analysed, and why."""
    items = runs.attrs.get("skipped_folders", [])
    columns = {
        "kind": [item["kind"] for item in items],
        "path_display": [item["path"] for item in items],
        "reason": [item["reason"] for item in items],
        "path": [item["path"] for item in items],
        "path_bytes": [bytes.fromhex(item["path_hex"]) for item in items],
    }
    return _typed_frame(columns, MINDCRAFT_SKIPPED)
