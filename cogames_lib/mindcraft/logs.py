"""One Mindcraft agent log -> one outcome dict (`analyze_json_file`).

An agent log is `<Agent>_<server>_<run>.json`: a UTF-8 JSON object whose `turns` list holds the
conversation, or a bare list of turns (the shape of history files). The verdict is a `system` turn;
the messages of each era and their statuses are in `verdicts.py`.

Outcome dict keys (one row of the `mindcraft_agents` table; every text is valid UTF-8):

| key | meaning |
|---|---|
| `file_name` | log file name (printable: `files.display_text`) |
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

Decoding. msgspec reads the log typed to its shape: the `turns` list, each turn told apart by its
`role` (only a system turn can hold a verdict, so only its `content` is decoded; the others are skipped)
and `taskStart`; every other field is skipped too, but still checked as JSON, so a truncated or corrupt
log is refused. Real logs are whole LLM conversations (tens to hundreds of KB): this reads them in well
under half the time `json.load` takes (docs/mindcraft.md, "Speed"). msgspec does not check UTF-8 (checked
first when the bytes are not ASCII) and refuses what Python's json accepts (`NaN`, a byte-order mark,
lone-surrogate escapes such as `\\ud83d` from broken emoji, a turn that is no object or has a role other
than system, user or assistant): such a log goes to the standard library, the reference reader, which also
words every error. A hypothesis test pins both readers to the same outcome.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from typing import Any

import msgspec

from cogames_lib.mindcraft.files import (
    DEFAULT_MAX_LOG_BYTES,
    RefusedFile,
    display_text,
    read_regular_file,
    valid_text,
)
from cogames_lib.mindcraft.verdicts import SCORE_NOTES, classify_verdict, find_verdict, infer_score_scale
from cogames_lib.outcomes import CompletionStatus

AGENT_LOG_NAME = re.compile(r"^(?P<agent>[A-Za-z]+_\d+)_(?P<run>\d+)\.json$")

_NO_SCORE = CompletionStatus.NO_SCORE_LOGGED.value
_LOG_FILE_ERROR = CompletionStatus.LOG_FILE_ERROR.value


class _SystemTurn(msgspec.Struct, tag_field="role", tag="system", gc=False):
    content: Any = None


class _UserTurn(msgspec.Struct, tag_field="role", tag="user", gc=False):
    """No fields: its content is skipped (still checked as JSON), with no object made for it."""


class _AssistantTurn(msgspec.Struct, tag_field="role", tag="assistant", gc=False):
    """As `_UserTurn`."""


_Turn = _SystemTurn | _UserTurn | _AssistantTurn


class _Log(msgspec.Struct, gc=False):
    turns: list[_Turn] | msgspec.UnsetType = msgspec.UNSET
    taskStart: Any = None


_decode_log = msgspec.json.Decoder(_Log | list[_Turn]).decode


def parse_agent_log_name(file_name: str) -> tuple[str, int] | None:
    """(agent_name, run_index) from `Andy_0_1.json`, or None when the name is not an agent log."""
    match = AGENT_LOG_NAME.match(file_name)
    return None if match is None else (match["agent"], int(match["run"]))


def error_outcome(
    file_name: str, agent: str | None, run: int | None, reason: str, size: int | None
) -> dict[str, Any]:
    """The outcome of a log that could not be read or parsed (LOG_FILE_ERROR with its reason)."""
    outcome = _judged(file_name, agent, run, (), None, [reason], size, None, None)
    outcome.update(completion_status=_LOG_FILE_ERROR, score_scale=None, agent_log_processed=False)
    return outcome


def _fast_read(data: bytes) -> tuple[Any, Any, list[Any]] | None:
    """(turns, taskStart, system-turn contents from the last turn back) read by msgspec, or None when
    msgspec cannot judge the log (the standard library then reads it). turns is UNSET without a
    `turns` list."""
    if not data.isascii():
        try:  # msgspec does not check UTF-8
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        document = _decode_log(data)
    except (msgspec.MsgspecError, RecursionError):
        return None
    turns, start = (document, None) if type(document) is list else (document.turns, document.taskStart)
    if turns is msgspec.UNSET:
        return turns, start, []
    return turns, start, [turn.content for turn in reversed(turns) if type(turn) is _SystemTurn]


def _standard_read(data: bytes) -> tuple[Any, Any, list[Any], list[str]] | str:
    """(turns, taskStart, system contents from the last turn back, notes) as Python's json reads the log,
    or why it holds no log."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"not UTF-8: byte 0x{data[error.start]:02x} at offset {error.start}"
    try:
        document = json.loads(text.removeprefix("\ufeff"))
    except ValueError as error:  # JSONDecodeError
        return f"not JSON: {error}"
    except RecursionError:
        return "not JSON: nesting too deep"
    if type(document) is dict:
        turns, start = document.get("turns", msgspec.UNSET), document.get("taskStart")
        if type(turns) is not list:
            return turns, start, [], []
    elif type(document) is list:
        turns, start = document, None
    else:
        return f"wrong shape: top level is {type(document).__name__}"
    objects = [turn for turn in turns if type(turn) is dict]
    malformed = len(turns) - len(objects)
    notes = [f"{malformed} malformed turn(s) skipped (not an object)"] if malformed else []
    contents = [turn.get("content") for turn in reversed(objects) if turn.get("role") == "system"]
    return turns, start, contents, notes


