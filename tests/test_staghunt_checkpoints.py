"""Checkpoint modes: which files a run writes, what they hold, and that probes of a reloaded checkpoint
equal probes of the live network exactly."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import torch

from cogames_lib.cli import main
from cogames_lib.cli.probe import CHECKPOINT_CHOICES, CHECKPOINT_DEFAULT
from cogames_lib.errors import DataFileError, ParameterError
from cogames_lib.staghunt import (
    StagHuntConfig,
    load_checkpoint,
    preset,
    run_intention_probe,
    run_multistep_probe,
    train,
)
from cogames_lib.staghunt.checkpoints import CHECKPOINT_MODES, DEFAULT_CHECKPOINTS, read_checkpoint
from cogames_lib.staghunt.learner import DQNConfig

FAST = DQNConfig(learning_starts=60, batch_size=16, train_every=2, target_update_every=5, buffer_size=500)


def small(checkpoints: str) -> object:
    return preset("not_all_can_hunt", env=StagHuntConfig(max_turns=15), learner=FAST, epsilon_decay_epochs=5,
                  checkpoints=checkpoints)  # fmt: skip


def files(run_dir: Path) -> list[str]:
    folder = run_dir / "checkpoints"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("none", []), ("last", ["epoch_5.pt"]), ("probes", ["epoch_0.pt", "epoch_2.pt", "epoch_4.pt", "epoch_5.pt"]),
     ("all", ["epoch_0.pt", "epoch_2.pt", "epoch_4.pt", "epoch_5.pt"])],
)  # fmt: skip
def test_each_mode_writes_its_checkpoints(tmp_path: Path, mode: str, expected: list[str]) -> None:
    result = train(small(mode), epochs=5, probe_every=2, seed=1, out_dir=tmp_path, progress=False)
    assert files(result.run_dir) == expected
    assert (result.run_dir / "training.csv").is_file() and (result.run_dir / "probe_intention.csv").is_file()


def test_probes_of_a_reloaded_probe_checkpoint_equal_probes_of_the_live_network(tmp_path: Path) -> None:
    config = small("last")
    result = train(config, epochs=12, probe_every=0, seed=2, out_dir=tmp_path, progress=False)
    assert result.population.updates_done > 0  # the networks moved away from their initial values
    loaded = load_checkpoint(result.run_dir / "checkpoints" / "epoch_12.pt", config)
    for probe in (run_intention_probe, run_multistep_probe):
        live = probe(result.population.members, 12, config.agents)
        reloaded = probe(loaded.members, 12, config.agents)
        pd.testing.assert_frame_equal(live, reloaded, check_exact=True)  # bit-identical, not approximately
    payload = read_checkpoint(result.run_dir / "checkpoints" / "epoch_12.pt")
    assert payload["checkpoint_mode"] == "last" and payload["epoch"] == 12
    assert set(payload["population"]["agents"][0]) == {"network"} and "optimizer" not in payload["population"]
    # the documented plain-torch way reads it too (safe loader)
    plain = torch.load(result.run_dir / "checkpoints" / "epoch_12.pt", weights_only=True)
    assert plain["condition"] == "not_all_can_hunt"


def test_probe_state_is_much_smaller_than_the_full_state(tmp_path: Path) -> None:
    sizes = {}
    for mode in ("last", "all"):
        result = train(small(mode), epochs=3, probe_every=0, seed=0, out_dir=tmp_path / mode, progress=False)
        sizes[mode] = (result.run_dir / "checkpoints" / "epoch_3.pt").stat().st_size
        full = load_checkpoint(result.run_dir / "checkpoints" / "epoch_3.pt", small(mode))
        assert full.updates_done == result.population.updates_done
    assert (
        sizes["all"] > 1.9 * sizes["last"]
    )  # at least the target networks dropped (no Adam steps yet here)  # target networks and Adam moments dropped


def test_bad_modes_and_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="checkpoints must be one of"):
        small("sometimes")
    broken = tmp_path / "epoch_1.pt"
    broken.write_bytes(b"not a checkpoint")
    with pytest.raises(DataFileError, match="not a readable checkpoint"):
        load_checkpoint(broken)
    result = train(small("last"), epochs=2, probe_every=0, seed=0, out_dir=tmp_path, progress=False)
    wider = replace(small("last"), learner=replace(FAST, hidden_sizes=(32,)))
    with pytest.raises(DataFileError, match="does not match the given TrainConfig"):
        load_checkpoint(result.run_dir / "checkpoints" / "epoch_2.pt", wider)


def test_cli_checkpoint_choices_match_the_library_and_default_to_last(tmp_path: Path) -> None:
    assert CHECKPOINT_CHOICES == CHECKPOINT_MODES and CHECKPOINT_DEFAULT == DEFAULT_CHECKPOINTS == "last"
    argv = [
        "probe",
        "train",
        "--epochs",
        "2",
        "--probe-every",
        "1",
        "--out",
        str(tmp_path / "default"),
        "--no-progress",
    ]
    assert main(argv) == 0
    assert files(tmp_path / "default" / "all_can_hunt" / "seed_0") == ["epoch_2.pt"]
    argv = ["probe", "train", "--epochs", "2", "--probe-every", "1", "--checkpoints", "none",
            "--out", str(tmp_path / "none"), "--no-progress"]  # fmt: skip
    assert main(argv) == 0 and files(tmp_path / "none" / "all_can_hunt" / "seed_0") == []
    # a finished run without checkpoints is still recognised as finished on resume
    assert main([*argv, "--resume"]) == 0
