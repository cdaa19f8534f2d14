"""Map loader and orientation-reference parser: reference files load unchanged, bad files fail clearly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cogames_lib.errors import DataFileError, MapError
from cogames_lib.staghunt.maps import (
    INTENTION_MAP_NAMES,
    MULTI_STEP_MAP_NAME,
    ORIENTATION_FILE_NAME,
    STAGHUNT_MAPS_DIR,
    load_stag_hunt_map,
    parse_stag_hunt_map_text,
    random_map,
)
from cogames_lib.staghunt.orientation import load_orientation_reference, parse_orientation_text
from cogames_lib.staghunt.rules import HARE, STAG

REFERENCE = Path("/work/shared/reference/sorrel_probe_maps")
MAP_NAMES = [*INTENTION_MAP_NAMES, MULTI_STEP_MAP_NAME]


@pytest.mark.parametrize("name", [*MAP_NAMES, ORIENTATION_FILE_NAME.removesuffix(".txt")])
def test_project_copies_equal_the_reference_files(name: str) -> None:
    if not REFERENCE.is_dir():
        pytest.skip("reference folder not available")
    assert (STAGHUNT_MAPS_DIR / f"{name}.txt").read_bytes() == (REFERENCE / f"{name}.txt").read_bytes()


@pytest.mark.parametrize("name", MAP_NAMES)
def test_reference_maps_load_as_13x13_with_two_spawns(name: str) -> None:
    grid = load_stag_hunt_map(STAGHUNT_MAPS_DIR / f"{name}.txt")
    assert grid.shape == (13, 13)
    assert len(grid.spawns) == 2 and list(grid.spawns) == sorted(grid.spawns)
    assert grid.walls[0].all() and grid.walls[-1].all() and grid.walls[:, 0].all() and grid.walls[:, -1].all()
    assert (grid.resources == STAG.code).sum() == 1


def test_multi_step_map_layout_matches_the_spec() -> None:
    grid = load_stag_hunt_map(STAGHUNT_MAPS_DIR / f"{MULTI_STEP_MAP_NAME}.txt")
    assert grid.spawns == ((3, 6), (6, 6))
    assert grid.resources[4, 6] == STAG.code and grid.resources[8, 6] == HARE.code
    assert (grid.resources != 0).sum() == 2


def test_unknown_character_names_line_and_column() -> None:
    text = "WWWWW\nW   W\nW X W\nWWWWW\n"
    with pytest.raises(MapError, match=r"line 3, column 3: unknown map character 'X'"):
        parse_stag_hunt_map_text(text, name="bad.txt")


def test_open_border_names_the_line() -> None:
    with pytest.raises(MapError, match=r"bad.txt: line 2, column 1: the outer ring"):
        parse_stag_hunt_map_text("WWWWW\n    W\nWWWWW\n", name="bad.txt")


def test_blank_lines_are_not_counted_as_rows_but_line_numbers_stay_true() -> None:
    with pytest.raises(MapError, match=r"line 4, column 3"):
        parse_stag_hunt_map_text("WWWWW\n\nW   W\nW ? W\nWWWWW\n", name="m")


def test_missing_map_file_is_a_map_error(tmp_path: Path) -> None:
    with pytest.raises(MapError, match="not found"):
        load_stag_hunt_map(tmp_path / "nope.txt")


def test_random_maps_are_seeded_and_walled() -> None:
    first = random_map(np.random.default_rng(3), size=13, resource_density=0.2)
    second = random_map(np.random.default_rng(3), size=13, resource_density=0.2)
    assert np.array_equal(first.resources, second.resources)
    assert first.walls[0].all() and not first.walls[1:-1, 1:-1].any()
    assert (first.resources[first.walls] == 0).all()


def test_reference_orientation_file_parses_all_four_lines() -> None:
    table = load_orientation_reference(STAGHUNT_MAPS_DIR / ORIENTATION_FILE_NAME)
    assert {cell: (o.initial, o.facing_stag) for cell, o in table.items()} == {
        (4, 6): (3, 2),
        (6, 8): (0, 3),
        (8, 6): (1, 0),
        (6, 4): (2, 1),
    }


def test_orientation_out_of_range_is_rejected_with_line_number() -> None:
    text = "when agent is at row 6 col 8, orientation is 0, the orientation of facing stag is 3;\n\n" + (
        "when agent is at row 8 col 6, orientation is 4, the orientation of facing stag is 0;"
    )
    with pytest.raises(DataFileError, match=r"o.txt: line 3: orientation 4 is outside 0..3"):
        parse_orientation_text(text, name="o.txt")


def test_garbled_orientation_line_is_rejected_with_line_number() -> None:
    with pytest.raises(DataFileError, match=r"o.txt: line 1: expected"):
        parse_orientation_text("agent somewhere facing something", name="o.txt")


def test_orientation_parser_is_tolerant_of_wording_and_spacing() -> None:
    table = parse_orientation_text(
        "When agent at ROW 2  col 3 , orientation is 1 the orientation of facing stag is 2"
    )
    assert table[(2, 3)].initial == 1 and table[(2, 3)].facing_stag == 2


def test_binary_map_and_orientation_files_are_one_line_errors(tmp_path: Path) -> None:
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"WWW\n\xff\xfe W\nWWW\n")
    with pytest.raises(MapError, match=r"binary.txt: not a UTF-8 text map \(byte 4"):
        load_stag_hunt_map(binary)
    with pytest.raises(DataFileError, match=r"binary.txt: not a UTF-8 text file \(byte 4"):
        load_orientation_reference(binary)
    assert binary.read_bytes() == b"WWW\n\xff\xfe W\nWWW\n"
