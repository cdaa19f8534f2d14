"""Load and validate Cogs vs Clips `.map` files (the upstream YAML format).

A map file has `map_data` (a block string, one line per row, all rows the same width),
`char_to_map_name` (char -> object name) and `type` (kept, not interpreted). Every problem raises
`MapError` naming the file, the 1-based row and column of the grid, and what is wrong.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import MappingProxyType

import yaml

from cogames_lib.errors import MapError

SPAWN = "agent.agent"
HEART_CHEST = "chest"
FLOOR_KINDS = frozenset({"empty", "wall"})  # the cells that are not objects (stations or spawns)
# Object name -> the glyph the ASCII renderer and our own map files use.
OBJECT_GLYPHS: MappingProxyType[str, str] = MappingProxyType(
    {
        "empty": ".",
        "wall": "#",
        SPAWN: "@",
        "assembler": "&",
        HEART_CHEST: "=",
        "charger": "+",
        "carbon_extractor": "C",
        "oxygen_extractor": "O",
        "germanium_extractor": "G",
        "silicon_extractor": "S",
        "chest_carbon": "1",
        "chest_oxygen": "2",
        "chest_germanium": "3",
        "chest_silicon": "4",
    }
)
KNOWN_OBJECTS: frozenset[str] = frozenset(OBJECT_GLYPHS)
WALKABLE: frozenset[str] = frozenset({"empty", SPAWN})


@dataclass(frozen=True)
class GridMap:
    """A validated map: `cells[row][col]` is an object name; spawns in row-major order."""

    name: str
    source: str
    cells: tuple[tuple[str, ...], ...]
    spawns: tuple[tuple[int, int], ...]
    map_type: str = ""

    @property
    def height(self) -> int:
        return len(self.cells)

    @property
    def width(self) -> int:
        return len(self.cells[0])

    def positions_of(self, object_name: str) -> list[tuple[int, int]]:
        """The cells holding `object_name`, in row-major order."""
        if object_name in FLOOR_KINDS:
            return [
                (r, c)
                for r, row in enumerate(self.cells)
                for c, name in enumerate(row)
                if name == object_name
            ]
        return list(self._positions.get(object_name, ()))

    @cached_property
    def _positions(self) -> dict[str, list[tuple[int, int]]]:
        """Every station's and spawn's cells in row-major order, found in one pass (a hard map's
        certification asks often); rows of floor and walls alone, most rows of a large map, are skipped."""
        positions: dict[str, list[tuple[int, int]]] = {}
        for r, row in enumerate(self.cells):
            if FLOOR_KINDS.issuperset(row):
                continue
            for c, name in enumerate(row):
                if name not in FLOOR_KINDS:
                    positions.setdefault(name, []).append((r, c))
        return positions

    def to_ascii(self) -> str:
        return "\n".join("".join(OBJECT_GLYPHS[name] for name in row) for row in self.cells)

    def require_spawns(self, num_agents: int) -> None:
        if num_agents < 1:
            raise MapError(f"{self.source}: num_agents must be at least 1, got {num_agents}")
        if len(self.spawns) < num_agents:
            raise MapError(
                f"{self.source}: too few spawns: {num_agents} agents requested, the map has {len(self.spawns)}"
            )


def load_map(path: str | Path, num_agents: int | None = None) -> GridMap:
    """Read and validate a `.map` file; with `num_agents`, also check there are enough spawns."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise MapError(f"{path}: cannot read map file ({error.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise MapError(
            f"{path}: line {line}, column {column}: not UTF-8 (byte 0x{raw[error.start]:02x})"
        ) from None
    grid_map = parse_map_text(text, source=str(path), name=path.stem)
    if num_agents is not None:
        grid_map.require_spawns(num_agents)
    return grid_map


def parse_map_text(text: str, source: str = "<string>", name: str = "map") -> GridMap:
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise MapError(f"{source}: {where}not valid YAML ({getattr(error, 'problem', error)})") from None
    if not isinstance(document, dict):
        raise MapError(f"{source}: expected a YAML mapping with map_data and char_to_map_name")
    for key in ("map_data", "char_to_map_name"):
        if key not in document:
            raise MapError(f"{source}: missing key {key!r}")
    map_data, legend = document["map_data"], document["char_to_map_name"]
    if not isinstance(map_data, str) or not map_data.strip():
        raise MapError(f"{source}: map_data must be a non-empty block string")
    if not isinstance(legend, dict):
        raise MapError(f"{source}: char_to_map_name must be a mapping of char -> object name")
    legend = {str(char): str(object_name) for char, object_name in legend.items()}
    rows = map_data.split("\n")
    while rows and not rows[-1].strip():
        rows.pop()
    cells = _decode_rows(rows, legend, source, _first_grid_line(text))
    spawns = tuple((r, c) for r, row in enumerate(cells) for c, obj in enumerate(row) if obj == SPAWN)
    if not spawns:
        raise MapError(f"{source}: no spawn: no cell is 'agent.agent'")
    _check_heart_chest_reachable(cells, spawns, source)
    return GridMap(
        name=name, source=source, cells=cells, spawns=spawns, map_type=str(document.get("type", ""))
    )


def _first_grid_line(text: str) -> int | None:
    """The 1-based line of the file that holds grid row 1 (so errors can name the line an editor shows)."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return None
    for key, value in getattr(root, "value", []):
        if getattr(key, "value", None) == "map_data":
            # A block scalar (`|-`) starts on the line after its indicator; a plain string on its own line.
            return value.start_mark.line + (2 if value.style in ("|", ">") else 1)
    return None


def _where(first_line: int | None, r: int) -> str:
    return f"line {first_line + r}: " if first_line is not None else ""


def _decode_rows(
    rows: list[str], legend: dict[str, str], source: str, first_line: int | None = None
) -> tuple[tuple[str, ...], ...]:
    width = len(rows[0])
    cells = []
    for r, row in enumerate(rows):
        where = _where(first_line, r)
        if len(row) != width:
            raise MapError(
                f"{source}: {where}row {r + 1}: ragged row: {len(row)} chars, expected {width} (as row 1)"
            )
        decoded = []
        for c, char in enumerate(row):
            object_name = legend.get(char)
            if object_name is None:
                raise MapError(
                    f"{source}: {where}row {r + 1}, column {c + 1}: unknown char {char!r} (not in char_to_map_name)"
                )
            if object_name not in KNOWN_OBJECTS:
                raise MapError(
                    f"{source}: {where}row {r + 1}, column {c + 1}: unknown object name {object_name!r} for char {char!r}"
                )
            decoded.append(object_name)
        cells.append(tuple(decoded))
    return tuple(cells)


def _check_heart_chest_reachable(
    cells: tuple[tuple[str, ...], ...], spawns: tuple[tuple[int, int], ...], source: str
) -> None:
    """Flood fill from the spawns over walkable cells; stations block but can be used from a neighbour."""
    chests = [(r, c) for r, row in enumerate(cells) for c, obj in enumerate(row) if obj == HEART_CHEST]
    if not chests:
        raise MapError(f"{source}: no heart chest: no cell is 'chest'")
    height, width = len(cells), len(cells[0])
    seen = set(spawns)
    frontier = deque(spawns)
    while frontier:
        r, c = frontier.popleft()
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < height and 0 <= nc < width and (nr, nc) not in seen and cells[nr][nc] in WALKABLE:
                seen.add((nr, nc))
                frontier.append((nr, nc))
    for r, c in chests:
        neighbours = ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
        if not any(cell in seen for cell in neighbours):
            raise MapError(f"{source}: row {r + 1}, column {c + 1}: unreachable heart chest from every spawn")
