"""`cogames-lib report [--profile quick|full] [--out DIR [--resume|--overwrite]] [--jobs N]`: the notebooks as an
HTML report."""

from __future__ import annotations

import argparse
import sys

from cogames_lib.cli._codes import EXIT_FAILED_WORK, EXIT_OK
from cogames_lib.cli._out_dir import add_out_dir_flags


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="run the notebooks with papermill and write an offline HTML report",
        description="Execute every notebook of a profile with papermill, export each to self-contained HTML "
        "(code hidden, figures embedded) and write DIR/index.html last. Exits 1 if any notebook failed.",
    )
    parser.add_argument("--profile", default="quick", help="quick (about a minute, default) or full")
    parser.add_argument("--out", default="reports/latest", help="output folder (default: reports/latest)")
    add_out_dir_flags(parser)
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="notebooks run at the same time (default: the profile's; quick 3, full 1)",
    )
    parser.add_argument(
        "--cell-timeout",
        type=float,
        default=None,
        help="seconds a single cell may run (default: the profile's)",
    )
    parser.add_argument("--notebooks", default=None, help="folder of the notebooks (default: the project's)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from cogames_lib.report.runner import run_report

    result = run_report(
        args.profile,
        args.out,
        jobs=args.jobs,
        notebooks_dir=args.notebooks,
        cell_timeout_s=args.cell_timeout,
        progress=not args.no_progress,
        resume=args.resume,
        overwrite=args.overwrite,
    )
    for report in result.notebooks:
        line = f"{report.notebook:<22} {report.status:<10} {report.duration_s:7.1f} s"
        print(line + (f"  {report.message}" if report.message else ""))
    print(f"report written in {result.run_time_s:.1f} s: {result.index_path}")
    if not result.ok:
        print("cogames-lib: error: some notebooks failed; see the index", file=sys.stderr)
        return EXIT_FAILED_WORK
    return EXIT_OK
