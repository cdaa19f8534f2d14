"""Parser of sorrel's orientation reference file for the intention probe.

Each non-blank line (the reference has an irregular first line and no final newline, so the regex is
tolerant of wording, spacing and a missing `;`) reads like
`when agent is at row 6 col 8, orientation is 0, the orientation of facing stag is 3;`
and gives a spawn cell's initial orientation and the orientation that faces the stag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from cogames_lib.errors import DataFileError
from cogames_lib.staghunt.rules import NUM_ORIENTATIONS

_LINE = re.compile(
    r"row\s*(?P<row>-?\d+)\s*,?\s*col(?:umn)?\s*(?P<col>-?\d+)\s*,?"
    r".*?orientation\s+is\s*(?P<initial>-?\d+)\s*,?"
    r".*?facing\s+stag\s+is\s*(?P<stag>-?\d+)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SpawnOrientation:
    """Initial orientation of an agent spawned at a cell, and the orientation that faces the stag."""

    row: int
    col: int
    initial: int
    facing_stag: int

    @property
    def row_col(self) -> tuple[int, int]:
        return (self.row, self.col)


def parse_orientation_text(text: str, name: str = "<text>") -> dict[tuple[int, int], SpawnOrientation]:
    """(row, col) -> SpawnOrientation; errors name the file and line."""
    table: dict[tuple[int, int], SpawnOrientation] = {}
    for line_number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        match = _LINE.search(line)
        if match is None:
            raise DataFileError(
                f"{name}: line {line_number}: expected 'when agent is at row R col C, orientation is O, "
                f"the orientation of facing stag is S;', got {line[:80]!r}"
            )
        values = {key: int(value) for key, value in match.groupdict().items()}
        for key in ("initial", "stag"):
            if not 0 <= values[key] < NUM_ORIENTATIONS:
                raise DataFileError(
                    f"{name}: line {line_number}: orientation {values[key]} is outside 0..3 "
                    "(0 = N, 1 = E, 2 = S, 3 = W)"
                )
        cell = (values["row"], values["col"])
        if cell in table:
            raise DataFileError(f"{name}: line {line_number}: row {cell[0]} col {cell[1]} is listed twice")
        table[cell] = SpawnOrientation(cell[0], cell[1], values["initial"], values["stag"])
    if not table:
        raise DataFileError(f"{name}: no orientation lines found")
    return table


def load_orientation_reference(path: str | Path) -> dict[tuple[int, int], SpawnOrientation]:
    """Load the orientation reference file (only read, never modified)."""
    path = Path(path)
    if not path.is_file():
        raise DataFileError(f"{path}: orientation reference file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise DataFileError(f"{path}: not a UTF-8 text file (byte {error.start}: {error.reason})") from None
    return parse_orientation_text(text, name=str(path))
