"""Mirror images of a diagnostic's map and the learned agents' mirror control."""

from __future__ import annotations

import pandas as pd
import pytest

from cogames_lib.cvc.maps import parse_map_text
from cogames_lib.diagnostics import get_diagnostic
from cogames_lib.diagnostics.mirrors import (
    MIRRORS,
    SYMMETRIES,
    TRANSPOSES,
    mirror_control,
    mirrored,
    mirrored_map,
)
from cogames_lib.errors import ParameterError
from cogames_lib.learn.mirror_control import MIRROR_COLUMNS, mirror_table
from cogames_lib.sweep import run_episode

MIRROR_KEYS = ["policy", "training_seed", "diagnostic", "num_agents", "map"]
ROOM = """type: test
map_data: |-
  #######
  #@..=.#
  #.....#
  #######
char_to_map_name:
  "#": wall
  ".": empty
  "@": agent.agent
  "=": chest
"""


def test_each_mirror_moves_the_cells_and_renumbers_the_spawns() -> None:
    room = parse_map_text(ROOM, name="room")
    left_right = mirrored_map(room, "left_right")
    assert left_right.name == "room_mirror_left_right"
    assert left_right.spawns == ((1, 5),) and left_right.positions_of("chest") == [(1, 2)]
    top_bottom = mirrored_map(room, "top_bottom")
    assert top_bottom.spawns == ((2, 1),) and top_bottom.positions_of("chest") == [(2, 4)]
    both = mirrored_map(room, "both")
    assert both.spawns == ((2, 5),) and both.positions_of("chest") == [(2, 2)]
    for kind in MIRRORS:  # a mirror of a mirror is the map itself
        assert mirrored_map(mirrored_map(room, kind), kind).cells == room.cells
    with pytest.raises(ParameterError, match="mirror: kind must be one of"):
        mirrored_map(room, "diagonal")


def test_a_mirrored_diagnostic_is_a_custom_variant_of_the_same_size() -> None:
    record = mirrored("chest_navigation1", "both")
    base = get_diagnostic("chest_navigation1")
    assert record.tier == "custom" and record.base == base.name and record.max_steps == base.max_steps
    assert record.name == "diagnostic_chest_navigation1@diagnostic_chest_navigation1_mirror_both"
    assert record.grid_map is not None and record.grid_map.cells != base.episode_map(0, 1).cells
    assert (record.grid_map.height, record.grid_map.width) == (
        base.episode_map(0, 1).height,
        base.episode_map(0, 1).width,
    )
    assert [r.name.rsplit("_", 1)[-1] for r in mirror_control(["memory"], MIRRORS)] == [
        "right",
        "bottom",
        "both",
    ]
    assert len(mirror_control(["memory"])) == len(SYMMETRIES)  # by default every symmetry
    with pytest.raises(ParameterError, match="is a hard-tier record; mirror a normal-tier one"):
        mirrored("chest_navigation1_hard", "both")


def test_the_transposes_turn_the_map_and_the_symmetries_form_a_group() -> None:
    room = parse_map_text(ROOM, name="room")  # 2 x 5 inside the walls: spawn (1, 1), chest (1, 4)
    assert set(MIRRORS) | set(TRANSPOSES) == set(SYMMETRIES) and len(SYMMETRIES) == 7
    transpose = mirrored_map(room, "transpose")
    assert (transpose.height, transpose.width) == (room.width, room.height) == (7, 4)
    assert transpose.spawns == ((1, 1),) and transpose.positions_of("chest") == [(4, 1)]
    turned = mirrored_map(room, "rotate_cw")  # clockwise: the top row becomes the right column
    assert turned.spawns == ((1, 2),) and turned.positions_of("chest") == [(4, 2)]
    assert mirrored_map(room, "rotate_ccw").positions_of("chest") == [(2, 1)]
    assert mirrored_map(room, "anti_transpose").positions_of("chest") == [(2, 2)]
    twice = mirrored_map(mirrored_map(room, "rotate_cw"), "rotate_cw")
    assert twice.cells == mirrored_map(room, "both").cells  # a half turn is both flips
    four = room
    for _ in range(4):
        four = mirrored_map(four, "rotate_cw")
    assert four.cells == room.cells
    for kind in ("transpose", "anti_transpose"):  # diagonal mirrors undo themselves
        assert mirrored_map(mirrored_map(room, kind), kind).cells == room.cells
    assert mirrored_map(mirrored_map(room, "rotate_cw"), "rotate_ccw").cells == room.cells
    # the eight symmetries give eight different maps of an asymmetric room
    assert len({room.cells, *(mirrored_map(room, kind).cells for kind in SYMMETRIES)}) == 8


