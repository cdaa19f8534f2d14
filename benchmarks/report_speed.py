"""Report speed: wall time of `cogames-lib report --profile quick` from a warm venv (target < 60 s, 2 cores).

Runs the real command in a subprocess (fresh interpreter, as a user would), into a temporary folder, and
prints one row per notebook plus the total. Usage: python benchmarks/report_speed.py [--profile P] [--jobs N]
[--repeat R]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = {"quick": 60.0}
ROW = re.compile(r"^(?P<notebook>\w+)\s+(?P<status>\w+)\s+(?P<seconds>[\d.]+) s")


def run_once(profile: str, jobs: int | None) -> tuple[float, float, list[tuple[str, str, float]], int]:
    """(wall s, CPU s of the command and its children, per-notebook rows, exit code)."""
    with tempfile.TemporaryDirectory(prefix="report_speed_") as folder:
        cpu_before = _children_cpu()
        started = time.perf_counter()
        jobs_option = [] if jobs is None else ["--jobs", str(jobs)]
        completed = subprocess.run(
            [sys.executable, "-m", "cogames_lib", "report", "--profile", profile, "--out", folder, *jobs_option,
             "--no-progress"],
            cwd=ROOT, capture_output=True, text=True, check=False,
        )  # fmt: skip
        wall = time.perf_counter() - started
        cpu = _children_cpu() - cpu_before
    rows = [(m["notebook"], m["status"], float(m["seconds"])) for m in map(ROW.match, completed.stdout.splitlines())
            if m]  # fmt: skip
    return wall, cpu, rows, completed.returncode


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--jobs", type=int, default=None, help="default: the profile's")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    jobs = "the profile's" if args.jobs is None else args.jobs
    print(f"report profile {args.profile!r}, jobs {jobs}, {os.cpu_count()} cores, load average {load:.2f}")
    print(f"{'run':>3} {'notebook':<22} {'status':<10} {'seconds':>8}")
    print("(a notebook's seconds include waiting for the cores the others use)")
    failed = False
    for run in range(1, args.repeat + 1):
        wall, cpu, rows, code = run_once(args.profile, args.jobs)
        for notebook, status, seconds in rows:
            print(f"{run:>3} {notebook:<22} {status:<10} {seconds:>8.1f}")
        target = TARGET_S.get(args.profile)
        verdict = (
            ""
            if target is None
            else ("  ok" if wall < target else f"  SLOWER than the {target:.0f} s target")
        )
        print(f"{run:>3} {'total (wall, command)':<22} {'exit ' + str(code):<10} {wall:>8.1f}{verdict}")
        print(f"{run:>3} {'CPU s (all processes)':<22} {'':<10} {cpu:>8.1f}")
        failed |= code != 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
