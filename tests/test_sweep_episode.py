"""run_episode, seeds and traces: outcomes, errors as rows, determinism, stable seeds across processes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cogames_lib.errors import ParameterError
from cogames_lib.outcomes import CompletionStatus
from cogames_lib.sweep import agent_seed, episode_seed, run_episode, trace_table
from tests.test_sweep_fakes import FakeSpec

NEAR = "diagnostic_chest_deposit_near"


def _without_duration(result: dict) -> dict:
    return {key: value for key, value in result.items() if key != "duration_s"}


def test_episode_seed_is_the_same_in_processes_with_different_hash_seeds():
    code = "from cogames_lib.sweep import episode_seed; print(episode_seed(7, 'scripted', 'diagnostic_radial', 4, 3))"
    outputs = set()
    for hash_seed in ("1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        completed = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=os.getcwd()
        )
        outputs.add(int(completed.stdout.strip()))
    assert outputs == {episode_seed(7, "scripted", "diagnostic_radial", 4, 3)}


def test_episode_seed_depends_on_every_part_of_the_cell():
    base = episode_seed(0, "random", NEAR, 1, 0)
    variants = [
        episode_seed(1, "random", NEAR, 1, 0),
        episode_seed(0, "noop", NEAR, 1, 0),
        episode_seed(0, "random", "diagnostic_memory", 1, 0),
        episode_seed(0, "random", NEAR, 2, 0),
        episode_seed(0, "random", NEAR, 1, 1),
    ]
    assert base not in variants and len(set(variants)) == len(variants)
    assert all(0 <= seed < 2**31 for seed in [base, *variants])
    assert agent_seed(base, 0) != agent_seed(base, 1)


def test_success_and_timeout_rows_are_consistent():
    results = [run_episode(FakeSpec("wander"), NEAR, 1, seed) for seed in range(6)]
    statuses = {result["status"] for result in results}
    assert statuses == {CompletionStatus.SUCCESS.value, CompletionStatus.TIMED_OUT.value}
    for result in results:
        assert result["max_steps"] == 250 and result["error"] == ""
        if result["success"]:
            assert result["reward"] == 1.0 and 0 < result["steps"] < 250
        else:
            assert result["reward"] == 0.0 and result["steps"] == 250


def test_same_seed_gives_the_same_episode_and_trace():
    first = run_episode(FakeSpec("wander"), "diagnostic_assemble_seeded_near", 2, 11, record_trace=True)
    second = run_episode(FakeSpec("wander"), "diagnostic_assemble_seeded_near", 2, 11, record_trace=True)
    assert _without_duration(first) == _without_duration(second)
    other = run_episode(FakeSpec("wander"), "diagnostic_assemble_seeded_near", 2, 12, record_trace=True)
    assert other["trace"] != first["trace"]


def test_a_raising_policy_becomes_a_run_error_row_with_the_last_traceback_line():
    result = run_episode(FakeSpec("boom", "raise"), NEAR, 1, 0)
    assert result["status"] == CompletionStatus.RUN_ERROR.value
    assert result["error"] == "RuntimeError: policy exploded on purpose"
    assert result["steps"] == 4 and result["success"] is False and result["reward"] == 0.0


def test_an_out_of_range_action_is_a_run_error():
    result = run_episode(FakeSpec("bad", "bad_action"), NEAR, 1, 0)
    assert result["status"] == CompletionStatus.RUN_ERROR.value
    assert "policy returned action 99" in result["error"]


def test_a_disallowed_agent_count_is_a_user_error_not_a_row():
    with pytest.raises(ParameterError, match="does not allow 2 agent"):
        run_episode(FakeSpec("wander"), NEAR, 2, 0)


def test_trace_rows_follow_the_rules_of_motion():
    result = run_episode(FakeSpec("wander"), "diagnostic_assemble_seeded_near", 2, 5, record_trace=True)
    trace = trace_table(result)
    assert len(trace) == 2 * (result["steps"] + 1)
    assert list(trace.loc[trace["step"] == 0, "action"]) == ["", ""]
    for _, agent_rows in trace.groupby("agent"):
        rows = agent_rows.sort_values("step")
        moved = rows["row"].diff().abs() + rows["col"].diff().abs()
        assert moved.iloc[1:].le(1).all()  # one cell per step at most
        stayed = rows["action"].isin(["noop"]) | rows["action"].str.startswith("change_vibe")
        assert moved[stayed].fillna(0).eq(0).all()


def test_a_successful_trace_records_the_deposit_event():
    for seed in range(10):
        result = run_episode(FakeSpec("wander"), NEAR, 1, seed, record_trace=True)
        if result["success"]:
            break
    else:
        pytest.fail("no successful wander episode in 10 seeds")
    trace = trace_table(result)
    last = trace[trace["step"] == result["steps"]].iloc[0]
    assert "deposited" in last["event"] and bool(last["action_success"])
    assert trace.loc[trace["step"] < result["steps"], "event"].eq("").all()


def test_trace_table_without_a_trace_is_a_clear_error():
    with pytest.raises(ParameterError, match="record_trace=True"):
        trace_table(run_episode(FakeSpec("wander"), NEAR, 1, 0))


def test_a_reused_environment_plays_exactly_the_episode_a_fresh_one_plays():
    from cogames_lib.sweep import episode

    episode._local.__dict__.pop("envs", None)  # nothing cached: the first call builds a fresh env
    fresh = run_episode(FakeSpec("wander"), "diagnostic_assemble_seeded_near", 2, 21, record_trace=True)
    for seed in (1, 2, 3):  # mutate the cached env with other episodes, with and without traces
        run_episode(FakeSpec("wander"), "diagnostic_assemble_seeded_near", 2, seed, record_trace=seed == 2)
    reused = run_episode(FakeSpec("wander"), "diagnostic_assemble_seeded_near", 2, 21, record_trace=True)
    assert _without_duration(reused) == _without_duration(fresh)


def test_a_short_diagnostic_name_is_reported_by_its_full_name():
    assert run_episode(FakeSpec("wander"), "chest_deposit_near", 1, 0)["diagnostic"] == NEAR
