"""The verdict a Mindcraft agent log holds: its final system message, per era, and the status it means.

The verdict is a `system` turn:

- current (since Mar 2025): `Task ended with score : <n>` (a JS number, possibly `NaN`); the typo
  variant `Task ended in score: <n>` is tolerated;
- legacy (Jan-Mar 2025): `Task successful ended with code : 2`, `Task timeout reached ended with code : 4`,
  `No other agents found ended with code : 3` (also `code : undefined`), classified by the phrase.

docs/mindcraft.md ("Statuses, per era") has the table of every message and its status.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from cogames_lib.outcomes import CompletionStatus

SCORE_LINE = re.compile(
    r"Task ended (?:with|in) score\s*:\s*(NaN|-?Infinity|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
)
LEGACY_LINE = re.compile(
    r"^(Task successful|Task timeout reached|No other agents found) ended with code : (\d+|undefined)",
    re.MULTILINE,
)

# Legacy phrase -> (status, score as a fraction of full). Classified by the phrase, not the code:
# runs with `code : undefined` exist, and the phrase is what the old scripts keyed on. "No other agents
# found" (code 3) is the path that today ends the task with a logged score of 0 after 30 s, so both
# eras give the same status: FAILED_SCORE_ZERO with a score of 0.
LEGACY_VERDICTS: dict[str, tuple[CompletionStatus, float | None]] = {
    "Task successful": (CompletionStatus.SUCCESS, 1.0),
    "Task timeout reached": (CompletionStatus.TIMED_OUT, None),
    "No other agents found": (CompletionStatus.FAILED_SCORE_ZERO, 0.0),
}

# The notes `classify_verdict` adds (dropped when a log is classified again under another scale)
SCORE_NOTES: tuple[str, ...] = ("score ",)  # "score line holds no usable number ...", "score ... clipped"

SCORE_SCALE_BY_TASK_TYPE: dict[str, float] = {"construction": 100.0, "cooking": 1.0, "techtree": 1.0}


def find_verdict(system_contents: Iterable[Any]) -> tuple[str | None, str | None, float | None, int]:
    """(verdict kind, message, logged score, score lines found) from a log's system-turn contents, given
    from the last turn back (a content that is not a string cannot hold a verdict).

    kind is "score", a legacy phrase, or None. The LAST verdict counts (an agent may log its score
    more than once; earlier lines are stale), except that a legacy timeout anywhere overrides.
    """
    kind: str | None = None
    message: str | None = None
    score: float | None = None
    score_lines = 0
    timeout_message: str | None = None
    for content in system_contents:
        if type(content) is not str or "ended" not in content:
            continue
        score_matches = SCORE_LINE.findall(content)
        score_lines += len(score_matches)
        legacy = LEGACY_LINE.search(content)
        if legacy is not None and legacy.group(1) == "Task timeout reached" and timeout_message is None:
            timeout_message = content
        if kind is None and score_matches:
            kind, message, score = "score", content, float(score_matches[-1])
        elif kind is None and legacy is not None:
            kind, message = legacy.group(1), content
    if timeout_message is not None:
        return "Task timeout reached", timeout_message, score, score_lines
    return kind, message, score, score_lines


def classify_verdict(
    kind: str | None, logged_score: float | None, score_scale: float, errors: list[str]
) -> tuple[CompletionStatus, float | None]:
    """(status, raw score in 0..1) from a verdict; the status rules of spec/mindcraft_logs.md."""
    if kind is None:
        return CompletionStatus.NO_SCORE_LOGGED, None
    if kind != "score":
        return LEGACY_VERDICTS[kind]
    if logged_score is None or not math.isfinite(logged_score):
        errors.append(f"score line holds no usable number ({logged_score}); treated as no score")
        return CompletionStatus.NO_SCORE_LOGGED, None
    raw = logged_score / score_scale
    if raw > 1.0 or raw < 0.0:
        errors.append(f"score {logged_score:g} outside 0..{score_scale:g}; clipped")
        raw = min(1.0, max(0.0, raw))
    if raw == 1.0:
        return CompletionStatus.SUCCESS, raw
    if raw == 0.0:
        return CompletionStatus.FAILED_SCORE_ZERO, raw
    return CompletionStatus.FAILED_PARTIAL_SCORE, raw


def infer_score_scale(logged_score: float | None) -> float:
    """100 when a logged score exceeds 1 (only construction scores percentages), else 1."""
    if logged_score is not None and math.isfinite(logged_score) and logged_score > 1.0:
        return 100.0
    return 1.0
