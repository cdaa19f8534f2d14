"""The command line as a whole: help shows defaults, a closed pipe ends quietly."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cogames_lib.cli import EXIT_BROKEN_PIPE, build_parser


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
