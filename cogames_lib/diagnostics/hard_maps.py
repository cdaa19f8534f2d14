"""Hard-tier maps: drawn from the episode seed, kept only when the oracle certifies them.

`certified_map(diagnostic, seed, num_agents)` draws a map from `stable_hash("hard-map", name, seed,
num_agents, draw)` for draw = 0, 1, ...: the base map is mirrored at random, station-free rows and columns
are copied in (larger rooms, longer corridors, targets pushed out of view), wall baffles are added. A draw
is accepted when (1) the view conditions of its parameter row hold for the episode's spawns, (2) the
oracle's lower bound on steps for those spawns is finite (what the episode needs is reachable) and at most
`CERTIFY_SHARE` x max_steps, and (3) for search diagnostics, an 11-wide sweep of every open cell plus that
bound fits in max_steps. A rejected draw is drawn again from the next derived seed, at most `MAX_DRAWS`
times, each time with 1/16 less stretch, so the last draw adds no rows or columns (mirror and baffles only).
That fallback exists because a seed's spawns can defeat every stretched draw (measured: `memory_hard`, whose
chest must stay in view, failed 1 of 300 unseen seeds in the first 8 draws); a seed with no accepted draw
still raises `MapError`.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from cogames_lib.cvc.maps import SPAWN, WALKABLE, GridMap
from cogames_lib.cvc.observation import VIEW_RADIUS, VIEW_SIZE
from cogames_lib.cvc.world import World
from cogames_lib.diagnostics.hard_parameters import HardParameters
from cogames_lib.diagnostics.oracle_bound import world_bound
from cogames_lib.diagnostics.shipped_maps import shipped_map
from cogames_lib.errors import MapError
from cogames_lib.seeding import stable_hash

if TYPE_CHECKING:
    from cogames_lib.diagnostics.catalogue import Diagnostic

CERTIFY_SHARE = 0.8
MAX_DRAWS = 17  # stretch 1 - draw/16: draws 0..7 as first shipped, then down to no stretch at all
_MOVABLE = frozenset({"empty", "wall"})  # a row or column of only these may be copied


@dataclass(frozen=True)
class Certificate:
    """A certified hard map and the evidence: the bound, the draw that passed, the open-cell sweep."""

    grid_map: GridMap
    bound: int
    draw: int
    sweep_steps: int


def _copyable(line: tuple[str, ...]) -> bool:
    return set(line) <= _MOVABLE and "empty" in line


def _stretch_rows(cells: list[list[str]], count: int, rng: random.Random) -> list[list[str]]:
    for _ in range(count):
        candidates = [r for r in range(1, len(cells) - 1) if _copyable(tuple(cells[r]))]
        if not candidates:
            break
        row = rng.choice(candidates)
        cells.insert(row, list(cells[row]))
    return cells


def _transpose(cells: list[list[str]]) -> list[list[str]]:
    return [list(column) for column in zip(*cells, strict=True)]


def _add_baffle(cells: list[list[str]], rng: random.Random) -> None:
    """Wall off the longest open vertical run of a random open column, except one end cell (the gap)."""
    height, width = len(cells), len(cells[0])
    columns = [c for c in range(2, width - 2) if _copyable(tuple(cells[r][c] for r in range(height)))]
    rng.shuffle(columns)
    for column in columns[:4]:
        runs, start = [], None
        for r in range(height + 1):
            open_cell = r < height and cells[r][column] == "empty"
            if open_cell and start is None:
                start = r
            elif not open_cell and start is not None:
                runs.append((start, r))
                start = None
        runs = [run for run in runs if run[1] - run[0] >= 4]
        if runs:
            top, bottom = max(runs, key=lambda run: run[1] - run[0])
            gap = top if rng.random() < 0.5 else bottom - 1
            for r in range(top, bottom):
                if r != gap:
                    cells[r][column] = "wall"
            return


def draw_map(
    base: GridMap, parameters: HardParameters, rng: random.Random, scale: float, name: str
) -> GridMap:
    """One draw: mirrored, stretched and baffled base map (no certification)."""
    cells = [list(row) for row in base.cells]
    if rng.random() < 0.5:
        cells = [row[::-1] for row in cells]
    if rng.random() < 0.5:
        cells = cells[::-1]
    extra_rows = round(parameters.extra_rows * scale)
    extra_cols = round(parameters.extra_cols * scale)
    cells = _stretch_rows(cells, rng.randint(math.ceil(extra_rows / 2), extra_rows), rng)
    cells = _transpose(
        _stretch_rows(_transpose(cells), rng.randint(math.ceil(extra_cols / 2), extra_cols), rng)
    )
    for _ in range(round(parameters.baffles * scale)):
        _add_baffle(cells, rng)
    frozen = tuple(tuple(row) for row in cells)
    spawns = tuple((r, c) for r, row in enumerate(frozen) for c, obj in enumerate(row) if obj == SPAWN)
    return GridMap(name=name, source=f"<{name}>", cells=frozen, spawns=spawns, map_type=base.map_type)


def _views_hold(grid_map: GridMap, parameters: HardParameters, spawns: list[tuple[int, int]]) -> bool:
    """`in_view` objects are seen from at least one of the episode's spawns, `out_of_view` ones from none."""
    for object_name in (*parameters.in_view, *parameters.out_of_view):
        targets = grid_map.positions_of(object_name)
        seen = any(
            abs(r - tr) <= VIEW_RADIUS and abs(c - tc) <= VIEW_RADIUS for r, c in spawns for tr, tc in targets
        )
        if seen != (object_name in parameters.in_view):
            return False
    return True


