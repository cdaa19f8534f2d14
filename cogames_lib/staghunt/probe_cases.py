"""Probe cases: the situations the probes put a frozen agent in, as frozen records built once per suite.

Two suites (`SUITES`):
- `sorrel`: sorrel's four intention maps with its orientation reference (8 cases) and its multi-step map,
  kept for interop. In all 8 intention cases the stag-facing action is STEP_LEFT and the fake partner
  stands on the focal's left, the stag side, so a left/right bias or an "avoid the partner" tendency reads
  as a change in stag preference.
- `counterbalanced`: one symmetric map (stag in the centre, a hare 4 cells away on each side). The focal
  stands 2 cells from the stag on each of its 4 sides (the hare 2 cells beyond it) and faces across the
  stag-hare axis one way or the other: the two facings are mirror images, so the stag-facing action is
  STEP_LEFT in half the cases and STEP_RIGHT in the other half. The partner stands at 6 cells of the
  focal's own frame (`PARTNER_OFFSETS`): 2 on the stag side, 2 on the hare side, 2 equidistant (straight
  ahead or behind), facing the stag-hare axis. 48 partner cases, each probed with a KindA and a KindB
  partner, plus the 8 focal placements alone (`no_partner`). The multi-step probe has the same balance:
  the focal faces West (stag on its right) or East (stag on its left), the partner stands beyond the stag
  or beyond the hare.

Every case carries `stag_action` and `partner_side` (both computed from the geometry, for sorrel's cases
too), which the probe tables write as columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cogames_lib.errors import DataFileError, MapError, ParameterError
from cogames_lib.staghunt.maps import StagHuntMap, load_stag_hunt_map, shipped_map_path
from cogames_lib.staghunt.orientation import SpawnOrientation, load_orientation_reference
from cogames_lib.staghunt.rules import (
    AGENT_KINDS,
    ORIENTATION_DELTAS,
    ORIENTATION_NAMES,
    PARTNER_KINDS,
    STAG,
    Action,
    move_direction,
)

SUITES: tuple[str, ...] = ("sorrel", "counterbalanced")
COUNTERBALANCED_MAP_NAME = "test_intention_counterbalanced"
PARTNER_SIDES: tuple[str, ...] = ("stag", "hare", "equidistant")
NO_PARTNER_SIDE = "none"
# Partner cells in the focal's own frame: (cells toward the stag, cells forward). The stag is 2 cells
# toward the stag, the hare 2 cells the other way.
PARTNER_OFFSETS: dict[str, tuple[tuple[int, int], ...]] = {
    "stag": ((2, 2), (2, -2)),
    "hare": ((-2, 2), (-2, -2)),
    "equidistant": ((0, 2), (0, -2)),
}
FOCAL_DISTANCE = 2  # focal cells from the stag
# Multi-step (counterbalanced): on sorrel's multi-step map (stag 2 cells north of the focal, hare 2 south),
# the focal faces West or East; the partner stands one cell beyond the stag or beyond the hare.
MULTISTEP_FOCAL_ORIENTATIONS: tuple[int, ...] = (3, 1)
MULTISTEP_PARTNER_BEYOND: dict[str, int] = {"stag": -3, "hare": 3}  # row offset from the focal


@dataclass(frozen=True)
class IntentionCase:
    """One one-step situation: the map, focal and partner cells and orientations, the two step actions.

    `partner_kinds`: which partner conditions the case is probed with (a `no_partner` row leaves the
    partner cell empty). `partner_side` is where the partner stands (`PARTNER_SIDES`)."""

    map_name: str
    version: str
    grid: StagHuntMap
    focal: SpawnOrientation
    partner: SpawnOrientation
    stag_action: Action
    hare_action: Action
    partner_side: str
    partner_kinds: tuple[str, ...] = PARTNER_KINDS


@dataclass(frozen=True)
class MultiStepCase:
    """One multi-step episode set-up: focal and fake-partner cells and orientations on `grid`."""

    grid: StagHuntMap
    focal_cell: tuple[int, int]
    focal_orientation: int
    partner_cell: tuple[int, int]
    partner_orientation: int
    stag_action: Action
    partner_side: str
    partner_kinds: tuple[str, ...] = PARTNER_KINDS


def side_of(focal: tuple[int, int], orientation: int, cell: tuple[int, int]) -> int:
    """-1 if `cell` lies to the focal's own left, +1 to its right, 0 on the line it faces along."""
    right = ORIENTATION_DELTAS[(orientation + 1) % 4]
    lateral = (cell[0] - focal[0]) * right[0] + (cell[1] - focal[1]) * right[1]
    return int(np.sign(lateral))


