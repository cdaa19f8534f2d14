from __future__ import annotations

from pathlib import Path

import pytest

from cogames_lib.cvc import load_map
from cogames_lib.errors import MapError

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "cogames_maps"
if not REFERENCE.exists():  # the layout of our workspace; CI clones may sit elsewhere
    REFERENCE = Path("/work/shared/reference/cogames_maps")
PROJECT_MAPS = Path(__file__).resolve().parents[1] / "cogames_lib" / "maps" / "diagnostics"

LEGEND = """char_to_map_name:
  "#": wall
  ".": empty
  "@": agent.agent
  "=": chest
  "&": assembler
  "X": not_a_thing
"""


def write_map(tmp_path: Path, rows: list[str], legend: str = LEGEND, name: str = "m.map") -> Path:
    body = "\n".join("  " + row for row in rows)
    path = tmp_path / name
    path.write_text(f"type: test\nmap_data: |-\n{body}\n{legend}", encoding="utf-8")
    return path


@pytest.mark.skipif(not REFERENCE.exists(), reason="reference maps not present")
@pytest.mark.parametrize(
    "path", sorted(REFERENCE.glob("*.map")) if REFERENCE.exists() else [], ids=lambda p: p.stem
)
def test_every_reference_map_loads_unchanged(path: Path) -> None:
    before = path.read_bytes()
    grid_map = load_map(path)
    assert path.read_bytes() == before
    assert grid_map.spawns and grid_map.positions_of("chest")
    assert all(len(row) == grid_map.width for row in grid_map.cells)


def test_reference_folder_has_the_fourteen_upstream_maps() -> None:
    if not REFERENCE.exists():
        pytest.skip("reference maps not present")
    assert len(list(REFERENCE.glob("*.map"))) == 14


@pytest.mark.parametrize("path", sorted(PROJECT_MAPS.glob("*.map")), ids=lambda p: p.stem)
def test_project_maps_load(path: Path) -> None:
    load_map(path)


# Our copies differ from upstream only here, each for a reason given in docs/cvc.md ("Rules").
DOCUMENTED_DEVIATIONS = {"diagnostic_memory.map": {((35, 4), "chest", "empty"), ((31, 5), "empty", "chest")}}


def test_project_copies_reproduce_the_reference_layouts() -> None:
    if not REFERENCE.exists():
        pytest.skip("reference maps not present")
    for path in REFERENCE.glob("*.map"):
        ours, upstream = load_map(PROJECT_MAPS / path.name).cells, load_map(path).cells
        differences = {
            ((r, c), upstream[r][c], ours[r][c])
            for r in range(len(upstream))
            for c in range(len(upstream[0]))
            if upstream[r][c] != ours[r][c]
        }
        assert differences == DOCUMENTED_DEVIATIONS.get(path.name, set()), path.name


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (["#####", "#@.=#", "#..#", "#####"], "row 3: ragged row: 4 chars, expected 5"),
        (["#####", "#@?=#", "#####"], "row 2, column 3: unknown char '?'"),
        (["#####", "#@X=#", "#####"], "row 2, column 3: unknown object name 'not_a_thing'"),
        (["#####", "#..=#", "#####"], "no spawn"),
        (["#######", "#@.#=.#", "#######"], "row 2, column 5: unreachable heart chest"),
        (["#######", "#@.&=.#", "#######"], "row 2, column 5: unreachable heart chest"),
        (["#####", "#@..#", "#####"], "no heart chest"),
    ],
    ids=["ragged", "unknown-char", "unknown-name", "no-spawn", "walled-chest", "station-blocks", "no-chest"],
)
def test_bad_maps_name_file_row_column_and_problem(tmp_path: Path, rows: list[str], message: str) -> None:
    path = write_map(tmp_path, rows)
    with pytest.raises(MapError) as error:
        load_map(path)
    assert str(path) in str(error.value)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_too_few_spawns(tmp_path: Path) -> None:
    path = write_map(tmp_path, ["#####", "#@.=#", "#####"])
    with pytest.raises(MapError, match="too few spawns: 2 agents requested, the map has 1"):
        load_map(path, num_agents=2)


def test_non_utf8_bytes(tmp_path: Path) -> None:
    path = write_map(tmp_path, ["#####", "#@.=#", "#####"])
    data = path.read_bytes().replace(b"#@.=#", b"#@\xff=#")
    path.write_bytes(data)
    with pytest.raises(MapError, match=r"line 4, column 5: not UTF-8 \(byte 0xff\)"):
        load_map(path)


def test_missing_keys_and_bad_yaml(tmp_path: Path) -> None:
    path = tmp_path / "broken.map"
    path.write_text("map_data: [unclosed\n", encoding="utf-8")
    with pytest.raises(MapError, match="not valid YAML"):
        load_map(path)
    path.write_text("type: x\n", encoding="utf-8")
    with pytest.raises(MapError, match="missing key 'map_data'"):
        load_map(path)
    with pytest.raises(MapError, match="cannot read map file"):
        load_map(tmp_path / "absent.map")


def test_unused_legend_entries_are_fine(tmp_path: Path) -> None:
    legend = LEGEND.replace('  "X": not_a_thing\n', '  "?": empty\n  "1": agent.agent\n')
    grid_map = load_map(write_map(tmp_path, ["#####", "#@.=#", "#####"], legend=legend))
    assert grid_map.spawns == ((1, 1),)


def test_positions_of_lists_every_kind_of_cell_in_row_major_order() -> None:
    """The index skips floor-only rows for speed; every name, floor and walls included, still answers as a
    plain scan of the grid does (on a generated hard map: large, with many floor-only rows)."""
    from cogames_lib.diagnostics import HARD_DIAGNOSTICS, diagnostic_map

    grid_map = diagnostic_map(HARD_DIAGNOSTICS["diagnostic_radial_hard"], seed=3, num_agents=2)
    assert any(set(row) <= {"empty", "wall"} for row in grid_map.cells)
    names = {name for row in grid_map.cells for name in row} | {"no_such_object"}
    for name in names:
        scan = [(r, c) for r, row in enumerate(grid_map.cells) for c, cell in enumerate(row) if cell == name]
        assert grid_map.positions_of(name) == scan, name
    assert grid_map.positions_of("empty") and grid_map.positions_of("wall")
