"""The recipe trials side by side: one markdown row per training run folder, from its emergence tables.

Per folder (`emergence*.csv` and `extra_seeds.csv`, final checkpoints, normal tier): the documented
diagnostics each seed passes at 1 agent, how many seeds pass `chorus_pair` at 2 agents, every learning
target and the stretch, the cells lost between the last two checkpoints ("late drops"), and the pass
rate over all cells (episodes pooled per seed, Student-t 95% over
seeds), all from `learn.emergence_summary.seed_scorecard`. The columns of the "recipes side by side" table
of docs/cvc_learned.md are this script's output over the `data/cvc_learned*` folders (the default).

Run: `python benchmarks/learn_recipe_table.py [FOLDER ...] [--detail]` (`--detail` adds each seed's
missed targets).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from cogames_lib.learn.emergence import load_emergence
from cogames_lib.learn.emergence_summary import STRETCH_ONE_AGENT, TARGET_EPISODES, seed_scorecard
from cogames_lib.stats import t_interval

DATA = Path(__file__).resolve().parent.parent / "data"


def folder_table(folder: Path) -> pd.DataFrame:
    paths = sorted(folder.glob("emergence*.csv")) + sorted(folder.glob("extra_seeds.csv"))
    if not paths:
        raise SystemExit(f"{folder}: no emergence*.csv or extra_seeds.csv")
    table = pd.concat([load_emergence(path) for path in paths], ignore_index=True)
    if table.duplicated(["seed", "step", "diagnostic", "num_agents"]).any():
        raise SystemExit(f"{folder}: its tables hold a (seed, step, diagnostic, agents) cell twice")
    return table


def row(folder: Path, detail: bool) -> str:
    card = seed_scorecard(folder_table(folder))
    seeds = len(card)
    mean, low, high = t_interval(card["rate"].to_numpy(), bounds=(0.0, 1.0))
    passed = ", ".join(str(v) for v in card["one_agent_passed"])
    text = (
        f"| `{folder.name}` | {', '.join(map(str, card['seed']))} | {passed} | {int(card['chorus'].sum())} of "
        f"{seeds} | {int(card['targets'].sum())} of {seeds} | {int(card['stretch'].sum())} of {seeds} "
        f"| {int(card['final_drops'].sum())} | {mean:.2f} [{low:.2f}, {high:.2f}] |"
    )
    fewest = int(card["fewest_episodes"].min())
    if fewest < TARGET_EPISODES:
        text += f" (a final cell has {fewest} episodes, fewer than the targets' {TARGET_EPISODES})"
    if detail:
        missed = [f"seed {s}: {m}" for s, m in zip(card["seed"], card["missing_targets"], strict=True) if m]
        text += "\n    missed targets: " + ("; ".join(missed) or "none")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, help="run folders (default: data/cvc_learned*)")
    parser.add_argument("--detail", action="store_true")
    args = parser.parse_args()
    folders = args.folders or sorted(p for p in DATA.glob("cvc_learned*") if p.is_dir())
    print(
        "| run | seeds | one-agent diagnostics passed | `chorus_pair` | every target "
        f"| stretch ({STRETCH_ONE_AGENT}) | late drops | all cells (t 95%) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for folder in folders:
        print(row(folder, args.detail))


if __name__ == "__main__":
    main()
