"""Log bytes -> what the classifier needs (`decode_turns`), else the JSON document or why there is none.

Three readers, fastest first; each one that gives up hands the bytes to the next, so the result is the
standard library's reading of the log (the reference) whichever reader produced it:

1. msgspec (`decode_turns`), typed to a log's shape: a `turns` list of objects and `taskStart`; every
   other field is skipped, but still checked as JSON (a truncated or corrupt log is refused). It builds
   small slotted objects instead of dicts, and a log whose bytes hold no verdict marker gets its turns as
   empty objects (only their number and kind matter): about half the time of a full parse. msgspec does
   not check UTF-8, so non-ASCII bytes are checked first. Anything else (a turn that is no object, no
   list of turns, `NaN`, a BOM, lone surrogates, ...) goes on to
2. orjson (`decode_log`): the whole document from the bytes, UTF-8 checked; what it rejects goes to
3. the standard library, which also words the error. Mindcraft logs hold lone-surrogate escapes such as
   `\\ud83d` from broken emoji: valid for Python's json, refused by orjson and msgspec.
"""

from __future__ import annotations

import json
import json.scanner
import re
from typing import Any

import msgspec

try:  # a speed-up, not a requirement: without it every log takes the standard-library path
    import orjson

    _orjson_loads: Any = orjson.loads
    _OrjsonError: Any = orjson.JSONDecodeError
except ImportError:  # pragma: no cover - orjson is pinned in requirements.lock
    _orjson_loads = None
    _OrjsonError = ValueError

# The C scanner behind json.loads, called directly: saves three Python-level calls per log.
_scan_once = getattr(json.scanner, "c_make_scanner", None)
_scan_once = _scan_once(json.JSONDecoder()) if _scan_once is not None else None
_JSON_WHITESPACE = re.compile(r"[ \t\n\r]*")


class Turn(msgspec.Struct, gc=False):
    """One turn of a log, as the verdict search reads it (a dict turn is wrapped in one: `as_turn`)."""

    role: Any = None
    content: Any = None


class _Opaque(msgspec.Struct, gc=False):
    """A JSON object whose fields are skipped (still checked as JSON): a turn when no verdict is sought."""


class _LogTurns(msgspec.Struct, gc=False):
    turns: list[Turn] | msgspec.UnsetType = msgspec.UNSET
    taskStart: Any = None


class _LogCount(msgspec.Struct, gc=False):
    turns: list[_Opaque] | msgspec.UnsetType = msgspec.UNSET
    taskStart: Any = None


_decode_with_turns = msgspec.json.Decoder(_LogTurns | list[Turn]).decode
_decode_counting = msgspec.json.Decoder(_LogCount | list[_Opaque]).decode
_GAVE_UP = (msgspec.MsgspecError, RecursionError)
# `decode_turns` for an object without a `turns` key (the shape error is worded by the caller)
NO_TURNS: Any = msgspec.UNSET


def decode_turns(data: bytes, read_turns: bool) -> tuple[Any, Any, bool] | None:
    """(turns, taskStart, top level is an object) of a log whose turns are all objects, or None: then
    `decode_log` decides. `read_turns`: give each turn's role and content (`Turn`), else only their
    number. turns is `NO_TURNS` for an object without a `turns` key; taskStart is None when absent."""
    if not data.isascii():
        try:  # msgspec does not check UTF-8; orjson and the stdlib word the error
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        document = (_decode_with_turns if read_turns else _decode_counting)(data)
    except _GAVE_UP:
        return None
    if type(document) is list:
        return document, None, False
    return document.turns, document.taskStart, True


def as_turn(turn: dict[str, Any]) -> Turn:
    return Turn(turn.get("role"), turn.get("content"))


def parse_json_text(text: str) -> Any:
    """json.loads, minus its Python-level layers when the text is a bare JSON value (the usual log)."""
    if _scan_once is not None:
        try:
            document, end = _scan_once(text, 0)
            if end == len(text) or _JSON_WHITESPACE.fullmatch(text, end) is not None:
                return document
        except StopIteration:  # leading whitespace or no value at all: let json.loads decide
            pass
    return json.loads(text)


class LogProblem:
    """Why a log is no JSON document (a class, so the hot path tests `type(x) is _Problem`)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def stdlib_document(data: bytes) -> Any:
    """The standard library's reading of what orjson rejected (or of everything, without orjson)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return LogProblem(f"not UTF-8: byte 0x{data[error.start]:02x} at offset {error.start}")
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        return parse_json_text(text)
    except ValueError as error:  # JSONDecodeError
        return LogProblem(f"not JSON: {error}")
    except RecursionError:
        return LogProblem("not JSON: nesting too deep")


def decode_log(data: bytes) -> Any:
    """The document `data` holds (a non-empty log's bytes), or a `LogProblem` saying why it holds none."""
    try:
        return _orjson_loads(data)
    except (
        _OrjsonError,
        TypeError,
    ):  # NaN, lone surrogates, a BOM, bad UTF-8: the stdlib decides and explains
        return stdlib_document(data)
