"""`cogames-lib bench [NAME...]`: run the benchmark scripts in benchmarks/ and print their tables."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from cogames_lib.cli._codes import EXIT_FAILED_WORK, EXIT_OK
from cogames_lib.errors import UnknownNameError, close_matches_message
from cogames_lib.paths import BENCHMARKS_DIR, CLONE_ROOT, needs_clone


def available() -> dict[str, Path]:
    """Benchmark name (file stem) -> script, for every `benchmarks/*.py` not starting with `_`."""
    if not BENCHMARKS_DIR.is_dir():
        return {}
    return {p.stem: p for p in sorted(BENCHMARKS_DIR.glob("*.py")) if not p.name.startswith("_")}


def _summary_line(path: Path) -> str:
    """The first line of a script's docstring (what it measures)."""
    text = path.read_text(encoding="utf-8")
    parts = text.split('"""')
    return parts[1].strip().splitlines()[0] if len(parts) > 2 and parts[1].strip() else ""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="run benchmark scripts (benchmarks/*.py) and print their tables",
        description="Run the named benchmark scripts from benchmarks/ (all of them when none is named), one "
        "after another, each in its own Python process; their tables go to stdout.",
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="benchmark names, e.g. engine_speed")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    scripts = available()
    if args.list:
        for name, path in scripts.items():
            print(f"{name:<20} {_summary_line(path)}")
        return EXIT_OK
    if not scripts:
        if CLONE_ROOT is None:
            raise UnknownNameError(f"no benchmark scripts: {needs_clone('benchmarks/')}")
        raise UnknownNameError(f"no benchmark scripts in {BENCHMARKS_DIR}")
    for name in args.names:
        if name.removesuffix(".py") not in scripts:
            raise UnknownNameError(close_matches_message("benchmark", name, list(scripts)))
    chosen = [name.removesuffix(".py") for name in args.names] or list(scripts)
    failed = []
    for name in chosen:
        print(f"== {name} ==", flush=True)
        code = subprocess.run(
            [sys.executable, str(scripts[name])], cwd=BENCHMARKS_DIR.parent, check=False
        ).returncode
        if code != 0:
            failed.append(name)
        print(flush=True)
    if failed:
        print(f"cogames-lib: error: benchmark(s) failed: {', '.join(failed)}", file=sys.stderr)
        return EXIT_FAILED_WORK
    return EXIT_OK
