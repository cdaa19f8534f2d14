"""The `--resume` / `--overwrite` pair of every command that writes an output folder
(`outdir.prepare_out_dir`)."""

from __future__ import annotations

import argparse


def add_out_dir_flags(parser: argparse.ArgumentParser) -> None:
    """Without either flag, a folder that holds an earlier run is refused (one line saying what to pass)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--resume",
        action="store_true",
        help="continue the earlier run in the output folder (its recorded parameters must match)",
    )
    group.add_argument(
        "--overwrite", action="store_true", help="delete the earlier run in the output folder first"
    )
