"""Experiment trees -> runs/agents tables and summaries, on the committed synthetic sample."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft import (
    RUN_COLUMNS,
    agents_table,
    aggregate_results,
    find_task_folders,
    load_task_definitions,
    runs_table,
    status_counts,
    summary_by_agent_count,
    summary_by_depth,
    summary_by_plan_availability,
    summary_by_task_type,
    summary_construction_scores,
    summary_cooking_by_blocked_agents,
    summary_overall,
    summary_tables,
    validate_analysis_parameters,
)
from cogames_lib.outcomes import STATUS_ORDER

SAMPLE = Path(__file__).resolve().parents[1] / "cogames_lib" / "data" / "mindcraft_sample"
EXPERIMENTS = SAMPLE / "experiments"
TASK_FILES = sorted((SAMPLE / "tasks").glob("*.json"))
CURRENT = "claude-3-5-haiku_mixed_tasks_03-20_09-15"
LEGACY = "gpt-4o_techtree_legacy_02-10_11-40"
S3 = "techtree_s3_03-22_10-00"
TASKS, LOGS = 69, 185  # 46 current-layout tasks (111 logs) + 23 in the other layouts (74 logs)


@pytest.fixture(scope="module")
def runs() -> pd.DataFrame:
    return aggregate_results(EXPERIMENTS, TASK_FILES)


def row(runs: pd.DataFrame, experiment: str, task_id: str) -> pd.Series:
    match = runs[(runs["experiment"] == experiment) & (runs["task_id"] == task_id)]
    assert len(match) == 1
    return match.iloc[0]


def tree_digest(root: Path) -> dict[str, str]:
    digest = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            digest[str(path.relative_to(root))] = (
                hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
            )
    return digest


def test_sample_tree_counts_and_skipped_folders(runs: pd.DataFrame) -> None:
    assert list(runs.columns[: len(RUN_COLUMNS)]) == list(RUN_COLUMNS)
    assert len(runs) == TASKS and runs["total_agent_logs_found"].sum() == LOGS
    skipped = {Path(item["path"]).name: item["reason"] for item in runs.attrs["skipped_folders"]}
    assert set(skipped) == {"analysis_results", "notes", "bots"}  # bots/: S3 download, not a task
    assert list(runs["overall_completion_status"].cat.categories) == list(STATUS_ORDER)
    assert set(runs["model_name"].dropna()) == {"claude-3-5-haiku-latest", "gpt-4o", "gpt-4o-mini"}
    assert runs["layout"].value_counts().to_dict() == {
        "current": 46,
        "per_run": 12,
        "flat": 8,
        "s3_download": 3,
    }


def test_sample_edge_cases_land_where_the_spec_says(runs: pd.DataFrame) -> None:
    cases = {
        (CURRENT, "multiagent_cooking_2_1_cooked_beef_1_golden_apple"): "NO_SCORE_LOGGED",  # empty folder
        (CURRENT, "multiagent_crafting_lime_wool_partial_plan__depth_2"): "SUCCESS",  # truncated + score
        (
            CURRENT,
            "multiagent_crafting_magenta_wool_full_plan__depth_2",
        ): "LOG_FILE_ERROR",  # non-UTF-8 + empty
        (CURRENT, "multiagent_crafting_pink_wool_full_plan__depth_0"): "SUCCESS",  # stale 0 then 1
        (CURRENT, "small_church"): "SUCCESS",  # 57.14 then 100 in the second repetition
        (LEGACY, "multiagent_crafting_blue_wool_full_plan__depth_0"): "TIMED_OUT",
        # legacy code 3 ("No other agents found") = today's agents-missing path, which logs a 0
        (LEGACY, "multiagent_crafting_bookshelf_full_plan_requires_ctable__depth_0"): "FAILED_SCORE_ZERO",
        # the copied memory.json of the previous task carries its score 1: stale, never SUCCESS
        (S3, "multiagent_crafting_magenta_wool_full_plan__depth_2"): "LOG_FILE_ERROR",
        (S3, "multiagent_crafting_lime_wool_partial_plan__depth_2"): "SUCCESS",  # the original of the copy
        (
            LEGACY,
            "multiagent_crafting_cake_partial_plan_requires_ctable__depth_0",
        ): "SUCCESS",  # code undefined
        (
            LEGACY,
            "multiagent_crafting_clock_partial_plan_requires_ctable__depth_0",
        ): "TIMED_OUT",  # beats success
        ("llama-3-8b_solo_04-02_16-20", "small_church"): "FAILED_PARTIAL_SCORE",
        ("llama-3-8b_solo_04-02_16-20", "church_two_agent"): "SUCCESS",  # no definition: 100 -> scale 100
    }
    for (experiment, task_id), status in cases.items():
        assert row(runs, experiment, task_id)["overall_completion_status"] == status, task_id
    five = row(runs, CURRENT, "multiagent_cooking_2_1_golden_apple_1_rabbit_stew")
    assert five["agent_count"] == 5 and bool(five["expected_agent_count_mismatch"]) is True
    unknown = row(runs, "llama-3-8b_solo_04-02_16-20", "church_two_agent")
    assert pd.isna(unknown["task_type"]) and not unknown["has_task_definition"]


def test_agents_table_has_one_row_per_log(runs: pd.DataFrame) -> None:
    agents = agents_table(runs)
    assert len(agents) == LOGS
    assert list(agents["completion_status"].cat.categories) == list(STATUS_ORDER)
    errors = agents[agents["completion_status"] == "LOG_FILE_ERROR"]
    assert len(errors) == 5 and (errors["parsing_errors"].str.len() > 0).all()  # 4 broken + 1 stale
    stale = agents[agents["stale_reason"].notna()]
    assert list(stale["task_id"]) == ["multiagent_crafting_magenta_wool_full_plan__depth_2"]
    assert "before the other agents" in stale["stale_reason"].iloc[0]
    assert set(agents["agent_name"].dropna()) >= {"Andy_0", "Jill_0", "Bob_0", "Sally_0", "Mike_0"}


def test_regression_empty_folder_denominator_follows_the_named_policy(runs: pd.DataFrame) -> None:
    # Old scripts disagreed silently on whether unrun (empty) folders count; here it is a parameter.
    excluded = aggregate_results(EXPERIMENTS, TASK_FILES, no_score_policy="exclude")
    failure, exclude = summary_overall(runs), summary_overall(excluded)
    no_verdict = runs["overall_completion_status"].isin(["NO_SCORE_LOGGED", "LOG_FILE_ERROR"])
    assert failure["n"].sum() == len(runs)
    assert exclude["n"].sum() == len(runs) - no_verdict.sum()
    assert failure["successes"].sum() == exclude["successes"].sum() == runs["overall_is_successful"].sum()


def test_every_summary_has_n_and_a_wilson_interval(runs: pd.DataFrame) -> None:
    tables = summary_tables(runs)
    for name, table in tables.items():
        if name == "status counts":
            continue
        assert {"n", "successes", "rate", "ci_low", "ci_high"} <= set(table.columns), name
        assert ((table["ci_low"] <= table["rate"]) & (table["rate"] <= table["ci_high"])).all(), name
    by_type = summary_by_task_type(runs)
    assert set(by_type["task_type"]) == {"cooking", "techtree", "construction", "unknown"}
    assert set(summary_by_plan_availability(runs)["plan_availability"]) == {"full_plan", "partial_plan"}
    assert set(summary_by_depth(runs)["depth"]) == {0, 1, 2}
    assert set(summary_by_agent_count(runs)["agent_count"]) == {1, 2, 3, 5}
    assert summary_cooking_by_blocked_agents(runs)["n"].sum() == (runs["task_type"] == "cooking").sum()
    construction = summary_construction_scores(runs)
    assert construction["scored_runs"].sum() == 2
    counts = status_counts(runs)
    assert counts["total"].sum() == len(runs)


def test_single_model_summary_has_no_model_column(runs: pd.DataFrame) -> None:
    single = aggregate_results(EXPERIMENTS / LEGACY, TASK_FILES)
    overall = summary_overall(single)
    assert (
        "model_name" not in overall.columns and overall.loc[0, "n"] == 6 and overall.loc[0, "successes"] == 2
    )


def test_analysis_leaves_the_tree_byte_for_byte_unchanged(tmp_path: Path) -> None:
    tree = tmp_path / "experiments"
    shutil.copytree(EXPERIMENTS, tree)
    before = tree_digest(tree)
    frame = aggregate_results(tree, TASK_FILES)
    agents_table(frame)
    summary_tables(frame)
    assert tree_digest(tree) == before


def test_workers_give_identical_results(runs: pd.DataFrame) -> None:
    from cogames_lib.mindcraft.collect import collect_runs

    definitions = load_task_definitions(TASK_FILES)
    roots = [str(EXPERIMENTS)]
    single, skipped_single = collect_runs(roots, definitions, workers=1, chunk_size=7)
    multi, skipped_multi = collect_runs(roots, definitions, workers=2, chunk_size=7)
    # via JSON: a logged NaN compares unequal to itself, but serialises identically
    assert json.dumps(single, sort_keys=True) == json.dumps(multi, sort_keys=True)
    assert skipped_single == skipped_multi
    assert list(dict.fromkeys(run["folder_path"] for run in single)) == find_task_folders(EXPERIMENTS)[0]
    assert [run["task_id"] for run in single] == list(runs["task_id"])


def test_task_definitions_accept_a_loaded_mapping(runs: pd.DataFrame) -> None:
    from_mapping = aggregate_results(EXPERIMENTS, load_task_definitions(TASK_FILES))
    pd.testing.assert_frame_equal(runs_table(from_mapping), runs_table(runs))


def test_task_folders_can_be_given_directly() -> None:
    folder = EXPERIMENTS / CURRENT / "small_church"
    frame = aggregate_results([folder, folder], TASK_FILES, model_name="m")
    assert len(frame) == 1 and frame.loc[0, "model_name"] == "m"


def test_tables_round_trip_through_parquet_and_csv(tmp_path: Path, runs: pd.DataFrame) -> None:
    table = runs_table(runs)
    table.to_parquet(tmp_path / "runs.parquet", index=False)
    back = pd.read_parquet(tmp_path / "runs.parquet")
    pd.testing.assert_frame_equal(back, table)
    agents_table(runs).to_csv(tmp_path / "agents.csv", index=False)
    assert len(pd.read_csv(tmp_path / "agents.csv")) == LOGS


def test_parameter_errors_are_one_line(tmp_path: Path) -> None:
    cases = [
        ((tmp_path / "missing",), {}, "roots"),
        ((EXPERIMENTS,), {"no_score_policy": "ignore"}, "no_score_policy"),
        ((EXPERIMENTS,), {"task_files": [tmp_path / "none.json"]}, "task_files"),
        ((), {}, "roots"),
    ]
    for args, kwargs, fragment in cases:
        with pytest.raises(ParameterError, match=fragment) as info:
            validate_analysis_parameters(list(args), **kwargs)
        assert "\n" not in str(info.value)
    with pytest.raises(ParameterError, match="no_score_policy"):
        aggregate_results(EXPERIMENTS, no_score_policy="drop")


def test_empty_root_is_listed_not_counted(tmp_path: Path) -> None:
    (tmp_path / "empty_experiment").mkdir()
    frame = aggregate_results(tmp_path / "empty_experiment")
    assert frame.empty and frame.attrs["skipped_folders"][0]["reason"].startswith("empty root")
    assert summary_overall(frame).empty and summary_construction_scores(frame).empty
