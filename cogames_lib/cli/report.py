"""`cogames-lib report [--profile quick|full] [--out DIR [--resume|--fresh]] [--jobs N]`: the notebooks as an
HTML report whose index summarises the findings."""

from __future__ import annotations

import argparse
import shlex
import sys

from cogames_lib.cli._codes import EXIT_FAILED_WORK, EXIT_OK


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="run the notebooks with papermill and write an offline HTML report",
        description="Execute every notebook of a profile with papermill, export each to self-contained HTML "
        "(code hidden, figures embedded) and write DIR/index.html last: the findings of each capability with "
        "their figures and provenance. Exits 1 if any notebook failed (the last line names them).",
    )
    parser.add_argument("--profile", default="quick", help="quick (about a minute, default) or full")
    parser.add_argument("--out", default="reports/latest", help="output folder (default: reports/latest)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--resume",
        action="store_true",
        help="reuse the earlier report in --out: its profile and code version must match; every notebook "
        "runs again and its sweeps and trainings reuse what is on disk (each page says what and from when)",
    )
    group.add_argument(
        "--fresh",
        "--overwrite",
        dest="overwrite",
        action="store_true",
        help="recompute everything: delete the earlier report in --out first (--overwrite is the same)",
    )
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

    argv = getattr(args, "argv", None)
    result = run_report(
        args.profile,
        args.out,
        jobs=args.jobs,
        notebooks_dir=args.notebooks,
        cell_timeout_s=args.cell_timeout,
        progress=not args.no_progress,
        resume=args.resume,
        overwrite=args.overwrite,
        command=shlex.join(["cogames-lib", *argv]) if argv is not None else None,
    )
    for report in result.notebooks:
        line = f"{report.notebook:<22} {report.status:<10} {report.duration_s:7.1f} s"
        print(line + (f"  {report.message}" if report.message else ""))
        reused = [
            text for text in (report.provenance.results if report.provenance else ()) if "resumed" in text
        ]
        for text in reused:  # reuse is announced, never silent
            print(f"  {text}")
    print(f"report written in {result.run_time_s:.1f} s: {result.index_path}")
    failed = [report.notebook for report in result.notebooks if not report.ok]
    if failed:
        print(f"cogames-lib: error: {len(failed)} of {len(result.notebooks)} report parts failed: "
              f"{', '.join(failed)} (see the index)", file=sys.stderr)  # fmt: skip
        return EXIT_FAILED_WORK
    return EXIT_OK
