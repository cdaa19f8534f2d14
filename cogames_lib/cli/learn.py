"""`cogames-lib learn ...`: learned agents on the Cogs vs Clips diagnostics.

cogames-lib learn emergence RUN_DIR --out DIR    every checkpoint through every diagnostic
"""

from __future__ import annotations

from typing import Any

from cogames_lib.cli._learn_emergence import add_emergence_parser


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("learn", help="learned agents: capability emergence over checkpoints")
    commands = parser.add_subparsers(dest="learn_command", metavar="COMMAND", required=True)
    add_emergence_parser(commands)
