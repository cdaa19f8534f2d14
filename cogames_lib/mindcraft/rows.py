"""Per-run dicts -> rows of the runs table (`flatten_run`) and the `end_reason` column.

Every text in a row is valid UTF-8: names from the file system are shown printable (`files.display_text`:
undecodable bytes as `\\xNN`, control characters escaped), text from inside logs escaped where it holds
lone surrogates (`files.valid_text`), and the folder's exact path is kept as bytes (`folder_path_bytes`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from cogames_lib.mindcraft.files import display_text, valid_text
from cogames_lib.outcomes import CompletionStatus
from cogames_lib.tables import MINDCRAFT_METRIC_COLUMNS

S = CompletionStatus
METRIC_COLUMNS: tuple[str, ...] = tuple(column for column, _ in MINDCRAFT_METRIC_COLUMNS)
NO_VERDICT_STATUSES: frozenset[str] = frozenset({S.NO_SCORE_LOGGED.value, S.LOG_FILE_ERROR.value})
LEGACY_NO_AGENTS = "No other agents found"
# How a run ended, as far as its logs tell (docs/mindcraft.md, "Timeouts"). Current logs never say
# "timeout": a timeout ends with the validator's score, so a 0 or partial score cannot be told apart
# from agents that gave up, except when agents are missing.
END_REASONS: dict[str, str] = {
    "not_run": "empty task folder: the task never ran",
    "success": "the task was completed",
    "stale_log": "a stale log (copied from another task) makes the run unreadable",
    "timeout_logged": "legacy log: 'Task timeout reached' (code 4)",
    "agents_missing_logged": "legacy log: 'No other agents found' (code 3); today a 0 after 30 s",
    "agents_missing": "fewer agent logs than the task expects, and no success: agents missing",
    "score_at_end": "a score below full was logged: timeout or early end, the logs cannot tell",
    "no_verdict": "no score line in any log (the run was cut off before the end)",
    "unreadable": "every log is unreadable",
}


def end_reason(run: Mapping[str, Any]) -> str:
    """The `END_REASONS` key of a per-run dict (its best repetition decides)."""
    status = run["overall_completion_status"]
    if run["total_agent_logs_found"] == 0:
        return "not_run"
    if status == S.SUCCESS:
        return "success"
    if run["stale_log_count"] and status == S.LOG_FILE_ERROR:
        return "stale_log"
    if status == S.TIMED_OUT:
        return "timeout_logged"
    messages = (outcome.get("final_system_message") or "" for outcome in run["agent_outcomes"])
    if any(message.startswith(LEGACY_NO_AGENTS) for message in messages):
        return "agents_missing_logged"
    expected = run["task_definition_metrics"].get("expected_agent_count")
    if expected is not None and len({o["agent_name"] for o in run["agent_outcomes"]}) < expected:
        return "agents_missing"
    if status in (S.FAILED_SCORE_ZERO, S.FAILED_PARTIAL_SCORE):
        return "score_at_end"
    if status == S.NO_SCORE_LOGGED:
        return "no_verdict"
    return "unreadable"


def flatten_run(run: Mapping[str, Any], no_score_policy: str) -> dict[str, Any]:
    """One `mindcraft_runs` row from a per-run dict, with the nested `agent_outcomes` (the outcome dicts)
    and `repetitions` (one dict per repetition, `run_index` first) after it."""
    metrics = run["task_definition_metrics"]
    status = run["overall_completion_status"]
    excluded = no_score_policy == "exclude" and status in NO_VERDICT_STATUSES
    return {
        "experiment": display_text(run["experiment"]),
        "model_name": None if run["model_name"] is None else valid_text(run["model_name"]),
        "task_id": display_text(run["task_id"]),
        "task_type": run["task_type"],
        "layout": run["layout"],
        "agent_count": run["agent_count"],
        "expected_agent_count": metrics.get("expected_agent_count"),
        "expected_agent_count_mismatch": run["expected_agent_count_mismatch"],
        "total_agent_logs_found": run["total_agent_logs_found"],
        "repetition_count": len(run["repetitions"]),
        "successful_repetitions": sum(
            1 for rep in run["repetitions"].values() if rep["completion_status"] == S.SUCCESS
        ),
        "overall_completion_status": status,
        "overall_is_successful": run["overall_is_successful"],
        "overall_raw_score": run["overall_raw_score"],
        "success_for_rate": None if excluded else run["overall_is_successful"],
        "end_reason": end_reason(run),
        "stale_log_count": run["stale_log_count"],
        "has_task_definition": run["has_task_definition"],
        "score_scale": run["score_scale"],
        **{column: metrics.get(column) for column in METRIC_COLUMNS},
        "ignored_files": display_text(";".join(run["ignored_files"])),
        "folder_display": display_text(run["folder_path"]),
        "folder_path": display_text(run["folder_path"]),
        "folder_path_bytes": os.fsencode(run["folder_path"]),
        "agent_outcomes": run["agent_outcomes"],
        "repetitions": [{"run_index": index, **rep} for index, rep in run["repetitions"].items()],
    }
