"""The command line as a whole: help shows defaults, a closed pipe ends quietly."""

from __future__ import annotations

import glob
import os
import shlex
import subprocess
import sys

import pytest

from cogames_lib.cli import EXIT_BROKEN_PIPE, build_parser
from cogames_lib.cli._examples import EXAMPLES, leaf_parsers
from cogames_lib.paths import PROJECT_ROOT


def _help_of(*argv: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        build_parser().parse_args([*argv, "--help"])
    return capsys.readouterr().out


def test_every_sub_command_help_shows_defaults(capsys):
    assert "(default: 100)" in " ".join(_help_of("probe", "train", capsys=capsys).split())
    assert "(default: scripted)" in _help_of("diagnostics", "run", capsys=capsys)


def test_output_cut_short_by_a_closed_pipe_ends_quietly_with_the_sigpipe_status():
    # The reader closes its end before the command writes: the final flush meets EPIPE.
    process = subprocess.Popen(
        [sys.executable, "-m", "cogames_lib", "diagnostics", "list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": ""},
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    error = process.stderr.read().decode()
    assert process.wait(timeout=60) == EXIT_BROKEN_PIPE
    assert error == ""


def test_every_command_shows_one_example_that_parses(capsys):
    parser = build_parser()
    commands = [command for command, _ in leaf_parsers(parser)]
    assert sorted(commands) == sorted(EXAMPLES), "a command without an example, or an example of no command"
    for command in commands:
        help_text = _help_of(*command.split(), capsys=capsys)
        line = EXAMPLES[command][0]
        assert f"example:\n  {line}" in help_text, command
        words = shlex.split(line)[1:]
        argv = [m for w in words for m in (sorted(glob.glob(str(PROJECT_ROOT / w))) if "*" in w else [w])]
        args = parser.parse_args(argv)  # the example is a valid command line (a SystemExit would fail here)
        assert args.handler is not None
