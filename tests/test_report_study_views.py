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
    load_reference_study,
    smoke_run_label,
    study_figures,
    study_page_headline,
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
    headline = study_page_headline("reference", study.training, study.intention, rate, study.label)
    assert headline["reference source"] == study.label
    assert headline["reference learning"].startswith("no stag learning")


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


def test_index_findings_lead_with_the_reference_study_and_label_the_smoke_run(
    study_dir: Path, tmp_path: Path
) -> None:
    from cogames_lib.report.findings import findings_for
    from cogames_lib.report.notebook_files import write_summary

    study, _ = load_reference_study(study_dir)
    page = tmp_path / "probe_tests"
    page.mkdir()
    study.intention.to_csv(page / "probe_intention.csv", index=False)
    study.multistep.to_csv(page / "probe_multistep.csv", index=False)
    assert not findings_for("probe_tests", page)[0].text.startswith("Reference study")  # no reference shown
    write_summary(page, {"reference source": study.label, "reference folder": str(study_dir)})
    (page / "reference_partner_effect.png").write_bytes(b"png")
    findings = findings_for("probe_tests", page)
    texts = [finding.text for finding in findings]
    assert texts[0].startswith(f"R{study.label[1:]}. At the last probe (epoch 4)")
    assert texts[2].startswith("Reference study. Partner effect") and "difference in differences" in texts[2]
    assert findings[2].figure == "reference_partner_effect.png"
    assert findings[0].figure is None  # its figure is not in the folder: no broken image
    assert texts[3].startswith("Live smoke run (a check that the pipeline runs, not a result).")
