"""The small derived tables and helpers the notebooks call (cogames_lib.report.*_views, notebook_setup,
notebook_files)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from cogames_lib.errors import DataFileError, ParameterError
from cogames_lib.finding import Finding
from cogames_lib.report.mindcraft_views import error_folders, json_files
from cogames_lib.report.notebook_files import read_findings, save_table, write_findings
from cogames_lib.report.notebook_setup import check_count, check_fraction, comparison_pair, prepare_out_dir
from cogames_lib.report.sweep_views import failed_episodes


def test_json_files_expands_folders_sorted_and_passes_missing_paths_through(tmp_path):
    (tmp_path / "b.json").write_text("{}")
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("")
    single = tmp_path / "single.json"
    single.write_text("{}")
    assert json_files([tmp_path, single, "/missing.json"]) == [
        str(tmp_path / "a.json"), str(tmp_path / "b.json"), str(tmp_path / "single.json"), str(single),
        "/missing.json"]  # fmt: skip


def episodes_table() -> pd.DataFrame:
    return pd.DataFrame(dict(
        policy=["noop", "scripted", "scripted", "random", "random", "scripted"],
        diagnostic=["d1", "d1", "d1", "d2", "d2", "d2"], num_agents=[1] * 6, seed=[0, 0, 1, 0, 1, 0],
        status=["TIMED_OUT", "TIMED_OUT", "TIMED_OUT", "TIMED_OUT", "RUN_ERROR", "SUCCESS"],
        success=[False, False, False, False, False, True], steps=[250, 250, 250, 250, 3, 40],
    ))  # fmt: skip


def test_failed_episodes_one_per_pair_noop_last():
    picked = failed_episodes(episodes_table(), limit=3)
    assert list(zip(picked["policy"], picked["diagnostic"], picked["seed"], strict=True)) == [
        ("scripted", "d1", 0), ("random", "d2", 0), ("noop", "d1", 0)]  # fmt: skip
    assert len(failed_episodes(episodes_table(), limit=1)) == 1


def test_error_folders_lists_broken_logs_and_skipped_folders():
    agents = pd.DataFrame(dict(
        experiment=["e", "e", "e"], task_id=["t1", "t2", "t3"], file_name=["A_0_0.json", "B_0_0.json", "C_0_0.json"],
        completion_status=["SUCCESS", "LOG_FILE_ERROR", "NO_SCORE_LOGGED"],
        parsing_errors=["", "not valid UTF-8", "<script>x</script> stale score"],
    ))  # fmt: skip
    table = error_folders(agents, [{"path": "/x/e/analysis_results", "reason": "not a task folder"}])
    assert list(table["task_id"]) == ["t2", "t3", "analysis_results"]
    assert list(table["completion_status"]) == ["LOG_FILE_ERROR", "NO_SCORE_LOGGED", "SKIPPED"]


def test_save_table_and_findings_are_complete_files(tmp_path):
    frame = pd.DataFrame(dict(a=[1, 2], b=["x", "<y>"]))
    parquet = save_table(frame, tmp_path, "table")
    pd.testing.assert_frame_equal(pd.read_parquet(parquet), frame)
    assert pd.read_csv(tmp_path / "table.csv").equals(frame)
    finding = Finding("c", "rate", "A rate.", np.float64(0.5), math.nan, math.nan, np.int64(3), "episodes")
    write_findings(tmp_path, [finding, Finding("c", "note", "No number.")])
    records = json.loads((tmp_path / "summary.json").read_text())["findings"]
    assert records[0]["estimate"] == 0.5 and records[0]["low"] is None and records[0]["n"] == 3
    assert [f.key for f in read_findings(tmp_path)] == ["rate", "note"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json", "table.csv", "table.parquet"]
    assert oct((tmp_path / "summary.json").stat().st_mode & 0o777) == "0o644"
    with pytest.raises(ParameterError, match="no findings to write"):
        write_findings(tmp_path, [])
    (tmp_path / "summary.json").write_text('{"episodes": 3}')
    with pytest.raises(DataFileError, match="holds no 'findings' list"):
        read_findings(tmp_path)
    assert read_findings(tmp_path / "nothing_here") is None


def test_comparison_pair_defaults_to_the_first_two_policies_and_checks_names():
    assert comparison_pair(None, ["scripted", "random", "noop"]) == ("scripted", "random")
    assert comparison_pair(None, ["scripted"]) is None
    assert comparison_pair(["noop", "scripted"], ["scripted", "noop"]) == ("noop", "scripted")
    with pytest.raises(ParameterError, match=r"compare: \['oracle'\] not among the policies"):
        comparison_pair(["scripted", "oracle"], ["scripted", "noop"])
    with pytest.raises(ParameterError, match="two different policy names"):
        comparison_pair(["scripted", "scripted"], ["scripted"])


def test_parameter_checks_name_the_parameter(tmp_path):
    assert check_fraction("threshold", 1) == 1.0
    for bad in (0, 1.5, "0.5", True):
        with pytest.raises(ParameterError, match=r"^threshold: must be a number in \(0, 1\]"):
            check_fraction("threshold", bad)
    with pytest.raises(ParameterError, match=r"^workers: must be an integer >= 1, got 0"):
        check_count("workers", 0)
    (tmp_path / "file").write_text("")
    with pytest.raises(ParameterError, match=r"^out_dir: .* exists and is not a folder"):
        prepare_out_dir(tmp_path / "file")
