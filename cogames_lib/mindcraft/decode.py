"""Log bytes -> the JSON document, or why there is none: orjson first, the standard library for the rest.

orjson parses straight from the bytes and validates UTF-8 on the way. What it rejects goes through the
standard library, which also words the error: Mindcraft logs hold lone-surrogate escapes such as
`\\ud83d` from broken emoji (valid for Python's json, refused by orjson), `NaN`, or a byte-order mark.
"""

from __future__ import annotations

import json
import json.scanner
import re
from typing import Any

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
