"""Per-run dicts -> rows of the runs table (`run_row`), `end_reason` among them, and rows -> columns.

Every text in a row is valid UTF-8: names from the file system are shown printable (`files.display_text`:
undecodable bytes as `\\xNN`, control characters escaped), text from inside logs escaped where it holds
lone surrogates (`files.valid_text`), and the folder's exact path is kept as bytes (`folder_path_bytes`).
A row is a tuple (no dict per row); a chunk's rows become columns in one transposition (`run_columns`).
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
TASK_ID_COLUMNS: tuple[str, ...] = ("expected_agent_count", *(c for c, _ in MINDCRAFT_METRIC_COLUMNS))
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
    if any((o.get("final_system_message") or "").startswith(LEGACY_NO_AGENTS) for o in run["agent_outcomes"]):
        return "agents_missing_logged"
    expected = run["task_definition_metrics"].get("expected_agent_count")
    if expected is not None and len({o["agent_name"] for o in run["agent_outcomes"]}) < expected:
        return "agents_missing"
    if status in (S.FAILED_SCORE_ZERO, S.FAILED_PARTIAL_SCORE):
        return "score_at_end"
    if status == S.NO_SCORE_LOGGED:
        return "no_verdict"
    return "unreadable"


# `run_row`'s values by position (the frame orders columns by name; tests/test_mindcraft_runs.py holds the
# set to `MINDCRAFT_RUNS` less the experiment's and the task id's columns), then the nested `agent_outcomes`.
ROW_COLUMNS: tuple[str, ...] = (
    "task_id", "task_type", "layout", "agent_count", "expected_agent_count_mismatch", "total_agent_logs_found",
    "repetition_count", "successful_repetitions", "overall_completion_status", "overall_is_successful",
    "overall_raw_score", "success_for_rate", "end_reason", "stale_log_count", "has_task_definition",
    "score_scale", "ignored_files", "folder_display", "folder_path", "folder_path_bytes", "agent_outcomes")  # fmt: skip


def run_row(run: Mapping[str, Any], no_score_policy: str) -> tuple[Any, ...]:
    """The `ROW_COLUMNS` values of a per-run dict."""
    folder, status = display_text(run["folder_path"]), run["overall_completion_status"]
    excluded = no_score_policy == "exclude" and status in NO_VERDICT_STATUSES
    return (
        display_text(run["task_id"]),
        run["task_type"],
        run["layout"],
        run["agent_count"],
        run["expected_agent_count_mismatch"],
        run["total_agent_logs_found"],
        len(run["repetitions"]),
        [rep["completion_status"] for rep in run["repetitions"].values()].count(S.SUCCESS),
        status,
        run["overall_is_successful"],
        run["overall_raw_score"],
        None if excluded else run["overall_is_successful"],
        end_reason(run),
        run["stale_log_count"],
        run["has_task_definition"],
        run["score_scale"],
        display_text(";".join(run["ignored_files"])),
        folder,
        folder,  # the same text
        run["folder_path"].encode(*_FS_CODEC),  # os.fsencode
        run["agent_outcomes"],
    )


def run_columns(rows: Sequence[tuple[Any, ...]]) -> dict[str, list[Any]]:
    """{column: values} of `run_row` rows (transposed in one step)."""
    columns = [list(values) for values in zip(*rows, strict=True)] if rows else [[] for _ in ROW_COLUMNS]
    return dict(zip(ROW_COLUMNS, columns, strict=True))