@pytest.mark.parametrize("kind", sorted(SYMMETRIES))
def test_the_scripted_baseline_solves_every_mirror_of_a_maze(kind: str) -> None:
    # the control's premise: a mirror is as solvable as the shipped map
    assert run_episode("scripted", mirrored("chest_navigation2", kind), 1, 3)["success"]


def test_mirror_table_tallies_policies_seeds_and_maps() -> None:
    near = "diagnostic_chest_deposit_near"
    mirror = f"{near}@diagnostic_chest_near_mirror_left_right"
    episodes = pd.DataFrame(
        {
            "policy": ["learned:data/cvc_learned/seed_2/checkpoint_1.pt"] * 3 + ["scripted"] * 2,
            "diagnostic": [near, mirror, mirror, mirror, near],
            "num_agents": [1] * 5,
            "success": [True, False, True, True, True],
        }
    )
    table = mirror_table(episodes)
    assert list(table.columns) == list(MIRROR_COLUMNS)
    rows = {(r.policy, r.training_seed, r.map): (r.n, r.successes) for r in table.itertuples()}
    assert rows == {
        ("learned", 2, "left_right"): (2, 1),
        ("learned", 2, "shipped"): (1, 1),
        ("scripted", -1, "left_right"): (1, 1),
        ("scripted", -1, "shipped"): (1, 1),
    }
    assert set(table["diagnostic"]) == {near}


def test_the_mirror_heatmap_draws_each_policy_pooled_over_training_seeds() -> None:
    from cogames_lib.plots.learned import mirror_heatmap

    table = pd.DataFrame(
        {
            "policy": ["learned", "learned", "scripted"],
            "training_seed": [0, 1, -1],
            "diagnostic": ["diagnostic_memory"] * 3,
            "num_agents": [1] * 3,
            "map": ["both"] * 3,
            "n": [20, 20, 20],
            "successes": [1, 2, 20],
        }
    )
    figure = mirror_heatmap(table, ("shipped", "both"), ("scripted", "learned"))
    titles = [axes.get_title() for axes in figure.axes if axes.get_title()]
    assert titles[:2] == ["scripted", "learned"]
    labels = {text.get_text() for axes in figure.axes for text in axes.texts}
    assert "0.07\n3/40" in labels and "1.00\n20/20" in labels  # the learned seeds pooled: 3 of 40
    unordered = mirror_heatmap(table, ("both",))  # no order given: panels in the table's order
    assert [axes.get_title() for axes in unordered.axes if axes.get_title()][:2] == ["learned", "scripted"]


def test_mirror_episodes_runs_every_map_through_the_sweep(tmp_path) -> None:
    from cogames_lib.learn.mirror_control import mirror_episodes

    episodes = mirror_episodes(
        ["scripted"], ["chest_deposit_near"], (1,), 1, tmp_path / "sweep", 7919, progress=False
    )
    table = mirror_table(episodes)
    assert sorted(table["map"]) == sorted(["shipped", *SYMMETRIES])
    assert table["successes"].tolist() == [1] * 8 and set(table["policy"]) == {"scripted"}
    flips = mirror_table(
        mirror_episodes(
            ["scripted"], ["chest_deposit_near"], (1,), 1, tmp_path / "flips", 7919, MIRRORS, progress=False
        )
    )
    assert sorted(flips["map"]) == ["both", "left_right", "shipped", "top_bottom"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--episodes", "0"], "seeds: the number of seeds must be >= 1"),
        (["--workers", "0"], "workers: must be"),
        (["--kinds", "left_right", "diagonal"], "mirror: kind must be one of"),
        (["--run", "no/such/run"], "no/such/run/run.json: no run here"),
        (["--step", "1000"], "has no checkpoint (at or before --step)"),  # the committed finals are at 24M
    ],
)
def test_the_mirror_control_command_rejects_bad_arguments_in_one_line(
    tmp_path, capsys, argv, message
) -> None:
    from tools.learned_mirror_control import main

    table = tmp_path / "table.csv"
    assert main([*argv, "--out", str(tmp_path / "sweep"), "--table", str(table)]) == 2
    error = capsys.readouterr().err
    assert message in error and len(error.strip().splitlines()) == 1
    assert not table.exists() and not (tmp_path / "sweep").exists()  # nothing written


