"""`cogames-lib mindcraft analyze|compare`: Mindcraft agent-log outcomes from the command line.

analyze ROOT... [--tasks FILE_OR_DIR...] [--model NAME] [--no-score-policy P] [--workers N]
        [--max-log-mb MB] [--out DIR [--resume|--overwrite]]
    prints a summary line, what was skipped, and the summary tables; with --out writes mindcraft_runs,
    mindcraft_agents and mindcraft_skipped (parquet + CSV).
compare ROOT... --models A B [same options as analyze] [--seed N]
    model A vs B paired by task id (McNemar exact test, bootstrap interval); with --out writes
    mindcraft_comparison (parquet + CSV) and mindcraft_comparison.png.
--out inside an analysed root is refused (exit 2) before anything is read or written.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from typing import Any

from cogames_lib.cli._codes import EXIT_FAILED_WORK, EXIT_OK
from cogames_lib.cli._out_dir import add_out_dir_flags

DEFAULT_MAX_LOG_MB = 64


def _add_analysis_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("roots", nargs="+", metavar="ROOT", help="experiment roots or task folders")
    parser.add_argument(
        "--tasks", nargs="+", default=[], metavar="FILE", help="task definition files or folders of them"
    )
    parser.add_argument("--model", default=None, help="model name (default: results.txt of each experiment)")
    parser.add_argument(
        "--no-score-policy",
        default="failure",
        help="runs without a verdict count as 'failure' (default) or are 'exclude'd from rates",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes (default: 1, or every core once the tree holds more than 64 MB of logs)",
    )
    parser.add_argument(
        "--max-log-mb", type=float, default=DEFAULT_MAX_LOG_MB, help="logs larger than this are not read"
    )
    parser.add_argument("--out", default=None, metavar="DIR", help="write the tables here")
    add_out_dir_flags(parser)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("mindcraft", help="granular outcomes of Mindcraft agent logs")
    actions = parser.add_subparsers(dest="mindcraft_command", metavar="ACTION", required=True)

    analyze = actions.add_parser("analyze", help="parse experiment trees, print summary tables")
    _add_analysis_arguments(analyze)
    analyze.set_defaults(handler=run_analyze)

    compare = actions.add_parser("compare", help="model A vs model B on the same tasks (paired)")
    _add_analysis_arguments(compare)
    compare.add_argument("--models", nargs=2, required=True, metavar=("A", "B"), help="the two model names")
    compare.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    compare.set_defaults(handler=run_compare)


def format_table(frame: Any) -> str:
    if frame.empty:
        return "(no rows)"
    return frame.to_string(index=False, float_format=lambda value: f"{value:.3f}", na_rep="-")


def _check_and_prepare(args: argparse.Namespace, job: str, extra: dict[str, Any]) -> None:
    """Every argument checked, and --out prepared, before a single log is read."""
    from cogames_lib.errors import ParameterError
    from cogames_lib.mindcraft import validate_analysis_parameters

    validate_analysis_parameters(args.roots, args.tasks, args.no_score_policy)
    if args.workers is not None and args.workers < 1:
        raise ParameterError(f"--workers: must be >= 1, got {args.workers}")
    if not args.max_log_mb > 0:
        raise ParameterError(f"--max-log-mb: must be > 0, got {args.max_log_mb}")
    if args.out is not None:
        from cogames_lib.outdir import prepare_out_dir

        prepare_out_dir(
            args.out,
            job=job,
            params={
                "roots": [os.path.abspath(root) for root in args.roots],
                "tasks": [os.path.abspath(task) for task in args.tasks],
                "model": args.model,
                "no_score_policy": args.no_score_policy,
                **extra,
            },
            inputs=args.roots,
            resume=args.resume,
            overwrite=args.overwrite,
            name="--out",
        )


def _analyse(args: argparse.Namespace) -> Any:
    from cogames_lib.mindcraft import aggregate_results

    return aggregate_results(
        args.roots,
        args.tasks or None,
        model_name=args.model,
        no_score_policy=args.no_score_policy,
        workers=args.workers,
        progress=True,
        max_log_bytes=int(args.max_log_mb * 1024 * 1024),
    )


def summary_line(runs: Any, agent_log_count: int) -> str:
    """One line: tasks by layout, logs, stale logs, what was skipped, the policy."""
    skipped = runs.attrs.get("skipped_folders", [])
    layouts = Counter(runs["layout"].astype(str)) if len(runs) else Counter()
    kinds = Counter(item.get("kind", "folder") for item in skipped)
    shown = ", ".join(f"{name} {count}" for name, count in sorted(layouts.items())) or "none"
    stale = int(runs["stale_log_count"].sum()) if len(runs) else 0
    return (
        f"{len(runs)} tasks (layouts: {shown}), {agent_log_count} agent logs, {stale} stale; "
        f"skipped {kinds.get('folder', 0)} folders and {kinds.get('file', 0)} files; "
        f"no_score_policy={runs.attrs.get('no_score_policy', '')}"
    )


def _write_tables(out: str, tables: dict[str, Any]) -> None:
    from cogames_lib.errors import ParameterError
    from cogames_lib.io import write_csv, write_parquet

    for table_name, frame in tables.items():
        for write, kind in ((write_parquet, "parquet"), (write_csv, "csv")):
            path = os.path.join(out, f"{table_name}.{kind}")
            try:
                write(path, frame)
            except OSError as error:  # e.g. a directory where the table should go, or a full disk
                raise ParameterError(f"--out: cannot write {path!r} ({error.strerror or error})") from None


def run_analyze(args: argparse.Namespace) -> int:
    from cogames_lib.mindcraft import agents_table, runs_table, skipped_table, summary_tables

    _check_and_prepare(args, "mindcraft_analyze", {})
    runs = _analyse(args)
    agents = agents_table(runs)
    skipped = skipped_table(runs)
    print(summary_line(runs, len(agents)))
    for item in skipped.itertuples(index=False):
        print(f"  skipped {item.kind} {item.path}: {item.reason}")
    if runs.empty:
        print("no task folders found")
        return EXIT_FAILED_WORK
    for name, table in summary_tables(runs).items():
        print(f"\n== {name}\n{format_table(table)}")
    if args.out is not None:
        tables = {
            "mindcraft_runs": runs_table(runs),
            "mindcraft_agents": agents,
            "mindcraft_skipped": skipped,
        }
        _write_tables(args.out, tables)
        print(f"\nwrote {', '.join(tables)} (parquet + csv) to {args.out}")
    return EXIT_OK


def run_compare(args: argparse.Namespace) -> int:
    from cogames_lib.mindcraft import agents_table, compare_models

    model_a, model_b = args.models
    _check_and_prepare(args, "mindcraft_compare", {"models": [model_a, model_b], "seed": args.seed})
    runs = _analyse(args)
    print(summary_line(runs, len(agents_table(runs))))
    table = compare_models(runs, model_a, model_b, seed=args.seed)
    print(
        f"\n== {model_a} (A) vs {model_b} (B): paired by task id; {table.attrs['unpaired_a']} tasks only A ran, "
        f"{table.attrs['unpaired_b']} only B; difference = rate A - rate B, bootstrap 95% interval over tasks, "
        "McNemar exact p"
    )
    print(format_table(table))
    if args.out is not None:
        from cogames_lib.plots.mindcraft import model_difference
        from cogames_lib.report.display import show

        _write_tables(args.out, {"mindcraft_comparison": table})
        show(model_difference(table), args.out, "mindcraft_comparison")
        print(f"\nwrote mindcraft_comparison (parquet + csv + png) to {args.out}")
    return EXIT_OK if table.loc[0, "n_tasks"] > 0 else EXIT_FAILED_WORK
