"""`cogames-lib probe train|analyze`: stag-hunt training runs with probes, and their summaries."""

from __future__ import annotations

import argparse

from cogames_lib.cli._out_dir import add_out_dir_flags

# `staghunt.checkpoints.CHECKPOINT_MODES` / `DEFAULT_CHECKPOINTS`, repeated so `--help` does not import the
# stag-hunt package (torch); a test checks the two agree.
CHECKPOINT_CHOICES = ("none", "last", "probes", "all")
CHECKPOINT_DEFAULT = "last"
# `staghunt.probe_cases.SUITES`, repeated for the same reason (a test checks the two agree).
PROBE_SUITES = ("sorrel", "counterbalanced")


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
    train.add_argument(
        "--checkpoints",
        choices=list(CHECKPOINT_CHOICES),
        default=CHECKPOINT_DEFAULT,
        help="none; last (end of training); probes (every probe epoch, probe state); all (every probe epoch,"
        " full training state)",
    )
    train.add_argument("--probe-suite", choices=list(PROBE_SUITES), default="sorrel",
                       help="probe cases: sorrel's (interop) or counterbalanced (mirrored, partner on every side)")  # fmt: skip
    train.set_defaults(handler=run_train)

    study = commands.add_parser(
        "study", help="train every (condition, seed) of a study with probes and write its small result tables"
    )
    study.add_argument("--world", default="sorrel_e3", help="world preset: sorrel_e3 (default) or default")
    study.add_argument(
        "--conditions", nargs="+", default=["all_can_hunt", "not_all_can_hunt"],
        help="conditions to compare: all_can_hunt, not_all_can_hunt and the controls roles_swapped, "
        "kind_shuffled, two_of_each",
    )  # fmt: skip
    study.add_argument("--seeds", type=int, default=5, help="number of seeds (0..N-1) per condition")
    study.add_argument("--epochs", type=int, required=True, help="training epochs (episodes) per run")
    study.add_argument(
        "--probe-every", type=int, default=1000, help="probe every K epochs (and at 0 and the end)"
    )
    study.add_argument("--epsilon-decay-epochs", type=int, default=None,
                       help="epochs over which exploration decays (default: the world preset's)")  # fmt: skip
    study.add_argument(
        "--out", required=True, help="output folder: tables at the top, per-run folders in OUT/runs/"
    )
    add_out_dir_flags(study)
    study.add_argument("--workers", type=int, default=1, help="parallel runs (processes, or Dask workers)")
    study.add_argument("--backend", choices=["local", "dask"], default="local",
                       help="local processes, or a Dask cluster (--scheduler ADDRESS; none: a private local one)")  # fmt: skip
    study.add_argument(
        "--scheduler", default=None, help="Dask scheduler address, e.g. tcp://host:8786 (backend dask)"
    )
    study.add_argument("--no-progress", action="store_true", help="hide progress bars")
    study.set_defaults(handler=run_study_command)

    analyze = commands.add_parser(
        "analyze",
        help="print per-partner-condition summaries of a results folder, or (--study DIR) a study's headline"
        " numbers: learning vs random play, the paired partner test",
    )
    analyze.add_argument(
        "folder", nargs="?", help="a `probe train` output folder, or a folder of sorrel's per-file CSVs"
    )
    analyze.add_argument(
        "--study",
        metavar="DIR",
        help="a study folder (study.json + tables): learning vs random play and the paired partner test",
    )
    analyze.set_defaults(handler=run_analyze)


def run_train(args: argparse.Namespace) -> int:
    from dataclasses import replace
    from pathlib import Path

    from cogames_lib.staghunt.parameters import validate_probe_parameters

    validate_probe_parameters(args.condition, args.epochs, args.probe_every, args.seed, workers=args.workers)
    from cogames_lib.staghunt.runs import train_many  # torch: only once the arguments are known good
    from cogames_lib.staghunt.train import preset

    configs = [preset(condition, checkpoints=args.checkpoints) for condition in args.condition]
    configs = [replace(config, probes=replace(config.probes, suite=args.probe_suite)) for config in configs]
    runs = train_many(configs, args.seed, args.epochs, args.probe_every, Path(args.out), workers=args.workers,
                      backend=args.backend, scheduler=args.scheduler, progress=not args.no_progress,
                      resume=args.resume, overwrite=args.overwrite)  # fmt: skip
    print(runs.drop(columns=["run_dir"]).to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print(f"results in {Path(args.out).resolve()}")
    return 0


def run_study_command(args: argparse.Namespace) -> int:
    import shlex
    import sys

    from cogames_lib.staghunt.study import validate_study_parameters

    validate_study_parameters(args.world, args.conditions, args.seeds, args.epochs, args.probe_every)
    from cogames_lib.errors import ParameterError

    if args.workers < 1:
        raise ParameterError(f"--workers must be >= 1, got {args.workers}")
    if args.scheduler is not None and args.backend != "dask":
        raise ParameterError("--scheduler needs --backend dask")
    if args.epsilon_decay_epochs is not None and args.epsilon_decay_epochs < 1:
        raise ParameterError(f"--epsilon-decay-epochs must be >= 1, got {args.epsilon_decay_epochs}")
    from cogames_lib.staghunt.study import run_study  # imports torch: only after the arguments are checked

    command = "cogames-lib " + " ".join(shlex.quote(part) for part in sys.argv[1:])
    summary = run_study(args.world, args.conditions, args.seeds, args.epochs, args.probe_every, args.out,
                        workers=args.workers, command=command, resume=args.resume, overwrite=args.overwrite,
                        progress=not args.no_progress, backend=args.backend, scheduler=args.scheduler,
                        epsilon_decay_epochs=args.epsilon_decay_epochs)  # fmt: skip
    print(f"study of {len(summary['conditions'])} conditions x {len(summary['seeds'])} seeds, "
          f"{summary['epochs']} epochs, {summary['wall_seconds']:.0f} s; random-policy stags per episode "
          f"{summary['random_policy_stag_rate']}")  # fmt: skip
    print(f"results in {args.out}")
    return 0


def run_analyze(args: argparse.Namespace) -> int:
    from cogames_lib.errors import ParameterError

    if (args.folder is None) == (args.study is None):
        raise ParameterError("probe analyze: give a results FOLDER or --study DIR (exactly one)")
    if args.study is not None:
        return run_analyze_study(args.study)
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


def run_analyze_study(folder: str) -> int:
    """The study's label, its findings (the one analysis path) and the partner-effect table."""
    import pandas as pd

    from cogames_lib.staghunt.social import FINAL_FRACTION, partner_effect
    from cogames_lib.staghunt.study_findings import staghunt_findings
    from cogames_lib.staghunt.study_summary import learning_verdict
    from cogames_lib.staghunt.study_tables import load_probe_study

    study = load_probe_study(folder)
    print(study.label)
    print(f"command: {study.command_line}")
    for finding in staghunt_findings(study.tables):
        print(f"  {finding.text}")
    verdict = learning_verdict(study.training, study.random_stag_rates)
    if verdict:
        print(f"  NOTE: {verdict}")
    effects = partner_effect(study.intention)
    with pd.option_context("display.width", 220, "display.max_columns", 20, "display.max_rows", 200):
        print(f"\nPartner effect (focal hunters, final {FINAL_FRACTION:.0%} of training; estimate = same-kind minus "
              "other-kind partner, side-balanced):")  # fmt: skip
        print(effects.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    return 0