def test_the_mirror_control_command_plays_a_curriculum_entry_at_some_counts_on_its_maps(tmp_path) -> None:
    """A run trained with `NAME@1` (the reference's extra tasks) is controlled on NAME's maps."""
    import json
    import shutil

    from cogames_lib.paths import PROJECT_ROOT
    from tools.learned_mirror_control import main

    finals = sorted((PROJECT_ROOT / "data" / "cvc_learned").glob("seed_0/checkpoint_*.pt"))
    if not finals:
        pytest.skip("the committed checkpoints are in a clone of the repository")
    run = tmp_path / "run"
    (run / "seed_0").mkdir(parents=True)
    shutil.copy(finals[-1], run / "seed_0" / finals[-1].name)
    curriculum = [
        "diagnostic_extract_missing_carbon@1",
        "diagnostic_extract_missing_carbon",
        "diagnostic_chorus_pair@2",
    ]
    (run / "run.json").write_text(json.dumps({"seeds": [0], "config": {"curriculum": curriculum}}))
    table = tmp_path / "table.csv"
    argv = ["--run", str(run), "--kinds", "left_right", "--episodes", "1", "--out", str(tmp_path / "sweep")]
    assert main([*argv, "--table", str(table)]) == 0
    played = pd.read_csv(table)
    # each name's maps at the counts it trained at (carbon: 1 and 2, allowed by its plain entry; chorus: 2)
    assert set(played["policy"]) == {"learned", "scripted", "random"}
    cells = set(zip(played["diagnostic"], played["num_agents"], strict=True))
    carbon = "diagnostic_extract_missing_carbon"
    assert cells == {(carbon, 1), (carbon, 2), ("diagnostic_chorus_pair", 2)}
    assert set(played["map"]) == {"shipped", "left_right"} and not played.duplicated(MIRROR_KEYS).any()
    at_one = [curriculum[0], curriculum[2]]  # carbon trained with one agent only
    (run / "run.json").write_text(json.dumps({"seeds": [0], "config": {"curriculum": at_one}}))
    assert main([*argv, "--table", str(table)]) == 0  # the same sweep folder: nothing is played again
    played = pd.read_csv(table)
    cells = set(zip(played["diagnostic"], played["num_agents"], strict=True))
    assert cells == {(carbon, 1), ("diagnostic_chorus_pair", 2)}


def test_map_group_summary_pools_maps_and_puts_the_interval_over_learned_seeds() -> None:
    from cogames_lib.learn.mirror_control import map_group_summary

    rows = []
    for seed, shipped, flipped, turned in ((0, 20, 10, 2), (1, 18, 6, 0), (2, 20, 8, 4)):
        rows.append(("learned", seed, "shipped", shipped))
        rows += [("learned", seed, kind, flipped) for kind in MIRRORS]
        rows += [("learned", seed, kind, turned) for kind in TRANSPOSES]
    rows += [("scripted", -1, kind, 20) for kind in ("shipped", *SYMMETRIES)]
    table = pd.DataFrame(rows, columns=["policy", "training_seed", "map", "successes"]).assign(n=20)
    summary = map_group_summary(table).set_index(["policy", "group"])
    mirrors = summary.loc[("learned", "mirrors")]
    assert mirrors["n"] == 180 and mirrors["successes"] == 72 and mirrors["per_seed"] == "0.50 / 0.30 / 0.40"
    assert mirrors["rate"] == pytest.approx(0.4) and mirrors["interval"] == "t over seeds"
    # t interval over the three seed rates 0.5, 0.3, 0.4: mean 0.4, sem 0.0577, t(0.975, 2) = 4.303
    assert mirrors["ci_low"] == pytest.approx(0.4 - 4.303 * 0.05774, abs=1e-3)
    transposes = summary.loc[("learned", "transposes")]
    assert transposes["n"] == 240 and transposes["rate"] == pytest.approx(0.1)
    scripted = summary.loc[("scripted", "transposes")]
    assert scripted["rate"] == 1.0 and scripted["interval"] == "Wilson" and scripted["ci_low"] < 1.0
    assert list(map_group_summary(table)["group"][:3]) == ["shipped", "mirrors", "transposes"]
    with pytest.raises(ParameterError, match="unknown map kinds"):
        map_group_summary(table.assign(map="diagonal"))


