"""Every layout of spec "Real trees" mixed in one root; stale logs; end reasons; task folders of task files."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from cogames_lib.mindcraft import (
    STALE_START_SKEW_S,
    agents_table,
    aggregate_results,
    collect,
    load_task_definitions,
    skipped_table,
    summary_construction_scores,
    task_file_paths,
)
from cogames_lib.mindcraft.chunk import child_candidates, process_chunk, shrinking_chunks, unpack_chunk
from cogames_lib.mindcraft.collect import collect_runs

SAMPLE_TASKS = Path(__file__).resolve().parents[1] / "cogames_lib" / "data" / "mindcraft_sample" / "tasks"
START = 1_742_300_000_000


def log(folder: Path, name: str, *messages: str, start: int | None = START, raw: bytes | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    turns = [
        {"role": "user", "content": f"hello from {name}"},
        *({"role": "system", "content": m} for m in messages),
    ]
    document: dict = {"turns": turns}
    if start is not None:
        document["taskStart"] = start
    path = folder / name
    path.write_bytes(raw if raw is not None else json.dumps(document).encode())
    return path


SCORE = "Task ended with score : {}".format


@pytest.fixture
def mixed_root(tmp_path: Path) -> Path:
    """One root holding all four layouts."""
    root = tmp_path / "experiments"
    current = root / "current_03-20_09-15"
    log(current / "task_a", "Andy_0_0.json", SCORE(1))
    log(current / "task_a", "Jill_0_0.json", start=START + 1500)
    log(current / "task_a", "Andy_0_1.json", SCORE(0), start=START + 400_000)
    (current / "results.txt").write_text("{'model': 'm1'}")
    s3 = root / "s3" / "exp_03-22_10-00"
    log(s3 / "task_b", "Andy_0_0.json", SCORE(0))
    log(s3 / "bots" / "Andy_0" / "histories", "Andy_0_1742300000.json", SCORE(1))  # looks like a log
    log(s3 / "bots" / "Andy_0", "memory.json")
    per_run = root / "per_run_03-25_14-30"
    for run, score in ((0, 0), (1, 1), (2, 0)):
        log(per_run / f"task_c_{run}", "Andy_0.json", SCORE(score), start=START + run * 600_000)
        log(per_run / f"task_c_{run}", "Jill_0.json", start=START + run * 600_000 + 900)
    (per_run / "results.txt").write_text("{'model': 'm2'}")
    flat = root / "flat_03-26_08-00"
    log(flat, "task_d_Andy_0_0.json", SCORE(1))
    log(flat, "task_d_Jill_0_0.json", start=START + 700)
    log(flat, "task_e_Andy_1.json", SCORE(0))  # agent without server suffix
    return root


def test_every_layout_in_one_root_with_run_indexes(mixed_root: Path) -> None:
    runs = aggregate_results(mixed_root)
    by_task = runs.set_index("task_id")
    assert dict(by_task["layout"]) == {
        "task_a": "current",
        "task_b": "s3_download",
        "task_c": "per_run",
        "task_d": "flat",
        "task_e": "flat",
    }
    assert by_task.loc["task_c", "repetition_count"] == 3 and by_task.loc["task_c", "overall_is_successful"]
    assert by_task.loc["task_a", "repetition_count"] == 2
    assert by_task.loc["task_d", "agent_count"] == 2 and by_task.loc["task_d", "model_name"] is not None
    agents = agents_table(runs)
    assert sorted(agents[agents["task_id"] == "task_c"]["run_index"].tolist()) == [0, 0, 1, 1, 2, 2]
    assert set(agents[agents["task_id"] == "task_e"]["agent_name"]) == {"Andy"}
    assert dict(by_task["model_name"].astype(object).where(by_task["model_name"].notna(), None)) == {
        "task_a": "m1",
        "task_b": None,
        "task_c": "m2",
        "task_d": None,
        "task_e": None,
    }
    skipped = skipped_table(runs)
    assert any(path.endswith("bots") for path in skipped["path"])  # the history file is no task


def test_layouts_agree_with_workers_and_chunk_sizes(mixed_root: Path) -> None:
    one, skipped_one = collect_runs([str(mixed_root)], {}, workers=1, chunk_size=1)
    two, skipped_two = collect_runs([str(mixed_root)], {}, workers=2, chunk_size=2)
    auto, _ = collect_runs([str(mixed_root)], {}, workers=None)
    dump = lambda runs: json.dumps(runs, sort_keys=True, default=str)  # noqa: E731
    assert dump(one) == dump(two) == dump(auto) and skipped_one == skipped_two


def test_a_worker_chunk_comes_back_marshalled_and_unpacks_to_the_same_output(mixed_root: Path) -> None:
    candidates = []
    for folder in sorted(p for p in mixed_root.rglob("*") if p.is_dir()):
        real = os.path.realpath(folder)
        parts = folder.relative_to(mixed_root).parts
        candidates.append((0, parts, str(folder), len(parts), "current", real, (str(mixed_root),)))
    plain = [c for c in candidates if c[2].endswith("task_a")]  # a task folder: plain values only
    for chunk in (plain, candidates):  # the whole tree holds skipped folders and partial units
        here = process_chunk((chunk, {}, 1 << 20, os.getpid(), False))
        there = process_chunk((chunk, {}, 1 << 20, -1, False))  # as a worker process returns it
        assert unpack_chunk(there) == here
        assert isinstance(there[1], bytes) == (chunk is plain)  # objects that marshal refuses: pickled
    assert unpack_chunk(here) is here
    # scanning ahead: a plain subfolder without subfolders of its own comes back with the result its
    # own scan gives; any other is left to the walk (None), and its logs are not counted
    top = [c for c in candidates if c[3] == 1]
    count, ahead, _ = process_chunk((top, {}, 1 << 20, os.getpid(), True))
    expected_count = process_chunk((top, {}, 1 << 20, os.getpid(), False))[0]
    leaves = 0
    for candidate, result in zip(top, ahead, strict=True):
        children = child_candidates(candidate, result[1], result[3])
        assert (result[4] is None) == (not result[1])
        for child, child_result in zip(children, result[4] or [], strict=True):
            count_alone, (own,), _ = process_chunk(([child], {}, 1 << 20, os.getpid(), False))
            assert child_result == (own if not own[1] else None)
            leaves += child_result is not None
            expected_count += count_alone if child_result is not None else 0
    assert count == expected_count and leaves >= 3


def _experiments(root: Path, count: int) -> None:
    """`count` experiment folders of a few tasks each (enough for the pool to share out the level)."""
    for index in range(count):
        experiment = root / f"exp_{index:02d}_03-20_09-15"
        for task in range(3):
            log(experiment / f"task_{task}", "Andy_0_0.json", SCORE(task % 2), start=START + index * 10**6)
            log(experiment / f"task_{task}", "Jill_0_0.json", start=START + index * 10**6 + 500)
        (experiment / "results.txt").write_text(f"{{'model': 'm{index % 3}'}}")


def test_levels_shared_out_with_scanning_ahead_give_the_walk_order_and_its_cycle_checks(
    tmp_path: Path, monkeypatch
) -> None:
    root = tmp_path / "experiments"
    _experiments(root, 40)
    for run in range(2):  # per-run folders: combined across chunks
        log(root / "exp_03_03-20_09-15" / f"task_9_{run}", "Andy_0.json", SCORE(run), start=START + run)
    log(root / "exp_04_03-20_09-15", "task_8_Andy_0_0.json", SCORE(1))  # a flat log
    os.symlink(root / "exp_05_03-20_09-15" / "task_1", root / "aa_link")  # reaches a task folder first
    os.symlink(root / "exp_02_03-20_09-15" / "task_0", root / "exp_01_03-20_09-15" / "zz_link")
    os.symlink(root / "exp_00_03-20_09-15", root / "zz_alias")  # reached after the folder itself
    os.symlink(root, root / "exp_06_03-20_09-15" / "loop")  # a cycle
    roots = [str(root), str(root / "exp_07_03-20_09-15")]  # overlapping roots
    expanded = []
    jobs = collect.chunk_jobs

    def spy(*args, **kwargs):
        expanded.append(kwargs.get("expand", args[4] if len(args) > 4 else False))
        return jobs(*args, **kwargs)

    monkeypatch.setattr(collect, "chunk_jobs", spy)
    one, skipped_one = collect_runs(roots, {}, workers=1)
    assert not any(expanded)
    two, skipped_two = collect_runs(roots, {}, workers=2)
    assert any(expanded)  # the experiment level was shared out, scanning ahead
    small, skipped_small = collect_runs(roots, {}, workers=2, chunk_size=3)
    dump = lambda runs: json.dumps(runs, sort_keys=True, default=str)  # noqa: E731
    assert dump(one) == dump(two) == dump(small)
    assert skipped_one == skipped_two == skipped_small
    reasons = {os.path.relpath(item.path, root): item.reason for item in skipped_one}
    assert "same folder as" in reasons["zz_alias"] and "same folder as" in reasons["exp_06_03-20_09-15/loop"]
    # a folder scanned ahead but reached first through a symlink earlier in the walk: left out
    assert reasons["exp_02_03-20_09-15/task_0"].endswith("zz_link (analysed once)")
    assert reasons["exp_05_03-20_09-15/task_1"].endswith("aa_link (analysed once)")
    assert "same folder as" in reasons["exp_07_03-20_09-15"]  # the second root came first
    assert {run["task_id"] for run in one} >= {"task_9", "task_8", "aa_link", "zz_link"}


def test_shrinking_chunks_keep_every_item_in_order_and_end_small() -> None:
    items = list(range(5000))
    chunks = shrinking_chunks(items, 4, 200)
    sizes = [len(chunk) for chunk in chunks]
    assert [item for chunk in chunks for item in chunk] == items
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] <= items[-1] // 8
    assert [len(c) for c in shrinking_chunks(list(range(300)), 4, 200)] == [200, 100]


def test_a_log_that_started_long_before_its_partners_is_stale_never_success(tmp_path: Path) -> None:
    folder = tmp_path / "exp" / "task_x"
    late = int(STALE_START_SKEW_S * 1000) + 60_000
    log(folder, "Andy_0_0.json", SCORE(1), start=START)  # the previous task's memory, score included
    log(folder, "Jill_0_0.json", start=START + late)
    log(folder, "Andy_0_1.json", SCORE(0), start=START + 2 * late)  # a clean second repetition
    log(folder, "Jill_0_1.json", start=START + 2 * late + 2000)
    runs = aggregate_results(tmp_path / "exp")
    row = runs.iloc[0]
    assert row["overall_completion_status"] == "FAILED_SCORE_ZERO" and row["stale_log_count"] == 1
    agents = agents_table(runs).set_index(["file_name"])
    assert agents.loc["Andy_0_0.json", "completion_status"] == "LOG_FILE_ERROR"
    assert "stale: taskStart 90 s before" in agents.loc["Andy_0_0.json", "parsing_errors"]
    only_stale = tmp_path / "exp2" / "task_y"
    log(only_stale, "Andy_0_0.json", SCORE(1), start=START)
    log(only_stale, "Jill_0_0.json", start=START + late)
    row = aggregate_results(tmp_path / "exp2").iloc[0]
    assert row["overall_completion_status"] == "LOG_FILE_ERROR" and row["end_reason"] == "stale_log"


def test_start_skew_within_the_limit_is_not_stale(tmp_path: Path) -> None:
    folder = tmp_path / "exp" / "task_x"
    log(folder, "Andy_0_0.json", SCORE(1), start=START)
    log(folder, "Jill_0_0.json", start=START + int(STALE_START_SKEW_S * 1000) - 1000)
    assert aggregate_results(tmp_path / "exp").iloc[0]["overall_completion_status"] == "SUCCESS"


def test_a_byte_identical_log_in_another_task_folder_is_stale(tmp_path: Path) -> None:
    exp = tmp_path / "exp"
    original = log(exp / "task_1", "Andy_0_0.json", SCORE(1), start=START)
    log(exp / "task_1", "Jill_0_0.json", start=START + 1000)
    (exp / "task_2").mkdir()
    shutil.copyfile(original, exp / "task_2" / "Andy_0_0.json")  # single-agent task: no skew to see
    runs = aggregate_results(exp).set_index("task_id")
    assert runs.loc["task_1", "overall_completion_status"] == "SUCCESS"  # its partner started with it
    assert runs.loc["task_2", "overall_completion_status"] == "LOG_FILE_ERROR"
    agents = agents_table(aggregate_results(exp))
    reason = agents[agents["task_id"] == "task_2"]["stale_reason"].iloc[0]
    assert reason.startswith("byte-identical to a log in") and "task_1" in reason


def test_identical_copies_that_cannot_be_told_apart_are_all_stale(tmp_path: Path) -> None:
    exp = tmp_path / "exp"
    original = log(exp / "task_1", "Andy_0_0.json", SCORE(1), start=None)
    (exp / "task_2").mkdir()
    shutil.copyfile(original, exp / "task_2" / "Andy_0_0.json")
    statuses = set(aggregate_results(exp)["overall_completion_status"].astype(str))
    assert statuses == {"LOG_FILE_ERROR"}


@pytest.mark.parametrize("start", [START, None])
def test_copies_read_by_different_processes_are_found_alike(tmp_path: Path, start: int | None) -> None:
    exp = tmp_path / "exp"
    for number in range(2, 6):  # the parent scans the first folders, the worker the copy in task_6
        log(exp / f"task_{number}", "Andy_0_0.json", SCORE(number), start=START + number * 600_000)
    original = log(exp / "task_1", "Andy_0_0.json", SCORE(1), start=start)
    (exp / "task_6").mkdir()
    shutil.copyfile(original, exp / "task_6" / "Andy_0_0.json")
    one, _ = collect_runs([str(exp)], {}, workers=1)
    two, _ = collect_runs([str(exp)], {}, workers=2, chunk_size=1)
    stale = {run["task_id"] for run in two if run["stale_log_count"]}
    assert stale == {"task_1", "task_6"}  # no partners to tell the original by: both are stale
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


def test_end_reasons_tell_timeouts_and_missing_agents_apart_where_logs_can(tmp_path: Path) -> None:
    exp = tmp_path / "exp"
    log(exp / "legacy_timeout", "Andy_0_0.json", "Task timeout reached ended with code : 4")
    log(exp / "legacy_missing", "Andy_0_0.json", "No other agents found ended with code : 3")
    log(exp / "zero_two_agents", "Andy_0_0.json", SCORE(0))
    log(exp / "zero_two_agents", "Jill_0_0.json", start=START + 10)
    log(exp / "cut_off", "Andy_0_0.json")
    (exp / "unrun").mkdir()
    definitions = {
        "zero_two_agents": {"type": "cooking", "agent_count": 2},
        "missing_now": {"type": "cooking", "agent_count": 2},
    }
    log(exp / "missing_now", "Andy_0_0.json", SCORE(0), start=START + 999_000)  # not a copy
    runs = aggregate_results(exp, definitions).set_index("task_id")
    assert dict(runs["end_reason"]) == {
        "cut_off": "no_verdict",
        "legacy_missing": "agents_missing_logged",
        "legacy_timeout": "timeout_logged",
        "missing_now": "agents_missing",
        "unrun": "not_run",
        "zero_two_agents": "score_at_end",
    }
    # the two eras of "no other agents" give the same status
    assert runs.loc["legacy_missing", "overall_completion_status"] == "FAILED_SCORE_ZERO"
    assert runs.loc["missing_now", "overall_completion_status"] == "FAILED_SCORE_ZERO"


def test_construction_mean_and_positive_rate_follow_the_policy(tmp_path: Path) -> None:
    exp = tmp_path / "exp"
    definition = {"type": "construction"}
    log(exp / "house_a", "Andy_0_0.json", SCORE(50))
    log(exp / "house_b", "Andy_0_0.json", SCORE(0))
    log(exp / "house_c", "Andy_0_0.json")  # no score logged
    definitions = {name: definition for name in ("house_a", "house_b", "house_c")}
    failure = summary_construction_scores(aggregate_results(exp, definitions)).iloc[0]
    exclude = summary_construction_scores(
        aggregate_results(exp, definitions, no_score_policy="exclude")
    ).iloc[0]
    assert failure["scored_runs"] == 3 and failure["mean_score"] == pytest.approx(0.5 / 3)
    assert failure["positive_runs"] == 1 and failure["positive_rate"] == pytest.approx(1 / 3)
    assert exclude["scored_runs"] == 2 and exclude["mean_score"] == pytest.approx(0.25)
    assert exclude["positive_rate"] == pytest.approx(0.5)
    assert failure["positive_ci_low"] < failure["positive_rate"] < failure["positive_ci_high"]


def test_task_files_may_be_given_as_folders(tmp_path: Path) -> None:
    files = task_file_paths([SAMPLE_TASKS])
    assert files == sorted(str(path) for path in SAMPLE_TASKS.glob("*.json"))
    assert load_task_definitions(task_file_paths([SAMPLE_TASKS])) == load_task_definitions(files)


def test_automatic_workers_switch_to_a_pool_mid_walk_with_identical_results(mixed_root, monkeypatch) -> None:
    from cogames_lib.mindcraft import collect

    serial, _ = collect_runs([str(mixed_root)], {}, workers=1)
    monkeypatch.setattr(collect, "AUTO_PARALLEL_LOGS", 0)  # any log seen: the rest goes to the pool
    monkeypatch.setattr(collect.os, "cpu_count", lambda: 2)  # "all cores" is two, on any machine
    started = []
    original = collect.FanOut.map

    def recording_map(self, function, tasks, advance=None, here=0):  # type: ignore[no-untyped-def]
        tasks = list(tasks)
        if len(tasks) > here:  # some tasks went to the workers
            started.append(self.backend)
        return original(self, function, tasks, advance, here)

    monkeypatch.setattr(collect.FanOut, "map", recording_map)
    auto, _ = collect_runs([str(mixed_root)], {}, workers=None, chunk_size=1)
    assert "process" in started  # the pool took over once logs had been seen
    dump = lambda runs: json.dumps(runs, sort_keys=True, default=str)  # noqa: E731
    assert dump(auto) == dump(serial)
