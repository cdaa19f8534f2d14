"""The scripted baseline away from the shipped maps: larger layouts generated here, with the rules of a
shipped diagnostic (its `env_config`) and a step budget that a full-knowledge walk fits in with room.

Layouts (fixed here, plus the seeded families of `tests/layouts.py`): a big open room (target in the
far corner), corridors with the chest just outside the first view on the short side, a charger behind a
wall next to the spawn (the near one by straight line is far by path), a radial map with long arms (1, 2
and 4 agents), a serpentine corridor.
"""

from __future__ import annotations

import pytest

from cogames_lib.cvc.maps import OBJECT_GLYPHS
from tests.layouts import FAMILIES, play, play_family, room, solid


# -- layouts ---------------------------------------------------------------------------------------------
def big_room(station: str) -> list[list[str]]:
    """A 36x64 open room; spawns in one corner, `station` (and the chest) in the opposite one."""
    rows = room(36, 64)
    for c in range(2, 6):
        rows[2][c] = "@"
    rows[32][58] = OBJECT_GLYPHS[station]
    rows[32][61] = "="
    return rows


def corridors_chest_aside() -> list[list[str]]:
    """A long corridor west and a long one north of the spawn; the chest 7 cells east, just outside the
    11x11 first view, at the end of the short east corridor."""
    rows = solid(50, 60)
    r, c = 45, 47
    for col in range(2, c + 8):
        rows[r][col] = "."
    for row in range(2, r):
        rows[row][c] = "."
    rows[r][c] = "@"
    rows[r][c + 7] = "="
    return rows


def charger_behind_wall() -> list[list[str]]:
    """Energy 60, no regen: a charger three cells from the spawn behind a wall (about 30 moves round
    it), another five moves away on the spawn's side; chargers every 20 cells on the way to the chest."""
    rows = room(16, 110)
    rows[1][1] = "@"
    for r in range(1, 14):
        rows[r][3] = "#"  # the wall, open at the bottom row only
    rows[1][4] = "+"  # near by straight line, far by path
    rows[5][2] = "+"  # on the spawn's side of the wall
    for col in range(25, 105, 20):
        rows[8][col] = "+"
    rows[8][107] = "="
    return rows


def radial(arm: int) -> list[list[str]]:
    """Four arms of `arm` cells from a 7x7 hub (assembler, chest, four spawns); one extractor at each end."""
    size = 2 * arm + 9
    rows = solid(size, size)
    mid = size // 2
    for r in range(mid - 3, mid + 4):
        for c in range(mid - 3, mid + 4):
            rows[r][c] = "."
    for k in range(4, arm + 4):
        rows[mid - k][mid] = rows[mid + k][mid] = rows[mid][mid - k] = rows[mid][mid + k] = "."
    rows[mid - arm - 3][mid] = "O"
    rows[mid + arm + 3][mid] = "S"
    rows[mid][mid - arm - 3] = "G"
    rows[mid][mid + arm + 3] = "C"
    rows[mid - 2][mid - 2], rows[mid - 2][mid + 2] = "&", "="
    for dr, dc in ((1, -1), (1, 1), (2, 0), (1, 0)):
        rows[mid + dr][mid + dc] = "@"
    return rows


def serpentine(lanes: int, length: int) -> list[list[str]]:
    """`lanes` corridors of `length` cells joined alternately at the east and the west end."""
    rows = solid(2 * lanes + 1, length + 2)
    for lane in range(lanes):
        r = 2 * lane + 1
        for c in range(1, length + 1):
            rows[r][c] = "."
        if lane + 1 < lanes:
            rows[r + 1][length if lane % 2 == 0 else 1] = "."
    rows[1][1] = "@"
    rows[2 * lanes - 1][length if lanes % 2 == 0 else 1] = "="
    return rows


# -- the baseline solves them ----------------------------------------------------------------------------
SEEDS = range(3)


@pytest.mark.parametrize("seed", SEEDS)
def test_big_room_chest_in_the_far_corner(seed: int) -> None:
    assert play(big_room("chest"), "diagnostic_chest_deposit_search", 1, seed, 400)[0]


@pytest.mark.parametrize("num_agents", [1, 2, 4])
def test_big_room_assembler_in_the_far_corner(num_agents: int) -> None:
    for seed in SEEDS:
        assert play(big_room("assembler"), "diagnostic_assemble_seeded_search", num_agents, seed, 400)[0]


@pytest.mark.parametrize("seed", SEEDS)
def test_chest_just_outside_the_view_is_found(seed: int) -> None:
    """Whichever corridor it tries first, the agent comes back for the short one: every long corridor
    walked out and back (45 + 45 + 40 + 40) plus the 7 cells east fits in 200 steps."""
    success, _ = play(corridors_chest_aside(), "diagnostic_chest_deposit_search", 1, seed, 200)
    assert success


@pytest.mark.parametrize("seed", SEEDS)
def test_charger_behind_a_wall(seed: int) -> None:
    success, steps = play(charger_behind_wall(), "diagnostic_charge_up", 1, seed, 400)
    assert success, steps


@pytest.mark.parametrize("num_agents", [1, 2, 4])
def test_radial_with_long_arms(num_agents: int) -> None:
    """Arms of 30 cells: one agent walks all four out and back (~280 moves) plus the station uses."""
    for seed in SEEDS:
        assert play(radial(30), "diagnostic_radial", num_agents, seed, 700)[0], seed


@pytest.mark.parametrize("seed", SEEDS)
def test_serpentine_corridor(seed: int) -> None:
    success, steps = play(serpentine(8, 40), "diagnostic_chest_navigation1", 1, seed, 500)
    assert success and steps <= 8 * 40 + 40, steps  # one pass down the corridor, few detours


@pytest.mark.parametrize(
    ("family", "num_agents"),
    [(family, count) for family, (_, counts) in FAMILIES.items() for count in counts],
)
def test_seeded_layout_families(family: str, num_agents: int) -> None:
    """Each generated family on a few seeds (benchmarks/scripted_robustness.py runs hundreds)."""
    for seed in range(2):
        _, _, _, success, steps, max_steps = play_family((family, num_agents, seed))
        assert success, (family, num_agents, seed, steps, max_steps)
