"""One task folder -> per-run dict; task definitions -> metrics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cogames_lib.errors import DataFileError
from cogames_lib.mindcraft import extract_result, load_task_definitions, task_definition_metrics
from cogames_lib.outcomes import CompletionStatus

S = CompletionStatus
SAMPLE_TASKS = sorted(
    Path(__file__).resolve().parents[1].joinpath("cogames_lib/data/mindcraft_sample/tasks").glob("*.json")
)


def write_log(folder: Path, name: str, *messages: str, raw: bytes | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    turns = [{"role": "user", "content": "hello"}, *({"role": "system", "content": m} for m in messages)]
    (folder / name).write_bytes(raw if raw is not None else json.dumps({"turns": turns}).encode())


SCORE = "Task ended with score : {}".format


def test_only_one_agent_logs_the_score_and_the_run_succeeds(tmp_path: Path) -> None:
    folder = tmp_path / "exp" / "multiagent_cooking_2_1_bread_1_cake"
    write_log(folder, "Andy_0_0.json")
    write_log(folder, "Jill_0_0.json", SCORE(1))
    result = extract_result(folder)
    assert result["overall_completion_status"] == S.SUCCESS and result["overall_is_successful"] is True
    assert result["total_agent_logs_found"] == 2 and result["agent_count"] == 2
    assert result["task_type"] == "cooking"  # guessed from the id without a definition


@pytest.mark.parametrize(
    ("agent_messages", "status"),
    [
        ([[SCORE(1)], ["Task timeout reached ended with code : 4"]], S.TIMED_OUT),
        ([[SCORE(0)], [SCORE(1)], []], S.SUCCESS),
        ([[SCORE(0)], []], S.FAILED_SCORE_ZERO),
        ([[], []], S.NO_SCORE_LOGGED),
    ],
)
def test_agents_within_a_run_follow_the_priority(tmp_path: Path, agent_messages, status) -> None:
    folder = tmp_path / "exp" / "task_x"
    for index, messages in enumerate(agent_messages):
        write_log(folder, f"{['Andy', 'Jill', 'Bob'][index]}_0_0.json", *messages)
    assert extract_result(folder)["overall_completion_status"] == status


def test_all_logs_broken_is_log_file_error_but_one_good_log_wins(tmp_path: Path) -> None:
    broken = tmp_path / "exp" / "broken"
    write_log(broken, "Andy_0_0.json", raw=b"")
    write_log(broken, "Jill_0_0.json", raw=b'{"turns": [')
    assert extract_result(broken)["overall_completion_status"] == S.LOG_FILE_ERROR
    mixed = tmp_path / "exp" / "mixed"
    write_log(mixed, "Andy_0_0.json", raw=b"\xff\xfe")
    write_log(mixed, "Jill_0_0.json")
    assert extract_result(mixed)["overall_completion_status"] == S.NO_SCORE_LOGGED


def test_repetitions_take_the_best_run(tmp_path: Path) -> None:
    folder = tmp_path / "exp" / "small_church"
    write_log(folder, "Andy_0_0.json", SCORE(57.14285714285714))
    write_log(folder, "Andy_0_1.json", SCORE(14.285714285714286))
    write_log(folder, "Andy_0_2.json", "Task timeout reached ended with code : 4")
    definition = {
        "type": "construction",
        "agent_count": 1,
        "blueprint": {"materials": {"a": 1}, "levels": []},
    }
    result = extract_result(folder, definition)
    assert set(result["repetitions"]) == {0, 1, 2}
    assert result["repetitions"][2]["completion_status"] == S.TIMED_OUT
    assert result["overall_completion_status"] == S.FAILED_PARTIAL_SCORE
    assert result["overall_raw_score"] == pytest.approx(0.5714285714285714)
    assert result["score_scale"] == 100


def test_empty_folder_is_a_run_without_a_score(tmp_path: Path) -> None:
    folder = tmp_path / "exp" / "multiagent_crafting_pink_wool_full_plan__depth_0"
    folder.mkdir(parents=True)
    result = extract_result(folder, {"type": "techtree", "agent_count": 2, "depth": 0})
    assert result["total_agent_logs_found"] == 0
    assert result["overall_completion_status"] == S.NO_SCORE_LOGGED and result["overall_raw_score"] is None
    assert result["agent_count"] == 2 and result["expected_agent_count_mismatch"] is None


@pytest.mark.parametrize("agents", [1, 3, 5])
def test_regression_any_number_of_logs_no_two_file_assert(tmp_path: Path, agents: int) -> None:
    # The old evaluation script asserted exactly two logs per folder.
    folder = tmp_path / "exp" / "multiagent_cooking_2_1_bread_1_cake"
    for index in range(agents):
        write_log(
            folder,
            f"{['Andy', 'Jill', 'Bob', 'Sally', 'Mike'][index]}_0_0.json",
            *([SCORE(1)] if index == 0 else []),
        )
    result = extract_result(folder, {"type": "cooking", "agent_count": 2})
    assert result["agent_count"] == agents and result["total_agent_logs_found"] == agents
    assert result["expected_agent_count_mismatch"] is (agents != 2)
    assert result["overall_completion_status"] == S.SUCCESS


def test_a_missing_folder_is_a_parameter_error_not_an_unrun_task(tmp_path: Path) -> None:
    from cogames_lib.errors import ParameterError

    with pytest.raises(ParameterError, match=r"folder_path: .*no_such_task.* does not exist"):
        extract_result(tmp_path / "no_such_task")
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(ParameterError, match="not a directory"):
        extract_result(tmp_path / "a_file")


def test_model_name_from_results_txt_and_ignored_files(tmp_path: Path) -> None:
    folder = tmp_path / "exp" / "task_x"
    write_log(folder, "Andy_0_0.json", SCORE(0))
    (folder / "notes.txt").write_text("x")
    (tmp_path / "exp" / "results.txt").write_text("{'model': 'gpt-4o', 'success_rate': 0.5}")
    result = extract_result(folder)
    assert result["model_name"] == "gpt-4o" and result["ignored_files"] == ["notes.txt"]
    assert extract_result(folder, model_name="other")["model_name"] == "other"
    (tmp_path / "exp" / "results.txt").write_text("__import__('os').remove('x')")  # literal_eval, never eval
    assert extract_result(folder)["model_name"] is None


def test_construction_type_from_definition_scales_scores(tmp_path: Path) -> None:
    folder = tmp_path / "exp" / "small_church"
    write_log(folder, "Andy_0_0.json", SCORE(1))  # 1% of a building, not a success
    result = extract_result(folder, {"type": "construction"})
    assert result["overall_completion_status"] == S.FAILED_PARTIAL_SCORE
    assert result["overall_raw_score"] == pytest.approx(0.01)


def test_regression_type_key_is_type_not_task_type(tmp_path: Path) -> None:
    folder = tmp_path / "exp" / "some_cooking_task"
    write_log(folder, "Andy_0_0.json", SCORE(1))
    definition = {"type": "construction", "task_type": "cooking"}
    assert extract_result(folder, definition)["task_type"] == "construction"


# --- task definitions -----------------------------------------------------------------------------


def test_real_task_files_load_and_give_metrics() -> None:
    definitions = load_task_definitions(SAMPLE_TASKS)
    assert len(definitions) == 6 + 6 + 17 + 25 + 1
    hells = task_definition_metrics(
        "multiagent_cooking_bread_golden_apple_hells_kitchen",
        definitions["multiagent_cooking_bread_golden_apple_hells_kitchen"],
    )
    assert hells["total_recipe_steps"] == 4 and hells["difficulty_category"] == "medium"
    assert hells["blocked_agent_count"] == 0 and hells["expected_agent_count"] == 2
    task_id = "multiagent_crafting_requires_ctable_blue_banner_2_with_partial_plan__depth_0_num_agents_3"
    techtree = task_definition_metrics(task_id, definitions[task_id])
    assert techtree["plan_availability"] == "partial_plan" and techtree["blocked_agent_count"] == 2
    assert techtree["depth"] == 0 and techtree["requires_crafting_table"] is True
    church = task_definition_metrics("small_church", definitions["small_church"])
    assert church["material_count"] == 7 and church["level_count"] == 10 and church["block_count"] > 0


def test_metrics_from_the_id_alone() -> None:
    metrics = task_definition_metrics(
        "multiagent_crafting_x_missing_black_dye_with_plan__depth_2_num_agents_4", None
    )
    assert metrics["depth"] == 2 and metrics["expected_agent_count"] == 4
    assert metrics["plan_availability"] == "full_plan" and metrics["missing_item_count"] == 1
    cooking = task_definition_metrics("multiagent_cooking_1_bread_blocked_access_0_1", None)
    assert cooking["blocked_agent_count"] == 2


def test_odd_definitions_never_raise() -> None:
    for definition in (
        {},
        {"type": 3},
        {"type": "construction", "blueprint": "x"},
        {"type": "cooking", "recipes": [1]},
    ):
        assert isinstance(task_definition_metrics("t", definition), dict)


def test_odd_cooking_values_neither_raise_nor_break_the_typed_runs_table(tmp_path: Path) -> None:
    from cogames_lib.mindcraft import aggregate_results

    odd = {
        "type": "cooking",
        "target": [["bread"], ["bread"], {"cake": 1}],  # unhashable targets
        "recipes": {"bread": ["a", "b"]},
        "difficulty_metrics": {
            "total_recipe_steps": "many",
            "max_steps_per_recipe": 2.5,
            "unique_target_items": 3,
            "overall_difficulty_score": "hard",
            "difficulty_category": 7,
        },
    }
    metrics = task_definition_metrics("t", odd)
    assert metrics["unique_target_items"] == 3  # the author's integer wins
    assert metrics["total_recipe_steps"] == 2 and metrics["max_steps_per_recipe"] == 2  # derived stays
    assert metrics["overall_difficulty_score"] is None and metrics["difficulty_category"] is None
    assert task_definition_metrics("t", {**odd, "difficulty_metrics": {}})["unique_target_items"] == 2
    write_log(tmp_path / "exp" / "odd_cooking", "Andy_0_0.json", SCORE(1))
    runs = aggregate_results(tmp_path / "exp", {"odd_cooking": odd})
    assert runs.loc[0, "total_recipe_steps"] == 2 and runs.loc[0, "unique_target_items"] == 3


def test_bad_task_files_raise_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "inner.json").write_text('{"t": 3}')
    for name, fragment in [
        ("bad.json", "not valid"),
        ("list.json", "top level"),
        ("inner.json", "'t'"),
        ("no.json", "cannot read"),
    ]:
        with pytest.raises(DataFileError, match=fragment) as info:
            load_task_definitions([tmp_path / name])
        assert name in str(info.value) and "\n" not in str(info.value)


def test_later_task_files_override_earlier_ones(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"t": {"type": "cooking", "agent_count": 2}}')
    (tmp_path / "b.json").write_text('{"t": {"type": "cooking", "agent_count": 3}}')
    assert load_task_definitions([tmp_path / "a.json", tmp_path / "b.json"])["t"]["agent_count"] == 3


def test_a_row_names_its_values_as_the_contract_does() -> None:
    from cogames_lib.mindcraft.rows import ROW_COLUMNS, TASK_ID_COLUMNS, run_row
    from cogames_lib.tables import MINDCRAFT_RUNS

    per_row = set(MINDCRAFT_RUNS.columns) - {"experiment", "model_name", *TASK_ID_COLUMNS}
    assert set(ROW_COLUMNS) == per_row | {"agent_outcomes"} and len(ROW_COLUMNS) == len(per_row) + 1
    run = {"task_id": "t1", "task_type": "cooking", "layout": "per_run", "agent_count": 2,
           "expected_agent_count_mismatch": True, "total_agent_logs_found": 3, "repetitions": {},
           "overall_completion_status": "NO_SCORE_LOGGED", "overall_is_successful": False,
           "overall_raw_score": 0.5, "stale_log_count": 4, "has_task_definition": False, "score_scale": 7,
           "ignored_files": ["a", "b"], "folder_path": "/x/t1", "agent_outcomes": [],
           "task_definition_metrics": {}}  # fmt: skip
    row = dict(zip(ROW_COLUMNS, run_row(run, "exclude"), strict=True))
    for column in ("task_id", "task_type", "layout", "agent_count", "expected_agent_count_mismatch",
                   "total_agent_logs_found", "overall_completion_status", "overall_is_successful",
                   "overall_raw_score", "stale_log_count", "has_task_definition", "score_scale"):  # fmt: skip
        assert row[column] == run[column], column
    assert (row["repetition_count"], row["successful_repetitions"], row["success_for_rate"]) == (0, 0, None)
    assert row["ignored_files"] == "a;b" and row["folder_display"] == row["folder_path"] == "/x/t1"
    assert row["folder_path_bytes"] == b"/x/t1" and row["agent_outcomes"] == []
