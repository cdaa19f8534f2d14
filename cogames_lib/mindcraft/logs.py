"""One Mindcraft agent log -> one outcome dict (`analyze_json_file`).

An agent log is `<Agent>_<server>_<run>.json`: a UTF-8 JSON object whose `turns` list holds the
conversation, or a bare list of turns (the shape of history files). The verdict is a `system` turn:

- current (since Mar 2025): `Task ended with score : <n>` (a JS number, possibly `NaN`); the typo
  variant `Task ended in score: <n>` is tolerated;
- legacy (Jan-Mar 2025): `Task successful ended with code : 2`, `Task timeout reached ended with code : 4`,
  `No other agents found ended with code : 3` (also `code : undefined`), classified by the phrase.

Outcome dict keys (one row of the `mindcraft_agents` table):

| key | meaning |
|---|---|
| `file_name` | log file name |
| `agent_name` / `run_index` | from the file name (`Andy_0` / `1` for `Andy_0_1.json`); None if it does not match |
| `completion_status` | a `CompletionStatus` value (see `classify_verdict`) |
| `raw_score` | logged score / `score_scale`, in 0..1 (clipped, with a note); None without a usable score |
| `logged_score` | the number as logged (construction: 0..100); None without a score line, nan for `NaN` |
| `score_scale` | 100 for construction, 1 otherwise; inferred (100 if the score exceeds 1) when not given |
| `verdict_source` | `score`, `legacy` or None |
| `score_lines_found` | how many score lines the log holds (>1: the last one counts, earlier ones are stale) |
| `final_system_message` | the system message that decided the verdict (None when there is none) |
| `turn_count` | number of turns in the log (None when unreadable) |
| `agent_log_processed` | False exactly when the status is LOG_FILE_ERROR |
| `parsing_errors` | human-readable problems: reason of a LOG_FILE_ERROR, clipping, stale scores, turns that are not objects (skipped; a turn whose content is not a string cannot hold a verdict) |
| `file_size_bytes` | size read (None when unreadable) |
| `task_start_ms` | the log's `taskStart` (ms since the epoch; None when absent): the stale-log check compares it |
| `stale_reason` | why the log was judged stale (copied from another task; see `stale.py`), else None |

Speed matters (tens of thousands of logs per second): the file is read with one `os.read` (`files.py`:
regular files only, capped), parsed by orjson straight from the bytes (it validates UTF-8 too), and
only what orjson rejects goes through the standard library: Mindcraft logs hold lone-surrogate escapes
such as `\ud83d` from broken emoji, valid for Python's json, refused by orjson. Turns are only walked
when the raw bytes contain a verdict phrase at all; regexes are compiled once.
"""

from __future__ import annotations

import json
import json.scanner
import math
import os
import re
from typing import Any

from cogames_lib.mindcraft.files import DEFAULT_MAX_LOG_BYTES, RefusedFile, read_regular_file
from cogames_lib.outcomes import CompletionStatus

try:  # a speed-up, not a requirement: without it every log takes the standard-library path
    import orjson

    _orjson_loads: Any = orjson.loads
    _OrjsonError: Any = orjson.JSONDecodeError
except ImportError:  # pragma: no cover - orjson is pinned in requirements.lock
    _orjson_loads = None
    _OrjsonError = ValueError

AGENT_LOG_NAME = re.compile(r"^(?P<agent>[A-Za-z]+_\d+)_(?P<run>\d+)\.json$")

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

# Cheap byte-level pre-check: a log whose bytes hold neither marker cannot hold a verdict, so its
# turns are never walked in Python (the common case: every agent but the one that logged the score).
# Every verdict phrase contains "ended"; JSON could only hide it behind an escape of one of its
# letters (e = \u0065, n = \u006e, d = \u0064), which all start with `\u006`.
VERDICT_MARKERS: tuple[bytes, ...] = (b"ended", b"\\u006")

SCORE_SCALE_BY_TASK_TYPE: dict[str, float] = {"construction": 100.0, "cooking": 1.0, "techtree": 1.0}

_NO_SCORE = CompletionStatus.NO_SCORE_LOGGED.value
_LOG_FILE_ERROR = CompletionStatus.LOG_FILE_ERROR.value
# The C scanner behind json.loads, called directly: saves three Python-level calls per log.
_scan_once = getattr(json.scanner, "c_make_scanner", None)
_scan_once = _scan_once(json.JSONDecoder()) if _scan_once is not None else None
_NUMBER_TYPES = (int, float)  # taskStart; `start == start` leaves out NaN, which is no time
_JSON_WHITESPACE = re.compile(r"[ \t\n\r]*")


