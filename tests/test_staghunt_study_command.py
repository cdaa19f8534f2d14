"""The study command: arguments checked before torch is imported, and a tiny study's tables."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.study import downsample_curve, validate_study_parameters
from cogames_lib.staghunt.train import TRAINING_COLUMNS

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

    summary = run_study("sorrel_e3", ["all_can_hunt", "not_all_can_hunt"], seeds=1, epochs=12, probe_every=6,
                        out_dir=tmp_path, command="test", progress=False, random_policy_episodes=50,
                        curve_points=5)  # fmt: skip
    on_disk = json.loads((tmp_path / "study.json").read_text())
    assert on_disk == json.loads(json.dumps(summary))
    for key in ("command", "epochs", "seeds", "conditions", "world", "code_version", "wall_seconds"):
        assert key in on_disk
    assert set(on_disk["random_policy_stag_rate"]) == {"all_can_hunt", "not_all_can_hunt"}
    training = pd.read_csv(tmp_path / "training.csv")
    assert list(training.columns[: len(TRAINING_COLUMNS)]) == list(TRAINING_COLUMNS)
    assert list(training.columns[-2:]) == ["condition", "seed"]
    assert training.groupby("condition").size().tolist() == [4, 4]  # blocks of ceil(12 / 5) = 3 epochs
    intention = pd.read_csv(tmp_path / "probe_intention.csv")
    assert sorted(intention["epoch"].unique()) == [0, 6, 12]
    assert set(intention["condition"]) == {"all_can_hunt", "not_all_can_hunt"}
    multistep = pd.read_csv(tmp_path / "probe_multistep.csv")
    assert {"condition", "seed", "result"} <= set(multistep.columns)
    assert not list(tmp_path.glob("*.pt"))  # checkpoints stay under runs/, out of the committed tables
    assert len(list((tmp_path / "runs").rglob("*.pt"))) == 2  # only each run's final checkpoint
