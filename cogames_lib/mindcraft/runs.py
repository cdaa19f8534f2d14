"""One task folder -> one per-run dict (`extract_result`).

A task folder holds `<Agent>_<server>_<run>.json` logs, one per agent per repetition, and nothing
else is assumed: any number of agents, any number of repetitions, or none at all (a task that never
ran is an empty folder).

Combining, in two steps:

1. agents within a repetition (`run_index`): any agent TIMED_OUT -> TIMED_OUT; else the best agent
   (a success logged by any agent is the run's success; usually only the first agent to finish logs
   the score), in the order SUCCESS, FAILED_PARTIAL_SCORE, FAILED_SCORE_ZERO, NO_SCORE_LOGGED; only
   when every log is broken -> LOG_FILE_ERROR. The run's score is the best agent score.
2. repetitions: the best run, ranked by `STATUS_ORDER` (success first), then by score, then by the
   lower run index.

Per-run dict keys: `task_id, folder_path, experiment, model_name, task_type, agent_count,
expected_agent_count_mismatch, total_agent_logs_found, overall_raw_score, overall_is_successful,
overall_completion_status, repetitions, agent_outcomes, task_definition_metrics, has_task_definition,
score_scale, ignored_files`. `agent_count` is the number of distinct agents whose logs were found, or
the expected count when the folder is empty; `repetitions` maps run index -> its best outcome
(`completion_status`, `raw_score`, `agent_log_count`).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Mapping
from typing import Any

from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft.discovery import FolderListing, list_folder
from cogames_lib.mindcraft.logs import (
    SCORE_SCALE_BY_TASK_TYPE,
    infer_score_scale,
    read_outcome,
    rescale_outcome,
)
from cogames_lib.mindcraft.tasks import task_definition_metrics, task_type_of
from cogames_lib.outcomes import STATUS_ORDER, CompletionStatus

RESULTS_FILE = "results.txt"

# Agents within one run: the first status present in this list decides (TIMED_OUT overrides all).
RUN_STATUS_PRIORITY: tuple[str, ...] = tuple(
    status.value  # plain strings: enum members hash and compare through Python code
    for status in (
        CompletionStatus.TIMED_OUT,
        CompletionStatus.SUCCESS,
        CompletionStatus.FAILED_PARTIAL_SCORE,
        CompletionStatus.FAILED_SCORE_ZERO,
        CompletionStatus.NO_SCORE_LOGGED,
        CompletionStatus.LOG_FILE_ERROR,
    )
)
_NO_SCORE = CompletionStatus.NO_SCORE_LOGGED.value
_SUCCESS = CompletionStatus.SUCCESS.value
_STATUS_RANK = {status: rank for rank, status in enumerate(STATUS_ORDER)}


def read_model_name(experiment_root: str) -> str | None:
    """The `model` key of `<root>/results.txt` (a Python dict repr), or None. Never raises."""
    try:
        with open(os.path.join(experiment_root, RESULTS_FILE), encoding="utf-8") as handle:
            document = ast.literal_eval(handle.read())
    except (OSError, ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    model = document.get("model") if isinstance(document, dict) else None
    return model if isinstance(model, str) and model else None


def _combine_agents(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    statuses = {outcome["completion_status"] for outcome in outcomes}
    status = next((s for s in RUN_STATUS_PRIORITY if s in statuses), _NO_SCORE)
    scores = [outcome["raw_score"] for outcome in outcomes if outcome["raw_score"] is not None]
    return {
        "completion_status": status,
        "raw_score": max(scores) if scores else None,
        "agent_log_count": len(outcomes),
    }


def _best_repetition(repetitions: dict[int, dict[str, Any]]) -> dict[str, Any] | None:
    if not repetitions:
        return None

    def rank(item: tuple[int, dict[str, Any]]) -> tuple[int, float, int]:
        run_index, run = item
        score = run["raw_score"] if run["raw_score"] is not None else -1.0
        return (_STATUS_RANK[run["completion_status"]], -score, run_index)

    return min(repetitions.items(), key=rank)[1]


def _score_scale(task_type: str | None, outcomes: list[dict[str, Any]]) -> float:
    if task_type in SCORE_SCALE_BY_TASK_TYPE:
        return SCORE_SCALE_BY_TASK_TYPE[task_type]
    # Unknown type: one percentage anywhere in the folder means the whole folder is on 0..100.
    return max((infer_score_scale(outcome["logged_score"]) for outcome in outcomes), default=1.0)


def extract_result(
    folder_path: str | os.PathLike[str],
    task_definition: Mapping[str, Any] | None = None,
    model_name: str | None = None,
    *,
    read_results_file: bool = True,
    listing: FolderListing | None = None,
    metrics: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Per-run dict of one task folder (keys in the module docstring). Never raises on content;
    a `folder_path` that is not a directory raises `ParameterError`.

    The task id is the folder name. `model_name` None reads the `model` of the experiment's
    `results.txt` (the folder's parent) unless `read_results_file` is False. `listing` (the folder's
    `list_folder`) and `metrics` (its `task_definition_metrics`) save work when the caller has them.
    """
    folder = os.path.normpath(os.fspath(folder_path))
    experiment_root, task_id = os.path.split(folder)
    if model_name is None and read_results_file:
        model_name = read_model_name(experiment_root)
    if listing is None:
        if not os.path.isdir(folder):  # a mistyped path is a user mistake, not an unrun task
            raise ParameterError(f"folder_path: {folder!r} does not exist or is not a directory")
        listing = list_folder(folder)
    outcomes = [read_outcome(folder, name, agent, run) for name, agent, run in listing.logs]
    task_type = task_type_of(task_id, task_definition)
    scale = _score_scale(task_type, outcomes)
    outcomes = [rescale_outcome(outcome, scale) for outcome in outcomes]

    by_run: dict[int, list[dict[str, Any]]] = {}
    for outcome in outcomes:
        by_run.setdefault(outcome["run_index"], []).append(outcome)
    repetitions = {run_index: _combine_agents(group) for run_index, group in sorted(by_run.items())}
    best = _best_repetition(repetitions)
    status = best["completion_status"] if best else _NO_SCORE

    if metrics is None:
        metrics = task_definition_metrics(task_id, task_definition)
    expected = metrics.get("expected_agent_count")
    observed = len({outcome["agent_name"] for outcome in outcomes})
    return {
        "task_id": task_id,
        "folder_path": folder,
        "experiment": os.path.basename(experiment_root),
        "model_name": model_name,
        "task_type": task_type,
        "agent_count": observed if observed else expected,
        "expected_agent_count_mismatch": (
            None if expected is None or not observed else bool(observed != expected)
        ),
        "total_agent_logs_found": len(outcomes),
        "overall_raw_score": best["raw_score"] if best else None,
        "overall_is_successful": status == _SUCCESS,
        "overall_completion_status": status,
        "repetitions": repetitions,
        "agent_outcomes": outcomes,
        "task_definition_metrics": metrics,
        "has_task_definition": task_definition is not None,
        "score_scale": scale,
        "ignored_files": list(listing.others),
    }
