"""Mirror images of a diagnostic's map: the same layout, distances and budget, with the directions changed.

A control for a policy trained on the normal tier's fixed maps: it may have learned to navigate (find the
chest it sees, walk round a wall) or only memorised its routes ("east 5, north 3"). A mirror image keeps
everything a navigator uses and breaks every memorised route, where the hard tier changes size and layout
as well and so cannot tell the two apart. Each mirror is an ordinary custom variant
(`Diagnostic.variant`, named `<diagnostic>@<map>_mirror_<kind>`), so `run_episode` and `run_sweep` take it
like any record. Spawns are renumbered in row-major order, as for every map, so in a mirror a team's
agents may start on each other's cells.
"""

from __future__ import annotations

from collections.abc import Iterable

from cogames_lib.cvc.maps import SPAWN, GridMap
from cogames_lib.diagnostics.catalogue import Diagnostic
from cogames_lib.diagnostics.registry import get_diagnostic
from cogames_lib.errors import ParameterError

# kind -> (flip the rows top to bottom, flip each row left to right)
MIRRORS: dict[str, tuple[bool, bool]] = {
    "left_right": (False, True),
    "top_bottom": (True, False),
    "both": (True, True),
}


def mirrored_map(grid_map: GridMap, kind: str) -> GridMap:
    """`grid_map` mirrored by `kind` (a key of `MIRRORS`)."""
    if kind not in MIRRORS:
        raise ParameterError(f"mirror: kind must be one of {sorted(MIRRORS)}, got {kind!r}")
    flip_rows, flip_cols = MIRRORS[kind]
    rows = grid_map.cells[::-1] if flip_rows else grid_map.cells
    cells = tuple(row[::-1] if flip_cols else row for row in rows)
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
    diagnostics: Iterable[Diagnostic | str], kinds: Iterable[str] = tuple(MIRRORS)
) -> list[Diagnostic]:
    """Every diagnostic on every mirror of its map, in that order."""
    return [mirrored(diagnostic, kind) for diagnostic in diagnostics for kind in kinds]
