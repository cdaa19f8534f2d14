"""Scripted-baseline robustness: pass rates on many unseen seeds, normal tier and generated layouts.

Three parts, each skipped when its seed count is 0:
- `--normal-seeds N`: every normal-tier diagnostic at agent counts 1-4 (cells a diagnostic does not allow
  are skipped), N seeds per cell, via `run_sweep` with `--sweep-seed` (seeds no test uses: "unseen");
- `--unclip-seeds N`: `diagnostic_unclip_craft` alone at agent counts 1-4, N seeds per count (the
  diagnostic the baseline used to fail);
- `--layout-seeds N`: the seeded layout families of `tests/layouts.py` (larger rooms, corridor trees, a
  chest just outside the view, charger mazes, long radials), N seeds per (family, agent count), fanned out.
Prints pass rates, every failing episode (so it can be replayed), wall time and the load average.
Usage: python benchmarks/scripted_robustness.py [--normal-seeds 1000] [--unclip-seeds 10000]
       [--layout-seeds 200] [--workers 2] [--sweep-seed 2026] [--out DIR]
Run from the repository root (the layouts live in tests/).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from cogames_lib.parallel import fan_out
from cogames_lib.sweep import run_sweep

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.layouts import FAMILIES, play_family

LAYOUT_SEED_BASE = 100_000  # layout seeds start here: the layout tests use seeds 0 and 1


def _report(title: str, frame: pd.DataFrame, keys: list[str], started: float) -> None:
    rates = frame.groupby(keys)["success"].agg(pass_rate="mean", episodes="count")
    failures = frame[~frame["success"]]
    load = os.getloadavg()
    print(f"\n== {title}: {int(frame['success'].sum())}/{len(frame)} passed, {len(failures)} failed;")
    print(
        f"   wall {time.perf_counter() - started:.1f} s, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(rates.to_string())
    if len(failures):
        print("failing episodes:")
        print(failures.to_string(index=False))


def sweep_part(title: str, diagnostics: object, seeds: int, args: argparse.Namespace, out: Path) -> None:
    started = time.perf_counter()
    table = run_sweep(
        ["scripted"],
        diagnostics,
        [1, 2, 3, 4],
        seeds,
        out,
        workers=args.workers,
        resume=False,
        overwrite=True,
        progress=True,
        sweep_seed=args.sweep_seed,
    )
    columns = ["diagnostic", "num_agents", "seed", "episode_seed", "success", "steps"]
    _report(title, table[columns], ["diagnostic", "num_agents"], started)


def layout_part(seeds: int, workers: int) -> None:
    started = time.perf_counter()
    tasks = [
        (family, count, LAYOUT_SEED_BASE + seed)
        for family, (_, counts) in FAMILIES.items()
        for count in counts
        for seed in range(seeds)
    ]
    results = fan_out(
        play_family, tasks, workers=workers, backend="local", description="layouts", unit="episode"
    )
    frame = pd.DataFrame(results, columns=["family", "num_agents", "seed", "success", "steps", "max_steps"])
    _report("generated layouts", frame, ["family", "num_agents"], started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--normal-seeds", type=int, default=200)
    parser.add_argument("--unclip-seeds", type=int, default=2000)
    parser.add_argument("--layout-seeds", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sweep-seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, default=None, help="sweep folder (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        if args.normal_seeds:
            sweep_part("normal tier", "normal", args.normal_seeds, args, out / "normal")
        if args.unclip_seeds:
            sweep_part("unclip_craft", ["diagnostic_unclip_craft"], args.unclip_seeds, args, out / "unclip")
    if args.layout_seeds:
        layout_part(args.layout_seeds, args.workers)


if __name__ == "__main__":
    main()