def step_toward(orientation: int, side: int, source: str) -> tuple[Action, Action]:
    """The step action that turns an agent facing `orientation` toward `side` (-1 left, +1 right), and the
    other step action."""
    if side == 0:
        raise MapError(f"{source}: the stag lies straight ahead or behind, no step turns toward it")
    return (Action.STEP_LEFT, Action.STEP_RIGHT) if side < 0 else (Action.STEP_RIGHT, Action.STEP_LEFT)


def partner_side(focal: tuple[int, int], orientation: int, stag: tuple[int, int], partner: tuple[int, int]) -> str:  # fmt: skip
    """`stag` / `hare` / `equidistant`: the partner's side of the line the focal faces along, relative to
    the side the stag lies on."""
    partner_lateral = side_of(focal, orientation, partner)
    if partner_lateral == 0:
        return "equidistant"
    return "stag" if partner_lateral == side_of(focal, orientation, stag) else "hare"


def stag_and_hare_actions(spawn: SpawnOrientation, source: str) -> tuple[Action, Action]:
    """By geometry: the step action that leaves the agent facing the stag orientation, and the other one."""
    for action, other in ((Action.STEP_LEFT, Action.STEP_RIGHT), (Action.STEP_RIGHT, Action.STEP_LEFT)):
        if move_direction(spawn.initial, action) == spawn.facing_stag:
            return action, other
    raise DataFileError(
        f"{source}: row {spawn.row} col {spawn.col}: neither STEP_LEFT nor STEP_RIGHT from orientation "
        f"{spawn.initial} faces the stag orientation {spawn.facing_stag}"
    )


def _only_stag(grid: StagHuntMap) -> tuple[int, int]:
    stags = np.argwhere(grid.resources == STAG.code)
    if len(stags) != 1:
        raise MapError(f"{grid.name}: a probe map needs exactly one stag, found {len(stags)}")
    return int(stags[0][0]), int(stags[0][1])


def sorrel_intention_cases(maps_dir: Path, map_names: tuple[str, ...], orientation_file: str) -> list[IntentionCase]:  # fmt: skip
    """Sorrel's cases: each map's two spawns, the focal on one (ver1 = upper) and the partner on the other,
    orientations from the reference file."""
    orientation_path = maps_dir / orientation_file
    orientations = load_orientation_reference(orientation_path)
    cases = []
    for map_name in map_names:
        grid = load_stag_hunt_map(shipped_map_path(map_name, maps_dir))
        if len(grid.spawns) != 2:
            raise MapError(
                f"{grid.name}: an intention map needs exactly 2 agent spawns, found {len(grid.spawns)}"
            )
        for cell in grid.spawns:
            if cell not in orientations:
                raise DataFileError(
                    f"{orientation_path}: no line for row {cell[0]} col {cell[1]} of {grid.name}"
                )
        stag = _only_stag(grid)
        for version, (focal_cell, partner_cell) in (("ver1", grid.spawns), ("ver2", grid.spawns[::-1])):
            focal = orientations[focal_cell]
            stag_action, hare_action = stag_and_hare_actions(focal, str(orientation_path))
            side = partner_side(focal_cell, focal.initial, stag, partner_cell)
            cases.append(IntentionCase(map_name, version, grid, focal, orientations[partner_cell], stag_action,
                                       hare_action, side))  # fmt: skip
    return cases


def _spawn(cell: tuple[int, int], orientation: int, facing_stag: int = 0) -> SpawnOrientation:
    return SpawnOrientation(cell[0], cell[1], orientation, facing_stag)


