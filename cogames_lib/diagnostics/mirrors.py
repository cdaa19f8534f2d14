"""Mirror images and rotations of a diagnostic's map: the same layout, distances and budget, with the
directions changed.

A control for a policy trained on the normal tier's fixed maps: it may have learned to navigate (find the
chest it sees, walk round a wall) or only memorised its routes ("east 5, north 3"). A mirror image keeps
everything a navigator uses and breaks every memorised route, where the hard tier changes size and layout
as well and so cannot tell the two apart. Each mirror is an ordinary custom variant
(`Diagnostic.variant`, named `<diagnostic>@<map>_mirror_<kind>`), so `run_episode` and `run_sweep` take it
like any record. Spawns are renumbered in row-major order, as for every map, so in a mirror a team's
agents may start on each other's cells.

The eight symmetries of a rectangle's grid (the identity and `SYMMETRIES`) come in two sets of four:
`MIRRORS` (the flips, which keep the map's shape) and `TRANSPOSES` (a reflection in a diagonal, alone or
followed by a flip: the two diagonal mirrors and the quarter turns; a height x width map becomes width x
height). Training on the identity and `MIRRORS` (`PPOConfig.map_symmetries`) and evaluating on `TRANSPOSES`
tests navigation on layouts the agent has never seen, with everything else held equal. A quarter turn is a
diagonal mirror followed by a flip; every symmetry's map is named `<map>_mirror_<kind>`.
"""

from __future__ import annotations

from collections.abc import Iterable

from cogames_lib.cvc.maps import SPAWN, GridMap
from cogames_lib.diagnostics.catalogue import Diagnostic
from cogames_lib.diagnostics.registry import get_diagnostic
from cogames_lib.errors import ParameterError

# kind -> (transpose (row r, column c) to (c, r) first, then flip the rows top to bottom, flip each row
# left to right)
SYMMETRIES: dict[str, tuple[bool, bool, bool]] = {
    "left_right": (False, False, True),
    "top_bottom": (False, True, False),
    "both": (False, True, True),
    "transpose": (True, False, False),
    "rotate_cw": (True, False, True),
    "rotate_ccw": (True, True, False),
    "anti_transpose": (True, True, True),
}
MIRRORS: tuple[str, ...] = tuple(kind for kind, (swap, _, _) in SYMMETRIES.items() if not swap)
TRANSPOSES: tuple[str, ...] = tuple(kind for kind, (swap, _, _) in SYMMETRIES.items() if swap)


def symmetry_kinds(kinds: Iterable[str]) -> tuple[str, ...]:
    """`kinds` checked (known, each once) and put in `SYMMETRIES` order: the same set names the same run."""
    given = list(kinds)
    unknown = sorted(set(given) - set(SYMMETRIES))
    if unknown:
        raise ParameterError(f"map_symmetries: unknown kind(s) {unknown}; the kinds are {list(SYMMETRIES)}")
    if len(set(given)) != len(given):
        raise ParameterError(f"map_symmetries: each kind at most once, got {given}")
    return tuple(kind for kind in SYMMETRIES if kind in given)


def mirrored_map(grid_map: GridMap, kind: str) -> GridMap:
    """`grid_map` mirrored or turned by `kind` (a key of `SYMMETRIES`)."""
    if kind not in SYMMETRIES:
        raise ParameterError(f"mirror: kind must be one of {sorted(SYMMETRIES)}, got {kind!r}")
    swap, flip_rows, flip_cols = SYMMETRIES[kind]
    rows = tuple(zip(*grid_map.cells, strict=True)) if swap else grid_map.cells
    rows = rows[::-1] if flip_rows else rows
    cells = tuple(tuple(row[::-1]) if flip_cols else tuple(row) for row in rows)
    spawns = tuple((r, c) for r, row in enumerate(cells) for c, name in enumerate(row) if name == SPAWN)
    name = f"{grid_map.name}_mirror_{kind}"
    return GridMap(name=name, source=f"<{name}>", cells=cells, spawns=spawns, map_type=grid_map.map_type)


def mirrored(diagnostic: Diagnostic | str, kind: str) -> Diagnostic:
    """The normal-tier `diagnostic` on its shipped map mirrored by `kind`: a custom variant."""
    record = get_diagnostic(diagnostic)
    if record.tier != "normal":
        raise ParameterError(
            f"mirror: {record.name} is a {record.tier}-tier record; mirror a normal-tier one"
        )
    return record.variant(map=mirrored_map(record.episode_map(0, 1), kind))


def mirror_control(
    diagnostics: Iterable[Diagnostic | str], kinds: Iterable[str] = tuple(SYMMETRIES)
) -> list[Diagnostic]:
    """Every diagnostic on every mirror of its map, in that order."""
    return [mirrored(diagnostic, kind) for diagnostic in diagnostics for kind in kinds]
