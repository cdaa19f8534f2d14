"""The hard tier's difficulty: layout operations, per-instance shares in the manifest, the difficulty table,
and its figures. Tiny inputs only (the tier's own maps are covered by tests/test_hard_tier.py)."""

from __future__ import annotations

import random
from collections import Counter

import pandas as pd
import pytest

from cogames_lib.diagnostics import get_diagnostic, hard_layout
from cogames_lib.diagnostics.hard_maps import CERTIFY_SHARE, draw_hard_map
from cogames_lib.errors import ParameterError
from cogames_lib.sweep.difficulty import (
    DIFFICULTY_COLUMNS,
    difficulty_markdown,
    difficulty_table,
    share_bins,
)
from cogames_lib.sweep.instances import (
    INSTANCE_COLUMNS,
    instance_rows,
    instances_frame,
    record_instances,
)

ROOM = [
    "#########",
    "#.......#",
    "#.@...C.#",
    "#.......#",
    "#.......#",
    "#########",
]


def _cells(rows: list[str]) -> list[list[str]]:
    legend = {"#": "wall", ".": "empty", "@": "agent.agent", "C": "chest"}
    return [[legend[ch] for ch in row] for row in rows]


def test_grow_copies_only_station_free_lines_and_keeps_every_station() -> None:
    cells = _cells(ROOM)
    grown = hard_layout.grow(cells, 4, 6, random.Random(0))
    assert (len(grown), len(grown[0])) == (len(cells) + 4, len(cells[0]) + 6)
    count = Counter(name for row in grown for name in row)
    assert count["chest"] == 1 and count["agent.agent"] == 1
    assert all(row[0] == "wall" and row[-1] == "wall" for row in grown)  # the border stays a border


def test_grow_keeps_an_in_view_object_as_near_as_it_was() -> None:
    def gap(cells: list[list[str]]) -> int:
        (row,) = [r for r in cells if "chest" in r]
        return row.index("chest") - row.index("agent.agent")

    for seed in range(20):
        grown = hard_layout.grow(_cells(ROOM), 3, 10, random.Random(seed), keep_near=("chest",))
        assert gap(grown) == 4
    assert any(gap(hard_layout.grow(_cells(ROOM), 0, 10, random.Random(s))) > 4 for s in range(20))


def test_scattered_stations_never_touch_a_spawn_or_block_a_way() -> None:
    cells = hard_layout.grow(_cells(ROOM), 6, 8, random.Random(1))
    placed = hard_layout.scatter(cells, ["charger"] * 3, random.Random(2))
    assert placed == 3
    for r, row in enumerate(cells):
        for c, name in enumerate(row):
            if name == "charger":
                around = [
                    cells[r + dr][c + dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)
                ]
                assert set(around) == {"empty"}


def test_scattered_stations_never_land_in_a_walled_off_pocket() -> None:
    # A room cut in two by a full wall: the right half has more open cells clear all round, none reachable.
    rows = ["#" * 30, *("#a" + "." * 8 + "#" + "." * 18 + "#" if r == 2 else "#" + "." * 9 + "#" + "." * 18 + "#"
                        for r in range(1, 12)), "#" * 30]  # fmt: skip
    legend = {"#": "wall", ".": "empty", "a": "agent.agent"}
    for seed in range(10):
        cells = [[legend[ch] for ch in row] for row in rows]
        hard_layout.scatter(cells, ["charger"] * 6, random.Random(seed))
        assert all(name != "charger" for row in cells for name in row[11:]), seed


@pytest.mark.parametrize("seed", [0, 1])
def test_a_draw_aims_at_its_target_share_and_stays_certified(seed: int) -> None:
    record = get_diagnostic("chorus_pair_hard")
    certificate = draw_hard_map(record, seed, 2, 0)
    assert certificate is not None
    assert record.hard is not None
    low, _ = record.hard.share_band
    assert low <= certificate.target_share
    share = certificate.bound / record.max_steps
    assert share <= CERTIFY_SHARE
    # Growth stops once the target is reached, or one stage short of overshooting the ceiling.
    assert share >= min(certificate.target_share, 0.5) * 0.5


