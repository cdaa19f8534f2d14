"""Model comparison paired by task id: counts, McNemar exact p, bootstrap interval, breakdowns, CLI, figure."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import pandas as pd
import pytest

from cogames_lib.cli import main
from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft import COMPARISON_COLUMNS, aggregate_results, compare_models
from cogames_lib.mindcraft.compare import mcnemar_exact_p

matplotlib.use("Agg")
SAMPLE = Path(__file__).resolve().parents[1] / "cogames_lib" / "data" / "mindcraft_sample"


def experiment(root: Path, model: str, outcomes: dict[str, int], agents: int = 2) -> None:
    folder = root / f"{model}_03-20_09-15"
    for task_id, success in outcomes.items():
        for index, agent in enumerate(["Andy", "Jill", "Bob"][:agents]):
            turns = [{"role": "user", "content": f"{model} {task_id} {agent}"}]
            if index == 0:
                turns.append({"role": "system", "content": f"Task ended with score : {success}"})
            path = folder / task_id / f"{agent}_0_0.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"turns": turns, "taskStart": 1_742_300_000_000 + index}))
    (folder / "results.txt").write_text(repr({"model": model}))


@pytest.fixture
def two_models(tmp_path: Path) -> pd.DataFrame:
    a = {f"multiagent_cooking_{i}": int(i < 8) for i in range(10)}  # A: 8 of 10
    b = {f"multiagent_cooking_{i}": int(i < 3) for i in range(10)}  # B: 3 of 10, all also solved by A
    a |= {f"multiagent_crafting_x_{i}": 1 for i in range(4)}
    b |= {f"multiagent_crafting_x_{i}": int(i == 0) for i in range(4)}
    a["only_in_a_cooking"] = 1
    experiment(tmp_path, "A", a)
    experiment(tmp_path, "B", b)
    return aggregate_results(tmp_path)


def test_paired_counts_rates_and_mcnemar(two_models: pd.DataFrame) -> None:
    table = compare_models(two_models, "A", "B")
    assert list(table.columns) == list(COMPARISON_COLUMNS)
    overall = table.iloc[0]
    assert (overall["group"], overall["n_tasks"]) == ("overall", 14)  # the unpaired task is left out
    assert (overall["both_succeeded"], overall["only_a"], overall["only_b"], overall["neither"]) == (
        4,
        8,
        0,
        2,
    )
    assert overall["difference"] == pytest.approx(8 / 14)
    assert overall["mcnemar_p"] == pytest.approx(2 * 0.5**8)  # exact: all 8 discordant pairs favour A
    assert overall["ci_low"] > 0 and overall["ci_high"] <= 1
    assert table.attrs["unpaired_a"] == 1 and table.attrs["unpaired_b"] == 0
    by_type = table[table["group"] == "task_type"].set_index("value")
    assert by_type.loc["cooking", "n_tasks"] == 10 and by_type.loc["techtree", "only_a"] == 3
    assert set(table[table["group"] == "agent_count"]["value"]) == {"2"}
    again = compare_models(two_models, "A", "B")
    pd.testing.assert_frame_equal(table, again)  # seeded bootstrap


def test_mcnemar_exact_p_values() -> None:
    assert mcnemar_exact_p(0, 0) == 1.0
    assert mcnemar_exact_p(1, 1) == pytest.approx(1.0)
    assert mcnemar_exact_p(5, 0) == pytest.approx(0.0625)


def test_unknown_or_equal_models_are_one_line_errors(two_models: pd.DataFrame) -> None:
    with pytest.raises(ParameterError, match=r"models: 'C' is not in the runs \(models found: A, B\)"):
        compare_models(two_models, "A", "C")
    with pytest.raises(ParameterError, match="twice"):
        compare_models(two_models, "A", "A")


def test_compare_on_the_sample_cli_and_figure(tmp_path: Path, capsys) -> None:
    code = main(
        [
            "mindcraft",
            "compare",
            str(SAMPLE / "experiments"),
            "--tasks",
            str(SAMPLE / "tasks"),
            "--models",
            "gpt-4o-mini",
            "claude-3-5-haiku-latest",
            "--out",
            str(tmp_path / "cmp"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "paired by task id" in out and "mcnemar_p" in out
    table = pd.read_parquet(tmp_path / "cmp" / "mindcraft_comparison.parquet")
    assert table.loc[0, "n_tasks"] == 20 and {"task_type", "agent_count"} <= set(table["group"])
    assert (tmp_path / "cmp" / "mindcraft_comparison.png").stat().st_size > 1000


def test_model_difference_figure_draws_and_handles_no_pairs(two_models: pd.DataFrame) -> None:
    from cogames_lib.plots import model_difference

    figure = model_difference(compare_models(two_models, "A", "B"))
    assert len(figure.axes[0].get_yticklabels()) == 4  # overall, 2 task types, 1 agent count


def test_no_shared_task_gives_zero_pairs_and_an_empty_figure(tmp_path: Path) -> None:
    from cogames_lib.plots import model_difference

    experiment(tmp_path, "A", {"task_a": 1})
    experiment(tmp_path, "B", {"task_b": 0})
    table = compare_models(aggregate_results(tmp_path), "A", "B")
    assert len(table) == 1 and table.loc[0, "n_tasks"] == 0 and pd.isna(table.loc[0, "difference"])
    assert "no task both models ran" in model_difference(table).axes[0].texts[0].get_text()
