"""Stag-hunt maps: sorrel's ASCII format, the shipped probe maps, and seeded random training maps.

ASCII legend (sorrel's): `W` wall, `A`/`P` agent spawn, `1` stag, `2` hare, `a` random resource (stag
or hare chosen per episode), space floor. Trailing whitespace is stripped and blank lines are dropped,
so the reference files load unchanged. Rows are padded with floor to the widest row; the outer ring
must be wall because the engine relies on it to stop moves and beams.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cogames_lib.errors import MapError, ParameterError
from cogames_lib.paths import STAGHUNT_MAPS_DIR
from cogames_lib.staghunt.rules import HARE, NO_RESOURCE, STAG

INTENTION_MAP_NAMES: tuple[str, ...] = tuple(f"test_intention_probe_test_{i}" for i in range(1, 5))
MULTI_STEP_MAP_NAME = "test_multi_step"
ORIENTATION_FILE_NAME = "agent_init_orientation_reference_probe_test.txt"

# Character -> what the cell holds. Random resources are resolved when an episode starts.
WALL, FLOOR, SPAWN, RANDOM_RESOURCE = "wall", "floor", "spawn", "random"
LEGEND: dict[str, tuple[str, int]] = {
    "W": (WALL, NO_RESOURCE),
    " ": (FLOOR, NO_RESOURCE),
    "A": (SPAWN, NO_RESOURCE),
    "P": (SPAWN, NO_RESOURCE),
    "1": (FLOOR, STAG.code),
    "2": (FLOOR, HARE.code),
    "a": (RANDOM_RESOURCE, NO_RESOURCE),
}


@dataclass(frozen=True)
class StagHuntMap:
    """A parsed map: wall mask, fixed resources, spawn cells (sorted by row, col), random-resource cells."""

    name: str
    walls: np.ndarray  # bool (rows, cols)
    resources: np.ndarray  # int8 (rows, cols), resource codes, 0 = none
    spawns: tuple[tuple[int, int], ...]
    random_resource_cells: tuple[tuple[int, int], ...] = ()

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.walls.shape[0]), int(self.walls.shape[1]))


def parse_stag_hunt_map_text(text: str, name: str = "<text>") -> StagHuntMap:
    """Parse sorrel's ASCII map text; errors name the file (`name`), line and column."""
    rows: list[tuple[int, str]] = []
    for line_number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if line:
            rows.append((line_number, line))
    if len(rows) < 3:
        raise MapError(f"{name}: a map needs at least 3 non-blank lines, found {len(rows)}")
    width = max(len(line) for _, line in rows)
    walls = np.zeros((len(rows), width), dtype=bool)
    resources = np.zeros((len(rows), width), dtype=np.int8)
    spawns: list[tuple[int, int]] = []
    randoms: list[tuple[int, int]] = []
    for row, (line_number, line) in enumerate(rows):
        for col, char in enumerate(line.ljust(width)):
            if char not in LEGEND:
                raise MapError(
                    f"{name}: line {line_number}, column {col + 1}: unknown map character {char!r} "
                    f"(known: {''.join(sorted(LEGEND)).strip()} and space)"
                )
            cell, resource = LEGEND[char]
            walls[row, col] = cell == WALL
            resources[row, col] = resource
            if cell == SPAWN:
                spawns.append((row, col))
            elif cell == RANDOM_RESOURCE:
                randoms.append((row, col))
    border = np.ones_like(walls)
    border[1:-1, 1:-1] = False
    if not walls[border].all():
        row, col = (int(v) for v in np.argwhere(border & ~walls)[0])
        raise MapError(
            f"{name}: line {rows[row][0]}, column {col + 1}: the outer ring of the map must be wall 'W'"
        )
    return StagHuntMap(name, walls, resources, tuple(sorted(spawns)), tuple(randoms))


def load_stag_hunt_map(path: str | Path) -> StagHuntMap:
    """Load an ASCII map file (the file is only read)."""
    path = Path(path)
    if not path.is_file():
        raise MapError(f"{path}: map file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise MapError(f"{path}: not a UTF-8 text map (byte {error.start}: {error.reason})") from None
    return parse_stag_hunt_map_text(text, name=str(path))


def shipped_map_path(map_name: str, maps_dir: str | Path | None = None) -> Path:
    """Path of a shipped map by name (without `.txt`)."""
    return Path(maps_dir or STAGHUNT_MAPS_DIR) / f"{map_name}.txt"


def random_map(
    rng: np.random.Generator, size: int = 13, resource_density: float = 0.1, stag_probability: float = 0.3
) -> StagHuntMap:
    """A fresh training map: wall border, each interior cell a resource with `resource_density`,
    a stag with `stag_probability` else a hare. Spawns are chosen by the engine among free cells."""
    if size < 5:
        raise ParameterError(f"map size must be >= 5, got {size}")
    if not 0 <= resource_density <= 1 or not 0 <= stag_probability <= 1:
        raise ParameterError(
            f"resource_density and stag_probability must be in [0, 1], got {resource_density}, "
            f"{stag_probability}"
        )
    walls = np.zeros((size, size), dtype=bool)
    walls[[0, -1], :] = True
    walls[:, [0, -1]] = True
    interior = rng.random((size, size)) < resource_density
    stag = rng.random((size, size)) < stag_probability
    resources = np.where(interior & ~walls, np.where(stag, STAG.code, HARE.code), NO_RESOURCE).astype(np.int8)
    return StagHuntMap("random", walls, resources, ())


def resolve_random_resources(
    grid: StagHuntMap, rng: np.random.Generator, stag_probability: float
) -> np.ndarray:
    """Resource array for one episode: each `a` cell becomes a stag or a hare."""
    resources = grid.resources.copy()
    for row, col in grid.random_resource_cells:
        resources[row, col] = STAG.code if rng.random() < stag_probability else HARE.code
    return resources
