"""Stale logs: a log copied into a task folder from an earlier task, score line included.

Mindcraft's evaluation script copies each agent's `bots/<agent>/memory.json` into the task folder after
a run; an agent that died before its first save leaves the memory of its previous task there, so the
copy carries the previous task's `taskStart` and possibly its score. Two signals, both cheap:

- **start skew**: within one repetition, a log whose `taskStart` is more than `STALE_START_SKEW_S`
  seconds earlier than the latest `taskStart` among the agents of that repetition. Agents of one run
  start within seconds of each other; Mindcraft itself gives up waiting for missing agents after 30 s
  (the "No other agents found" path), so a log 30 s older than its partners cannot be of the same run.
  The earlier log is the stale one (a leftover is always older than the run it was copied into).
- **byte-identical copy**: the log's bytes equal a log in another task folder. Candidates are found by
  (size, taskStart, turn count), which identical files share, and confirmed by comparing the bytes,
  so no log is hashed. Of a set of identical copies, the one whose repetition partners started within
  the skew limit is the original; the others are stale (all of them when none can be told apart).

A stale log becomes LOG_FILE_ERROR with the reason in `parsing_errors` and `stale_reason`; a repetition
holding one is LOG_FILE_ERROR (never SUCCESS), whatever the other logs say. The experiment folder's
`MM-DD_HH-MM` name is not used as a signal: it has neither year nor time zone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cogames_lib.mindcraft.discovery import TaskUnit
from cogames_lib.mindcraft.files import RefusedFile, display_text, read_regular_file
from cogames_lib.outcomes import CompletionStatus

STALE_START_SKEW_S = 30.0
_LOG_FILE_ERROR = CompletionStatus.LOG_FILE_ERROR.value


def mark_stale(outcome: dict[str, Any], reason: str) -> dict[str, Any]:
    """The outcome as a stale log: LOG_FILE_ERROR, no score, the reason recorded twice (errors, column)."""
    if outcome.get("stale_reason"):
        return outcome
    return {
        **outcome,
        "completion_status": _LOG_FILE_ERROR,
        "raw_score": None,
        "agent_log_processed": False,
        "parsing_errors": [*outcome["parsing_errors"], f"stale: {reason}"],
        "stale_reason": reason,
    }


def skew_seconds(outcome: Mapping[str, Any], partners: Sequence[Mapping[str, Any]]) -> float | None:
    """How many seconds `outcome` started before the latest of its repetition partners (None: unknown)."""
    start = outcome["task_start_ms"]
    starts = [o["task_start_ms"] for o in partners if o is not outcome and o["task_start_ms"] is not None]
    return None if start is None or not starts else (max(starts) - start) / 1000.0


def mark_skewed(partners: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The outcomes of one repetition, every log that started too early for it marked stale."""
    starts = [o["task_start_ms"] for o in partners if o["task_start_ms"] is not None]
    if len(starts) < 2 or max(starts) - min(starts) <= STALE_START_SKEW_S * 1000:
        return partners  # the usual case: every agent started within the limit of the others
    result = []
    for outcome in partners:
        skew = skew_seconds(outcome, partners)
        if skew is not None and skew > STALE_START_SKEW_S:
            reason = f"taskStart {skew:,.0f} s before the other agents of run {outcome['run_index']}"
            outcome = mark_stale(outcome, f"{reason} (limit {STALE_START_SKEW_S:g} s)")
        result.append(outcome)
    return result


def _same_bytes(first: str, second: str) -> bool:
    try:
        return read_regular_file(first) == read_regular_file(second)
    except (OSError, RefusedFile):
        return False


def find_identical_copies(
    outcomes: Sequence[Sequence[Mapping[str, Any]]], units: Sequence[TaskUnit]
) -> dict[tuple[int, int], str]:
    """{(task position, log position): reason} for logs byte-identical to a log of another task.

    `outcomes[t]` are the log outcomes of task `units[t]`, in the order of its logs.
    """
    first_place: dict[tuple[Any, ...], tuple[int, int]] = {}  # a copy has the same size, start time, turns
    candidates: dict[tuple[Any, ...], list[tuple[int, int]]] = {}  # keys met more than once: the bytes decide
    for run_position, run_outcomes in enumerate(outcomes):
        for position, outcome in enumerate(run_outcomes):
            if outcome["file_size_bytes"] and outcome["agent_log_processed"]:
                key = (outcome["file_size_bytes"], outcome["task_start_ms"], outcome["turn_count"])
                first = first_place.setdefault(key, place := (run_position, position))
                if first is not place:  # the key was met before
                    candidates.setdefault(key, [first]).append(place)
    stale: dict[tuple[int, int], str] = {}
    for places in candidates.values():
        if len({run for run, _ in places}) < 2:  # copies within one task are no sign
            continue
        first = places[0]
        path = units[first[0]].logs[first[1]].path
        identical = [first] + [p for p in places[1:] if _same_bytes(path, units[p[0]].logs[p[1]].path)]
        if len({run for run, _ in identical}) < 2:
            continue
        fits = []
        for run_position, position in identical:
            me = outcomes[run_position][position]
            partners = [o for o in outcomes[run_position] if o["run_index"] == me["run_index"]]
            skew = skew_seconds(me, partners)
            fits.append(skew is not None and abs(skew) <= STALE_START_SKEW_S)
        for place, fitting in zip(identical, fits, strict=True):
            if fitting and sum(fits) == 1:
                continue  # the original: its partners started with it
            others = sorted(display_text(units[other[0]].folder) for other in identical if other != place)
            stale[place] = f"byte-identical to a log in {others[0]}" + (
                f" (and {len(others) - 1} more)" if len(others) > 1 else ""
            )
    return stale