def parse_agent_log_name(file_name: str) -> tuple[str, int] | None:
    """(agent_name, run_index) from `Andy_0_1.json`, or None when the name is not an agent log."""
    match = AGENT_LOG_NAME.match(file_name)
    if match is None:
        return None
    return match.group("agent"), int(match.group("run"))


def read_bytes(path: str, max_bytes: int = DEFAULT_MAX_LOG_BYTES) -> bytes:
    """Whole file (regular files only, capped); raises `RefusedFile` or `OSError` (`files.py`)."""
    return read_regular_file(path, max_bytes)


def _error(file_name: str, reason: str, size: int | None) -> dict[str, Any]:
    names = parse_agent_log_name(file_name)
    return {
        "file_name": file_name,
        "agent_name": names[0] if names else None,
        "run_index": names[1] if names else None,
        "completion_status": _LOG_FILE_ERROR,
        "raw_score": None,
        "logged_score": None,
        "score_scale": None,
        "verdict_source": None,
        "score_lines_found": 0,
        "final_system_message": None,
        "turn_count": None,
        "agent_log_processed": False,
        "parsing_errors": [reason],
        "file_size_bytes": size,
        "task_start_ms": None,
        "stale_reason": None,
    }


def _find_verdict(turns: list[Any], single: bool) -> tuple[str | None, str | None, float | None, int]:
    """Walk turns from the end: (verdict kind, message, logged score, score lines found).

    kind is "score", a legacy phrase, or None. The LAST verdict counts (an agent may log its score
    more than once; earlier lines are stale), except that a legacy timeout anywhere overrides.
    `single`: the raw bytes hold "ended" exactly once and no escapes that could spell it, so the
    walk stops at the first turn mentioning it (usually the last turn) instead of visiting them all.
    """
    kind: str | None = None
    message: str | None = None
    score: float | None = None
    score_lines = 0
    timeout_message: str | None = None
    for turn in reversed(turns):
        if type(turn) is not dict:
            continue
        content = turn.get("content")
        if type(content) is not str or "ended" not in content:
            continue
        if turn.get("role") == "system":
            score_matches = SCORE_LINE.findall(content)
            score_lines += len(score_matches)
            legacy = LEGACY_LINE.search(content)
            if legacy is not None and legacy.group(1) == "Task timeout reached" and timeout_message is None:
                timeout_message = content
            if kind is None and score_matches:
                kind, message, score = "score", content, float(score_matches[-1])
            elif kind is None and legacy is not None:
                kind, message = legacy.group(1), content
        if single:
            break
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


def _parse_json(text: str) -> Any:
    """json.loads, minus its Python-level layers when the text is a bare JSON value (the usual log)."""
    if _scan_once is not None:
        try:
            document, end = _scan_once(text, 0)
            if end == len(text) or _JSON_WHITESPACE.match(text, end).end() == len(text):
                return document
        except StopIteration:  # leading whitespace or no value at all: let json.loads decide
            pass
    return json.loads(text)


class _Problem:
    """Why a log is no JSON document (a class, so the hot path tests `type(x) is _Problem`)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _stdlib_document(data: bytes) -> Any:
    """The standard library's reading of what orjson rejected (or of everything, without orjson)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return _Problem(f"not UTF-8: byte 0x{data[error.start]:02x} at offset {error.start}")
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        return _parse_json(text)
    except ValueError as error:  # JSONDecodeError
        return _Problem(f"not JSON: {error}")
    except RecursionError:
        return _Problem("not JSON: nesting too deep")


def analyze_log_bytes(file_name: str, data: bytes, score_scale: float | None = None) -> dict[str, Any]:
    """The outcome dict of one log given its bytes. Never raises on any content."""
    names = parse_agent_log_name(file_name)
    agent, run = names if names else (None, None)
    return outcome_from_bytes(file_name, agent, run, data, score_scale)


