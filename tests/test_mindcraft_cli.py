"""`cogames-lib mindcraft analyze|sample` and the seeded sample generator."""

from __future__ import annotations

import filecmp
import json
from pathlib import Path

import pandas as pd
import pytest

from cogames_lib.cli import main
from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft import generate_sample_tree, load_task_definitions
from cogames_lib.mindcraft.sample_logs import make_agent_log

SAMPLE = Path(__file__).resolve().parents[1] / "cogames_lib" / "data" / "mindcraft_sample"
TASK_FILES = [str(path) for path in sorted((SAMPLE / "tasks").glob("*.json"))]


def test_analyze_prints_tables_and_writes_both_tables(tmp_path: Path, capsys) -> None:
    code = main(
        ["mindcraft", "analyze", str(SAMPLE / "experiments"), "--tasks", *TASK_FILES, "--out", str(tmp_path)]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert (
        "69 tasks (layouts: current 46, flat 8, per_run 12, s3_download 3), 185 agent logs, 1 stale; "
        "skipped 3 folders and 0 files; no_score_policy=failure"
    ) in out
    assert "skipped folder " in out and "bots/ holds the agents' memory" in out
    for title in ("== overall", "== by task type", "== techtree by depth", "== construction scores"):
        assert title in out
    for name in ("mindcraft_runs", "mindcraft_agents"):
        parquet = pd.read_parquet(tmp_path / f"{name}.parquet")
        csv = pd.read_csv(tmp_path / f"{name}.csv")
        assert len(parquet) == len(csv) == (69 if name == "mindcraft_runs" else 185)
    skipped = pd.read_parquet(tmp_path / "mindcraft_skipped.parquet")
    assert list(skipped["kind"]) == ["folder"] * 3
    assert not list(tmp_path.glob("*.tmp-*"))


def test_analyze_policy_and_model_flags(tmp_path: Path, capsys) -> None:
    root = SAMPLE / "experiments" / "gpt-4o_techtree_legacy_02-10_11-40"
    code = main(
        [
            "mindcraft",
            "analyze",
            str(root),
            "--model",
            "M",
            "--no-score-policy",
            "exclude",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0 and "no_score_policy=exclude" in capsys.readouterr().out
    runs = pd.read_parquet(tmp_path / "mindcraft_runs.parquet")
    # one run without a verdict; code 3 ("No other agents found") is a zero score, not "no score"
    assert set(runs["model_name"]) == {"M"} and runs["success_for_rate"].isna().sum() == 1


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["mindcraft", "analyze", "/no/such/root"], "roots: '/no/such/root' does not exist"),
        (["mindcraft", "analyze", str(SAMPLE), "--no-score-policy", "maybe"], "no_score_policy"),
        (["mindcraft", "analyze", str(SAMPLE), "--tasks", "/no/tasks.json"], "task_files"),
        (["mindcraft", "analyze", str(SAMPLE), "--workers", "0"], "--workers"),
    ],
)
def test_user_mistakes_exit_2_with_one_line(argv: list[str], fragment: str, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err and "\n" not in err and "Traceback" not in err


def test_bad_out_dir_exits_2_before_any_work(tmp_path: Path, capsys) -> None:
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    root = str(SAMPLE / "experiments")
    for out, fragment in ((a_file, "is not a folder"), (a_file / "sub", "cannot write to")):
        assert main(["mindcraft", "analyze", root, "--out", str(out)]) == 2
        captured = capsys.readouterr()
        err = captured.err.strip().splitlines()[-1]
        assert err.startswith("cogames-lib: error: --out:") and fragment in err
        assert "task folders" not in captured.out  # failed before parsing anything
    blocked = tmp_path / "blocked"
    assert main(["mindcraft", "analyze", root, "--out", str(blocked)]) == 0
    (blocked / "mindcraft_runs.parquet").unlink()
    (blocked / "mindcraft_runs.parquet").mkdir()  # a directory where a table should go
    capsys.readouterr()
    assert main(["mindcraft", "analyze", root, "--out", str(blocked), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and "mindcraft_runs.parquet" in err and "Traceback" not in err
    assert not list(blocked.glob(".*.tmp"))


def test_bad_task_file_exits_2(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "tasks.json"
    bad.write_text("{oops")
    assert main(["mindcraft", "analyze", str(SAMPLE / "experiments"), "--tasks", str(bad)]) == 2
    assert "tasks.json" in capsys.readouterr().err


def test_no_task_folders_is_failed_work(tmp_path: Path, capsys) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["mindcraft", "analyze", str(tmp_path / "empty")]) == 1


def test_committed_sample_is_exactly_what_the_generator_writes(tmp_path: Path) -> None:
    out = tmp_path / "experiments"
    assert main(["mindcraft", "sample", str(out), "--tasks", *TASK_FILES, "--seed", "0"]) == 0
    comparison = filecmp.dircmp(out, SAMPLE / "experiments")

    def assert_same(cmp: filecmp.dircmp) -> None:
        assert not cmp.left_only and not cmp.right_only and not cmp.funny_files, cmp.left
        _, mismatch, errors = filecmp.cmpfiles(cmp.left, cmp.right, cmp.common_files, shallow=False)
        assert not mismatch and not errors, mismatch
        for sub in cmp.subdirs.values():
            assert_same(sub)

    assert_same(comparison)


def test_sample_replaces_an_earlier_sample_but_never_a_foreign_directory(tmp_path: Path, capsys) -> None:
    out = tmp_path / "experiments"
    assert main(["mindcraft", "sample", str(out), "--tasks", *TASK_FILES]) == 0
    assert main(["mindcraft", "sample", str(out), "--tasks", *TASK_FILES, "--seed", "1"]) == 0  # regenerate
    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    assert main(["mindcraft", "sample", str(precious), "--tasks", *TASK_FILES]) == 2
    err = capsys.readouterr().err.strip()
    assert "thesis.tex" in err and "\n" not in err
    assert (precious / "thesis.tex").read_text() == "years of work"
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    assert main(["mindcraft", "sample", str(a_file), "--tasks", *TASK_FILES]) == 2
    assert "not a directory" in capsys.readouterr().err and a_file.read_text() == "x"
    assert main(["mindcraft", "sample", str(a_file / "sub"), "--tasks", *TASK_FILES]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_generator_is_seeded(tmp_path: Path) -> None:
    definitions = load_task_definitions(TASK_FILES)
    generate_sample_tree(tmp_path / "a", definitions, seed=1)
    generate_sample_tree(tmp_path / "b", definitions, seed=1)
    generate_sample_tree(tmp_path / "c", definitions, seed=2)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    same = [(tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files]
    differs = [(tmp_path / "a" / f).read_bytes() != (tmp_path / "c" / f).read_bytes() for f in files]
    assert all(same) and any(differs)
    with pytest.raises(ParameterError, match="out_dir"):
        generate_sample_tree(tmp_path / "a", definitions, seed=1)
    with pytest.raises(ParameterError, match="task_files"):
        generate_sample_tree(tmp_path / "d", {"t": {"type": "cooking"}}, seed=1)


def test_generator_names_what_the_task_files_lack(tmp_path: Path) -> None:
    definitions = load_task_definitions(TASK_FILES)
    two_agent_techtree = sorted(t for t in definitions if "crafting" in t and "num_agents_3" not in t)
    fewer = {t: d for t, d in definitions.items() if t not in two_agent_techtree[10:]}  # 10 of 16 needed
    with pytest.raises(
        ParameterError, match=r"task_files: too few tasks: 10/16 2-agent techtree \(found/needed\)$"
    ):
        generate_sample_tree(tmp_path / "few", fewer, seed=0)
    assert not (tmp_path / "few").exists()


def test_generator_keeps_its_undefined_task_id_undefined(tmp_path: Path) -> None:
    definitions = {**load_task_definitions(TASK_FILES), "church_two_agent": {"type": "construction"}}
    generate_sample_tree(tmp_path / "out", definitions, seed=0)
    solo = tmp_path / "out" / "llama-3-8b_solo_04-02_16-20"
    undefined = [p.name for p in solo.iterdir() if p.is_dir() and p.name not in definitions]
    assert undefined == ["church_two_agent_undefined"]


def test_generated_log_shape_is_mindcraft_like() -> None:
    import random

    document = json.loads(make_agent_log("Andy_0", "Jill_0", "bread", random.Random(0), ("score", 1), 5))
    assert set(document) == {
        "memory",
        "turns",
        "self_prompting_state",
        "self_prompt",
        "taskStart",
        "last_sender",
    }
    assert document["turns"][-1] == {"role": "system", "content": "Task ended with score : 1"}


def test_sample_readme_marks_the_data_synthetic() -> None:
    assert "SYNTHETIC" in (SAMPLE / "README.md").read_text()
