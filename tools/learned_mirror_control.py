"""The learned agents' mirror control: final checkpoints, scripted and random on the curriculum's maps and
their mirror images and quarter turns (`cogames_lib.learn.mirror_control`), tallied into
`RUN/mirror_control.csv`.

    python -m tools.learned_mirror_control --workers 2
    python -m tools.learned_mirror_control --run data/cvc_learned_mirrored --workers 2

Reads a run folder (`--run`, default the committed reference run `data/cvc_learned/`: its curriculum from
`run.json`, each seed's last checkpoint); the sweep folder (`--out`, resumable) keeps every episode.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from cogames_lib import io
from cogames_lib.diagnostics.mirrors import SYMMETRIES
from cogames_lib.errors import CogamesLibError
from cogames_lib.learn.curriculum import curriculum_entry
from cogames_lib.learn.mirror_control import map_group_summary, mirror_episodes, mirror_table
from cogames_lib.learn.runs import run_checkpoints
from cogames_lib.paths import PROJECT_ROOT

RUN_DIR = PROJECT_ROOT / "data" / "cvc_learned"
PLAYED_COUNTS = (1, 2)  # agent counts the control plays (the 4-agent cells are few and all failed)
SWEEP_SEED = 7919  # the learned agents' held-out evaluations (the hard tier used it too)


def _fail(message: str) -> int:
    print(f"learned_mirror_control: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20, help="episodes per cell (default 20)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--run", default=str(RUN_DIR), help="the run folder (default: the reference run)")
    parser.add_argument("--kinds", nargs="+", default=list(SYMMETRIES), metavar="KIND",
                        help=f"symmetries played (default all: {' '.join(SYMMETRIES)})")  # fmt: skip
    parser.add_argument(
        "--step",
        type=int,
        default=None,
        help="each seed's last checkpoint at or before this training step (default: its last)",
    )
    parser.add_argument("--out", default="reports/learned-mirror", help="sweep folder (resumable)")
    parser.add_argument("--table", default=None, help="the tally's CSV (default RUN/mirror_control.csv)")
    args = parser.parse_args(argv)
    run_dir = Path(args.run).resolve()
    run_file = run_dir / "run.json"
    if not run_file.is_file():
        return _fail(f"{run_file}: no run here (the reference run is in a clone of the repository)")
    run = json.loads(run_file.read_text(encoding="utf-8"))
    try:
        found = run_checkpoints(run_dir)  # (seed, step, path), by seed then step: the run layout's one reader
    except CogamesLibError as error:
        return _fail(str(error))
    last = args.step if args.step is not None else float("inf")
    finals = [[path for s, step, path in found if s == seed and step <= last] for seed in run["seeds"]]
    if not all(finals):
        return _fail(f"{run_dir}: a training seed of run.json has no checkpoint (at or before --step)")
    # checkpoint paths relative to the project where they are in it: the sweep's names (and so its episode
    # seeds) do not depend on where the clone lives
    shown = [p[-1].relative_to(PROJECT_ROOT) if p[-1].is_relative_to(PROJECT_ROOT) else p[-1] for p in finals]
    policies = [f"learned:{path}" for path in shown] + ["scripted", "random"]
    try:  # an entry `NAME@1` trains NAME at some agent counts only: its maps are NAME's, tallied at those
        entries = [curriculum_entry(entry) for entry in run["config"]["curriculum"]]
    except CogamesLibError as error:
        return _fail(f"{run_file}: {error}")
    curriculum = list(dict.fromkeys(diagnostic.name for diagnostic, _ in entries))
    trained = {  # (diagnostic, agents) cells the run trained on, at the counts played here
        (diagnostic.name, count)
        for diagnostic, counts in entries
        for count in (counts or diagnostic.allowed_agent_counts)
        if count in PLAYED_COUNTS
    }
    table_path = Path(args.table) if args.table else run_dir / "mirror_control.csv"
    try:
        episodes = mirror_episodes(
            policies,
            curriculum,
            PLAYED_COUNTS,
            args.episodes,
            args.out,
            SWEEP_SEED,
            args.kinds,
            workers=args.workers,
        )
    except CogamesLibError as error:  # a bad --episodes, --workers or --out: one line, nothing written
        return _fail(str(error))
    table = mirror_table(episodes)
    # the sweep plays every allowed count; a cell never trained (NAME@1 at 2 agents) is no test of memory
    keep = [
        (name, count) in trained for name, count in zip(table["diagnostic"], table["num_agents"], strict=True)
    ]
    table = table[keep].reset_index(drop=True)
    table.insert(0, "sweep_seed", SWEEP_SEED)
    print(io.write_text(table_path, table.to_csv(index=False)))
    print(map_group_summary(table).to_string(index=False, float_format=lambda value: f"{value:.3f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
