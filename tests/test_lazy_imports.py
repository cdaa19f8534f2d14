"""Cheap imports: the engines and parsers start no heavy stack, and the CLI rejects a bad argument before it
imports one. Each check runs in a fresh interpreter, since this test process has imported everything."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("torch", "pettingzoo", "dask", "distributed", "matplotlib", "seaborn", "papermill", "nbconvert")


def fresh(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize(
    "module", ["cogames_lib", "cogames_lib.cvc", "cogames_lib.mindcraft", "cogames_lib.staghunt.engine"]
)
def test_importing_a_capability_starts_no_heavy_stack(module: str) -> None:
    done = fresh(f"import sys, json, {module}; print(json.dumps(sorted(set({HEAVY!r}) & set(sys.modules))))")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_the_function_train_is_not_shadowed_by_the_module_train() -> None:
    code = (
        "import cogames_lib.staghunt.runs\n"  # loads the submodule `train` before anyone asks for the function
        "from cogames_lib.staghunt import preset, train\n"
        "print(callable(train) and train.__name__ == 'train' and callable(preset))\n"
    )
    done = fresh(code)
    assert done.stdout.strip() == "True", done.stderr


BAD_ARGUMENTS = [
    ["probe", "train", "--epochs", "-1", "--out", "unused_out"],
    ["probe", "train", "--epochs", "3", "--condition", "nobody_hunts", "--out", "unused_out"],
    ["probe", "analyze", "no/such/folder"],
    ["sweep", "--seeds", "0", "--out", "unused_out"],
    ["sweep", "--diagnostics", "no_such_mission", "--out", "unused_out"],
    ["diagnostics", "run", "no_such_mission"],
    ["mindcraft", "analyze", "no/such/root"],
    ["report", "--profile", "no_such_profile", "--out", "unused_out"],
    ["report", "--jobs", "0", "--out", "unused_out"],
    ["bench", "no_such_benchmark"],
]


@pytest.mark.parametrize("argv", BAD_ARGUMENTS, ids=[" ".join(a[:3]) for a in BAD_ARGUMENTS])
def test_a_bad_argument_exits_2_with_one_line_before_any_heavy_import(argv: list[str]) -> None:
    code = (
        "import json, sys\n"
        "from cogames_lib.cli import main\n"
        "try:\n    status = main(sys.argv[1:])\nexcept SystemExit as stop:\n    status = stop.code\n"
        f"print(json.dumps([status, sorted(set({HEAVY!r}) & set(sys.modules))]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    status, heavy = json.loads(done.stdout.strip().splitlines()[-1])
    assert status == 2, done.stderr
    assert heavy == [], f"{argv}: imported {heavy} before rejecting the argument"
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 or lines[0].startswith("usage:"), done.stderr
    assert not (ROOT / "unused_out").exists()
