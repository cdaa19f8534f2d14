"""`python -m tools.mindcraft_sample OUT_DIR [--tasks FILE_OR_DIR...] [--seed N]`: write the SYNTHETIC sample tree.

Replaces an earlier sample tree in OUT_DIR, nothing else (`make mindcraft-sample` regenerates the committed one).
"""

from __future__ import annotations

import argparse
import sys

from cogames_lib.errors import CogamesLibError
from cogames_lib.mindcraft import task_file_paths
from tools.mindcraft_sample import generate_sample_tree

DEFAULT_TASKS = "cogames_lib/data/mindcraft_sample/tasks"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.mindcraft_sample", description=__doc__.splitlines()[0]
    )
    parser.add_argument("out_dir", metavar="OUT_DIR")
    parser.add_argument(
        "--tasks", nargs="+", default=[DEFAULT_TASKS], metavar="FILE", help="task files or folders"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        print(generate_sample_tree(args.out_dir, task_file_paths(args.tasks), seed=args.seed, overwrite=True))
    except CogamesLibError as error:  # a bad task file, or an OUT_DIR that is no earlier sample tree
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
