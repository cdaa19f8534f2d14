"""The learned-agents notebook: the same house rules as the other notebooks (`tests/test_notebooks.py`), and a
papermill run over a small emergence table that writes its tables, figures and findings."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from cogames_lib.errors import CogamesLibError
from cogames_lib.finding import findings_from_json
from tests import test_notebooks as house
from tests.test_learn_findings import story

NAME = "learned_agents"


def test_follows_the_notebook_house_rules(tmp_path, monkeypatch):
    house.test_committed_without_outputs_or_execution_counts(NAME)
    house.test_parameters_are_commented_typed_literals(NAME)
    house.test_cells_are_thin(NAME)
    monkeypatch.chdir(house.NOTEBOOKS)
    assert house.run_validation_cell(NAME, {}, tmp_path)["out"].is_dir()


@pytest.mark.parametrize(
    "overrides,message",
    [({"reliable_rate": 1.5}, r"reliable_rate: must be a number in \(0, 1\]"), ({"episodes": 0}, "episodes")],
)
def test_bad_parameters_are_one_line_errors(overrides, message, tmp_path, monkeypatch):
    monkeypatch.chdir(house.NOTEBOOKS)
    with pytest.raises(CogamesLibError, match=message) as caught:
        house.run_validation_cell(NAME, overrides, tmp_path)
    assert "\n" not in str(caught.value)


@pytest.mark.slow
def test_notebook_writes_tables_figures_and_findings(tmp_path):
    table = tmp_path / "emergence.csv"
    story().to_csv(table, index=False)
    out = house.papermill(NAME, tmp_path, {"emergence_source": str(table)})
    assert len(pd.read_parquet(out / "emergence.parquet")) == len(story())
    answers = pd.read_csv(out / "seed_questions.csv")
    assert set(answers["source"]) == {"learned", "ablations"}  # the committed ablation table is beside it
    for figure in ("emergence_heatmap", "family_curves", "learned_redundancy_heatmap"):
        assert (out / f"{figure}.png").stat().st_size > 1000
    assert not (out / "mirror_control.png").exists()  # committed for the reference run only
    card = pd.read_csv(out / "seed_scorecard.csv", keep_default_na=False)
    assert card["seed"].tolist() == [0, 1, 2] and not card["targets"].any()  # the story trains no charger
    assert card["missing_targets"].str.contains("charge_up@1").all()
    findings = findings_from_json(json.loads((out / "summary.json").read_text())["findings"])
    assert findings[0].key == "learned" and findings[0].text.startswith(f"Table {table}: 3 training seeds")


@pytest.mark.slow
def test_the_reference_run_page_shows_the_mirror_control(tmp_path):
    out = house.papermill(NAME, tmp_path, {})
    mirror = pd.read_csv(out / "mirror_control.csv")
    assert set(mirror["map"]) == {"shipped", "left_right", "top_bottom", "both", "transpose", "anti_transpose",
                                  "rotate_cw", "rotate_ccw"}  # fmt: skip
    assert set(mirror["policy"]) == {"learned", "scripted", "random"}
    assert (out / "mirror_control.png").stat().st_size > 1000
    runs = pd.read_csv(out / "mirror_runs.csv")  # the committed runs side by side, by map group
    assert set(runs["group"]) == {"shipped", "mirrors", "transposes"} and runs["run"].nunique() == 3
    assert (out / "mirror_runs.png").stat().st_size > 1000
    card = pd.read_csv(out / "seed_scorecard.csv")  # the README's "every target in every seed", recomputed
    assert card["seed"].tolist() == [0, 1, 2, 3, 4, 5] and card["targets"].all() and card["stretch"].all()
    assert card["one_agent_passed"].tolist() == [12, 12, 12, 12, 13, 12]


def test_the_committed_reference_run_loads_labelled():
    from cogames_lib.learn.emergence_reference import emergence_source, reference_emergence
    from cogames_lib.tables import EMERGENCE

    source = reference_emergence()
    EMERGENCE.validate(source.table, "data/cvc_learned/emergence.csv")
    assert source.label.startswith("Committed reference run (data/cvc_learned): 6 training seeds")
    assert source.table["seed"].nunique() >= 3 and (source.table["step"] == 0).any()
    assert source.ablation_pairs is not None and len(source.ablation_pairs) == 11  # the questions' pairs
    assert emergence_source().label == source.label
    with pytest.raises(CogamesLibError, match="not both"):
        emergence_source(table="x.csv", run_dir="run")


def test_the_untuned_seed_check_meets_every_target_as_documented():
    """README ("Against the learning targets") and docs/cvc_learned.md quote this check of the reference's
    command on seeds 9-12, recomputed here from the committed table."""
    from cogames_lib.learn.emergence import load_emergence
    from cogames_lib.learn.emergence_summary import seed_scorecard
    from cogames_lib.paths import PROJECT_ROOT

    card = seed_scorecard(load_emergence(PROJECT_ROOT / "data" / "cvc_learned_fresh" / "emergence.csv"))
    assert card["seed"].tolist() == [9, 10, 11, 12] and card["targets"].all() and card["stretch"].all()
    assert card["one_agent_passed"].tolist() == [13, 12, 12, 12]