def outcome_from_bytes(
    file_name: str, agent: str | None, run: int | None, data: bytes, score_scale: float | None = None
) -> dict[str, Any]:
    """The outcome dict of one log given its bytes and its parsed name. Never raises on any content."""
    size = len(data)
    if size == 0:
        return error_outcome(file_name, agent, run, "empty file", 0)
    fast = _fast_read(data)
    if fast is not None:
        turns, start, contents = fast
        errors: list[str] = []
    else:
        standard = _standard_read(data)
        if isinstance(standard, str):
            return error_outcome(file_name, agent, run, standard, size)
        turns, start, contents, errors = standard
    if type(turns) is not list:
        return error_outcome(file_name, agent, run, "wrong shape: object without a 'turns' list", size)
    return _judged(file_name, agent, run, contents, len(turns), errors, size, start, score_scale)


def _judged(
    file_name: str,
    agent: str | None,
    run: int | None,
    contents: Iterable[Any],
    turn_count: int | None,
    errors: list[str],
    size: int | None,
    start: Any,
    score_scale: float | None,
) -> dict[str, Any]:
    """The outcome dict of a log read whole: its verdict, if any, from its system-turn contents."""
    kind, message, logged, score_lines = find_verdict(contents)
    if score_lines > 1:
        errors.append(f"{score_lines} score lines; the last one counts")
    scale = score_scale if score_scale is not None else infer_score_scale(logged)
    status, raw = (_NO_SCORE, None) if kind is None else classify_verdict(kind, logged, scale, errors)
    return {
        "file_name": display_text(file_name),
        "agent_name": agent,
        "run_index": run,
        "completion_status": str(status),
        "raw_score": raw,
        "logged_score": logged,
        "score_scale": scale,
        "verdict_source": None if kind is None else ("score" if kind == "score" else "legacy"),
        "score_lines_found": score_lines,
        "final_system_message": None if message is None else valid_text(message),
        "turn_count": turn_count,
        "agent_log_processed": True,
        "parsing_errors": errors,
        "file_size_bytes": size,
        # a time is a number; bool is no time, and NaN (start != start) neither
        "task_start_ms": start if type(start) in (int, float) and start == start else None,
        "stale_reason": None,
    }


def analyze_log_bytes(file_name: str, data: bytes, score_scale: float | None = None) -> dict[str, Any]:
    """The outcome dict of one log given its bytes. Never raises on any content."""
    agent, run = parse_agent_log_name(file_name) or (None, None)
    return outcome_from_bytes(file_name, agent, run, data, score_scale)


def read_outcome(
    path: str,
    file_name: str,
    agent: str | None,
    run: int | None,
    max_bytes: int = DEFAULT_MAX_LOG_BYTES,
    score_scale: float | None = None,
) -> dict[str, Any]:
    """The outcome of the log file at `path`; a file that cannot or may not be read is LOG_FILE_ERROR."""
    try:
        data = read_regular_file(path, max_bytes)
    except RefusedFile as refusal:
        return error_outcome(file_name, agent, run, f"not read: {refusal}", None)
    except OSError as error:
        return error_outcome(file_name, agent, run, f"unreadable: {error.strerror or error}", None)
    return outcome_from_bytes(file_name, agent, run, data, score_scale)


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
    agent, run = parse_agent_log_name(file_name) or (None, None)
    return read_outcome(path_text, file_name, agent, run, max_bytes, score_scale)


def rescale_outcome(outcome: dict[str, Any], score_scale: float) -> dict[str, Any]:
    """The same log outcome under another score scale (used once a folder's task type is known)."""
    if not outcome["agent_log_processed"] or outcome["score_scale"] == score_scale:
        return outcome
    if outcome["verdict_source"] != "score":
        return {**outcome, "score_scale": score_scale}
    errors = [note for note in outcome["parsing_errors"] if not note.startswith(SCORE_NOTES)]
    status, raw = classify_verdict("score", outcome["logged_score"], score_scale, errors)
    return {
        **outcome,
        "score_scale": score_scale,
        "completion_status": status.value,
        "raw_score": raw,
        "parsing_errors": errors,
    }
