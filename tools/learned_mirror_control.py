"""The learned agents' mirror control: final checkpoints, scripted and random on the curriculum's maps and
their mirror images (`cogames_lib.learn.mirror_control`), tallied into `data/cvc_learned/mirror_control.csv`.

    python -m tools.learned_mirror_control --workers 2

Reads the committed reference run (`data/cvc_learned/`: its curriculum from `run.json`, each seed's last
checkpoint); the sweep folder (`--out`, resumable) keeps every episode.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from cogames_lib import io
from cogames_lib.errors import CogamesLibError
from cogames_lib.learn.mirror_control import mirror_episodes, mirror_table
from cogames_lib.paths import PROJECT_ROOT

RUN_DIR = PROJECT_ROOT / "data" / "cvc_learned"
SWEEP_SEED = 7919  # the learned agents' held-out evaluations (the hard tier used it too)


def _fail(message: str) -> int:
    print(f"learned_mirror_control: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20, help="episodes per cell (default 20)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", default="reports/learned-mirror", help="sweep folder (resumable)")
    parser.add_argument("--table", default=str(RUN_DIR / "mirror_control.csv"), help="the tally's CSV")
    args = parser.parse_args(argv)
    run_file = RUN_DIR / "run.json"
    if not run_file.is_file():
        return _fail(f"{run_file}: no committed reference run here (a clone of the repository has it)")
    run = json.loads(run_file.read_text(encoding="utf-8"))
    finals = [sorted((RUN_DIR / f"seed_{seed}").glob("checkpoint_*.pt")) for seed in run["seeds"]]
    if not all(finals):
        return _fail(f"{RUN_DIR}: a training seed of run.json has no checkpoint")
    policies = [f"learned:{paths[-1].relative_to(PROJECT_ROOT)}" for paths in finals] + ["scripted", "random"]
    curriculum = run["config"]["curriculum"]
    try:
        episodes = mirror_episodes(
            policies, curriculum, (1, 2), args.episodes, args.out, SWEEP_SEED, workers=args.workers
        )
    except CogamesLibError as error:  # a bad --episodes, --workers or --out: one line, nothing written
        return _fail(str(error))
    table = mirror_table(episodes)
    table.insert(0, "sweep_seed", SWEEP_SEED)
    print(io.write_text(Path(args.table), table.to_csv(index=False)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
