"""`cogames-lib` command line: a thin dispatcher over the library.

Each sub-command lives in its own module in this package and exposes
`register(subparsers) -> None`; modules are discovered here, so adding a command never edits this file.
A user mistake (any `CogamesLibError`) is printed as one line on stderr with exit code 2; failed work
exits 1; nothing prints a traceback for a user mistake.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from cogames_lib import __version__
from cogames_lib.errors import CogamesLibError

EXIT_OK, EXIT_FAILED_WORK, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cogames-lib", description="Evaluation workbook for multi-agent RL research."
    )
    parser.add_argument("--version", action="version", version=f"cogames-lib {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = args.handler(args)
    except CogamesLibError as error:
        print(f"cogames-lib: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("cogames-lib: interrupted", file=sys.stderr)
        return 130
    return int(result or EXIT_OK)
