"""The one exception hierarchy of cogames_lib.

Every error a user can cause (a bad map, an unknown diagnostic, a bad parameter, a malformed file)
is a subclass of `CogamesLibError` whose message is one line a user can act on: it names the file,
row, column or parameter that is wrong. The CLI prints such messages without a traceback.
"""

from __future__ import annotations


class CogamesLibError(Exception):
    """Base class of every error cogames_lib raises on purpose."""


class ParameterError(CogamesLibError, ValueError):
    """A parameter value is not acceptable (names the parameter and the allowed values)."""


class MapError(CogamesLibError, ValueError):
    """A map file is malformed (names file, row, column and the problem)."""


class UnknownNameError(CogamesLibError, KeyError):
    """A lookup by name failed (lists close matches)."""

    def __str__(self) -> str:  # KeyError would otherwise repr() the message with quotes
        return str(self.args[0]) if self.args else ""


class PolicyLoadError(CogamesLibError, ImportError):
    """A policy import path could not be resolved."""


class DataFileError(CogamesLibError, ValueError):
    """An input data file (task definitions, probe CSV, orientation file...) is malformed."""


class TrainingError(CogamesLibError, RuntimeError):
    """A training run cannot go on (its policy's numbers are no longer finite)."""


class TaskError(CogamesLibError):
    """A task fanned out by `cogames_lib.parallel` crashed (raised, or its worker process died).

    The message names the task; `task` is its input and `traceback_text` the worker's traceback ("" when
    the worker died without one)."""

    def __init__(self, message: str, *, task: object = None, traceback_text: str = "") -> None:
        super().__init__(message)
        self.task = task
        self.traceback_text = traceback_text


def close_matches_message(kind: str, name: str, known: list[str]) -> str:
    """One-line message for an unknown name with up to three close matches."""
    import difflib

    matches = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(repr(m) for m in matches)}?" if matches else ""
    listed = ", ".join(known) if len(known) <= 6 else f"{len(known)}, e.g. {', '.join(known[:3])}"
    return f"unknown {kind} {name!r}{hint} (known: {listed})"