def test_runs_side_by_side_share_the_baselines_and_draw_one_point_per_run_and_group() -> None:
    from cogames_lib.learn.mirror_control import GROUP_ORDER, runs_by_map_group
    from cogames_lib.plots.learned import map_group_comparison

    def control(turned: int) -> pd.DataFrame:
        rows = [("learned", seed, kind, 20 if kind == "shipped" else turned) for seed in (0, 1)
                for kind in ("shipped", *SYMMETRIES)]  # fmt: skip
        rows += [(policy, -1, kind, 20 if policy == "scripted" else 0) for policy in ("scripted", "random")
                 for kind in ("shipped", *SYMMETRIES)]  # fmt: skip
        return pd.DataFrame(rows, columns=["policy", "training_seed", "map", "successes"]).assign(n=20)

    summary, seed_rates = runs_by_map_group({"fixed maps": control(1), "mirrored maps": control(15)})
    learned = summary[summary["policy"] == "learned"].set_index(["run", "group"])["rate"]
    assert learned[("fixed maps", "transposes")] == pytest.approx(0.05)
    assert learned[("mirrored maps", "transposes")] == pytest.approx(0.75)
    assert set(summary[summary["policy"] != "learned"]["run"]) == {"fixed maps"}  # baselines once
    assert len(seed_rates[seed_rates["policy"] == "learned"]) == 2 * 2 * 3  # runs x seeds x groups
    figure = map_group_comparison(summary, seed_rates, GROUP_ORDER)
    axes = figure.axes[0]
    assert [label.get_text() for label in axes.get_xticklabels()] == list(GROUP_ORDER)
    legend = [text.get_text() for text in axes.get_legend().get_texts()]
    assert sorted(legend) == ["fixed maps", "mirrored maps", "random", "scripted"]


def test_the_reference_runs_mirror_control_gives_the_documented_rates() -> None:
    """README and docs/cvc_learned.md ("The reference run on held-out seeds") quote these."""
    from cogames_lib.learn.mirror_control import committed_mirror_table, map_group_summary

    table = committed_mirror_table()
    if table is None:
        pytest.skip("the committed runs are in a clone of the repository")
    summary = map_group_summary(table).set_index(["policy", "group"])
    shown = {key: f"{row.successes}/{row.n} {row.rate:.2f} [{row.ci_low:.2f}, {row.ci_high:.2f}]"
             for key, row in summary.iterrows()}  # fmt: skip
    assert [shown[("learned", group)] for group in ("shipped", "mirrors", "transposes")] == [
        "1722/1800 0.96 [0.92, 0.99]", "463/5400 0.09 [0.07, 0.11]", "555/7200 0.08 [0.05, 0.10]"
    ]  # fmt: skip
    assert summary.loc[("scripted", "mirrors"), "successes"] == 900


def test_the_committed_controls_give_the_documented_map_group_rates() -> None:
    """docs/cvc_learned.md ("Training on mirrors") and the README quote these, each computed once here."""
    from cogames_lib.learn.mirror_control import (
        COMMITTED_RUN_CONTROLS,
        committed_run_controls,
        runs_by_map_group,
    )
    from cogames_lib.paths import PROJECT_ROOT
    from cogames_lib.report.docs_figures import LEARNED_SYMMETRY, README_FIGURES

    controls = committed_run_controls()
    if controls is None:
        pytest.skip("the committed runs are in a clone of the repository")
    # the docs figure's recorded data are these tables
    shown_files = {str(path.relative_to(PROJECT_ROOT)) for path in COMMITTED_RUN_CONTROLS.values()}
    assert set(README_FIGURES[LEARNED_SYMMETRY]) == shown_files
    summary, _ = runs_by_map_group(controls)
    learned = summary[summary["policy"] == "learned"].set_index(["run", "group"])
    shown = {key: f"{row.rate:.2f} [{row.ci_low:.2f}, {row.ci_high:.2f}]" for key, row in learned.iterrows()}
    reference, mirrored_6m, mirrored_8m = COMMITTED_RUN_CONTROLS
    assert [shown[(reference, group)] for group in ("shipped", "mirrors", "transposes")] == [
        "0.83 [0.66, 0.99]", "0.19 [0.19, 0.19]", "0.15 [0.12, 0.17]"
    ]  # fmt: skip
    assert shown[(mirrored_6m, "transposes")] == "0.25 [0.15, 0.35]"
    assert [shown[(mirrored_8m, group)] for group in ("shipped", "mirrors", "transposes")] == [
        "0.69 [0.49, 0.90]", "0.64 [0.19, 1.00]", "0.24 [0.14, 0.33]"
    ]  # fmt: skip
