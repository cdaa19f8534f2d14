"""`cogames-lib mindcraft analyze|sample`: Mindcraft agent-log outcomes from the command line.

analyze ROOT... [--tasks FILE...] [--model NAME] [--no-score-policy P] [--out DIR [--resume|--overwrite]]
        [--workers N]
    prints the summary tables; with --out writes mindcraft_runs / mindcraft_agents (parquet + CSV).
sample OUT_DIR --tasks FILE... [--seed N]
    writes the SYNTHETIC sample experiment tree (replacing an earlier sample tree in OUT_DIR, nothing else).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from cogames_lib.cli._codes import EXIT_FAILED_WORK, EXIT_OK
from cogames_lib.cli._out_dir import add_out_dir_flags


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("mindcraft", help="granular outcomes of Mindcraft agent logs")
    actions = parser.add_subparsers(dest="mindcraft_command", metavar="ACTION", required=True)

    analyze = actions.add_parser("analyze", help="parse experiment trees, print summary tables")
    analyze.add_argument("roots", nargs="+", metavar="ROOT", help="experiment roots or task folders")
    analyze.add_argument("--tasks", nargs="+", default=[], metavar="FILE", help="task definition files")
    analyze.add_argument("--model", default=None, help="model name (default: results.txt of each experiment)")
    analyze.add_argument(
        "--no-score-policy",
        default="failure",
        help="runs without a verdict count as 'failure' (default) or are 'exclude'd from rates",
    )
    analyze.add_argument("--out", default=None, metavar="DIR", help="write runs/agents tables here")
    add_out_dir_flags(analyze)
    analyze.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    analyze.set_defaults(handler=run_analyze)

    sample = actions.add_parser("sample", help="write the SYNTHETIC sample experiment tree")
    sample.add_argument("out_dir", metavar="OUT_DIR")
    sample.add_argument("--tasks", nargs="+", required=True, metavar="FILE", help="task definition files")
    sample.add_argument("--seed", type=int, default=0)
    sample.set_defaults(handler=run_sample)


def format_table(frame: Any) -> str:
    if frame.empty:
        return "(no rows)"
    return frame.to_string(index=False, float_format=lambda value: f"{value:.3f}", na_rep="-")


def run_analyze(args: argparse.Namespace) -> int:
    from cogames_lib.errors import ParameterError
    from cogames_lib.mindcraft import (
        agents_table,
        aggregate_results,
        runs_table,
        summary_tables,
        validate_analysis_parameters,
    )

    validate_analysis_parameters(args.roots, args.tasks, args.no_score_policy)
    if args.workers < 1:
        raise ParameterError(f"--workers: must be >= 1, got {args.workers}")
    if args.out is not None:  # checked before the (possibly long) analysis, so a bad path fails at once
        from cogames_lib.outdir import prepare_out_dir

        prepare_out_dir(
            args.out,
            job="mindcraft_analyze",
            params={
                "roots": [os.path.abspath(root) for root in args.roots],
                "tasks": [os.path.abspath(task) for task in args.tasks],
                "model": args.model,
                "no_score_policy": args.no_score_policy,
            },
            inputs=args.roots,
            resume=args.resume,
            overwrite=args.overwrite,
            name="--out",
        )
    runs = aggregate_results(
        args.roots,
        args.tasks or None,
        model_name=args.model,
        no_score_policy=args.no_score_policy,
        workers=args.workers,
        progress=True,
    )
    agents = agents_table(runs)
    skipped = runs.attrs.get("skipped_folders", [])
    print(
        f"{len(runs)} task folders, {len(agents)} agent logs, {len(skipped)} non-task folders skipped; "
        f"no_score_policy={args.no_score_policy}"
    )
    for item in skipped:
        print(f"  skipped {item['path']}: {item['reason']}")
    if runs.empty:
        print("no task folders found")
        return EXIT_FAILED_WORK
    for name, table in summary_tables(runs).items():
        print(f"\n== {name}\n{format_table(table)}")
    if args.out is not None:
        from cogames_lib.io import write_csv, write_parquet

        for table_name, frame in (("mindcraft_runs", runs_table(runs)), ("mindcraft_agents", agents)):
            for write, kind in ((write_parquet, "parquet"), (write_csv, "csv")):
                path = os.path.join(args.out, f"{table_name}.{kind}")
                try:
                    write(path, frame)
                except OSError as error:  # e.g. a directory where the table should go, or a full disk
                    raise ParameterError(
                        f"--out: cannot write {path!r} ({error.strerror or error})"
                    ) from None
        print(f"\nwrote mindcraft_runs and mindcraft_agents (parquet + csv) to {args.out}")
    return EXIT_OK


def run_sample(args: argparse.Namespace) -> int:
    from cogames_lib.errors import ParameterError
    from cogames_lib.mindcraft import generate_sample_tree

    for task_file in args.tasks:
        if not os.path.isfile(task_file):
            raise ParameterError(f"--tasks: {task_file!r} does not exist or is not a file")
    print(generate_sample_tree(args.out_dir, args.tasks, seed=args.seed, overwrite=True))
    return EXIT_OK
