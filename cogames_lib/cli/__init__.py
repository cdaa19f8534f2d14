"""`cogames-lib` command line: a thin dispatcher over the library.

Each sub-command lives in its own module in this package and exposes
`register(subparsers) -> None`; modules are discovered here, so adding a command never edits this file.
A user mistake (any `CogamesLibError`) is printed as one line on stderr with exit code 2; failed work
exits 1; nothing prints a traceback for a user mistake. Output cut short by a closed pipe (`... | head`)
ends quietly with the shell's SIGPIPE status (141). Every sub-command's help shows the defaults and one
example (`_examples.py`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from typing import Any

from cogames_lib import __version__
from cogames_lib.cli._codes import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from cogames_lib.cli._examples import EXAMPLES, add_examples
from cogames_lib.errors import CogamesLibError


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Each option's default after its help (unless the help already says it, or there is none to show);
    descriptions and epilogs (examples) keep their line breaks."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (
            "default" in text
            or action.default in (None, False, argparse.SUPPRESS)
            or not action.option_strings
        ):
            return text
        return f"{text} (default: %(default)s)"


class CliParser(argparse.ArgumentParser):
    """The parser class of every (sub-)command: argparse builds sub-parsers with the parent's class, so
    each command's help shows its defaults without the command modules asking for it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    line, what = EXAMPLES["report"]
    parser = CliParser(
        prog="cogames-lib",
        description="Evaluation workbook for multi-agent RL research.",
        epilog=f"example:\n  {line}\n    {what}\n\nevery command has an example: cogames-lib COMMAND --help",
    )
    parser.add_argument("--version", action="version", version=f"cogames-lib {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        module.register(subparsers)
    add_examples(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the command line, for provenance boxes
    try:
        result = args.handler(args)
    except CogamesLibError as error:
        print(f"cogames-lib: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("cogames-lib: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return _quiet_broken_pipe()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return _quiet_broken_pipe()
    return int(result or EXIT_OK)


def _quiet_broken_pipe() -> int:
    """The reader went away (`| head`): point stdout at /dev/null so the interpreter's final flush at exit
    does not raise a second time, and end with the status a shell gives a command killed by SIGPIPE."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_BROKEN_PIPE