def _episodes() -> pd.DataFrame:
    rows = []
    for policy, wins in (("scripted", [1, 1, 1, 0]), ("random", [0, 0, 0, 0])):
        for seed, win in enumerate(wins):
            rows.append((policy, "diagnostic_radial_hard", 2, seed, bool(win)))
    rows.append(("scripted", "diagnostic_radial", 2, 0, True))  # a normal episode: no instance, not counted
    return pd.DataFrame(rows, columns=["policy", "diagnostic", "num_agents", "seed", "success"])


def _instances() -> pd.DataFrame:
    shares = [0.1, 0.3, 0.35, 0.7]
    needs = [0.9, 0.3, 0.95, 0.7]  # two instances a searcher needs far more for than the bound says
    rows = [
        (policy, "diagnostic_radial_hard", 2, seed, 1000 + seed, round(s * 350), 350, s, round(n * 350), n)
        for policy in ("scripted", "random")
        for seed, (s, n) in enumerate(zip(shares, needs, strict=True))
    ]
    return pd.DataFrame(rows, columns=list(INSTANCE_COLUMNS))


def test_difficulty_table_counts_each_hard_episode_in_its_share_bin() -> None:
    table = difficulty_table(_episodes(), _instances())
    assert list(table.columns) == list(DIFFICULTY_COLUMNS)
    scripted = table[table["policy"] == "scripted"].set_index("share_bin")
    assert scripted.loc["0.2-0.4", "n"] == 2 and scripted.loc["0.2-0.4", "successes"] == 2
    assert scripted.loc["0.6-0.8", "rate"] == 0.0
    assert scripted.loc["0.0-0.2", "ci_low"] < 1.0 == scripted.loc["0.0-0.2", "ci_high"]  # Wilson, n = 1
    assert table["n"].sum() == 8  # the normal-tier episode has no instance
    text = difficulty_markdown(table)
    assert "| 0.2-0.4 | 1.00 [" in text and "(n = 2" in text
    assert list(share_bins(pd.Series([0.0, 0.2, 0.21]))) == ["0.0-0.2", "0.0-0.2", "0.2-0.4"]


def test_difficulty_table_bins_by_the_searchers_need() -> None:
    table = difficulty_table(_episodes(), _instances(), share="need_share")
    scripted = table[table["policy"] == "scripted"].set_index("share_bin")
    assert scripted.loc["0.8-1.0", "n"] == 2 and scripted.loc["0.8-1.0", "successes"] == 2
    assert scripted.loc["0.6-0.8", "successes"] == 0 and "0.0-0.2" not in scripted.index
    assert difficulty_markdown(table, share="need_share").startswith("| searcher's certified need")
    with pytest.raises(ParameterError, match="share='steps'"):
        difficulty_table(_episodes(), _instances(), share="steps")


def test_difficulty_table_names_missing_columns() -> None:
    with pytest.raises(ParameterError, match="bound_share"):
        difficulty_table(_episodes(), _instances().drop(columns=["bound_share"]))


def test_instances_round_trip_through_the_manifest(tmp_path) -> None:
    results = [
        {
            "policy": "oracle",
            "diagnostic": "d_hard",
            "num_agents": 1,
            "episode_seed": 9,
            "max_steps": 200,
            "bound": 50,
        },
        {"policy": "oracle", "diagnostic": "d", "num_agents": 1, "episode_seed": 8, "max_steps": 100},
    ]
    rows = instance_rows(results, [3, 4])
    assert rows == [["oracle", "d_hard", 1, 3, 9, 50, 200, 0.25, 0, 0.25]]  # no search: need = bound
    results[0]["search_steps"] = 150
    assert instance_rows(results, [3, 4])[0][-2:] == [150, 0.75]
    record_instances(tmp_path, rows)
    record_instances(tmp_path, [["oracle", "d_hard", 1, 3, 9, 60, 200, 0.3, 0, 0.3]])  # same key: replaced
    frame = instances_frame(tmp_path)
    assert list(frame.columns) == list(INSTANCE_COLUMNS)
    assert frame["bound"].tolist() == [60]


