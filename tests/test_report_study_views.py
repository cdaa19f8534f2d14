"""The probe page's sources: the reference study (or a plain 'missing'), the smoke-run label, the figures."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from cogames_lib.errors import DataFileError
from cogames_lib.paths import STAGHUNT_REFERENCE_DIR
from cogames_lib.report.study_views import (
    labelled_findings,
    load_reference_study,
    smoke_run_label,
    study_figures,
)
from tests.staghunt_study_helpers import tiny_trained_study


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_trained_study(tmp_path_factory.mktemp("study"), epochs=4)


def test_a_missing_reference_study_is_said_plainly(tmp_path: Path) -> None:
    study, message = load_reference_study(tmp_path / "nothing")
    assert study is None and message.startswith("The reference study is missing: no study.json in")
    assert "live smoke run" in message
    assert STAGHUNT_REFERENCE_DIR.parts[-2:] == ("data", "staghunt_reference")


def test_a_broken_reference_study_fails_loudly(study_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "study.json").write_text("{}")
    with pytest.raises(DataFileError, match="missing keys"):
        load_reference_study(tmp_path)


def test_reference_study_figures_and_headline_carry_the_label(study_dir: Path) -> None:
    study, message = load_reference_study(study_dir)
    assert message == "" and study is not None
    rate = study.metadata["random_policy_stag_rate"]
    figures = study_figures(study.training, study.intention, study.multistep, rate, study.label)
    assert list(figures) == [
        "learning_curves",
        "intention_by_partner",
        "behaviour_by_partner",
        "partner_effect",
    ]
    for figure in figures.values():
        titles = " ".join([figure.get_suptitle()] + [axes.get_title() for axes in figure.axes])
        assert "reference study: 4 epochs, 2 seeds per condition, default world, 2026-11-25" in titles
        # four epochs (epsilon decayed over 4) learn no stag hunting: every figure says so
        assert "NOTE: no stag learning" in titles
        plt.close(figure)


def test_smoke_run_label_and_a_sorrel_folder_without_training(study_dir: Path) -> None:
    study, _ = load_reference_study(study_dir)
    assert smoke_run_label(study.training) == "live smoke run: 4 epochs, 2 seeds per condition"
    assert smoke_run_label(pd.DataFrame(), "/some/folder").startswith("probe folder /some/folder (read")
    # sorrel folders: no training table, no condition/seed columns; the probe figures still draw
    bare = study.intention.drop(columns=["condition", "seed", "run_id"])
    figures = study_figures(pd.DataFrame(columns=["epoch"]), bare, study.multistep.drop(columns=["condition", "seed"]),
                            None, "probe folder x")  # fmt: skip
    assert "learning_curves" not in figures and "partner_effect" in figures
    plt.close("all")


def test_labelled_findings_name_their_source_and_the_figure_the_page_saved(study_dir: Path) -> None:
    from cogames_lib.staghunt.study_findings import staghunt_findings

    study, _ = load_reference_study(study_dir)
    findings = staghunt_findings(study.tables)
    labelled = labelled_findings(findings, "reference", study.label)
    assert [f.key for f in labelled] == [f"reference {f.key}" for f in findings]
    assert all(f.text.startswith(f"R{study.label[1:]}. ") for f in labelled)
    figures = {f.figure for f in labelled} - {None}
    assert figures and all(name.startswith("reference_") for name in figures)
    # the page saves `reference_<key>.png` for every key of `study_figures`
    assert figures <= {f"reference_{key}.png" for key in study_figures(study.training, study.intention,
                                                                      study.multistep, None, study.label)}  # fmt: skip
    plt.close("all")