def counterbalanced_intention_cases(maps_dir: Path) -> list[IntentionCase]:
    """The counterbalanced suite's one-step cases (module docstring): 48 with a partner, 8 alone."""
    grid = load_stag_hunt_map(shipped_map_path(COUNTERBALANCED_MAP_NAME, maps_dir))
    stag = _only_stag(grid)
    cases = []
    for away in range(4):  # the focal stands on this side of the stag
        toward_stag = (away + 2) % 4
        delta = ORIENTATION_DELTAS[away]
        focal_cell = (stag[0] + FOCAL_DISTANCE * delta[0], stag[1] + FOCAL_DISTANCE * delta[1])
        map_name = f"counterbalanced_{ORIENTATION_NAMES[away]}"
        for orientation in ((away + 1) % 4, (away + 3) % 4):  # across the stag-hare axis, both ways
            focal = _spawn(focal_cell, orientation, toward_stag)
            stag_action, hare_action = stag_and_hare_actions(focal, map_name)
            step = stag_action.name.lower().removeprefix("step_")
            forward, to_stag = ORIENTATION_DELTAS[orientation], ORIENTATION_DELTAS[toward_stag]
            ahead = (focal_cell[0] + 2 * forward[0], focal_cell[1] + 2 * forward[1])
            cases.append(IntentionCase(map_name, f"{step}_alone", grid, focal, _spawn(ahead, orientation),
                                       stag_action, hare_action, NO_PARTNER_SIDE, ("no_partner",)))  # fmt: skip
            for side, offsets in PARTNER_OFFSETS.items():
                for across, along in offsets:
                    cell = (focal_cell[0] + across * to_stag[0] + along * forward[0],
                            focal_cell[1] + across * to_stag[1] + along * forward[1])  # fmt: skip
                    if grid.walls[cell] or grid.resources[cell]:
                        raise MapError(f"{grid.name}: partner cell {cell} is not free floor")
                    facing = (orientation + 2) % 4 if along > 0 else orientation  # toward the stag-hare axis
                    place = "ahead" if along > 0 else "behind"
                    assert partner_side(focal_cell, orientation, stag, cell) == side
                    cases.append(IntentionCase(map_name, f"{step}_{side}_{place}", grid, focal,
                                               _spawn(cell, facing), stag_action, hare_action, side,
                                               AGENT_KINDS))  # fmt: skip
    return cases


def sorrel_multistep_cases(grid: StagHuntMap, focal_orientation: int, partner_orientation: int) -> list[MultiStepCase]:  # fmt: skip
    """Sorrel's one multi-step set-up: the upper spawn is the fake partner, the lower one the focal."""
    if len(grid.spawns) != 2:
        raise MapError(f"{grid.name}: the multi-step map needs exactly 2 agent spawns")
    partner_cell, focal_cell = grid.spawns
    stag = _only_stag(grid)
    stag_action, _ = step_toward(focal_orientation, side_of(focal_cell, focal_orientation, stag), grid.name)
    side = partner_side(focal_cell, focal_orientation, stag, partner_cell)
    return [
        MultiStepCase(
            grid, focal_cell, focal_orientation, partner_cell, partner_orientation, stag_action, side
        )
    ]


def counterbalanced_multistep_cases(grid: StagHuntMap) -> list[MultiStepCase]:
    """The focal on sorrel's multi-step map facing West or East, the partner beyond the stag or the hare
    (facing the focal); `no_partner` once per facing."""
    if len(grid.spawns) != 2:
        raise MapError(f"{grid.name}: the multi-step map needs exactly 2 agent spawns")
    focal_cell = grid.spawns[1]
    stag = _only_stag(grid)
    cases = []
    for orientation in MULTISTEP_FOCAL_ORIENTATIONS:
        stag_action, _ = step_toward(orientation, side_of(focal_cell, orientation, stag), grid.name)
        for side, rows in MULTISTEP_PARTNER_BEYOND.items():
            cell = (focal_cell[0] + rows, focal_cell[1])
            if grid.walls[cell] or grid.resources[cell]:
                raise MapError(f"{grid.name}: partner cell {cell} is not free floor")
            facing = 2 if rows < 0 else 0  # toward the focal
            kinds = PARTNER_KINDS if side == "stag" else AGENT_KINDS  # alone: once per facing
            cases.append(MultiStepCase(grid, focal_cell, orientation, cell, facing, stag_action, side, kinds))
    return cases


def validate_suite(name: str) -> str:
    if name not in SUITES:
        raise ParameterError(f"probe suite must be one of {list(SUITES)}, got {name!r}")
    return name
