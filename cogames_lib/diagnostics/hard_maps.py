"""Hard-tier maps: drawn from the episode seed for a target difficulty, kept only when the oracle certifies them.

`certified_map(diagnostic, seed, num_agents)` draws a map from `stable_hash("hard-map", name, seed,
num_agents, draw)` for draw = 0, 1, ...:

1. the draw picks a target share of the budget from its row's `share_band` (the difficulty it aims at), a
   row weight (how much of the growth goes into rows rather than columns: tall, wide or square maps) and,
   for half of the first `MAX_DRAWS // 2` draws of a row with `serpentine`, lanes (walls across the map
   6-12 lines apart, gaps at alternate ends: `hard_layout.add_serpentine`, along columns or rows);
2. the base map is mirrored at random, then grown in stages (`hard_layout.grow`): after each stage the map
   is dressed (wall baffles, lanes, extra chargers, distractor stations, from one rng per draw) and the
   oracle's bound for the episode's spawns is computed; the next stage grows the map by about the factor
   still missing to the target (damped by `GROWTH_DAMPING`), until the bound reaches the target, exceeds
   `CERTIFY_SHARE` x max_steps, or the map reaches the row's `max_side`;
3. the last stage that passed certification is the draw's map: (a) the row's view conditions hold for the
   episode's spawns, (b) the bound is finite (what the episode needs is reachable) and at most
   `CERTIFY_SHARE` x max_steps, and (c) an agent that must first find what it needs has the time
   (`search_time` <= max_steps): the view tour over every open cell closer to the spawns than the farthest
   thing to be found (`hard_search.search_tour`) over `SEARCH_EFFICIENCY`, then the oracle's bound from
   where the tour ended. What must be found: for search diagnostics the target, for the others every
   needed station kind no agent sees at the start (one agent searching, even in a team). Growth turns
   many diagnostics into searches (a station pushed out of view), and a search needs time an oracle's
   full-knowledge bound does not count. The tour counts moves, not energy, and the bound after it lets
   teammates act with full knowledge: where energy is short or a team searches, the grant is optimistic
   (the witness below still has to finish). The rule binds only where the draw's base layout (mirrored
   and dressed, without lanes) meets it; a search diagnostic whose base misses it keeps the base's size
   (mirror and dressing only). Lanes never exempt a draw: the exemption is judged without them;
4. of the stages that passed (a)-(c), the draw keeps the last one that the reference oracle's own play
   finishes within max_steps (`_oracle_finishes`): the bound is necessary, the play is a witness.
A draw with no certified stage is drawn again from the next derived seed, at most `MAX_DRAWS` times; a seed
with no accepted draw raises `MapError`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from cogames_lib.cvc.maps import SPAWN, GridMap
from cogames_lib.cvc.observation import VIEW_RADIUS
from cogames_lib.cvc.world import World
from cogames_lib.diagnostics import hard_layout
from cogames_lib.diagnostics.hard_parameters import HardParameters
from cogames_lib.diagnostics.hard_search import search_tour
from cogames_lib.diagnostics.oracle_bound import world_bound
from cogames_lib.diagnostics.oracle_geometry import UNREACHABLE, Geometry
from cogames_lib.diagnostics.oracle_planner import OraclePlanner
from cogames_lib.diagnostics.shipped_maps import shipped_map
from cogames_lib.diagnostics.variants import required_objects
from cogames_lib.errors import MapError
from cogames_lib.seeding import stable_hash

if TYPE_CHECKING:
    from cogames_lib.diagnostics.catalogue import Diagnostic

CERTIFY_SHARE = 0.8
MAX_DRAWS = 12
MAX_STAGES = 8  # growth stages per draw (each one bound evaluation)
GROWTH_DAMPING = 0.75  # grow by this share of the factor still missing: overshooting past 0.8 wastes a stage
MIN_GROWTH, MAX_GROWTH = 0.08, 0.6  # a stage grows each side by at least / at most this factor
DISTRACTORS_AT_MOST = 4
# The tour knows the layout (not the stations) and covers everything closer than the target; a real searcher
# does not know the layout, but finds the target on average halfway through what is closer. At 1 the two are
# taken to cancel: the rule certifies "an agent that explores the ground once, then acts, has the time".
SEARCH_EFFICIENCY = 1.0
SERPENTINE_SHARE = 0.5  # of the draws that may (a row's `serpentine`, draws below MAX_DRAWS // 2) get lanes
SERPENTINE_SPACING = (6, 12)  # columns (or rows) between the lanes' walls, drawn per draw


@dataclass(frozen=True)
class Certificate:
    """A certified hard map and the evidence: the bound, the draw that passed, the steps granted to a
    searcher (`search_time`; 0 where nothing needs finding or the base layout is exempt), the target share
    and the lane spacing (0: no lanes; negative: the lanes' walls run along rows)."""

    grid_map: GridMap
    bound: int
    draw: int
    search_steps: int
    target_share: float = 0.0
    lanes: int = 0


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


def search_time(world: World, geometry: Geometry, targets: Iterable[str]) -> int:
    """Steps granted to an agent that must first find the `targets` kinds: explore, then act. The
    full-knowledge view tour over the ground closer than the farthest target (`hard_search.search_tour`,
    from the first agent's spawn) over `SEARCH_EFFICIENCY`, plus the oracle's bound for the episode with
    that agent standing where the tour ended (its teammates still at their spawns; energy as at the
    start). 0 when nothing needs finding."""
    tour, end = search_tour(geometry, targets)
    if tour == 0:
        return 0
    searcher = world.agents[0]
    start = searcher.position
    searcher.position = end  # the bound reads positions only; the world is put back right after
    try:
        after = world_bound(world, geometry)
    finally:
        searcher.position = start
    return min(UNREACHABLE, math.ceil(tour / SEARCH_EFFICIENCY) + after)


def _unseen_needs(diagnostic: Diagnostic, grid_map: GridMap, world: World) -> list[str]:
    """The station kinds the episode needs (`variants.required_objects`, chargers aside) of which no
    station is in view of any agent at the start."""
    needed = required_objects(diagnostic.env_config(world.num_agents), world.num_agents)
    spawns = [(a.row, a.col) for a in world.agents]
    return [
        kind
        for kind in needed
        if kind != "charger"
        and not any(
            abs(r - tr) <= VIEW_RADIUS and abs(c - tc) <= VIEW_RADIUS
            for r, c in spawns
            for tr, tc in grid_map.positions_of(kind)
        )
    ]


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


def _dress(
    cells: hard_layout.Cells, parameters: HardParameters, rng: random.Random, lanes: int = 0
) -> hard_layout.Cells:
    """A copy of `cells` with the draw's baffles, lanes (`lanes` columns apart; negative: rows), extra
    chargers and distractor stations."""
    dressed = [list(row) for row in cells]
    for _ in range(parameters.baffles):
        hard_layout.add_baffle(dressed, rng)
    if lanes:
        turned = hard_layout.transpose(dressed) if lanes < 0 else dressed
        hard_layout.add_serpentine(turned, rng, abs(lanes))
        dressed = hard_layout.transpose(turned) if lanes < 0 else turned
    names = ["charger"] * rng.randint(0, parameters.chargers)
    if parameters.distractors:
        names += [rng.choice(parameters.distractors) for _ in range(rng.randint(0, DISTRACTORS_AT_MOST))]
    hard_layout.scatter(dressed, names, rng)
    return dressed


def _grid_map(cells: hard_layout.Cells, base: GridMap, name: str) -> GridMap:
    frozen = tuple(tuple(row) for row in cells)
    spawns = tuple(
        (r, c) for r, row in enumerate(frozen) if SPAWN in row for c, obj in enumerate(row) if obj == SPAWN
    )
    return GridMap(name=name, source=f"<{name}>", cells=frozen, spawns=spawns, map_type=base.map_type)


def _stage(diagnostic: Diagnostic, grid_map: GridMap, seed: int, num_agents: int) -> tuple[int, int, bool]:
    """(bound, search time, view conditions hold) of one candidate map for the episode's spawns. The search
    is for the search diagnostics' targets; elsewhere for whatever the episode needs and no agent sees at
    the start. One agent searches: a team that splits the search well only gains margin."""
    parameters = diagnostic.hard
    assert parameters is not None
    world = World(grid_map, num_agents, diagnostic.env_config(num_agents))
    world.reset(seed)  # the env resets with the same seed, so these are the episode's spawns
    if not _views_hold(grid_map, parameters, [(a.row, a.col) for a in world.agents]):
        return UNREACHABLE, 0, False
    geometry = Geometry(world)
    bound = world_bound(world, geometry)
    targets = parameters.out_of_view if parameters.search else _unseen_needs(diagnostic, grid_map, world)
    search = search_time(world, geometry, targets)
    return bound, search, True


def _oracle_finishes(diagnostic: Diagnostic, certificate: Certificate, seed: int, num_agents: int) -> bool:
    """The reference oracle's joint plan, played on the certificate's map from the episode's reset,
    succeeds within the budget: a witness that the episode is feasible (the bound is only necessary)."""
    world = World(certificate.grid_map, num_agents, diagnostic.env_config(num_agents))
    world.reset(seed)
    budget = diagnostic.max_steps
    planner = OraclePlanner(world)
    while world.step_count < budget and not world.succeeded:
        world.step(planner.actions())
    return world.succeeded


def draw_hard_map(diagnostic: Diagnostic, seed: int, num_agents: int, draw: int) -> Certificate | None:
    """One draw (see the module docstring): its certified map, or None when no stage passed."""
    parameters = diagnostic.hard
    assert parameters is not None, "draw_hard_map is for hard-tier records"
    budget = diagnostic.max_steps
    rng = random.Random(stable_hash("hard-map", diagnostic.name, seed, num_agents, draw))
    target = rng.uniform(*parameters.share_band)
    row_weight = rng.uniform(0.15, 0.85)
    dress_seed = rng.getrandbits(64)
    lanes = 0
    if parameters.serpentine and draw < MAX_DRAWS // 2 and rng.random() < SERPENTINE_SHARE:
        lanes = rng.randint(*SERPENTINE_SPACING) * rng.choice((1, -1))
    base = shipped_map(diagnostic.map_file)
    cells = hard_layout.mirror([list(row) for row in base.cells], rng)
    name = f"{diagnostic.map_name}_hard_s{seed}_d{draw}"
    best: Certificate | None = None
    passed: list[Certificate] = []  # every stage that passed (1)-(3), in order
    enforce: bool | None = None  # the search rule binds where the base layout meets it (see the docstring)
    base_only = False
    good = cells  # the last certified stage's cells (growth restarts from them after an overshoot)
    scale = 1.0
    for _ in range(MAX_STAGES):
        grid_map = _grid_map(_dress(cells, parameters, random.Random(dress_seed), lanes), base, name)
        bound, search, views = _stage(diagnostic, grid_map, seed, num_agents)
        if enforce is None and views:
            # Judged on the layout without lanes: lanes must never exempt a draw from the rule.
            plain = _stage(diagnostic, _grid_map(_dress(cells, parameters, random.Random(dress_seed)), base, name),
                           seed, num_agents) if lanes else (bound, search, views)  # fmt: skip
            enforce = plain[1] <= budget
            base_only = parameters.search and not enforce  # a search is never made larger than the base's
        search = search if enforce else 0
        if views and bound <= CERTIFY_SHARE * budget and search <= budget:
            best, good = Certificate(grid_map, bound, draw, search, target, lanes), cells
            passed.append(best)
            if bound >= target * budget or base_only:
                break
            missing = target * budget / max(1, bound) - 1
        elif best is None and views and bound < UNREACHABLE:
            break  # the base itself is over budget: growing only makes it worse
        elif best is None and not views:
            missing = 0.25  # the base's spawns see what they should not: grow and look again
        else:
            # Overshot (over budget, a cut-off target, a view condition broken): grow less from the last
            # certified stage.
            scale /= 2
            cells = good
            missing = target * budget / max(1, best.bound if best else 1) - 1
        height, width = len(cells), len(cells[0])
        factor = scale * min(MAX_GROWTH, max(MIN_GROWTH, GROWTH_DAMPING * missing))
        rows = min(round(factor * height * 2 * row_weight), parameters.max_side - height)
        cols = min(round(factor * width * 2 * (1 - row_weight)), parameters.max_side - width)
        if rows <= 0 and cols <= 0:
            break
        cells = hard_layout.grow(cells, max(0, rows), max(0, cols), rng, parameters.in_view)
    # (4) the last stage the oracle's own play finishes (usually the last that passed; earlier ones are
    # played only when a later one fails).
    return next((c for c in reversed(passed) if _oracle_finishes(diagnostic, c, seed, num_agents)), None)


@lru_cache(maxsize=512)
def _certified(key: _HardRecord, seed: int, num_agents: int) -> Certificate:
    diagnostic = key.record
    for draw in range(MAX_DRAWS):
        certificate = draw_hard_map(diagnostic, seed, num_agents, draw)
        if certificate is not None:
            return certificate
    raise MapError(
        f"{diagnostic.name}: no certified hard map for seed {seed} and {num_agents} agent(s) in {MAX_DRAWS} draws"
    )
