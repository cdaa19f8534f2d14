"""`cogames-lib diagnostics list|run` and `cogames-lib sweep`, called in-process through the dispatcher."""

from __future__ import annotations

import re

import pytest

from cogames_lib.cli import main
from cogames_lib.diagnostics import DIAGNOSTICS
from cogames_lib.sweep import run_sweep


def test_list_shows_every_diagnostic_with_agents_steps_and_purpose(capsys):
    assert main(["diagnostics", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["name", "agents", "max_steps"]
    assert [line.split()[0] for line in lines[1:]] == list(DIAGNOSTICS)
    by_name = {line.split()[0]: line.split() for line in lines[1:]}
    assert by_name["diagnostic_assemble_seeded_near"][1:3] == ["1-4", "50"]
    assert by_name["diagnostic_multi_station"][1:3] == ["2-4", "300"]
    assert by_name["diagnostic_chorus_pair"][1] == "2"
    assert "maze" in " ".join(by_name["diagnostic_chest_navigation1"])
    assert main(["diagnostics", "list", "--tier", "hard"]) == 0
    hard = capsys.readouterr().out.splitlines()[1:]
    assert [line.split()[0] for line in hard] == [f"{name}_hard" for name in DIAGNOSTICS]
    assert "certified map" in hard[0]


def test_run_prints_the_verdict_and_reproduces_the_sweep_row(capsys, tmp_path):
    assert (
        main(
            [
                "diagnostics",
                "run",
                "assemble_seeded_near",
                "--agents",
                "2",
                "--policy",
                "random",
                "--seed",
                "2",
            ]
        )
        == 0
    )
    line = capsys.readouterr().out.strip().splitlines()[-1]
    match = re.match(
        r"(PASS|FAIL) diagnostic_assemble_seeded_near agents=2 policy=random seed=2 .*: (\w+) after (\d+)/50",
        line,
    )
    assert match, line
    table = run_sweep(["random"], ["assemble_seeded_near"], [2], [2], tmp_path, progress=False)
    row = table.iloc[0]
    assert (match.group(2), int(match.group(3))) == (str(row["status"]), int(row["steps"]))
    assert f"episode seed {row['episode_seed']}" in line


def test_run_with_render_prints_one_frame_per_step(capsys):
    assert main(["diagnostics", "run", "chest_deposit_near", "--policy", "noop", "--render"]) == 0
    out = capsys.readouterr().out
    assert out.count("-- step ") == 251  # the reset frame and 250 steps
    assert out.strip().splitlines()[-1].startswith("FAIL diagnostic_chest_deposit_near")
    assert "TIMED_OUT after 250/250" in out


def test_run_with_a_raising_policy_exits_1_and_shows_the_error(capsys):
    code = main(
        ["diagnostics", "run", "chest_deposit_near", "--policy", "tests.test_sweep_fakes:RaisingPolicy"]
    )
    assert code == 1
    assert "error: RuntimeError: policy exploded on purpose" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["diagnostics", "run", "chest_deposit_nea"], "unknown diagnostic 'chest_deposit_nea'; did you mean"),
        (["diagnostics", "run", "chest_deposit_near", "--agents", "3"], "does not allow 3 agent"),
        (["diagnostics", "run", "memory", "--policy", "nonsense"], "unknown policy 'nonsense'"),
        (["sweep", "--diagnostics", "radiall", "--out", "OUT"], "diagnostics: unknown diagnostic 'radiall'"),
        (
            ["sweep", "--diagnostics", "memory", "--agents", "2", "--out", "OUT"],
            "no selected diagnostic allows 2",
        ),
        (["sweep", "--seeds", "-1", "--out", "OUT"], "seeds: the number of seeds must be >= 1"),
        (["sweep", "--workers", "0", "--out", "OUT"], "workers: must be an integer >= 1"),
    ],
)
def test_user_mistakes_are_one_line_errors_with_exit_2(capsys, tmp_path, argv, message):
    argv = [str(tmp_path / "out") if part == "OUT" else part for part in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # nothing was started


def test_sweep_prints_a_pass_rate_table_per_policy(capsys, tmp_path):
    argv = ["sweep", "--policies", "random", "noop", "--diagnostics", "chest_deposit_near", "chorus_pair"]
    argv += ["--agents", "1", "2", "--seeds", "2", "--workers", "1", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "8 episodes computed now; 4 cells skipped" in out
    assert "pass rate of random" in out and "pass rate of noop" in out
    noop_table = out.split("pass rate of noop")[1].splitlines()
    assert noop_table[1].split() == ["1", "agents", "2", "agents"]
    assert noop_table[2].split()[0] == "chest_deposit_near" and noop_table[2].split()[-1] == "-"
    assert "0.00 [0.00, 0.66] (n = 2)" in noop_table[2]
    assert (tmp_path / "episodes.parquet").is_file()
    assert main(argv) == 2  # an earlier sweep is in the folder: resuming it is explicit
    assert "--resume" in capsys.readouterr().err
    assert main([*argv, "--resume"]) == 0
    # reuse is announced with when the reused episodes were computed and by which code
    assert re.search(r"resumed 8 of 8 episodes computed \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC.*; 0 computed now",
                     capsys.readouterr().out)  # fmt: skip


def test_sweep_with_an_out_dir_that_cannot_be_created_exits_2_in_one_line(capsys, tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    argv = ["sweep", "--policies", "noop", "--diagnostics", "chest_deposit_near", "--agents", "1"]
    argv += ["--seeds", "1", "--workers", "1", "--no-progress", "--out", str(a_file / "sub")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "out_dir: cannot write to" in err and err.count("\n") == 1


def test_sweep_where_every_episode_crashed_exits_1_and_says_so(capsys, tmp_path):
    argv = [
        "sweep",
        "--policies",
        "tests.test_sweep_fakes:RaisingPolicy",
        "--diagnostics",
        "chest_deposit_near",
    ]
    argv += ["--agents", "1", "--seeds", "2", "--workers", "1", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 1
    assert "every one of the 2 episodes crashed" in capsys.readouterr().err


def test_sweep_compare_prints_the_suite_difference_its_interval_and_the_method(tmp_path, capsys):
    from tests.test_plots import make_episodes

    make_episodes().to_parquet(tmp_path / "episodes.parquet")
    figure = tmp_path / "profile.png"
    argv = ["sweep", "compare", "scripted", "noop", "--sweep", str(tmp_path), "--resamples", "200"]
    assert main([*argv, "--figure", str(figure)]) == 0
    out = capsys.readouterr().out.splitlines()
    # per cell scripted - noop: 1, 1, 2/3 (3 cells)
    assert out[0].startswith("Averaged over the 3 (diagnostic, agent count) cells both played, scripted's")
    assert "is 0.89 [" in out[0] and "(n = 3 cells)" in out[0]
    assert out[1].startswith("Probability of improvement") and "0.94 [" in out[1]
    assert out[2].startswith("method: stratified percentile bootstrap (scipy.stats.bootstrap)")
    assert figure.read_bytes()[:4] == b"\x89PNG"
    assert main(["sweep", "compare", "scripted", "nop", "--sweep", str(tmp_path)]) == 2
    assert "did you mean 'noop'" in capsys.readouterr().err
    assert main(["sweep", "compare", "scripted", "noop", "--sweep", str(tmp_path / "none")]) == 2
    assert main(["sweep", "--policies", "noop"]) == 2  # a sweep without --out: one line
    assert "--out" in capsys.readouterr().err
