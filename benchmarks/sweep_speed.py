"""Sweep speed: wall time of the full default diagnostic grid on a local process pool.

Grid: scripted, random, noop x all 46 diagnostics (23 normal, 23 hard tier) x agent counts 1, 2, 4 (cells a diagnostic does not
allow are skipped) x 10 seeds, into a fresh temporary directory (no resume), progress bar off.
Usage: python benchmarks/sweep_speed.py [--workers 2] [--seeds 10] [--policies scripted random noop]
Target (issue 3) on the 2-core reference machine: the full grid on 2 workers in under 60 s wall time.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from cogames_lib.parallel import start_method
from cogames_lib.sweep import run_sweep, store

TARGET_WALL_S = 60.0


def measure(policies: list[str], seeds: int, workers: int, out_dir: Path) -> tuple[float, object]:
    start = time.perf_counter()
    table = run_sweep(
        policies, "all", [1, 2, 4], seeds, out_dir, workers=workers, resume=False, progress=False
    )
    return time.perf_counter() - start, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--policies", nargs="+", default=["scripted", "random", "noop"])
    args = parser.parse_args()

    load_before = os.getloadavg()[0]
    method = start_method()
    with tempfile.TemporaryDirectory(prefix="sweep_speed_") as temporary:
        out_dir = Path(temporary)
        wall, table = measure(args.policies, args.seeds, args.workers, out_dir)
        parts = len(list(store.episodes_dir(out_dir).glob("part-*.parquet")))
    # CPU seconds of this process and its (joined) pool workers: what the sweep cost, whatever else the
    # machine was running; wall time alone is inflated when other jobs share the cores.
    cpu = sum(
        usage.ru_utime + usage.ru_stime
        for usage in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    )
    load_after = os.getloadavg()[0]

    busy = float(table["duration_s"].sum())
    print(
        f"cores: {os.cpu_count()}  workers: {args.workers} ({method})  seeds: {args.seeds}  parquet parts: {parts}  "
        f"load average before/after: {load_before:.1f}/{load_after:.1f}"
    )
    print(
        f"{'policy':<10} {'episodes':>8} {'pass rate':>9} {'env steps':>10} {'episode s':>10} {'ms/episode':>10} {'steps/s':>9}"
    )
    for policy, part in table.groupby("policy", observed=True):
        seconds = float(part["duration_s"].sum())
        steps = int(part["steps"].sum())
        print(
            f"{policy:<10} {len(part):>8} {part['success'].mean():>9.2f} {steps:>10,} {seconds:>10.1f} "
            f"{1000 * seconds / len(part):>10.1f} {steps / seconds:>9,.0f}"
        )
    # What the sweep machinery costs on top of the episodes themselves: pool start, pickling, parquet parts.
    ideal = busy / args.workers
    print(
        f"{'total':<10} {len(table):>8} {table['success'].mean():>9.2f} {int(table['steps'].sum()):>10,} {busy:>10.1f}"
    )
    print(
        f"\nwall time {wall:.1f} s ({len(table) / wall:.0f} episodes/s); episode time / workers {ideal:.1f} s; "
        f"overhead {wall - ideal:+.1f} s; target < {TARGET_WALL_S:.0f} s: {'yes' if wall < TARGET_WALL_S else 'NO'}"
    )
    print(
        f"CPU time (this process + workers, incl. imports) {cpu:.1f} s; on {args.workers} otherwise idle cores "
        f"that is about {cpu / args.workers:.1f} s of wall time"
    )


if __name__ == "__main__":
    main()
