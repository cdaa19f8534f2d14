"""How one notebook of a report ended (string-valued, so `report.json` and the index read it as text)."""

from __future__ import annotations

from enum import StrEnum


class NotebookStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"  # a cell raised, the kernel died, or the HTML export failed
    TIMED_OUT = "timed_out"  # a cell ran past the cell timeout
