"""The recipe trials side by side: one markdown row per training run folder, from its emergence tables.

Per folder (`emergence*.csv` and `extra_seeds.csv`, final checkpoints, normal tier): the documented
diagnostics each seed passes at 1 agent, how many seeds pass `chorus_pair` at 2 agents, every learning target,
and the stretch, and the pass rate over all cells (episodes pooled per seed, Student-t 95% over seeds), all
from `learn.emergence_summary.seed_scorecard`. The "recipes side by side" table of docs/cvc_learned.md is
this script's output over the `data/cvc_learned*` folders.

Run: `python benchmarks/learn_recipe_table.py data/cvc_learned data/cvc_learned_steady_novelty ...`
(`--seeds` in a column per folder; `--detail` adds each seed's missed targets).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from cogames_lib.learn.emergence_summary import seed_scorecard
from cogames_lib.stats import t_interval


def folder_table(folder: Path) -> pd.DataFrame:
    paths = sorted(folder.glob("emergence*.csv")) + sorted(folder.glob("extra_seeds.csv"))
    if not paths:
        raise SystemExit(f"{folder}: no emergence*.csv or extra_seeds.csv")
    return pd.concat([pd.read_csv(path) for path in paths], ignore_index=True)


def row(folder: Path, detail: bool) -> str:
    card = seed_scorecard(folder_table(folder))
    seeds = len(card)
    mean, low, high = t_interval(card["rate"].to_numpy(), bounds=(0.0, 1.0))
    passed = ", ".join(str(v) for v in card["one_agent_passed"])
    cells = f"{mean:.2f} [{low:.2f}, {high:.2f}]"
    text = (
        f"| `{folder.name}` | {', '.join(map(str, card['seed']))} | {passed} | {int(card['chorus'].sum())} of {seeds} "
        f"| {int(card['targets'].sum())} of {seeds} | {int(card['stretch'].sum())} of {seeds} | {cells} |"
    )
    if detail:
        missed = [f"seed {s}: {m}" for s, m in zip(card["seed"], card["missing_targets"], strict=True) if m]
        text += "\n    missed targets: " + ("; ".join(missed) or "none")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--detail", action="store_true")
    args = parser.parse_args()
    print(
        "| run | seeds | one-agent diagnostics passed | `chorus_pair` | every target | stretch (12) | all cells (t 95%) |"
    )
    print("|---|---|---|---|---|---|---|")
    for folder in args.folders:
        print(row(folder, args.detail))


if __name__ == "__main__":
    main()