def outcome_from_bytes(
    file_name: str, agent: str | None, run: int | None, data: bytes, score_scale: float | None
) -> dict[str, Any]:
    """The hot path: `analyze_log_bytes` with the file name already parsed."""
    size = len(data)
    if size == 0:
        return _error(file_name, "empty file", 0)
    try:
        document = _orjson_loads(data)
    except (
        _OrjsonError,
        TypeError,
    ):  # NaN, lone surrogates, a BOM, bad UTF-8: the stdlib decides and explains
        document = _stdlib_document(data)
        if type(document) is _Problem:
            return _error(file_name, document.reason, size)
    if type(document) is dict:
        turns = document.get("turns")
        if type(turns) is not list:
            return _error(file_name, "wrong shape: object without a 'turns' list", size)
    elif type(document) is list:
        turns = document
    else:
        return _error(file_name, f"wrong shape: top level is {type(document).__name__}", size)

    errors: list[str] = []
    malformed = len(turns) - list(map(type, turns)).count(dict)  # C-speed (a set of types costs twice)
    if malformed:
        errors.append(f"{malformed} malformed turn(s) skipped (not an object)")
    kind: str | None = None
    message: str | None = None
    logged: float | None = None
    score_lines = 0
    mentions = data.count(VERDICT_MARKERS[0])
    escaped = VERDICT_MARKERS[1] in data
    if mentions or escaped:
        kind, message, logged, score_lines = _find_verdict(turns, single=mentions == 1 and not escaped)
        if score_lines > 1:
            errors.append(f"{score_lines} score lines; the last one counts")
    scale = score_scale if score_scale is not None else infer_score_scale(logged)
    if kind is None:
        status, raw = _NO_SCORE, None
    else:
        verdict_status, raw = classify_verdict(kind, logged, scale, errors)
        status = verdict_status.value
    return {
        "file_name": file_name,
        "agent_name": agent,
        "run_index": run,
        "completion_status": status,
        "raw_score": raw,
        "logged_score": logged,
        "score_scale": scale,
        "verdict_source": None if kind is None else ("score" if kind == "score" else "legacy"),
        "score_lines_found": score_lines,
        "final_system_message": message,
        "turn_count": len(turns),
        "agent_log_processed": True,
        "parsing_errors": errors,
        "file_size_bytes": size,
        "task_start_ms": start
        if type(document) is dict
        and type(start := document.get("taskStart")) in _NUMBER_TYPES
        and start == start
        else None,
        "stale_reason": None,
    }


def analyze_json_file(
    path: str | os.PathLike[str], score_scale: float | None = None, max_bytes: int = DEFAULT_MAX_LOG_BYTES
) -> dict[str, Any]:
    """Outcome dict of one agent log file (keys in the module docstring). Never raises on content.

    `score_scale` is the full score (100 for construction, 1 otherwise); None infers it from the
    logged number. An unreadable or refused file (missing, no permission, not a regular file, over
    `max_bytes`) is a LOG_FILE_ERROR too.
    """
    path_text = os.fspath(path)
    file_name = os.path.basename(path_text)
    if os.path.islink(path_text):  # a path given by hand is followed; the type and size checks still apply
        path_text = os.path.realpath(path_text)
    try:
        data = read_bytes(path_text, max_bytes)
    except RefusedFile as refusal:
        return _error(file_name, f"not read: {refusal}", None)
    except OSError as error:
        return _error(file_name, f"unreadable: {error.strerror or error}", None)
    return analyze_log_bytes(file_name, data, score_scale)


def read_outcome(
    path: str, file_name: str, agent: str, run: int, max_bytes: int = DEFAULT_MAX_LOG_BYTES
) -> dict[str, Any]:
    """`analyze_json_file` for a listed agent log (no name parsing; the folder loop's call)."""
    try:
        data = read_bytes(path, max_bytes)
    except RefusedFile as refusal:
        return _error(file_name, f"not read: {refusal}", None)
    except OSError as error:
        return _error(file_name, f"unreadable: {error.strerror or error}", None)
    return outcome_from_bytes(file_name, agent, run, data, None)


def rescale_outcome(outcome: dict[str, Any], score_scale: float) -> dict[str, Any]:
    """The same log outcome under another score scale (used once a folder's task type is known)."""
    if not outcome["agent_log_processed"] or outcome["score_scale"] == score_scale:
        return outcome
    if outcome["verdict_source"] != "score":
        return {**outcome, "score_scale": score_scale}
    errors = [note for note in outcome["parsing_errors"] if "clipped" not in note]
    status, raw = classify_verdict("score", outcome["logged_score"], score_scale, errors)
    return {
        **outcome,
        "score_scale": score_scale,
        "completion_status": status.value,
        "raw_score": raw,
        "parsing_errors": errors,
    }
