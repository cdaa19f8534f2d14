"""Many task folders -> the `mindcraft_runs` and `mindcraft_agents` tables.

`aggregate_results` returns one row per task folder. Columns (`RUN_COLUMNS`, in this order):

| column | meaning |
|---|---|
| `experiment` | name of the experiment root (the task folder's parent) |
| `model_name` | the `model_name` argument, else `model` of the experiment's `results.txt`, else NA |
| `task_id`, `task_type` | folder name; definition's `type` (else guessed from the id; NA if unknown) |
| `agent_count` | distinct agents with logs (the expected count for an empty folder) |
| `expected_agent_count`, `expected_agent_count_mismatch` | from the definition / id; NA when unknown |
| `total_agent_logs_found`, `repetition_count`, `successful_repetitions` | counts over the folder's logs |
| `overall_completion_status` | categorical in `STATUS_ORDER` |
| `overall_is_successful`, `overall_raw_score` | best repetition: success flag, score in 0..1 |
| `success_for_rate` | what rates count: `overall_is_successful`, or NA when `no_score_policy="exclude"` drops the run |
| `has_task_definition`, `score_scale` | definition found; 100 (construction) or 1 |
| task metrics | `timeout_s, depth, max_depth, missing_item_count, plan_availability, requires_crafting_table, blocked_agent_count, total_recipe_steps, max_steps_per_recipe, unique_target_items, overall_difficulty_score, difficulty_category, material_count, level_count, block_count` (see `tasks.py`) |
| `ignored_files`, `folder_path` | non-log files in the folder (`;`-joined), the folder |
| `agent_outcomes`, `repetitions` | the nested per-run values (dropped by `runs_table`, exploded by `agents_table`) |

`frame.attrs` carries `no_score_policy` and `skipped_folders` (list of {path, reason}).

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
from cogames_lib.mindcraft.runs import read_model_name
from cogames_lib.mindcraft.tasks import load_task_definitions
from cogames_lib.outcomes import CompletionStatus, status_categorical
from cogames_lib.tables import MINDCRAFT_AGENTS, MINDCRAFT_METRIC_COLUMNS, MINDCRAFT_RUNS

NO_VERDICT_STATUSES: frozenset[str] = frozenset(
    {CompletionStatus.NO_SCORE_LOGGED.value, CompletionStatus.LOG_FILE_ERROR.value}
)
# The tables' contracts live in `cogames_lib.tables`; these names are kept for the package's users.
METRIC_COLUMNS: tuple[str, ...] = tuple(column for column, _ in MINDCRAFT_METRIC_COLUMNS)
RUN_COLUMNS: tuple[str, ...] = MINDCRAFT_RUNS.columns
NESTED_COLUMNS: tuple[str, ...] = ("agent_outcomes", "repetitions")


def flatten_run(run: Mapping[str, Any], no_score_policy: str) -> dict[str, Any]:
    """One `mindcraft_runs` row from a per-run dict (nested values kept under NESTED_COLUMNS)."""
    metrics = run["task_definition_metrics"]
    status = run["overall_completion_status"]
    excluded = no_score_policy == "exclude" and status in NO_VERDICT_STATUSES
    row = {
        "experiment": run["experiment"],
        "model_name": run["model_name"],
        "task_id": run["task_id"],
        "task_type": run["task_type"],
        "agent_count": run["agent_count"],
        "expected_agent_count": metrics.get("expected_agent_count"),
        "expected_agent_count_mismatch": run["expected_agent_count_mismatch"],
        "total_agent_logs_found": run["total_agent_logs_found"],
        "repetition_count": len(run["repetitions"]),
        "successful_repetitions": sum(
            1 for rep in run["repetitions"].values() if rep["completion_status"] == CompletionStatus.SUCCESS
        ),
        "overall_completion_status": status,
        "overall_is_successful": run["overall_is_successful"],
        "overall_raw_score": run["overall_raw_score"],
        "success_for_rate": None if excluded else run["overall_is_successful"],
        "has_task_definition": run["has_task_definition"],
        "score_scale": run["score_scale"],
        **{column: metrics.get(column) for column in METRIC_COLUMNS},
        "ignored_files": ";".join(run["ignored_files"]),
        "folder_path": run["folder_path"],
    }
    row["agent_outcomes"] = run["agent_outcomes"]
    row["repetitions"] = run["repetitions"]
    return row


def _definitions(
    task_definitions: Mapping[str, Any] | str | os.PathLike[str] | Iterable[Any] | None,
) -> Mapping[str, Any]:
    if task_definitions is None:
        return {}
    if isinstance(task_definitions, Mapping):
        return task_definitions
    return load_task_definitions(as_path_list(task_definitions))


def runs_frame(rows: list[dict[str, Any]], no_score_policy: str) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=[*RUN_COLUMNS, *NESTED_COLUMNS])
    for column, dtype in MINDCRAFT_RUNS.dtypes.items():
        if dtype != "category":
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
    workers: int = 1,
    progress: bool = False,
) -> pd.DataFrame:
    """The `mindcraft_runs` frame (columns in the module docstring) for task folders / experiment roots.

    `task_definitions`: task-file path(s) or an already loaded {task_id: definition} mapping.
    Raises `ParameterError` for a missing root or an unknown policy; never raises on log content.
    """
    roots = as_path_list(folders_or_experiment_roots)
    validate_analysis_parameters(roots, None, no_score_policy)
    if workers < 1:
        raise ParameterError(f"workers: must be >= 1, got {workers}")
    definitions = _definitions(task_definitions)
    runs, skipped = collect_runs(roots, definitions, workers=workers, progress=progress)
    model_by_root: dict[str, str | None] = {}
    for run in runs:  # results.txt is read once per experiment, here rather than per folder
        root = os.path.dirname(run["folder_path"])
        if root not in model_by_root:
            model_by_root[root] = model_name if model_name is not None else read_model_name(root)
        run["model_name"] = model_by_root[root]
    frame = runs_frame([flatten_run(run, no_score_policy) for run in runs], no_score_policy)
    frame.attrs["skipped_folders"] = [{"path": item.path, "reason": item.reason} for item in skipped]
    return frame


def runs_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The storable `mindcraft_runs` table: `aggregate_results` without the nested columns."""
    return runs.drop(columns=[column for column in NESTED_COLUMNS if column in runs.columns])


