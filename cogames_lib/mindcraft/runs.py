"""One task's logs -> one per-run dict (`build_run`; `extract_result` for one task folder).

A task's logs are found by `discovery.py` in any layout (a task folder of `<Agent>_<server>_<run>.json`,
per-run folders, flat files) and read here (`read_unit`); nothing else is assumed: any number of agents, any number of
repetitions, or none at all (a task that never ran is an empty folder).

Combining, in two steps:

1. agents within a repetition (`run_index`): a stale log (`stale.py`) -> LOG_FILE_ERROR with its
   reason in `stale_reason`; else any agent TIMED_OUT -> TIMED_OUT; else the best agent
   (a success logged by any agent is the run's success; usually only the first agent to finish logs
   the score), in the order SUCCESS, FAILED_PARTIAL_SCORE, FAILED_SCORE_ZERO, NO_SCORE_LOGGED; only
   when every log is broken -> LOG_FILE_ERROR. The run's score is the best agent score.
2. repetitions: the best run, ranked by `STATUS_ORDER` (success first), then by score, then by the
   lower run index.

Per-run dict keys: `task_id, folder_path, experiment, model_name, task_type, agent_count,
expected_agent_count_mismatch, total_agent_logs_found, overall_raw_score, overall_is_successful,
overall_completion_status, repetitions, agent_outcomes, task_definition_metrics, has_task_definition,
score_scale, ignored_files, layout, stale_log_count, experiment_path`. `agent_count` is the number of
distinct agents whose logs were found, or the expected count when the folder is empty; `repetitions` maps run index -> its best outcome
(`completion_status`, `raw_score`, `agent_log_count`, `stale_reason`).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Mapping, Sequence
from typing import Any

from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft.discovery import RESULTS_FILE, TaskUnit, experiment_folder, scan_folder
from cogames_lib.mindcraft.files import (
    DEFAULT_MAX_LOG_BYTES,
    RESULTS_FILE_MAX_BYTES,
    RefusedFile,
    read_regular_file,
)
from cogames_lib.mindcraft.logs import read_outcome, rescale_outcome
from cogames_lib.mindcraft.stale import mark_skewed
from cogames_lib.mindcraft.tasks import task_definition_metrics, task_type_of
from cogames_lib.mindcraft.verdicts import SCORE_SCALE_BY_TASK_TYPE, infer_score_scale
from cogames_lib.outcomes import STATUS_ORDER, CompletionStatus

# Plain strings, read once: an enum member's `.value` is a Python-level property, and members hash
# through Python code. Agents within one run: the first status present in RUN_STATUS_PRIORITY decides:
# TIMED_OUT overrides all, then the best status (STATUS_ORDER; RUN_ERROR is never a log's status).
_TIMED_OUT, _RUN_ERROR = CompletionStatus.TIMED_OUT.value, CompletionStatus.RUN_ERROR.value
_SUCCESS, _NO_SCORE = CompletionStatus.SUCCESS.value, CompletionStatus.NO_SCORE_LOGGED.value
_LOG_FILE_ERROR = CompletionStatus.LOG_FILE_ERROR.value
RUN_STATUS_PRIORITY: tuple[str, ...] = (
    _TIMED_OUT,
    *(s for s in STATUS_ORDER if s not in (_TIMED_OUT, _RUN_ERROR)),
)
_STATUS_RANK = {status: rank for rank, status in enumerate(STATUS_ORDER)}


def read_model_name(experiment_root: str) -> str | None:
    """The `model` key of `<root>/results.txt` (a Python dict repr), or None. Never raises, never
    blocks (a FIFO or a huge file named results.txt is not read)."""
    try:
        data = read_regular_file(os.path.join(experiment_root, RESULTS_FILE), RESULTS_FILE_MAX_BYTES)
        document = ast.literal_eval(data.decode("utf-8"))
    except (OSError, RefusedFile, ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    model = document.get("model") if isinstance(document, dict) else None
    return model if isinstance(model, str) and model else None


def _combine_agents(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    statuses = set()
    best: float | None = None
    for outcome in outcomes:  # one pass, no generator: this runs once per repetition of every task
        if outcome["stale_reason"]:
            status, best, stale = _LOG_FILE_ERROR, None, outcome["stale_reason"]
            break
        statuses.add(outcome["completion_status"])
        if outcome["raw_score"] is not None and (best is None or outcome["raw_score"] > best):
            best = outcome["raw_score"]
    else:
        status, stale = _NO_SCORE, None
        for candidate in RUN_STATUS_PRIORITY:
            if candidate in statuses:
                status = candidate
                break
    return dict(completion_status=status, raw_score=best, agent_log_count=len(outcomes), stale_reason=stale)


def _rank(item: tuple[int, dict[str, Any]]) -> tuple[int, float, int]:
    """Repetitions, best first: by status (success first), then score, then the lower run index."""
    run_index, run = item
    score = run["raw_score"] if run["raw_score"] is not None else -1.0
    return (_STATUS_RANK[run["completion_status"]], -score, run_index)


def _score_scale(task_type: str | None, outcomes: list[dict[str, Any]]) -> float:
    if task_type in SCORE_SCALE_BY_TASK_TYPE:
        return SCORE_SCALE_BY_TASK_TYPE[task_type]
    # Unknown type: one percentage anywhere in the folder means the whole folder is on 0..100.
    return max((infer_score_scale(outcome["logged_score"]) for outcome in outcomes), default=1.0)


def read_unit(unit: TaskUnit, max_bytes: int = DEFAULT_MAX_LOG_BYTES) -> list[dict[str, Any]]:
    """The outcome of every log of a task unit, in the unit's order."""
    return [read_outcome(log.path, log.file_name, log.agent, log.run, max_bytes) for log in unit.logs]