def open_cell_sweep(grid_map: GridMap) -> int:
    """Steps an 11-wide view needs, at least, to pass over every open cell once (open cells / 11)."""
    open_cells = sum(name in WALKABLE for row in grid_map.cells for name in row)
    return math.ceil(open_cells / VIEW_SIZE)


def certified_map(diagnostic: Diagnostic, seed: int, num_agents: int) -> Certificate:
    """The certified map of one hard episode (cached per name, seed and agent count)."""
    return _certified(_HardRecord(diagnostic.name, diagnostic), int(seed), int(num_agents))


def certified_grid_map(diagnostic: Diagnostic, seed: int, num_agents: int) -> GridMap:
    """The hard records' map source (`Diagnostic.map_source`, set by `hard_table`): the certified map."""
    return certified_map(diagnostic, seed, num_agents).grid_map


@dataclass(frozen=True)
class _HardRecord:
    """The cache key of a hard record: its name (unique in the registry). The record itself holds dicts,
    so it is carried along but neither hashed nor compared."""

    name: str
    record: Diagnostic = field(hash=False, compare=False)


@lru_cache(maxsize=512)
def _certified(key: _HardRecord, seed: int, num_agents: int) -> Certificate:
    diagnostic = key.record
    parameters = diagnostic.hard
    assert parameters is not None, "certified_map is for hard-tier records"
    base = shipped_map(diagnostic.map_file)
    for draw in range(MAX_DRAWS):
        rng = random.Random(stable_hash("hard-map", diagnostic.name, seed, num_agents, draw))
        name = f"{diagnostic.map_name}_hard_s{seed}_d{draw}"
        grid_map = draw_map(base, parameters, rng, 1.0 - draw / 16, name)
        world = World(grid_map, num_agents, diagnostic.env_config(num_agents))
        world.reset(seed)  # the env resets with the same seed, so these are the episode's spawns
        if not _views_hold(grid_map, parameters, [(a.row, a.col) for a in world.agents]):
            continue
        bound = world_bound(world)
        sweep = open_cell_sweep(grid_map) if parameters.search else 0
        if bound <= CERTIFY_SHARE * diagnostic.max_steps and bound + sweep <= diagnostic.max_steps:
            return Certificate(grid_map, bound, draw, sweep)
    raise MapError(
        f"{diagnostic.name}: no certified hard map for seed {seed} and {num_agents} agent(s) in {MAX_DRAWS} draws"
    )
