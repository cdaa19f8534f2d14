"""Training: probes never interfere, checkpoints round-trip, learning works, parallel runs agree, CLI."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import torch

from cogames_lib import outdir
from cogames_lib.cli import main
from cogames_lib.errors import ParameterError
from cogames_lib.staghunt import (
    INTENTION_COLUMNS,
    MULTISTEP_COLUMNS,
    TRAINING_COLUMNS,
    StagHuntConfig,
    TrainConfig,
    load_checkpoint,
    preset,
    train,
    train_many,
    validate_probe_parameters,
)
from cogames_lib.staghunt.learner import DQNConfig
from cogames_lib.staghunt.maps import STAGHUNT_MAPS_DIR
from cogames_lib.staghunt.rules import AgentSpec

FAST = DQNConfig(learning_starts=60, batch_size=16, train_every=2, target_update_every=5, buffer_size=500)


def small(condition: str = "all_can_hunt") -> TrainConfig:
    return preset(condition, env=StagHuntConfig(max_turns=15), learner=FAST, epsilon_decay_epochs=5)


def parameters(result) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in result.population.network.state_dict().items()}


def test_probes_never_interfere_with_learning() -> None:
    with_probes = train(small(), epochs=12, probe_every=4, seed=5, progress=False)
    without = train(small(), epochs=12, probe_every=0, seed=5, progress=False)
    assert with_probes.population.updates_done > 20  # learning really happened in between probes
    assert len(with_probes.intention) == 4 * 3 * 24 and without.intention.empty  # epochs 0, 4, 8, 12
    first, second = parameters(with_probes), parameters(without)
    assert all(torch.equal(first[k], second[k]) for k in first)
    columns = [c for c in with_probes.training.columns if c != "seconds"]
    pd.testing.assert_frame_equal(with_probes.training[columns], without.training[columns])


def test_run_folder_layout_and_checkpoint_round_trip(tmp_path: Path) -> None:
    config = replace(small("not_all_can_hunt"), checkpoints="all")
    result = train(config, epochs=5, probe_every=2, seed=3, out_dir=tmp_path, progress=False)
    run_dir = tmp_path / "not_all_can_hunt" / "seed_3"
    assert result.run_dir == run_dir
    assert sorted(p.name for p in (run_dir / "checkpoints").iterdir()) == [
        f"epoch_{e}.pt" for e in (0, 2, 4, 5)
    ]
    assert not list(run_dir.rglob(".*tmp"))
    training = pd.read_csv(run_dir / "training.csv")
    assert list(training.columns) == [*TRAINING_COLUMNS, "return_agent_0", "return_agent_1", "return_agent_2"]
    assert training["epoch"].tolist() == [1, 2, 3, 4, 5]
    intention = pd.read_csv(run_dir / "probe_intention.csv")
    assert list(intention.columns[:12]) == list(INTENTION_COLUMNS)
    assert sorted(intention["epoch"].unique()) == [0, 2, 4, 5]
    assert set(intention["condition"]) == {"not_all_can_hunt"} and set(intention["run_id"]) == {
        "not_all_can_hunt/seed_3"
    }
    multistep = pd.read_csv(run_dir / "probe_multistep.csv")
    assert list(multistep.columns[:6]) == list(MULTISTEP_COLUMNS)
    loaded = load_checkpoint(run_dir / "checkpoints" / "epoch_5.pt", small())
    original, restored = result.population.network.state_dict(), loaded.network.state_dict()
    assert all(torch.equal(original[k], restored[k]) for k in original)
    member = loaded.members[1]
    obs = torch.rand(1140).numpy()
    assert member.frozen_copy().q_values(obs) == pytest.approx(
        result.population.members[1].q_values(obs), abs=1e-6
    )


def test_same_seed_same_run_and_other_seed_differs() -> None:
    first = train(small(), epochs=6, probe_every=0, seed=1, progress=False)
    second = train(small(), epochs=6, probe_every=0, seed=1, progress=False)
    other = train(small(), epochs=6, probe_every=0, seed=2, progress=False)
    assert first.training["mean_return"].tolist() == second.training["mean_return"].tolist()
    a, b, c = parameters(first), parameters(second), parameters(other)
    assert all(torch.equal(a[k], b[k]) for k in a) and not all(torch.equal(a[k], c[k]) for k in a)


@pytest.mark.slow
def test_learning_works_on_a_small_single_agent_hare_map() -> None:
    # The default learner (train_every=8 included): the speed defaults must not give up learning.
    config = TrainConfig(
        condition="hares_small",
        population=(AgentSpec("AgentKindA"),),
        env=StagHuntConfig(map_path=str(STAGHUNT_MAPS_DIR / "training_hares_small.txt"), max_turns=30),
        epsilon_decay_epochs=300,
    )
    returns = train(config, epochs=600, probe_every=0, seed=0, progress=False).training["mean_return"]
    first, last = returns.iloc[:50].mean(), returns.iloc[-50:].mean()
    assert last > first + 3.0, (first, last)  # 5 hares x 3 points: 15 is the maximum


def test_train_many_gives_the_same_tables_locally_and_on_dask(tmp_path: Path) -> None:
    from dask.distributed import Client

    configs = [small("all_can_hunt"), small("not_all_can_hunt")]
    local = train_many(configs, [0, 1], 3, 3, tmp_path / "local", workers=1, progress=False)
    with Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None) as client:
        remote = train_many(
            configs, [0, 1], 3, 3, tmp_path / "dask", backend="dask", scheduler=client, progress=False
        )
    assert local["final_mean_return"].tolist() == remote["final_mean_return"].tolist()
    for table in ("probe_intention_all.csv", "probe_multistep_all.csv"):
        pd.testing.assert_frame_equal(
            pd.read_csv(tmp_path / "local" / table), pd.read_csv(tmp_path / "dask" / table)
        )
    combined = pd.read_csv(tmp_path / "local" / "training_all.csv")
    assert sorted(set(zip(combined["condition"], combined["seed"], strict=True))) == [
        ("all_can_hunt", 0), ("all_can_hunt", 1), ("not_all_can_hunt", 0), ("not_all_can_hunt", 1)
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"conditions": "some_can_hunt"}, "condition: unknown 'some_can_hunt'"),
        ({"epochs": 0}, "epochs must be an integer >= 1"),
        ({"probe_every": 0}, "probe_every must be"),
        ({"seeds": [0, -1]}, "seeds must be integers >= 0, got -1"),
        ({"folder": "/no/such/folder"}, "folder '/no/such/folder' does not exist"),
        ({"backend": "ray"}, "backend must be one of"),
    ],
)
def test_validate_probe_parameters(kwargs: dict, message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        validate_probe_parameters(**kwargs)


def test_validate_accepts_good_parameters(tmp_path: Path) -> None:
    validate_probe_parameters(["all_can_hunt", "not_all_can_hunt"], 10, 5, [0, 1], tmp_path, 2, "dask")


def test_cli_train_and_analyze(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    argv = ["probe", "train", "--condition", "all_can_hunt", "--epochs", "2", "--probe-every", "1",
            "--seed", "4", "--out", str(tmp_path), "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    assert (tmp_path / "all_can_hunt" / "seed_4" / "probe_multistep.csv").is_file()
    assert main(["probe", "analyze", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Intention (one step)" in out and "Behaviour (multi-step)" in out and "Alignment" in out
    assert "no_partner" in out and "AgentKindB" in out


def test_cli_user_mistakes_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    argv = ["probe", "train", "--condition", "nobody_hunts", "--epochs", "2", "--out", str(tmp_path)]
    assert main(argv) == 2
    assert main(["probe", "analyze", str(tmp_path / "missing")]) == 2
    (tmp_path / "empty").mkdir()
    assert main(["probe", "analyze", str(tmp_path / "empty")]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 3 and all(line.startswith("cogames-lib: error: ") for line in errors)


@pytest.mark.slow
def test_train_many_process_pool_matches_in_process(tmp_path: Path) -> None:
    configs = [small("all_can_hunt")]
    one = train_many(configs, [0, 1], 2, 2, tmp_path / "one", workers=1, progress=False)
    two = train_many(configs, [0, 1], 2, 2, tmp_path / "two", workers=2, progress=False)
    assert one["final_mean_return"].tolist() == two["final_mean_return"].tolist()
    for table in ("probe_intention_all.csv", "probe_multistep_all.csv"):
        pd.testing.assert_frame_equal(
            pd.read_csv(tmp_path / "one" / table), pd.read_csv(tmp_path / "two" / table)
        )


def test_train_rejects_bad_arguments() -> None:
    with pytest.raises(ParameterError, match="need epochs >= 1"):
        train(small(), epochs=0, probe_every=1, seed=0, progress=False)
    with pytest.raises(ParameterError, match="unknown condition 'everyone'"):
        preset("everyone")


def test_cli_train_with_an_uncreatable_out_exits_2_before_training(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    for out in (blocker, blocker / "sub"):
        argv = ["probe", "train", "--epochs", "1", "--out", str(out), "--no-progress"]
        assert main(argv) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 2 and all("error: out_dir: " in line for line in errors)
    assert blocker.read_text() == "not a folder"
    with pytest.raises(ParameterError, match="cannot write to"):
        train(small(), epochs=1, probe_every=0, seed=0, out_dir=blocker / "sub", progress=False)


def test_cli_train_with_an_unreachable_dask_scheduler_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    argv = ["probe", "train", "--epochs", "1", "--backend", "dask", "--scheduler", "not-an-address",
            "--out", str(tmp_path / "runs"), "--no-progress"]  # fmt: skip
    assert main(argv) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 1 and "cannot connect to the Dask scheduler 'not-an-address'" in errors[0]
    assert not (tmp_path / "runs").exists()  # nothing was trained: no folder (no manifest) is left behind


def test_a_repeated_condition_and_seed_is_rejected_not_trained_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(
        ParameterError, match=r"repeated: \[\('all_can_hunt', 1\), \('not_all_can_hunt', 1\)\]"
    ):
        train_many([small(), small("not_all_can_hunt")], [1, 2, 1], 1, 1, tmp_path, progress=False)
    argv = ["probe", "train", "--condition", "all_can_hunt", "all_can_hunt", "--epochs", "1",
            "--out", str(tmp_path), "--no-progress"]  # fmt: skip
    assert main(argv) == 2
    assert "repeated" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_train_many_resumes_finished_runs_and_refuses_other_parameters(tmp_path: Path) -> None:
    first = train_many([small()], [0], 2, 1, tmp_path, progress=False)
    checkpoint = tmp_path / "all_can_hunt" / "seed_0" / "checkpoints" / "epoch_2.pt"
    written = checkpoint.stat().st_mtime_ns
    grown = train_many([small()], [0, 1], 2, 1, tmp_path, progress=False)  # resume=True by default
    assert checkpoint.stat().st_mtime_ns == written  # seed 0 finished earlier: not trained again
    columns = ["condition", "seed", "final_mean_return", "mean_return_last_10pct"]
    pd.testing.assert_frame_equal(grown[columns].iloc[:1], first[columns])
    assert grown["seed"].tolist() == [0, 1] and len(pd.read_csv(tmp_path / "training_all.csv")) == 4
    # the folder says what was reused, and from when: a report's provenance box reads it
    summary = outdir.reuse_summary(outdir.read_manifest(tmp_path) or {})
    assert summary is not None and summary.startswith("resumed 1 of 2 training runs computed ")
    assert summary.endswith("; 1 computed now")
    with pytest.raises(ParameterError, match="epochs was 2, now 3"):
        train_many([small()], [0], 3, 1, tmp_path, progress=False)
    again = train_many([small()], [0], 3, 1, tmp_path, progress=False, overwrite=True)
    assert again["epochs"].tolist() == [3] and not (tmp_path / "all_can_hunt" / "seed_1").exists()