AGENT_COLUMNS: tuple[str, ...] = MINDCRAFT_AGENTS.columns


def agents_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The `mindcraft_agents` table: one row per agent log of the runs frame (columns AGENT_COLUMNS).

    `parsing_errors` is joined with " | "; `completion_status` is categorical in STATUS_ORDER.
    """
    rows = []
    keys = ("experiment", "model_name", "task_id", "task_type")
    for run in runs[[*keys, "agent_outcomes"]].itertuples(index=False):
        context = dict(zip(keys, run[:4], strict=True))
        for outcome in run.agent_outcomes:
            row = {**context, **{key: outcome[key] for key in AGENT_COLUMNS if key in outcome}}
            row["parsing_errors"] = " | ".join(outcome["parsing_errors"])
            rows.append(row)
    frame = pd.DataFrame(rows, columns=list(AGENT_COLUMNS))
    for column, dtype in MINDCRAFT_AGENTS.dtypes.items():
        if dtype == "category":
            continue
        values = frame[column]
        if dtype == "float64":
            values = pd.to_numeric(values, errors="coerce")
        frame[column] = values.astype(dtype)
    frame["completion_status"] = status_categorical(frame["completion_status"])
    return frame


__all__ = [
    "AGENT_COLUMNS",
    "NO_SCORE_POLICIES",
    "RUN_COLUMNS",
    "agents_table",
    "aggregate_results",
    "runs_table",
]
