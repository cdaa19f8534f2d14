"""The study command: arguments checked before torch is imported, and a tiny study's tables."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.probes import ProbeSettings
from cogames_lib.staghunt.study import SHIPPED_MAPS, downsample_curve, validate_study_parameters
from cogames_lib.staghunt.train import TRAINING_COLUMNS
from cogames_lib.staghunt.world_config import WORLD_PRESETS

CHECK = """
import sys
from cogames_lib.cli import main
code = main(sys.argv[1:])
print(code, "torch" in sys.modules)
"""


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--epochs", "0"], "--epochs must be an integer >= 1"),
        (["--epochs", "10", "--world", "sorrel"], "--world: unknown 'sorrel'"),
        (["--epochs", "10", "--conditions", "everyone"], "--conditions: unknown 'everyone'"),
        (["--epochs", "10", "--seeds", "0"], "--seeds must be an integer >= 1"),
    ],
)
def test_bad_study_arguments_fail_in_one_line_before_torch_is_imported(tmp_path, argv, message) -> None:
    command = [sys.executable, "-c", CHECK, "probe", "study", "--out", str(tmp_path / "out"), *argv]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert completed.stdout.split() == ["2", "False"]
    assert message in completed.stderr and len(completed.stderr.strip().splitlines()) == 1


def test_downsample_keeps_columns_and_block_means() -> None:
    frame = pd.DataFrame({column: range(1, 11) for column in TRAINING_COLUMNS})
    small = downsample_curve(frame, 4)
    assert list(small.columns) == list(TRAINING_COLUMNS)
    assert small["epoch"].tolist() == [3, 6, 9, 10]
    assert small["mean_return"].tolist() == [2.0, 5.0, 8.0, 10.0]
    assert small["updates"].tolist() == [6, 15, 24, 10]  # sums, not means
    assert downsample_curve(frame, 20).equals(frame)
    with pytest.raises(ParameterError, match="each condition may appear once"):
        validate_study_parameters("sorrel_e3", ["all_can_hunt", "all_can_hunt"], 1, 10, 5)


def test_a_tiny_study_writes_small_tables_and_study_json(tmp_path) -> None:
    from cogames_lib.staghunt.study import run_study

    summary = run_study("sorrel_e3", ["all_can_hunt", "kind_shuffled"], seeds=1, epochs=12, probe_every=6,
                        out_dir=tmp_path, command="test", progress=False, random_policy_episodes=50,
                        curve_points=5, acting_episodes=3, epsilon_decay_epochs=6)  # fmt: skip
    on_disk = json.loads((tmp_path / "study.json").read_text())
    assert on_disk == json.loads(json.dumps(summary))
    for key in ("command", "epochs", "seeds", "conditions", "world", "code_version", "wall_seconds", "populations",
                "probe_settings", "provenance", "finished_by", "random_policy"):  # fmt: skip
        assert key in on_disk
    assert on_disk["epsilon_decay_epochs"] == 6 and on_disk["probe_settings"]["suite"] == "counterbalanced"
    # the settings the probes ran with (sorrel_e3's area attack and position code), not the class defaults,
    # and no absolute path of this machine (a moved checkout resumes the same plan)
    world = WORLD_PRESETS["sorrel_e3"]
    assert on_disk["probe_settings"]["attack_shape"] == world.attack_shape != ProbeSettings().attack_shape
    assert on_disk["probe_settings"]["position_embedding"] == world.position_embedding
    assert on_disk["probe_settings"]["maps_dir"] == SHIPPED_MAPS
    provenance = on_disk["provenance"]
    assert {"numpy", "torch", "pandas"} <= set(provenance["packages"]) and provenance["cpu"]
    assert isinstance(provenance["dirty_tree"], bool) and provenance["cpu_count"] >= 1
    assert (
        on_disk["random_policy"]["all_can_hunt"]["seed"] == 0
        and on_disk["random_policy"]["all_can_hunt"]["worlds"] == 50
    )
    assert len(on_disk["populations"]["kind_shuffled"]) == 4
    assert set(on_disk["random_policy_stag_rate"]) == {"all_can_hunt", "kind_shuffled"}
    training = pd.read_parquet(tmp_path / "training.parquet")
    assert list(training.columns[: len(TRAINING_COLUMNS)]) == list(TRAINING_COLUMNS)
    assert list(training.columns[-2:]) == ["condition", "seed"]
    assert training.groupby("condition").size().tolist() == [4, 4]  # blocks of ceil(12 / 5) = 3 epochs
    intention = pd.read_parquet(tmp_path / "probe_intention.parquet")
    assert sorted(intention["epoch"].unique()) == [0, 6, 12]
    assert {"stag_action", "partner_side", "agent_can_hunt"} <= set(intention.columns)
    multistep = pd.read_parquet(tmp_path / "probe_multistep.parquet")
    assert {"condition", "seed", "result", "stag_action"} <= set(multistep.columns)
    acting = pd.read_csv(tmp_path / "acting_partners.csv")
    # all_can_hunt: two KindA focals x 2 partners; kind_shuffled: two hunters x 3 partners
    assert acting.groupby("condition").size().to_dict() == {"all_can_hunt": 4, "kind_shuffled": 6}
    assert set(pd.read_csv(tmp_path / "random_policy.csv")["condition"]) == {"all_can_hunt", "kind_shuffled"}
    assert not list(tmp_path.glob("*.pt"))  # checkpoints stay under runs/, out of the committed tables
    assert len(list((tmp_path / "runs").rglob("*.pt"))) == 2  # only each run's final checkpoint
    from cogames_lib.staghunt.study_findings import staghunt_findings
    from cogames_lib.staghunt.study_tables import load_probe_study

    keys = {finding.key for finding in staghunt_findings(load_probe_study(tmp_path).tables)}
    assert {"learning.kind_shuffled.stags_vs_random", "partner_effect.kind_shuffled.q_gap",
            "acting_partners.all_can_hunt.attacked_stag", "side_bias.all_can_hunt.p_stag"} <= keys  # fmt: skip


class _Stop(Exception):
    pass


def test_the_plan_is_registered_in_study_json_before_any_training(tmp_path, monkeypatch) -> None:
    from cogames_lib.staghunt import runs
    from cogames_lib.staghunt.study import run_study

    seen = {}

    def no_training(*args, **kwargs):
        seen.update(json.loads((tmp_path / "study.json").read_text()))
        raise _Stop

    monkeypatch.setattr(runs, "train_many", no_training)
    with pytest.raises(_Stop):
        run_study("sorrel_e3", ["not_all_can_hunt", "roles_swapped"], seeds=3, epochs=40, probe_every=20,
                  out_dir=tmp_path, command="test", progress=False)  # fmt: skip
    plan = seen["preregistration"]
    assert plan["conditions"] == ["not_all_can_hunt", "roles_swapped"] and plan["seeds"] == [0, 1, 2]
    assert (
        plan["epochs"] == 40
        and plan["primary_scale"].startswith("p_stag")
        and "sign-flip" in plan["primary_test"]
    )
    assert plan["expected_effect"]["roles_swapped"].startswith("positive") and plan["registered_at"]
    assert seen["status"] == "registered, training" and "dirty_tree" in seen["provenance"]
    # resuming the folder with another plan is refused; the same plan resumes and keeps its timestamp
    with pytest.raises(ParameterError, match="registered with another plan"):
        run_study("sorrel_e3", ["not_all_can_hunt", "roles_swapped"], seeds=3, epochs=40, probe_every=20,
                  out_dir=tmp_path, progress=False, resume=True, epsilon_decay_epochs=7)  # fmt: skip
    with pytest.raises(_Stop):
        run_study("sorrel_e3", ["not_all_can_hunt", "roles_swapped"], seeds=3, epochs=40, probe_every=20,
                  out_dir=tmp_path, command="test", progress=False, resume=True)  # fmt: skip
    assert seen["preregistration"]["registered_at"] == plan["registered_at"]


def test_the_study_command_passes_a_dask_scheduler_through(tmp_path, monkeypatch) -> None:
    from cogames_lib.cli import main
    from cogames_lib.staghunt import study

    calls = []
    monkeypatch.setattr(study, "run_study", lambda *args, **kwargs: calls.append(kwargs) or {
        "conditions": ["all_can_hunt"], "seeds": [0], "epochs": 5, "wall_seconds": 1.0,
        "random_policy_stag_rate": {}})  # fmt: skip
    out = str(tmp_path / "out")
    argv = [
        "probe",
        "study",
        "--epochs",
        "5",
        "--out",
        out,
        "--backend",
        "dask",
        "--scheduler",
        "tcp://host:8786",
    ]
    assert main(argv) == 0
    assert calls[0]["backend"] == "dask" and calls[0]["scheduler"] == "tcp://host:8786"
    assert main(["probe", "study", "--epochs", "5", "--out", out, "--scheduler", "tcp://host:8786"]) == 2


def test_finish_study_uses_whole_seeds_only_and_records_deviations(tmp_path) -> None:
    """A study stopped early: seed 1 of one condition did not finish, so seed 1 is left out everywhere."""
    from cogames_lib.staghunt.study import finish_study, preregistration

    plan = {
        **preregistration("sorrel_e3", ["all_can_hunt", "roles_swapped"], 2, 4, 2),
        "registered_at": "now",
    }
    (tmp_path / "study.json").write_text(
        json.dumps({"command": "test", "preregistration": plan, "provenance": {}})
    )
    for condition in plan["conditions"]:
        for seed in (0, 1):
            run = tmp_path / "runs" / condition / f"seed_{seed}"
            run.mkdir(parents=True)
            epochs = 2 if (condition, seed) == ("roles_swapped", 1) else 4  # stopped halfway
            pd.DataFrame({c: range(1, epochs + 1) for c in TRAINING_COLUMNS}).to_csv(
                run / "training.csv", index=False
            )
            pd.DataFrame({"epoch": [0, epochs]}).to_csv(run / "probe_multistep.csv", index=False)
    summary = finish_study(tmp_path, random_policy_episodes=20, deviations=["stopped after one seed"])
    assert summary["seeds"] == [0] and summary["seeds_not_finished"] == [1]
    assert summary["deviations"] == ["stopped after one seed"] and summary["preregistration"]["seeds"] == [
        0,
        1,
    ]
    assert set(pd.read_parquet(tmp_path / "training.parquet")["seed"]) == {0}