def test_instances_written_before_the_search_columns_are_not_read(tmp_path) -> None:
    from cogames_lib import outdir
    from cogames_lib.io import write_json

    old_columns = list(INSTANCE_COLUMNS[:8])
    write_json(
        tmp_path / outdir.MANIFEST_FILE,
        {"hard_instances": {"columns": old_columns, "rows": [["oracle", "d_hard", 1, 3, 9, 60, 200, 0.3]]}},
    )
    assert instances_frame(tmp_path).empty  # a resumed sweep recomputes them (`..._resumed_..._old_manifest`)
    record_instances(tmp_path, [["oracle", "d_hard", 1, 4, 9, 60, 200, 0.3, 90, 0.45]])
    assert instances_frame(tmp_path)["seed"].tolist() == [4]


def test_a_sweep_records_every_hard_episode_share(tmp_path) -> None:
    from cogames_lib.sweep import run_sweep

    episodes = run_sweep(["noop"], ["vibe_swap_hard", "vibe_swap"], [1], 2, tmp_path, progress=False)
    frame = instances_frame(tmp_path)
    assert len(frame) == 2 and set(frame["diagnostic"]) == {"diagnostic_vibe_swap_hard"}
    hard = episodes[episodes["tier"].astype(str) == "hard"]
    assert sorted(frame["episode_seed"]) == sorted(hard["episode_seed"])
    assert (frame["bound_share"] == (frame["bound"] / frame["max_steps"]).round(4)).all()
    assert (frame["need_share"] >= frame["bound_share"]).all()


def test_difficulty_figures_draw() -> None:
    import matplotlib.pyplot as plt

    from cogames_lib.plots.difficulty import bound_share_distribution, difficulty_rates

    figure = bound_share_distribution(_instances())
    assert len(figure.axes) == 2
    plt.close(figure)
    figure = difficulty_rates(difficulty_table(_episodes(), _instances()))
    assert len(figure.axes[0].lines) >= 2
    plt.close(figure)


def test_a_resumed_sweep_keeps_every_hard_share(tmp_path) -> None:
    from cogames_lib.sweep import run_sweep

    run_sweep(["noop"], ["vibe_swap_hard"], [1], 1, tmp_path, progress=False)
    episodes = run_sweep(["noop"], ["vibe_swap_hard"], [1], 2, tmp_path, progress=False)  # resumes seed 0
    frame = instances_frame(tmp_path)
    assert sorted(frame["seed"]) == [0, 1] and len(episodes) == 2


def test_a_resumed_sweep_rewrites_an_old_manifests_instances(tmp_path) -> None:
    from cogames_lib import outdir
    from cogames_lib.io import write_json
    from cogames_lib.sweep import run_sweep

    run_sweep(["noop"], ["vibe_swap_hard"], [1], 1, tmp_path, progress=False)
    manifest = outdir.read_manifest(tmp_path)
    assert manifest is not None
    rows = manifest["hard_instances"]["rows"]
    manifest["hard_instances"] = {"columns": list(INSTANCE_COLUMNS[:8]), "rows": [row[:8] for row in rows]}
    write_json(tmp_path / outdir.MANIFEST_FILE, manifest)  # as a sweep before the search columns wrote it
    run_sweep(["noop"], ["vibe_swap_hard"], [1], 2, tmp_path, progress=False)
    frame = instances_frame(tmp_path)
    assert sorted(frame["seed"]) == [0, 1]
    assert frame["need_share"].notna().all() and frame.iloc[0].tolist() == rows[0]
