"""A command that fails or is interrupted leaves nothing half-written: no temporary file, no index of a
report that did not finish, no output folder of a run that never started; its exit status and last line say
what happened."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "notebooks"
ROOT = Path(__file__).parent.parent

# Runs `cogames-lib report` over the fixture notebooks (a profile the CLI does not ship, so it is patched in).
# SIGINT is set back to Python's handler first: Ctrl-C comes from a terminal, and a test runner started as a
# background job hands its children SIGINT ignored (POSIX), which would make the test measure the launcher.
REPORT_SCRIPT = """
import signal
import sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from cogames_lib.cli import main
from cogames_lib.report import profiles
from cogames_lib.report.profiles import NotebookRun, Profile
runs = {{"fail": NotebookRun("fail", "Failing", {{}}), "sleep": NotebookRun("sleep", "Sleeping", {{"seconds": 120}})}}
profiles.PROFILES["fixture"] = Profile("fixture", "fixture", 300, tuple(runs[n] for n in {names!r}))
sys.exit(main(["report", "--profile", "fixture", "--notebooks", {notebooks!r}, "--out", {out!r}, "--no-progress"]))
"""


def _report_process(names: list[str], out: Path) -> subprocess.Popen:
    script = REPORT_SCRIPT.format(names=names, notebooks=str(FIXTURES), out=str(out))
    return subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,  # Ctrl-C reaches the whole process group, as in a terminal
    )


def _leftovers(folder: Path) -> list[str]:
    return sorted(
        str(p.relative_to(folder)) for p in folder.rglob("*") if p.name.endswith((".tmp", ".running.ipynb"))
    )


@pytest.mark.slow
def test_a_failed_report_part_exits_1_and_the_last_line_names_it(tmp_path):
    process = _report_process(["fail"], tmp_path / "report")
    _, err = process.communicate(timeout=300)
    assert process.returncode == 1, err
    assert (
        err.strip().splitlines()[-1] == "cogames-lib: error: 1 of 1 report parts failed: fail (see the index)"
    )
    assert (tmp_path / "report" / "index.html").is_file()  # the index shows the failure
    assert _leftovers(tmp_path / "report") == []


@pytest.mark.slow
def test_ctrl_c_during_a_report_leaves_no_index_and_no_temporary_file(tmp_path):
    out = tmp_path / "report"
    process = _report_process(["sleep"], out)
    deadline = time.monotonic() + 120
    while not list(out.glob("*.running.ipynb")):  # the notebook is executing
        assert time.monotonic() < deadline and process.poll() is None, process.communicate()
        time.sleep(0.2)
    time.sleep(2)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not (out / "index.html").exists()  # no report claims to exist
    assert _leftovers(out) == []


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens there once the socket is closed


def test_a_wrong_scheduler_address_fails_in_one_line_and_leaves_no_folder(tmp_path):
    pytest.importorskip("distributed")
    argv = ["sweep", "--policies", "noop", "--diagnostics", "chest_navigation1", "--agents", "1", "--seeds", "1",
            "--backend", "dask", "--scheduler", f"tcp://127.0.0.1:{_closed_port()}", "--no-progress"]  # fmt: skip
    empty = tmp_path / "empty"
    empty.mkdir()
    for out in (tmp_path / "new", empty):
        started = time.monotonic()
        completed = subprocess.run(
            [sys.executable, "-m", "cogames_lib", *argv, "--out", str(out)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=60,
        )
        elapsed = time.monotonic() - started
        assert completed.returncode == 2, completed.stderr
        assert (
            completed.stderr.count("\n") == 1 and "cannot connect to the Dask scheduler" in completed.stderr
        )
        print(f"wrong scheduler address: exit 2 after {elapsed:.1f} s")  # the docs quote this figure
    assert not (tmp_path / "new").exists()  # the run created it and wrote no episode: gone
    assert empty.is_dir() and not any(empty.iterdir())  # it existed (empty): left as it was
