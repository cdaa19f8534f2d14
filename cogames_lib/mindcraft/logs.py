"""One Mindcraft agent log -> one outcome dict (`analyze_json_file`).

An agent log is `<Agent>_<server>_<run>.json`: a UTF-8 JSON object whose `turns` list holds the
conversation, or a bare list of turns (the shape of history files). The verdict is a `system` turn;
the messages of each era and their statuses are in `verdicts.py`, the JSON decoding in `decode.py`.

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

import os
import re
from typing import Any

from cogames_lib.mindcraft.decode import NO_TURNS, LogProblem, as_turn, decode_log, decode_turns
from cogames_lib.mindcraft.files import DEFAULT_MAX_LOG_BYTES, RefusedFile, read_regular_file
from cogames_lib.mindcraft.verdicts import VERDICT_MARKERS, classify_verdict, find_verdict, infer_score_scale
from cogames_lib.outcomes import CompletionStatus

AGENT_LOG_NAME = re.compile(r"^(?P<agent>[A-Za-z]+_\d+)_(?P<run>\d+)\.json$")

_NO_SCORE = CompletionStatus.NO_SCORE_LOGGED.value
_LOG_FILE_ERROR = CompletionStatus.LOG_FILE_ERROR.value
_NUMBER_TYPES = (int, float)  # taskStart; `start == start` leaves out NaN, which is no time


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
    marker, escape = VERDICT_MARKERS
    # searched from the end: a verdict sits in the last turns, and rfind beats count and `in` here
    last = data.rfind(marker)
    mentions = 0 if last < 0 else 1 if data.rfind(marker, 0, last) < 0 else 2  # 2: more than once
    escaped = data.rfind(escape) >= 0
    walk = bool(mentions or escaped)
    errors: list[str] = []
    fast = decode_turns(data, walk)
    if fast is not None:  # the usual log: every turn an object
        turns, start, is_object = fast
        if turns is NO_TURNS:
            return _error(file_name, "wrong shape: object without a 'turns' list", size)
        turn_count = len(turns)
    else:
        document = decode_log(data)
        if type(document) is LogProblem:
            return _error(file_name, document.reason, size)
        if type(document) is dict:
            turns, start, is_object = document.get("turns"), document.get("taskStart"), True
            if type(turns) is not list:
                return _error(file_name, "wrong shape: object without a 'turns' list", size)
        elif type(document) is list:
            turns, start, is_object = document, None, False
        else:
            return _error(file_name, f"wrong shape: top level is {type(document).__name__}", size)
        turn_count = len(turns)
        objects = [turn for turn in turns if type(turn) is dict]
        if len(objects) < turn_count:
            errors.append(f"{turn_count - len(objects)} malformed turn(s) skipped (not an object)")
        turns = [as_turn(turn) for turn in objects] if walk else objects
    kind: str | None = None
    message: str | None = None
    logged: float | None = None
    score_lines = 0
    if walk:
        kind, message, logged, score_lines = find_verdict(turns, single=mentions == 1 and not escaped)
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
        "turn_count": turn_count,
        "agent_log_processed": True,
        "parsing_errors": errors,
        "file_size_bytes": size,
        "task_start_ms": start if is_object and type(start) in _NUMBER_TYPES and start == start else None,
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
