"""Many tasks -> the `mindcraft_runs`, `mindcraft_agents` and `mindcraft_skipped` tables.

`aggregate_results` returns one row per task (columns `RUN_COLUMNS`, in this order; the
contract is `tables.MINDCRAFT_RUNS`):

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
| `folder_display`, `folder_path` | the folder holding the logs: printable; exact (`surrogateescape` text in memory, `folder_path_bytes` when stored) |
| `agent_outcomes`, `repetitions` | the nested per-run values (dropped by `runs_table`, exploded by `agents_table`) |

`frame.attrs` carries `no_score_policy` and `skipped_folders` (list of {path, reason, kind}).

The denominator policy (`no_score_policy`): "failure" (default) keeps runs without a verdict
(NO_SCORE_LOGGED, LOG_FILE_ERROR, empty folders) in every rate as failures; "exclude" drops them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft.collect import collect_runs
from cogames_lib.mindcraft.discovery import NO_SCORE_POLICIES, as_path_list, validate_analysis_parameters
from cogames_lib.mindcraft.files import DEFAULT_MAX_LOG_BYTES, display_text, valid_text
from cogames_lib.mindcraft.rows import flatten_run, storable
from cogames_lib.mindcraft.runs import read_model_name
from cogames_lib.mindcraft.tasks import load_task_definitions, task_file_paths
from cogames_lib.outcomes import status_categorical
from cogames_lib.tables import (
    MINDCRAFT_AGENTS,
    MINDCRAFT_PATH_BYTES_COLUMNS,
    MINDCRAFT_RUNS,
    MINDCRAFT_SKIPPED,
)

# The tables' contracts live in `cogames_lib.tables`. The runs frame holds the exact paths in memory
# and the nested per-run values after its flat columns; the stored tables add the path bytes.
RUN_COLUMNS: tuple[str, ...] = tuple(
    column for column in MINDCRAFT_RUNS.columns if column not in MINDCRAFT_PATH_BYTES_COLUMNS.values()
)
NESTED_COLUMNS: tuple[str, ...] = ("agent_outcomes", "repetitions")
AGENT_COLUMNS: tuple[str, ...] = MINDCRAFT_AGENTS.columns
SKIPPED_COLUMNS: tuple[str, ...] = MINDCRAFT_SKIPPED.columns


def _definitions(
    task_definitions: Mapping[str, Any] | str | os.PathLike[str] | Iterable[Any] | None,
) -> Mapping[str, Any]:
    if task_definitions is None:
        return {}
    if isinstance(task_definitions, Mapping):
        return task_definitions
    return load_task_definitions(task_file_paths(as_path_list(task_definitions)))


def runs_frame(rows: list[dict[str, Any]], no_score_policy: str) -> pd.DataFrame:
    # object first: pandas would infer pyarrow text, which refuses the exact (surrogateescape) paths
    frame = pd.DataFrame(rows, columns=[*RUN_COLUMNS, *NESTED_COLUMNS], dtype=object)
    for column in RUN_COLUMNS:
        dtype = MINDCRAFT_RUNS.dtypes[column]
        if dtype != "category" and column not in MINDCRAFT_PATH_BYTES_COLUMNS:  # paths stay exact (object)
            frame[column] = frame[column].astype(dtype)
    frame["overall_completion_status"] = status_categorical(frame["overall_completion_status"])
    frame.attrs["no_score_policy"] = no_score_policy
    return frame


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
    definition} mapping. `workers`: processes; None chooses (all cores above 2,000 logs). Logs larger
    than `max_log_bytes` are not read (LOG_FILE_ERROR). Raises `ParameterError` for a missing root or
    an unknown policy; never raises on log content.
    """
    roots = as_path_list(folders_or_experiment_roots)
    validate_analysis_parameters(roots, None, no_score_policy)
    if workers is not None and workers < 1:
        raise ParameterError(f"workers: must be >= 1, got {workers}")
    definitions = _definitions(task_definitions)
    runs, skipped = collect_runs(
        roots, definitions, workers=workers, progress=progress, max_bytes=max_log_bytes
    )
    model_by_root: dict[str, str | None] = {}
    for run in runs:  # results.txt is read once per experiment, here rather than per folder
        root = run["experiment_path"]
        if root not in model_by_root:
            model_by_root[root] = model_name if model_name is not None else read_model_name(root)
        run["model_name"] = model_by_root[root]
    frame = runs_frame([flatten_run(run, no_score_policy) for run in runs], no_score_policy)
    frame.attrs["skipped_folders"] = [
        {"path": item.path, "reason": item.reason, "kind": item.kind} for item in skipped
    ]
    return frame


def runs_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The storable `mindcraft_runs` table: without the nested columns, names printable, path bytes kept."""
    return storable(runs.drop(columns=[column for column in NESTED_COLUMNS if column in runs.columns]))


def agents_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The `mindcraft_agents` table: one row per agent log of the runs frame (columns AGENT_COLUMNS),
    storable as it is (names printable).

    `parsing_errors` is joined with " | "; `completion_status` is categorical in STATUS_ORDER.
    """
    rows = []
    keys = ("experiment", "model_name", "task_id", "task_type", "layout", "folder_display")
    for run in runs[[*keys, "agent_outcomes"]].itertuples(index=False):
        context = dict(zip(keys, run[: len(keys)], strict=True))
        for outcome in run.agent_outcomes:
            row = {**context, **{key: outcome[key] for key in AGENT_COLUMNS if key in outcome}}
            row["parsing_errors"] = valid_text(" | ".join(outcome["parsing_errors"]))
            if row["final_system_message"] is not None:
                row["final_system_message"] = valid_text(row["final_system_message"])
            rows.append(row)
    frame = pd.DataFrame(rows, columns=list(AGENT_COLUMNS), dtype=object)
    for column, dtype in MINDCRAFT_AGENTS.dtypes.items():
        if dtype == "category":
            continue
        values = frame[column]
        if dtype == "float64":
            values = pd.to_numeric(values, errors="coerce")
        frame[column] = values.astype(dtype)
    frame["completion_status"] = status_categorical(frame["completion_status"])
    return storable(frame)


def skipped_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The `mindcraft_skipped` table: every folder or file under the roots that was not analysed, and why."""
    items = runs.attrs.get("skipped_folders", [])
    frame = pd.DataFrame(
        [
            {
                "kind": item.get("kind", "folder"),
                "path_display": display_text(item["path"]),
                "reason": display_text(item["reason"]),
                "path": item["path"],
            }
            for item in items
        ],
        columns=[column for column in SKIPPED_COLUMNS if column not in MINDCRAFT_PATH_BYTES_COLUMNS.values()],
        dtype=object,
    ).astype({"kind": "string", "path_display": "string", "reason": "string"})
    return storable(frame)


__all__ = [
    "AGENT_COLUMNS",
    "NO_SCORE_POLICIES",
    "RUN_COLUMNS",
    "SKIPPED_COLUMNS",
    "agents_table",
    "aggregate_results",
    "runs_table",
    "skipped_table",
]
