"""Per-run dicts -> the columns of the runs table (`run_columns`), `end_reason` among them.

Every text in a row is valid UTF-8: names from the file system are shown printable (`files.display_text`:
undecodable bytes as `\\xNN`, control characters escaped), text from inside logs escaped where it holds
lone surrogates (`files.valid_text`), and the folder's exact path is kept as bytes (`folder_path_bytes`).
Columns, not rows: a list per column is built in one pass over the runs, without a dict per row.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from cogames_lib.mindcraft.files import display_text
from cogames_lib.outcomes import CompletionStatus
from cogames_lib.tables import MINDCRAFT_METRIC_COLUMNS

S = CompletionStatus
# the columns that depend on the task id alone (its definition's metrics): made once per task id
TASK_ID_COLUMNS: tuple[str, ...] = (
    "expected_agent_count",
    *(column for column, _ in MINDCRAFT_METRIC_COLUMNS),
)
_FS_CODEC = (sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
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


def run_columns(runs: Sequence[Mapping[str, Any]], no_score_policy: str) -> dict[str, list[Any]]:
    """The `mindcraft_runs` columns (`tables.MINDCRAFT_RUNS`) of per-run dicts, but the experiment's
    (`experiment`, `model_name`) and the task id's (`TASK_ID_COLUMNS`), then the nested `agent_outcomes`
    (the outcome dicts of each run's logs)."""
    exclude = no_score_policy == "exclude"
    folders = [display_text(run["folder_path"]) for run in runs]
    return {
        "task_id": [display_text(run["task_id"]) for run in runs],
        "task_type": [run["task_type"] for run in runs],
        "layout": [run["layout"] for run in runs],
        "agent_count": [run["agent_count"] for run in runs],
        "expected_agent_count_mismatch": [run["expected_agent_count_mismatch"] for run in runs],
        "total_agent_logs_found": [run["total_agent_logs_found"] for run in runs],
        "repetition_count": [len(run["repetitions"]) for run in runs],
        "successful_repetitions": [
            [rep["completion_status"] for rep in run["repetitions"].values()].count(S.SUCCESS) for run in runs
        ],
        "overall_completion_status": [run["overall_completion_status"] for run in runs],
        "overall_is_successful": [run["overall_is_successful"] for run in runs],
        "overall_raw_score": [run["overall_raw_score"] for run in runs],
        "success_for_rate": [
            None
            if exclude and run["overall_completion_status"] in NO_VERDICT_STATUSES
            else run["overall_is_successful"]
            for run in runs
        ],
        "end_reason": [end_reason(run) for run in runs],
        "stale_log_count": [run["stale_log_count"] for run in runs],
        "has_task_definition": [run["has_task_definition"] for run in runs],
        "score_scale": [run["score_scale"] for run in runs],
        "ignored_files": [display_text(";".join(run["ignored_files"])) for run in runs],
        "folder_display": folders,
        "folder_path": list(folders),  # the same text, in its own list
        "folder_path_bytes": [run["folder_path"].encode(*_FS_CODEC) for run in runs],  # os.fsencode
        "agent_outcomes": [run["agent_outcomes"] for run in runs],
    }
