"""Tally the end of training runs: each (run, seed, diagnostic, agent count)'s training-episode successes
over the last N log entries of `run.json`, with the run's shaping, as one small table.

Run: `python benchmarks/learn_trial_tally.py RUN_DIR [RUN_DIR ...] --last 20 --out trials.csv`.
The "Recipe trials" (third set) table of docs/cvc_learned.md is this tally of its eight trial runs
(`data/cvc_learned_6m/gate_trials.csv`); a task counts as passed at >= 80% of its episodes there.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from cogames_lib import io


def tally(run_dir: Path, last: int) -> list[dict[str, object]]:
    record = json.loads((run_dir / "run.json").read_text())
    shaping = record["config"]["shaping"]
    rows: list[dict[str, object]] = []
    for run in record["runs"]:
        counts: dict[str, list[int]] = {}
        for entry in run["log"][-last:]:
            for cell, text in entry["train_success"].items():
                won, played = (int(x) for x in text.split("/"))
                total = counts.setdefault(cell, [0, 0])
                total[0] += won
                total[1] += played
        for cell, (won, played) in sorted(counts.items()):
            diagnostic, agents = cell.rsplit("@", 1)
            rows.append({"run": run_dir.name, "seed": run["seed"], "steps": run["steps"],
                         "novelty": shaping["novelty"], "novelty_gate": shaping.get("novelty_gate", False),
                         "novelty_until": shaping["novelty_until"], "assembly": shaping["assembly"],
                         "diagnostic": diagnostic, "num_agents": int(agents), "episodes": played,
                         "successes": won})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (each with run.json)")
    parser.add_argument("--last", type=int, default=20, help="log entries at the end of each run")
    parser.add_argument("--out", type=Path, required=True, help="CSV to write")
    args = parser.parse_args()
    table = pd.DataFrame([row for run in args.runs for row in tally(run, args.last)])
    io.write_csv(args.out, table)
    print(f"{len(table)} rows -> {args.out}")


if __name__ == "__main__":
    main()
