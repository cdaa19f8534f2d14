"""Hostile and odd files in experiment trees: never a crash, a hang, a write into the tree, or a silent drop."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogames_lib.cli import main
from cogames_lib.io import write_csv, write_parquet
from cogames_lib.mindcraft import agents_table, aggregate_results, runs_table, skipped_table

SCORE_LOG = json.dumps({"turns": [{"role": "system", "content": "Task ended with score : 1"}]}).encode()
PLAIN_LOG = json.dumps({"turns": [{"role": "user", "content": "hi"}]}).encode()
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def write(path: Path, data: bytes = PLAIN_LOG) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def skipped_reasons(runs: pd.DataFrame) -> dict[str, str]:
    return {os.path.basename(item["path"]): item["reason"] for item in runs.attrs["skipped_folders"]}


def test_non_utf8_folder_names_survive_parquet_csv_and_html(tmp_path: Path) -> None:
    raw_name = b"task_caf\xe9_\xff"  # latin-1 bytes written on another system: not UTF-8
    folder = os.path.join(os.fsencode(tmp_path / "exp"), raw_name)
    os.makedirs(folder)
    write(Path(os.fsdecode(folder)) / "Andy_0_0.json", SCORE_LOG)
    runs = aggregate_results(tmp_path / "exp")
    assert runs.loc[0, "overall_completion_status"] == "SUCCESS"
    assert os.fsencode(runs.loc[0, "folder_path"]) == folder  # lossless in memory
    table = runs_table(runs)
    assert (
        table.loc[0, "folder_display"].endswith("task_caf\\xe9_\\xff")
        and table.loc[0, "task_id"].isprintable()
    )
    write_parquet(tmp_path / "out" / "runs.parquet", table)
    write_csv(tmp_path / "out" / "runs.csv", table)
    write_parquet(tmp_path / "out" / "agents.parquet", agents_table(runs))
    html = table.to_html()
    assert "task_caf\\xe9_\\xff" in html
    back = pd.read_parquet(tmp_path / "out" / "runs.parquet")
    assert back.loc[0, "folder_path_bytes"] == folder  # exact bytes through parquet
    assert str(folder) in (tmp_path / "out" / "runs.csv").read_text()  # the bytes literal through CSV


def test_symlinked_log_to_dev_zero_is_skipped_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "exp" / "task_x"
    write(folder / "Jill_0_0.json", SCORE_LOG)
    os.symlink("/dev/zero", folder / "Andy_0_0.json")
    runs = aggregate_results(tmp_path / "exp")
    assert runs.loc[0, "total_agent_logs_found"] == 1 and runs.loc[0, "overall_is_successful"]
    assert "character device" in skipped_reasons(runs)["Andy_0_0.json"]


def test_symlinked_logs_are_read_only_inside_the_root(tmp_path: Path) -> None:
    outside = write(tmp_path / "elsewhere" / "log.json", SCORE_LOG)
    folder = tmp_path / "exp" / "task_x"
    inside = write(tmp_path / "exp" / "store" / "kept.txt", SCORE_LOG)
    folder.mkdir(parents=True)
    os.symlink(outside, folder / "Andy_0_0.json")
    os.symlink(inside, folder / "Jill_0_0.json")
    runs = aggregate_results(tmp_path / "exp")
    row = runs[runs["task_id"] == "task_x"].iloc[0]
    assert row["total_agent_logs_found"] == 1 and row["overall_is_successful"]
    assert skipped_reasons(runs)["Andy_0_0.json"] == "symlink to a file outside the analysed root"


@needs_fifo
def test_fifos_and_sockets_never_block(tmp_path: Path) -> None:
    exp = tmp_path / "exp"
    write(exp / "task_x" / "Andy_0_0.json", SCORE_LOG)
    os.mkfifo(exp / "results.txt")  # read_model_name must not wait for a writer
    os.mkfifo(exp / "task_x" / "Jill_0_0.json")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(exp / "task_x" / "Bob_0_0.json"))
        runs = aggregate_results(exp)
    assert runs.loc[0, "model_name"] is pd.NA and runs.loc[0, "total_agent_logs_found"] == 1
    reasons = skipped_reasons(runs)
    assert reasons["Jill_0_0.json"] == "a FIFO, not read" and reasons["Bob_0_0.json"] == "a socket, not read"


def test_symlinked_experiment_folders_are_analysed_once_and_cycles_are_listed(tmp_path: Path) -> None:
    store = tmp_path / "store" / "exp_03-20_09-15"
    write(store / "task_x" / "Andy_0_0.json", SCORE_LOG)
    root = tmp_path / "experiments"
    root.mkdir()
    os.symlink(store, root / "linked_exp")
    os.symlink(root, store / "task_loop")  # a cycle back to the root
    runs = aggregate_results(root)
    assert list(runs["task_id"]) == ["task_x"] and runs.loc[0, "overall_is_successful"]
    assert "same folder as" in skipped_reasons(runs)["task_loop"]
    both = aggregate_results([root, store])  # the same experiment twice: counted once, listed once
    assert len(both) == 1 and any("analysed once" in item["reason"] for item in both.attrs["skipped_folders"])


def test_a_directory_named_like_a_log_and_empty_experiments_are_listed(tmp_path: Path) -> None:
    root = tmp_path / "experiments"
    write(root / "exp_a_03-20_09-15" / "task_x" / "Andy_0_0.json", SCORE_LOG)
    (root / "exp_a_03-20_09-15" / "task_x" / "Jill_0_0.json").mkdir()
    (root / "exp_a_03-20_09-15" / "unrun_task").mkdir()
    (root / "exp_b_03-21_10-00").mkdir()  # an experiment that never started
    runs = aggregate_results(root)
    assert sorted(runs["task_id"]) == ["task_x", "unrun_task"]
    reasons = skipped_reasons(runs)
    assert reasons["Jill_0_0.json"] == "a directory named like a log"
    assert reasons["exp_b_03-21_10-00"] == "empty experiment folder: no task folders"
    (tmp_path / "empty_root").mkdir()
    empty = aggregate_results(tmp_path / "empty_root")
    assert empty.empty and skipped_reasons(empty)["empty_root"] == "empty root: no task folders"


def test_out_inside_an_analysed_root_is_refused_and_nothing_is_written(tmp_path: Path, capsys) -> None:
    root = tmp_path / "exp"
    write(root / "task_x" / "Andy_0_0.json", SCORE_LOG)
    os.symlink(root, tmp_path / "alias")
    for out in (root / "analysis", tmp_path / "alias" / "analysis", root):
        before = sorted(p.name for p in root.rglob("*"))
        assert main(["mindcraft", "analyze", str(root), "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip()
        assert "--out" in err and "inside the input" in err and "\n" not in err
        assert sorted(p.name for p in root.rglob("*")) == before


def test_cli_accepts_a_folder_of_task_files(tmp_path: Path, capsys) -> None:
    sample = Path(__file__).resolve().parents[1] / "cogames_lib" / "data" / "mindcraft_sample"
    legacy = sample / "experiments" / "gpt-4o_techtree_legacy_02-10_11-40"
    assert main(["mindcraft", "analyze", str(legacy), "--tasks", str(sample / "tasks")]) == 0
    assert "6 tasks (layouts: current 6)" in capsys.readouterr().out


# --- property: hostile trees -------------------------------------------------------------------------

NAME_PARTS = st.sampled_from(
    ["Andy_0_0.json", "Jill_0_1.json", "Andy_0.json", "t_Andy_0_0.json", "results.txt", "x"]
)
ODD_NAMES = st.one_of(
    NAME_PARTS,
    st.binary(min_size=1, max_size=12).map(
        lambda raw: os.fsdecode(raw.replace(b"/", b"_").replace(b"\0", b"_"))
    ),
    st.text(min_size=1, max_size=12).map(lambda text: text.replace("/", "_").replace("\0", "_")),
).filter(lambda name: name not in (".", ".."))
CONTENTS = st.one_of(
    st.just(SCORE_LOG),
    st.just(PLAIN_LOG),
    st.just(SCORE_LOG[: len(SCORE_LOG) // 2]),  # truncated
    st.binary(max_size=200),
    st.just(b'{"turns": [{"role": "system", "content": "\\ud83d Task ended with score : 1"}]}'),
)
ENTRY = st.tuples(
    st.sampled_from(["file", "fifo", "dir", "sparse", "link_zero", "link_up", "link_file", "link_missing"]),
    ODD_NAMES,
    CONTENTS,
    st.integers(0, 2),
)


def _make(root: Path, entries: list) -> None:
    folders = [root, root / "exp", root / "exp" / "task"]
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    for kind, name, data, level in entries:
        path = folders[level] / name
        if os.path.lexists(path):
            continue
        if kind == "file":
            path.write_bytes(data)
        elif kind == "fifo" and hasattr(os, "mkfifo"):
            os.mkfifo(path)
        elif kind == "dir":
            path.mkdir()
        elif kind == "sparse":
            with open(path, "wb") as handle:
                handle.truncate(1 << 31)  # 2 GB on paper
        elif kind == "link_zero":
            os.symlink("/dev/zero", path)
        elif kind == "link_up":
            os.symlink(root, path)
        elif kind == "link_file":
            os.symlink(folders[0] / "exp", path)
        else:
            os.symlink(root / "no_such_file", path)


def _snapshot(root: Path) -> list[tuple[bytes, int]]:
    items = []
    for folder, dirs, files in os.walk(os.fsencode(root)):
        for name in dirs + files:
            info = os.lstat(os.path.join(folder, name))
            items.append((os.path.join(folder, name), info.st_size, info.st_mtime_ns))
    return sorted(items)


@settings(max_examples=40, deadline=10_000, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(st.lists(ENTRY, max_size=12))
def test_property_hostile_trees_never_raise_hang_or_write(entries: list) -> None:
    workspace = Path(tempfile.mkdtemp(prefix="mindcraft_hostile_"))
    try:
        root = workspace / "tree"
        _make(root, entries)
        before = _snapshot(root)
        runs = aggregate_results(root, max_log_bytes=1 << 20)
        tables = {"runs": runs_table(runs), "agents": agents_table(runs), "skipped": skipped_table(runs)}
        for name, table in tables.items():  # every output format takes every name
            write_parquet(workspace / "out" / f"{name}.parquet", table)
            write_csv(workspace / "out" / f"{name}.csv", table)
            table.to_html()
        assert _snapshot(root) == before
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
