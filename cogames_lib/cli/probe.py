"""`cogames-lib probe train|analyze`: stag-hunt training runs with probes, and their summaries."""

from __future__ import annotations

import argparse

from cogames_lib.cli._out_dir import add_out_dir_flags


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "probe", help="stag-hunt probe tests: train agents with probes, analyse results"
    )
    commands = parser.add_subparsers(dest="probe_command", metavar="ACTION", required=True)

    train = commands.add_parser("train", help="train DQN populations with probes every K epochs")
    train.add_argument(
        "--condition", nargs="+", default=["all_can_hunt"], help="all_can_hunt and/or not_all_can_hunt"
    )
    train.add_argument("--epochs", type=int, required=True, help="training epochs (one episode each)")
    train.add_argument(
        "--probe-every", type=int, default=100, help="probe every K epochs (and at 0 and the end)"
    )
    train.add_argument("--seed", type=int, nargs="+", default=[0], help="one or more seeds")
    train.add_argument("--out", required=True, help="output folder (runs go to OUT/<condition>/seed_<s>/)")
    add_out_dir_flags(train)
    train.add_argument("--workers", type=int, default=1, help="parallel runs (processes, or Dask workers)")
    train.add_argument("--backend", choices=["local", "dask"], default="local")
    train.add_argument("--scheduler", default=None, help="Dask scheduler address (backend dask)")
    train.add_argument("--no-progress", action="store_true", help="hide progress bars")
    train.set_defaults(handler=run_train)

    analyze = commands.add_parser("analyze", help="print per-partner-condition summaries of a results folder")
    analyze.add_argument(
        "folder", help="a `probe train` output folder, or a folder of sorrel's per-file CSVs"
    )
    analyze.set_defaults(handler=run_analyze)


def run_train(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cogames_lib.staghunt.parameters import validate_probe_parameters

    validate_probe_parameters(args.condition, args.epochs, args.probe_every, args.seed, workers=args.workers)
    from cogames_lib.staghunt.runs import train_many  # torch: only once the arguments are known good

    runs = train_many(args.condition, args.seed, args.epochs, args.probe_every, Path(args.out), workers=args.workers,
                      backend=args.backend, scheduler=args.scheduler, progress=not args.no_progress,
                      resume=args.resume, overwrite=args.overwrite)  # fmt: skip
    print(runs.drop(columns=["run_dir"]).to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print(f"results in {Path(args.out).resolve()}")
    return 0


def run_analyze(args: argparse.Namespace) -> int:
    import pandas as pd

    from cogames_lib.staghunt.analysis import (
        alignment_pairs,
        alignment_table,
        behaviour_summary,
        intention_summary,
    )
    from cogames_lib.staghunt.sorrel_io import load_probe_tables

    tables = load_probe_tables(args.folder)
    with pd.option_context("display.width", 160, "display.max_columns", 20, "display.max_rows", 200):
        fmt = {"float_format": lambda v: f"{v:.3f}", "index": False}
        if not tables.intention.empty:
            summary = intention_summary(tables.intention)
            columns = [c for c in summary.columns if not c.endswith(("_low", "_high"))]
            print("Intention (one step): mean softmax weight of the stag- and hare-facing steps")
            print(summary[columns].to_string(**fmt), end="\n\n")
        if not tables.multistep.empty:
            summary = behaviour_summary(tables.multistep)
            columns = [c for c in summary.columns if not c.endswith(("_low", "_high"))]
            print("Behaviour (multi-step): mean result (1 stag, 0 hare, 0.5 no attack)")
            print(summary[columns].to_string(**fmt), end="\n\n")
        if not tables.intention.empty and not tables.multistep.empty:
            print("Alignment: intention P(stag) vs behaviour")
            print(alignment_table(alignment_pairs(tables.intention, tables.multistep)).to_string(**fmt))
    return 0
