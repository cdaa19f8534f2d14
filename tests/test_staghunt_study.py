"""The social-context study: loading a study folder, curves across seeds, the paired partner test, headline."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cogames_lib.errors import DataFileError
from cogames_lib.staghunt.social import (
    final_learning,
    learning_curves,
    partner_curves,
    partner_differences,
    partner_effect,
)
from cogames_lib.staghunt.study_summary import learning_verdict, study_headline
from cogames_lib.staghunt.study_tables import load_probe_study
from tests.staghunt_study_helpers import intention_with_effect, tiny_trained_study, write_study_json


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_trained_study(tmp_path_factory.mktemp("study"))


def test_a_train_many_folder_with_study_json_loads_as_a_study(study_dir: Path) -> None:
    study = load_probe_study(study_dir)
    assert set(study.training["condition"]) == {"all_can_hunt", "not_all_can_hunt"}
    assert sorted(study.training["seed"].unique()) == [0, 1] and len(study.training) == 2 * 2 * 6
    assert set(study.intention["epoch"]) == {0, 3, 6} and {"condition", "seed"} <= set(
        study.multistep.columns
    )
    assert "2026-11-25" in study.label and "6 epochs, 2 seeds" in study.label


def test_per_run_files_without_combined_tables_load_the_same(study_dir: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(study_dir, tmp_path / "runs_only")
    for combined in copy.glob("*_all.csv"):
        combined.unlink()
    # a per-run file of another writer may lack condition/seed: they come from the run folders
    run_file = copy / "all_can_hunt" / "seed_1" / "training.csv"
    pd.read_csv(run_file).drop(columns=["condition", "seed"], errors="ignore").to_csv(run_file, index=False)
    study, reread = load_probe_study(study_dir), load_probe_study(copy)
    key = ["condition", "seed", "epoch"]
    columns = ["condition", "seed", "epoch", "mean_return", "stags_killed"]
    pd.testing.assert_frame_equal(
        study.training[columns].sort_values(key, ignore_index=True),
        reread.training[columns].sort_values(key, ignore_index=True),
        check_dtype=False,
    )
    assert len(reread.intention) == len(study.intention)


def test_study_problems_are_one_line_errors(study_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match=r"no study\.json"):
        load_probe_study(tmp_path)
    broken = shutil.copytree(study_dir, tmp_path / "broken")
    metadata = json.loads((broken / "study.json").read_text())
    (broken / "study.json").write_text(
        json.dumps({k: v for k, v in metadata.items() if k != "random_policy_stag_rate"})
    )
    with pytest.raises(DataFileError, match=r"study.json: missing keys \['random_policy_stag_rate'\]"):
        load_probe_study(broken)
    write_study_json(broken, 0, [0, 1])
    with pytest.raises(DataFileError, match="key 'epochs' has an unusable value 0"):
        load_probe_study(broken)
    write_study_json(broken, 6, [0, 1])
    pd.read_csv(broken / "probe_multistep_all.csv").drop(columns="result").to_csv(
        broken / "probe_multistep_all.csv", index=False
    )
    with pytest.raises(
        DataFileError, match=r"probe_multistep_all.csv: probe_multistep table is missing columns \['result'\]"
    ):
        load_probe_study(broken)
    write_study_json(broken, 6, [0, 1], conditions=["all_can_hunt", "other_condition"])
    with pytest.raises(DataFileError, match=r"conditions \['other_condition'\] have no training rows"):
        load_probe_study(broken)


def test_curves_on_a_real_tiny_study_have_seed_intervals(study_dir: Path) -> None:
    study = load_probe_study(study_dir)
    curves = partner_curves(study.intention)
    assert set(curves["partner_kind"]) == {"no_partner", "AgentKindA", "AgentKindB"}
    assert (curves["n_seeds"] == 2).all() and (curves["ci_low"] <= curves["mean"]).all()
    behaviour = partner_curves(study.multistep, "result")
    assert behaviour["mean"].between(0, 1).all()
    learning = learning_curves(study.training, windows=3)
    assert sorted(learning["epoch"].unique()) == [2, 4, 6] and set(learning["metric"]) == {
        "stags_killed",
        "mean_return",
    }
    # one seed: a mean, but no interval
    one_seed = learning_curves(study.training[study.training["seed"] == 0], windows=3)
    assert one_seed["ci_low"].isna().all() and one_seed["mean"].notna().all()


def test_final_learning_and_the_ratio_to_random_play() -> None:
    rows = [
        {"condition": "c", "seed": seed, "epoch": epoch, "epsilon": 0.05, "mean_return": 10.0 + seed,
         "stags_killed": (0.0 if epoch <= 90 else 0.2 + 0.1 * seed), "hares_killed": 1}
        for seed in range(3) for epoch in range(1, 101)
    ]  # fmt: skip
    summary = final_learning(pd.DataFrame(rows), 0.1, fraction=0.095).set_index("metric")
    stags = summary.loc["stags_killed"]
    assert stags["mean"] == pytest.approx(0.3) and stags["n_seeds"] == 3  # epochs 91..100 only
    # a baseline given as a bare number has no standard error: the ratio interval is the seeds' alone
    assert stags["ratio"] == pytest.approx(3.0) and stags["random_error"] == 0.0
    assert stags["ratio_low"] == pytest.approx(stags["ci_low"] / 0.1, abs=0.05)
    assert np.isnan(summary.loc["mean_return", "ratio"])
    # with the baseline's standard error the ratio interval widens: it carries both uncertainties
    table = pd.DataFrame({"condition": ["c"], "stags_per_episode": [0.1], "stags_standard_error": [0.02]})
    wide = final_learning(pd.DataFrame(rows), table, fraction=0.095).set_index("metric").loc["stags_killed"]
    assert wide["ratio"] == pytest.approx(3.0) and wide["random_error"] == 0.02
    assert wide["ratio_low"] < stags["ratio_low"] - 0.1 and wide["ratio_high"] > stags["ratio_high"] + 0.1


def test_the_paired_test_finds_a_planted_effect_and_its_difference_in_differences() -> None:
    intention = intention_with_effect({"all_can_hunt": 0.0, "not_all_can_hunt": 0.2})
    effects = partner_effect(intention, ["p_stag"], fraction=0.1).set_index("condition")
    treated = effects.loc["not_all_can_hunt"]
    assert treated["estimate"] == pytest.approx(0.2, abs=1e-9) and treated["ci_low"] > 0.15
    assert treated["n_seeds"] == 5 and treated["p_sign_flip"] == pytest.approx(
        2 / 32
    )  # the smallest with 5 seeds
    assert treated["p_wilcoxon"] == pytest.approx(0.0625)
    control = effects.loc["all_can_hunt"]
    assert control["estimate"] == pytest.approx(0.0, abs=1e-9)
    did = effects.loc["not_all_can_hunt - all_can_hunt"]
    assert did["design"] == "paired by seed" and did["estimate"] == pytest.approx(0.2, abs=1e-9)
    # only the final window counts (epochs >= 0.95 x 100): epochs 0 and 90 are outside it
    per_seed = partner_differences(intention, fraction=0.05)
    assert (per_seed["n_pairs"] == 2 * 2 * 2).all()  # epoch 100 x 2 KindA focals x 2 maps x 2 versions
    assert (partner_differences(intention, fraction=0.1)["n_pairs"] == 16).all()  # epochs 90 and 100
    # sorrel's suite has the stag on STEP_LEFT only: one half, the side bias cannot be removed
    assert (per_seed["halves"] == 1).all()


def test_difference_in_differences_of_unpaired_seeds_is_a_two_group_comparison() -> None:
    intention = intention_with_effect({"all_can_hunt": 0.0, "not_all_can_hunt": 0.2})
    shifted = intention.assign(
        seed=np.where(intention["condition"] == "all_can_hunt", intention["seed"] + 10, intention["seed"])
    )
    did = partner_effect(shifted, ["p_stag"]).set_index("effect").loc["difference_in_differences"]
    assert did["design"] == "independent groups" and did["estimate"] == pytest.approx(0.2, abs=1e-9)
    assert did["ci_low"] > 0.1 and did["p_sign_flip"] < 0.05 and did["wilcoxon_note"] == "unpaired seeds"


def test_no_effect_is_reported_with_its_interval_too() -> None:
    effects = partner_effect(intention_with_effect({"all_can_hunt": 0.0, "not_all_can_hunt": 0.0}, seeds=3))
    assert len(effects) == 3 * 3  # (two conditions + their difference in differences) x three scales
    assert effects["ci_low"].notna().all() and (effects["p_sign_flip"] > 0.2).all()


def test_learning_verdict_labels_runs_that_cannot_have_learned(study_dir: Path) -> None:
    training = load_probe_study(study_dir).training
    assert learning_verdict(training.assign(epsilon=0.97)).startswith(
        "too short to learn (epsilon still 0.97"
    )
    flat = training.assign(epsilon=0.05, stags_killed=0.0)
    assert learning_verdict(flat, 0.05).startswith("no stag learning")
    assert learning_verdict(flat.assign(stags_killed=1.0), 0.05) == ""


def test_study_headline_in_words(study_dir: Path) -> None:
    study = load_probe_study(study_dir)
    headline = study_headline(study.training, study.intention, study.metadata["random_policy_stag_rate"])
    assert "learning.all_can_hunt.stags_per_episode" in headline
    assert "(n = 2 seeds)" in headline["learning.not_all_can_hunt.stags_per_episode"]
    assert "partner_effect.difference_in_differences.p_stag" in headline
    assert (
        "partner_effect.not_all_can_hunt.q_gap" in headline
        and "partner_effect.all_can_hunt.argmax" in headline
    )
    assert all("nan" not in str(value) for value in headline.values())


def test_cli_analyze_study_prints_the_label_and_headline(
    study_dir: Path, capsys: pytest.CaptureFixture
) -> None:
    from cogames_lib.cli import main

    assert main(["probe", "analyze", "--study", str(study_dir)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("reference study: 6 epochs, 2 seeds per condition, default world, 2026-11-25\n")
    assert "command: cogames-lib probe train --epochs 6\n" in out
    assert "times random play" in out and "difference_in_differences" in out
    assert main(["probe", "analyze", str(study_dir), "--study", str(study_dir)]) == 2
    assert main(["probe", "analyze", "--study", str(study_dir / "all_can_hunt")]) == 2
    assert "no study.json" in capsys.readouterr().err


def test_the_probe_study_command_layout_with_per_condition_baselines(study_dir: Path, tmp_path: Path) -> None:
    """`probe study` writes top-level training.csv / probe_*.csv (runs under runs/) and per-condition
    random-play baselines; per-run files below are not read twice."""
    folder = tmp_path / "study_command"
    shutil.copytree(study_dir, folder / "runs")
    for table in ("training", "probe_intention", "probe_multistep"):
        (folder / "runs" / f"{table}_all.csv").rename(folder / f"{table}.csv")
    rates = {"all_can_hunt": 0.27, "not_all_can_hunt": 0.1}
    scores = {
        c: {"episodes": 2000, "stags_per_episode": r, "mean_return": 4.0 * (1 + r)} for c, r in rates.items()
    }
    write_study_json(folder, 6, [0, 1], random_policy_stag_rate=rates, random_policy=scores)
    study = load_probe_study(folder)
    assert len(study.training) == 24 and study.random_stag_rates == rates
    assert study.random_returns == {
        "all_can_hunt": pytest.approx(5.08),
        "not_all_can_hunt": pytest.approx(4.4),
    }
    table = final_learning(study.training, study.random_stag_rates, random_policy_return=study.random_returns)
    row = table.set_index(["condition", "metric"]).loc[("not_all_can_hunt", "mean_return")]
    assert row["random_rate"] == pytest.approx(4.4) and row["ratio"] == pytest.approx(row["mean"] / 4.4)
    headline = study_headline(study.training, study.intention, study.random_policy)
    assert (
        "(0.100 per episode, its standard error not recorded)"
        in headline["learning.not_all_can_hunt.stags_vs_random"]
    )
    write_study_json(folder, 6, [0, 1], random_policy_stag_rate={"all_can_hunt": 0.27})
    with pytest.raises(DataFileError, match="key 'random_policy_stag_rate' has an unusable value"):
        load_probe_study(folder)


def test_combined_tables_compressed_as_gzip_or_parquet_load_the_same(study_dir: Path, tmp_path: Path) -> None:
    """The committed reference study keeps its largest table as Parquet: every table may be a top-level
    `.csv.gz` or `.parquet`, read to the same frame; an unreadable Parquet is a one-line error naming it."""
    plain = load_probe_study(study_dir)
    folder = tmp_path / "compressed"
    folder.mkdir()
    shutil.copy(study_dir / "study.json", folder / "study.json")
    pd.read_csv(study_dir / "training_all.csv").to_csv(folder / "training.csv.gz", index=False)
    pd.read_csv(study_dir / "probe_intention_all.csv").to_parquet(folder / "probe_intention.parquet")
    pd.read_csv(study_dir / "probe_multistep_all.csv").to_csv(folder / "probe_multistep.csv.gz", index=False)
    study = load_probe_study(folder)
    pd.testing.assert_frame_equal(study.training, plain.training)
    pd.testing.assert_frame_equal(study.intention, plain.intention)
    pd.testing.assert_frame_equal(study.multistep, plain.multistep)
    (folder / "probe_intention.parquet").write_bytes(b"not parquet")
    with pytest.raises(DataFileError, match=r"probe_intention\.parquet: cannot read Parquet"):
        load_probe_study(folder)
