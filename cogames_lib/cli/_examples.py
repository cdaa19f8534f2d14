"""One example per command, shown at the end of its `--help` (a private module: command discovery skips `_`
names). One table, so every command has one and a test can check that none is missing."""

from __future__ import annotations

import argparse

EXAMPLES: dict[str, tuple[str, str]] = {
    "bench": ("cogames-lib bench engine_speed", "engine steps per second per diagnostic map"),
    "diagnostics list": ("cogames-lib diagnostics list", "the catalogue, one diagnostic a line"),
    "diagnostics run": (
        "cogames-lib diagnostics run chest_navigation1 --agents 1 --policy scripted --render",
        "plays one episode and prints every frame",
    ),
    "diagnostics feasibility": (
        "cogames-lib diagnostics feasibility chest_navigation1_hard --agents 1 2 --seeds 2",
        "the oracle's lower bound on steps against each budget",
    ),
    "sweep": (
        "cogames-lib sweep --policies scripted noop --diagnostics chest_navigation1 --agents 1 --seeds 2 "
        "--out reports/sweep-demo",
        "4 episodes; add --resume to continue that folder later, --overwrite to start it again",
    ),
    "sweep compare": (
        "cogames-lib sweep compare scripted random --sweep reports/sweep",
        "suite-level pass-rate difference over shared cells (stratified bootstrap), probability of improvement",
    ),
    "mindcraft analyze": (
        "cogames-lib mindcraft analyze cogames_lib/data/mindcraft_sample/experiments --tasks cogames_lib/data/mindcraft_sample/tasks/*.json",
        "the summary tables of the SYNTHETIC sample tree",
    ),
    "mindcraft compare": (
        "cogames-lib mindcraft compare cogames_lib/data/mindcraft_sample/experiments --models gpt-4o-mini claude-3-5-haiku-latest",
        "paired success-rate difference of two models over the tasks both ran (McNemar, bootstrap)",
    ),
    "mindcraft sample": (
        "cogames-lib mindcraft sample /tmp/mindcraft-sample --tasks cogames_lib/data/mindcraft_sample/tasks/*.json",
        "writes a SYNTHETIC experiment tree to try the analysis on",
    ),
    "probe train": (
        "cogames-lib probe train --condition all_can_hunt --epochs 20 --probe-every 10 --out reports/probe-demo",
        "one short training run with three probes",
    ),
    "probe study": (
        "cogames-lib probe study --world sorrel_e3 --seeds 2 --epochs 200 --probe-every 100 --out reports/study-demo",
        "both conditions x 2 seeds with probes; the reference study used --seeds 5 --epochs 25000 --probe-every 1000",
    ),
    "probe analyze": (
        "cogames-lib probe analyze reports/probe-demo",
        "its intention and behaviour summaries",
    ),
    "report": (
        "cogames-lib report --profile quick --out reports/latest --fresh",
        "runs the three notebooks (about a minute); then open reports/latest/index.html",
    ),
}


def leaf_parsers(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[str, argparse.ArgumentParser]]:
    """Every command that runs something ("sweep", "sweep compare", "probe train"), with its parser: a
    command whose verbs are optional (`sweep` runs a sweep, `sweep compare` compares) runs something too."""
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not actions:
        return [(" ".join(path), parser)]
    itself = [] if actions[0].required or not path else [(" ".join(path), parser)]
    return itself + [
        leaf for name, sub in actions[0].choices.items() for leaf in leaf_parsers(sub, (*path, name))
    ]


def add_examples(parser: argparse.ArgumentParser) -> None:
    """Put each command's example in its help epilog (after anything the command's module wrote there)."""
    for command, sub in leaf_parsers(parser):
        if command in EXAMPLES:
            line, what = EXAMPLES[command]
            example = f"example:\n  {line}\n    {what}"
            sub.epilog = f"{sub.epilog}\n\n{example}" if sub.epilog else example
