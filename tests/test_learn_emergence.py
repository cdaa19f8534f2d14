"""Capability emergence: checkpoints through the sweep into the `emergence` table, resumable, with the first
reliable step, and its aggregates. Scripted policies stand in for checkpoints (noop never passes, scripted
passes the chosen diagnostic), so the expected table is known."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from cogames_lib.errors import CogamesLibError, DataFileError, ParameterError
from cogames_lib.learn.emergence import (
    Checkpoint,
    emergence_table,
    find_checkpoints,
    load_emergence,
    run_emergence,
    run_identity,
    select_checkpoints,
    with_first_reliable_step,
)
from cogames_lib.learn.emergence_summary import (
    capability_family,
    emergence_grid,
    family_curves,
    final_rates,
    first_reliable_summary,
)
from cogames_lib.sweep import load_episodes, store
from cogames_lib.tables import EMERGENCE

NEAR = "diagnostic_chest_deposit_near"
TINY = dict(diagnostics=["chest_deposit_near"], agent_counts=[1], episodes=2, progress=False)


def test_two_checkpoints_give_the_emergence_table(tmp_path):
    checkpoints = [Checkpoint(0, 0, "noop"), Checkpoint(0, 1000, "scripted")]
    table = run_emergence(checkpoints, tmp_path / "out", **TINY)
    EMERGENCE.validate(table, "test")
    assert list(table.columns) == list(EMERGENCE.columns)
    assert table[["seed", "step", "diagnostic", "tier", "num_agents", "n", "successes"]].values.tolist() == [
        [0, 0, NEAR, "normal", 1, 2, 0],
        [0, 1000, NEAR, "normal", 1, 2, 2],
    ]
    assert table["first_reliable_step"].tolist() == [1000, 1000]
    assert not table.duplicated(list(EMERGENCE.key)).any()
    # the files the folder holds read back to the same table
    pd.testing.assert_frame_equal(load_emergence(tmp_path / "out"), table)
    pd.testing.assert_frame_equal(load_emergence(tmp_path / "out" / "emergence.csv"), table)


def test_emergence_resumes_and_adds_new_checkpoints(tmp_path):
    out = tmp_path / "out"
    first = run_emergence([Checkpoint(0, 0, "noop")], out, **TINY)
    assert (first.attrs["ran"], first.attrs["resumed"]) == (2, 0)
    # a checkpoint written since: only its episodes are played
    both = run_emergence([Checkpoint(0, 0, "noop"), Checkpoint(0, 500, "scripted")], out, **TINY)
    assert (both.attrs["ran"], both.attrs["resumed"]) == (2, 2)
    # a killed run loses at most its unfinished parts: remove one and only its episodes play again
    parts = sorted(store.episodes_dir(out / "sweep").glob("part-*.parquet"))
    parts[0].unlink()
    again = run_emergence([Checkpoint(0, 0, "noop"), Checkpoint(0, 500, "scripted")], out, **TINY)
    assert 0 < again.attrs["ran"] < 4 and again.attrs["ran"] + again.attrs["resumed"] == 4
    pd.testing.assert_frame_equal(again, both)
    assert len(load_episodes(out / "sweep")) == 4


def test_another_runs_folder_is_refused_unless_overwritten(tmp_path):
    out = tmp_path / "out"
    run_emergence([Checkpoint(0, 0, "noop")], out, run={"name": "a"}, **TINY)
    with pytest.raises(ParameterError, match=r"differ|parameters"):
        run_emergence([Checkpoint(0, 0, "noop")], out, run={"name": "b"}, **TINY)
    table = run_emergence([Checkpoint(0, 0, "scripted")], out, run={"name": "b"}, overwrite=True, **TINY)
    assert table.attrs["ran"] == 2 and table["successes"].tolist() == [2]


def test_evaluation_episodes_follow_the_checkpoint_not_its_file(tmp_path):
    """Episode seeds derive from (training seed, step): the same checkpoint evaluated from anywhere plays the
    same episodes, and two checkpoints play different ones."""
    one = run_emergence([Checkpoint(3, 10, "noop"), Checkpoint(3, 20, "noop")], tmp_path / "a", **TINY)
    two = run_emergence([Checkpoint(3, 10, "random")], tmp_path / "b", **TINY)
    seeds_a = (
        load_episodes(tmp_path / "a" / "sweep").groupby("policy", observed=True)["episode_seed"].apply(list)
    )
    seeds_b = (
        load_episodes(tmp_path / "b" / "sweep").groupby("policy", observed=True)["episode_seed"].apply(list)
    )
    assert seeds_a["seed_3/step_0000000010"] == seeds_b["seed_3/step_0000000010"]
    assert seeds_a["seed_3/step_0000000010"] != seeds_a["seed_3/step_0000000020"]
    assert len(one) == 2 and len(two) == 1


def test_find_and_select_checkpoints(tmp_path):
    for seed in (0, 1):
        folder = tmp_path / f"seed_{seed}"
        folder.mkdir()
        for step in range(0, 50_000, 10_000):
            (folder / f"checkpoint_{step:010d}.pt").write_bytes(b"")
        (folder / "notes.txt").write_text("not a checkpoint")
    (tmp_path / "run.json").write_text('{"command": "cogames-lib learn train --seeds 0 1"}')
    found = find_checkpoints(tmp_path)
    assert len(found) == 10 and found[0] == Checkpoint(
        0, 0, f"learned:{tmp_path / 'seed_0' / 'checkpoint_0000000000.pt'}"
    )
    chosen = select_checkpoints(found, per_seed=3)
    assert [(c.seed, c.step) for c in chosen] == [(s, t) for s in (0, 1) for t in (0, 20_000, 40_000)]
    assert [(c.seed, c.step) for c in select_checkpoints(found, per_seed=1, seeds=[1])] == [(1, 40_000)]
    # every 3rd from step 0, and the last (a run stopped by a time limit ends off the schedule)
    assert [c.step for c in select_checkpoints(found, every=3, seeds=[0])] == [0, 30_000, 40_000]
    assert [c.step for c in select_checkpoints(found, every=2, seeds=[0])] == [0, 20_000, 40_000]
    assert [c.step for c in select_checkpoints(found, steps=[10_000, 99], seeds=[0])] == [10_000, 40_000]
    with pytest.raises(ParameterError, match="not two"):
        select_checkpoints(found, per_seed=2, every=2)
    assert run_identity(tmp_path) == {"name": tmp_path.name, "command": "cogames-lib learn train --seeds 0 1"}
    with pytest.raises(ParameterError, match="training seed"):
        select_checkpoints(found, seeds=[7])
    with pytest.raises(ParameterError, match="per_seed"):
        select_checkpoints(found, per_seed=0)
    with pytest.raises(CogamesLibError, match=r"no seed_<seed>/checkpoint_<step>\.pt files"):
        find_checkpoints(tmp_path / "seed_0")
    with pytest.raises(CogamesLibError, match="not found"):
        find_checkpoints(tmp_path / "missing")


def test_bad_checkpoint_lists_are_one_line_errors(tmp_path):
    with pytest.raises(ParameterError, match="empty"):
        run_emergence([], tmp_path / "out", **TINY)
    with pytest.raises(ParameterError, match="twice"):
        run_emergence([Checkpoint(0, 0, "noop"), Checkpoint(0, 0, "random")], tmp_path / "out", **TINY)
    with pytest.raises(ParameterError, match="checkpoint seed 0 step 5"):
        run_emergence([Checkpoint(0, 5, "no_such_policy")], tmp_path / "out", **TINY)
    assert not (tmp_path / "out").exists()


def hand_table(rates: dict[tuple[int, int, str, int], tuple[int, int]]) -> pd.DataFrame:
    """An emergence table from {(seed, step, diagnostic, agents): (n, successes)}."""
    rows = [
        dict(
            seed=s,
            step=t,
            diagnostic=d,
            tier="normal",
            num_agents=a,
            n=n,
            successes=k,
            first_reliable_step=pd.NA,
        )
        for (s, t, d, a), (n, k) in rates.items()
    ]
    return with_first_reliable_step(EMERGENCE.frame(rows))


def test_first_reliable_step_is_the_first_step_at_the_bar():
    table = hand_table(
        {
            (0, 100, NEAR, 1): (10, 5),
            (0, 200, NEAR, 1): (10, 8),  # exactly 0.8: reliable
            (0, 300, NEAR, 1): (10, 6),  # falls back: the first step stays 200
            (1, 100, NEAR, 1): (10, 7),
            (1, 200, NEAR, 1): (10, 7),
        }
    )
    assert table["first_reliable_step"].tolist()[:3] == [200, 200, 200]
    assert table["first_reliable_step"].isna().tolist()[3:] == [True, True]
    summary = first_reliable_summary(table).iloc[0]
    assert (summary["seeds"], summary["seeds_reached"], summary["first_step_median"]) == (2, 1, 200.0)
    strict = with_first_reliable_step(table, reliable_rate=0.9)
    assert strict["first_reliable_step"].isna().all()


def test_grid_pools_episodes_over_seeds_and_curves_average_seeds():
    nav = "diagnostic_chest_navigation1"
    table = hand_table(
        {
            (0, 100, NEAR, 1): (10, 10),
            (1, 100, NEAR, 1): (10, 0),
            (0, 100, nav, 1): (10, 5),
            (1, 100, nav, 1): (20, 5),
        }
    )
    grid = emergence_grid(table).set_index("diagnostic")
    assert (grid.loc[NEAR, "n"], grid.loc[NEAR, "successes"], grid.loc[NEAR, "n_seeds"]) == (20, 10, 2)
    assert grid.loc[nav, "rate"] == pytest.approx(10 / 30)
    curves = family_curves(table).set_index("family")
    # the deposit family: seed 0 at 1.0, seed 1 at 0.0 -> mean 0.5 across seeds with an interval
    assert curves.loc["deposit", "rate"] == pytest.approx(0.5)
    assert curves.loc["deposit", "n_seeds"] == 2 and curves.loc["deposit", "ci_low"] < 0.5
    assert curves.loc["navigation", "rate"] == pytest.approx((0.5 + 0.25) / 2)
    final = final_rates(table).set_index("diagnostic")
    assert (final.loc[NEAR, "seeds"], final.loc[NEAR, "seeds_reliable"]) == (2, 1)
    assert capability_family("chest_deposit_search") == "explore" and capability_family("nope") == "other"


def test_one_seed_gives_no_interval():
    curves = family_curves(hand_table({(0, 100, NEAR, 1): (10, 9)}))
    assert curves["n_seeds"].tolist() == [1] and math.isnan(curves["ci_low"].iloc[0])


def test_the_family_figure_of_one_checkpoint_draws_without_a_singular_axis():
    import warnings

    from cogames_lib.plots.learned import family_curves as draw_family_curves

    curves = family_curves(hand_table({(0, 6_002_176, NEAR, 1): (20, 20), (1, 6_002_176, NEAR, 1): (20, 19)}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns on identical x limits
        figure = draw_family_curves(curves)
    low, high = figure.axes[0].get_xlim()
    assert low < 6_002_176 < high


def test_emergence_table_rejects_foreign_rows_and_leaves_out_run_errors():
    episodes = pd.DataFrame(
        {
            "policy": ["seed_0/step_0000000001"] * 3,
            "diagnostic": [NEAR] * 3,
            "tier": ["normal"] * 3,
            "num_agents": [1] * 3,
            "status": ["SUCCESS", "RUN_ERROR", "TIMED_OUT"],
            "success": [True, False, False],
        }
    )
    table = emergence_table(episodes, [Checkpoint(0, 1, "noop")])
    assert table[["n", "successes"]].values.tolist() == [[2, 1]]
    with pytest.raises(ParameterError, match="match no checkpoint"):
        emergence_table(episodes, [Checkpoint(0, 2, "noop")])


def test_a_malformed_table_file_names_the_column(tmp_path):
    path = tmp_path / "emergence.csv"
    pd.DataFrame({"seed": [0], "step": ["late"]}).to_csv(path, index=False)
    with pytest.raises(DataFileError, match="missing columns"):
        load_emergence(path)
    with pytest.raises(ParameterError, match="does not exist"):
        load_emergence(tmp_path / "none")


def write_learned_run(run_dir, seed: int, steps: tuple[int, ...]) -> None:
    """Untrained `learned:` checkpoints in the run layout (the weights differ per step)."""
    import torch

    from cogames_lib import io
    from cogames_lib.learn.ppo import run_path
    from cogames_lib.policies.learned import NetworkConfig, checkpoint_payload
    from cogames_lib.policies.learned_network import LearnedNetwork

    for step in steps:
        torch.manual_seed(step)
        network = LearnedNetwork(NetworkConfig())
        payload = checkpoint_payload(NetworkConfig(), network.state_dict(), step=step, seed=seed)
        io.write_torch(run_path(run_dir, seed, step), payload)


def test_learn_emergence_command_on_learned_checkpoints(tmp_path, capsys):
    from cogames_lib.cli import main

    run_dir = tmp_path / "run"
    write_learned_run(run_dir, 0, (0, 100, 200))
    out = tmp_path / "out"
    arguments = ["learn", "emergence", str(run_dir), "--out", str(out), "--diagnostics", "chest_deposit_near"]
    arguments += ["--agents", "1", "--episodes", "2", "--checkpoints-per-seed", "2", "--workers", "1"]
    assert main([*arguments, "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "emergence of 2 checkpoints (1 training seeds: [0]): 4 episodes played now, 0 resumed" in printed
    assert "chest_deposit_near x1" in printed
    table = load_emergence(out)
    assert table[["seed", "step", "n"]].values.tolist() == [[0, 0, 2], [0, 200, 2]]
    assert (out / "emergence_heatmap.png").stat().st_size > 1000 and (out / "family_curves.png").is_file()
    # the same folder again needs --resume, which plays nothing
    assert main([*arguments, "--no-progress", "--no-figures"]) == 2
    assert "--resume" in capsys.readouterr().err
    # --steps 0 picks step 0 and each seed's last: the same two checkpoints, nothing to play
    again = [*arguments[:-4], "--steps", "0", "--workers", "1", "--no-progress", "--no-figures", "--resume"]
    assert "--checkpoints-per-seed" not in again
    assert main(again) == 0
    assert "0 episodes played now, 4 resumed" in capsys.readouterr().out


def test_final_checkpoints_play_more_episodes_and_the_extra_tier(tmp_path):
    checkpoints = [Checkpoint(0, 0, "noop"), Checkpoint(0, 10, "scripted")]
    table = run_emergence(
        checkpoints, tmp_path / "out", final_episodes=3, final_diagnostics=["chest_deposit_near_hard"], **TINY
    )
    rows = table[["step", "diagnostic", "tier", "n"]].values.tolist()
    assert rows == [[0, NEAR, "normal", 2], [10, NEAR, "normal", 3], [10, f"{NEAR}_hard", "hard", 3]]
    assert table.attrs["ran"] == 2 + 3 + 3
    # the final checkpoint's first 2 episodes are the ones every checkpoint plays: asking again replays none
    again = run_emergence(checkpoints, tmp_path / "out", **TINY)
    assert again.attrs["ran"] == 0 and again["n"].tolist() == [2, 2]
    # the curves over training leave out what only the final checkpoint played
    assert set(emergence_grid(table)["diagnostic"]) == {NEAR}
