"""The finding record: one number a page shows, with its interval, n, unit and method.

Every capability computes its findings in one pure `findings(tables) -> list[Finding]` function next to its
summaries; notebooks write the records to `summary.json` (`findings_to_json`), and the report only renders
them (`findings_from_json`). A number shown on a page therefore has exactly one place that computes it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from cogames_lib.errors import DataFileError

# The units of analysis the spec names (spec/workbook.md, "Findings"); free text is allowed for others.
UNIT_SEEDS = "seeds"
UNIT_EPISODES = "episodes"
UNIT_TASKS = "task folders"
UNIT_CELLS = "cells"


def interval_text(
    estimate: float,
    low: float | None = None,
    high: float | None = None,
    n: int | None = None,
    unit: str = "",
    digits: int = 2,
    stacked: bool = False,
) -> str:
    """The one way the library writes a number with its uncertainty: "0.59 [0.47, 0.71] (n = 64 episodes)".

    No interval (None or nan bounds) reads "(no interval)"; below two units an interval is never shown,
    because an interval from one seed is not one. `n` and `unit` are optional. `stacked` writes the same
    parts one per line and tight ("0.59\n[0.47,0.71]\nn=64"), for a figure's small cells.
    """
    if stacked:
        text = interval_text(estimate, low, high, n, unit, digits)
        return (
            text.replace(", ", ",")
            .replace(" [", "\n[")
            .replace(" (no interval)", "\n(no interval)")
            .replace(" (n = ", "\nn=")
            .removesuffix(")")
            if n is not None
            else text.replace(", ", ",").replace(" [", "\n[")
        )
    if estimate is None or (isinstance(estimate, float) and math.isnan(estimate)):
        core = "n/a"
    else:
        core = f"{estimate:.{digits}f}"
    has_interval = (
        low is not None
        and high is not None
        and not (math.isnan(float(low)) or math.isnan(float(high)))
        and (n is None or n >= 2)
    )
    if has_interval:
        core += f" [{float(low):.{digits}f}, {float(high):.{digits}f}]"  # type: ignore[arg-type]
    elif low is not None or high is not None or (n is not None and n < 2):
        core += " (no interval)"
    if n is not None:
        core += f" (n = {int(n)}{' ' + unit if unit else ''})"
    return core


@dataclass(frozen=True)
class Finding:
    """One headline number and the sentence that states it.

    `text` is the full sentence a page shows; `estimate`, `low`, `high`, `n`, `unit` and `method` are the
    number behind it (None where a finding is a statement without one); `figure` names the PNG (in the
    notebook's output folder) the finding reads from, `source` the table it is computed from.
    """

    capability: str
    key: str
    text: str
    estimate: float | None = None
    low: float | None = None
    high: float | None = None
    n: int | None = None
    unit: str = ""
    method: str = ""
    figure: str | None = None
    source: str = ""

    def number_text(self, digits: int = 2) -> str:
        """The number with its interval and n, as `interval_text` writes it ("" when there is none)."""
        if self.estimate is None:
            return ""
        return interval_text(self.estimate, self.low, self.high, self.n, self.unit, digits)

    def to_dict(self) -> dict[str, Any]:
        record = asdict(self)
        for name in ("estimate", "low", "high"):
            value = record[name]
            if value is not None and isinstance(value, float) and math.isnan(value):
                record[name] = None  # JSON has no nan
        return record


FINDING_FIELDS: tuple[str, ...] = tuple(field.name for field in fields(Finding))


def findings_to_json(findings: Iterable[Finding]) -> list[dict[str, Any]]:
    """The records as plain dicts for `summary.json` (nan becomes null)."""
    return [finding.to_dict() for finding in findings]


def findings_from_json(records: Sequence[Mapping[str, Any]], source: str = "summary.json") -> list[Finding]:
    """Read records written by `findings_to_json`; a malformed record names its position and field."""
    out: list[Finding] = []
    for position, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise DataFileError(f"{source}: finding {position} is not an object")
        unknown = set(record) - set(FINDING_FIELDS)
        if unknown:
            raise DataFileError(f"{source}: finding {position} has unknown field(s) {sorted(unknown)}")
        for required in ("capability", "key", "text"):
            if not isinstance(record.get(required), str):
                raise DataFileError(f"{source}: finding {position} needs a text field {required!r}")
        out.append(Finding(**dict(record)))
    return out
