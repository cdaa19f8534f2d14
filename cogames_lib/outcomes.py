"""The outcome model shared by every capability.

String-valued so statuses round-trip through CSV and parquet unchanged. The order of the members is
the fixed category order used by tables and plots (best first), and `STATUS_COLOURS` is the one colour
table every figure uses.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


class CompletionStatus(StrEnum):
    SUCCESS = "SUCCESS"
    FAILED_PARTIAL_SCORE = "FAILED_PARTIAL_SCORE"
    FAILED_SCORE_ZERO = "FAILED_SCORE_ZERO"
    TIMED_OUT = "TIMED_OUT"
    NO_SCORE_LOGGED = "NO_SCORE_LOGGED"
    LOG_FILE_ERROR = "LOG_FILE_ERROR"
    RUN_ERROR = "RUN_ERROR"


STATUS_ORDER: tuple[str, ...] = tuple(status.value for status in CompletionStatus)

# success green, partial amber, zero red, timeout purple, no-score grey, errors black (spec/workbook.md)
STATUS_COLOURS: dict[str, str] = {
    CompletionStatus.SUCCESS: "#2e9e44",
    CompletionStatus.FAILED_PARTIAL_SCORE: "#f0a202",
    CompletionStatus.FAILED_SCORE_ZERO: "#d1342f",
    CompletionStatus.TIMED_OUT: "#7b3fa0",
    CompletionStatus.NO_SCORE_LOGGED: "#9a9a9a",
    CompletionStatus.LOG_FILE_ERROR: "#111111",
    CompletionStatus.RUN_ERROR: "#111111",
}


def status_categorical(values: Iterable[Any]) -> pd.Categorical:
    """A pandas Categorical of statuses with the fixed category order."""
    import pandas as pd

    return pd.Categorical(values, categories=list(STATUS_ORDER), ordered=True)
