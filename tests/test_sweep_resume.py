"""A sweep killed with SIGKILL mid-run and resumed loses nothing and duplicates nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from cogames_lib.sweep import run_sweep, store
from tests.test_sweep_fakes import FakeSpec

ROOT = Path(__file__).resolve().parents[1]
DIAGNOSTICS = ["chest_deposit_near", "assemble_seeded_near"]
TOTAL = 4 + 4 * 2  # chest_deposit_near allows 1 agent, assemble_seeded_near 1 and 2; 4 seeds each

SCRIPT = """
import sys
sys.path.insert(0, {root!r})
from tests.test_sweep_fakes import FakeSpec
from cogames_lib.sweep import run_sweep

if __name__ == "__main__":
    # 2 ms per action: slow enough to be killed mid-run, one episode per chunk so parts land one by one
    run_sweep([FakeSpec("wander", slow_s=0.002)], {diagnostics!r}, [1, 2], 4, {out!r},
              workers=2, chunk_size=1, progress=False)
"""


def _parts(out: Path) -> list[Path]:
    return sorted(store.episodes_dir(out).glob("part-*.parquet"))


@pytest.mark.slow
def test_sigkill_mid_sweep_then_resume_loses_and_duplicates_nothing(tmp_path):
    out = tmp_path / "killed"
    script = tmp_path / "sweep_script.py"
    script.write_text(SCRIPT.format(root=str(ROOT), diagnostics=DIAGNOSTICS, out=str(out)))
    # Own session: the kill takes the sweep and its pool workers at once, like a lost machine.
    process = subprocess.Popen([sys.executable, str(script)], cwd=ROOT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(_parts(out)) < 3 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        os.killpg(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    finished_before_kill = len(_parts(out))
    assert 3 <= finished_before_kill < TOTAL, "the sweep must be killed after some parts and before the end"

    # Same policy name and arguments; the sleep only made the first run slow, it changes no outcome.
    resumed = run_sweep([FakeSpec("wander")], DIAGNOSTICS, [1, 2], 4, out, progress=False)
    assert resumed.attrs["resumed"] >= finished_before_kill
    assert resumed.attrs["ran"] + resumed.attrs["resumed"] == TOTAL

    on_disk = store.read_parts(store.episodes_dir(out))
    assert len(on_disk) == TOTAL and not on_disk.duplicated(list(store.EPISODE_KEY)).any()
    assert not list(out.rglob("*.tmp"))

    reference = run_sweep(
        [FakeSpec("wander")], DIAGNOSTICS, [1, 2], 4, tmp_path / "reference", progress=False
    )
    pd.testing.assert_frame_equal(resumed.drop(columns="duration_s"), reference.drop(columns="duration_s"))