def build_run(
    task_id: str,
    folder: str,
    layout: str,
    outcomes: list[dict[str, Any]],
    task_definition: Mapping[str, Any] | None = None,
    model_name: str | None = None,
    *,
    metrics: dict[str, Any] | None = None,
    ignored_files: Sequence[str] = (),
) -> dict[str, Any]:
    """Per-run dict (keys in the module docstring) of a task's log outcomes, found in `folder`.

    The experiment is the folder itself for the `flat` and `per_run` layouts (their logs sit in or
    below it), else the folder's parent.
    """
    experiment_root = experiment_folder(folder, layout)
    task_type = task_type_of(task_id, task_definition)
    scale = _score_scale(task_type, outcomes)
    by_run: dict[int, list[dict[str, Any]]] = {}
    for outcome in outcomes:  # in the unit's order: by run index, then agent
        if outcome["score_scale"] != scale:
            outcome = rescale_outcome(outcome, scale)
        by_run.setdefault(outcome["run_index"], []).append(outcome)
    by_run = {run_index: mark_skewed(partners) for run_index, partners in sorted(by_run.items())}
    outcomes = [outcome for partners in by_run.values() for outcome in partners]
    repetitions = {run_index: _combine_agents(partners) for run_index, partners in by_run.items()}
    best = (
        min(repetitions.items(), key=_rank)[1]
        if len(repetitions) > 1
        else next(iter(repetitions.values()), None)
    )
    status = best["completion_status"] if best else _NO_SCORE

    if metrics is None:
        metrics = task_definition_metrics(task_id, task_definition)
    expected = metrics.get("expected_agent_count")
    observed = len({outcome["agent_name"] for outcome in outcomes})
    return {
        "task_id": task_id,
        "folder_path": folder,
        "experiment": experiment_root.rpartition(os.sep)[2],
        "experiment_path": experiment_root,
        "model_name": model_name,
        "task_type": task_type,
        "layout": layout,
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
        "ignored_files": list(ignored_files),
        "stale_log_count": len([1 for outcome in outcomes if outcome["stale_reason"]]),
    }


def extract_result(
    folder_path: str | os.PathLike[str],
    task_definition: Mapping[str, Any] | None = None,
    model_name: str | None = None,
    *,
    read_results_file: bool = True,
    max_bytes: int = DEFAULT_MAX_LOG_BYTES,
) -> dict[str, Any]:
    """Per-run dict of one task folder (current layout) or one per-run folder. Never raises on content;
    a `folder_path` that is not a directory raises `ParameterError`.

    The task id is the folder name (without the `_<run>` of a per-run folder). `model_name` None reads
    the `model` of the experiment's `results.txt` (the folder's parent) unless `read_results_file` is False.
    """
    folder = os.path.normpath(os.fspath(folder_path))
    if not os.path.isdir(folder):  # a mistyped path is a user mistake, not an unrun task
        raise ParameterError(f"folder_path: {folder!r} does not exist or is not a directory")
    scan = scan_folder(folder, 1, "current", (os.path.realpath(folder),))
    unit = next((unit for unit in scan.units if unit.layout != "flat"), None)
    if unit is None:
        unit = TaskUnit("current", os.path.basename(folder), folder, ())
    if model_name is None and read_results_file:
        model_name = read_model_name(os.path.dirname(folder))
    return build_run(
        unit.task_id,
        folder if unit.layout != "per_run" else os.path.dirname(folder),
        unit.layout,
        read_unit(unit, max_bytes),
        task_definition,
        model_name,
        ignored_files=unit.ignored,
    )
