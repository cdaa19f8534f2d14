"""`cogames-lib learn emergence RUN_DIR --out DIR`: every checkpoint of a training run through the diagnostics.

    cogames-lib learn emergence runs/cvc --out reports/emergence --agents 1 2 4 --episodes 10 \\
        --checkpoints-per-seed 6 --workers 2 [--backend dask --scheduler tcp://host:8786] [--resume|--overwrite]

Plays each checkpoint (`RUN_DIR/seed_<seed>/checkpoint_<step>.pt`, as `learned:<path>`) on every diagnostic
x agent count for `--episodes` held-out evaluation episodes through the resumable sweep, and writes OUT/
emergence.parquet and .csv (the `emergence` table), OUT/sweep/ (the episodes), and the two figures
(emergence_heatmap.png, family_curves.png). Prints, per diagnostic x agent count, the final checkpoints' pass
rate and when each training seed first passed it reliably. A private module: `cli/learn.py` registers it.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from cogames_lib.cli._codes import EXIT_FAILED_WORK, EXIT_OK
from cogames_lib.cli._out_dir import add_out_dir_flags


def add_emergence_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "emergence",
        help="every checkpoint of a run through every diagnostic: the emergence table and figures",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    parser.add_argument(
        "run_dir", metavar="RUN_DIR", help="a training run folder (seed_<seed>/checkpoint_<step>.pt)"
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="output directory")
    parser.add_argument(
        "--diagnostics",
        nargs="+",
        default=["normal"],
        metavar="NAME",
        help="names or a tier: normal (the default), hard, all",
    )
    parser.add_argument("--agents", nargs="+", type=int, default=[1, 2, 4], metavar="N", help="agent counts")
    parser.add_argument("--episodes", type=int, default=10, metavar="K", help="evaluation episodes per cell")
    parser.add_argument(
        "--final-episodes",
        type=int,
        default=None,
        metavar="K",
        help="episodes per cell of each seed's last checkpoint",
    )
    parser.add_argument(
        "--final-diagnostics",
        nargs="+",
        default=None,
        metavar="NAME",
        help="more diagnostics (or a tier, e.g. hard) only each seed's last checkpoint plays",
    )
    parser.add_argument(
        "--checkpoints-per-seed",
        type=int,
        default=None,
        metavar="K",
        help="at most K checkpoints per training seed, evenly spaced, first and last included (default: all)",
    )
    parser.add_argument(
        "--every",
        type=int,
        default=None,
        metavar="K",
        help="every K-th checkpoint of each training seed from step 0, and its last",
    )
    parser.add_argument(
        "--steps",
        nargs="+",
        type=int,
        default=None,
        metavar="STEP",
        help="the checkpoints at these training steps, and each seed's last",
    )
    parser.add_argument(
        "--seeds", nargs="+", type=int, default=None, metavar="S", help="training seeds (default: all)"
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: cores)")
    parser.add_argument("--backend", default="local", choices=["local", "dask"])
    parser.add_argument(
        "--scheduler", default=None, metavar="ADDR", help="Dask scheduler, e.g. tcp://host:8786"
    )
    add_out_dir_flags(parser)
    parser.add_argument("--no-figures", action="store_true", help="do not draw the two figures")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run_emergence_command)


def run_emergence_command(args: Any) -> int:
    from pathlib import Path

    from cogames_lib.learn.emergence import find_checkpoints, run_emergence, run_identity, select_checkpoints
    from cogames_lib.learn.emergence_summary import final_rates, first_reliable_summary
    from cogames_lib.learn.learn_findings import step_words

    checkpoints = select_checkpoints(
        find_checkpoints(args.run_dir), args.checkpoints_per_seed, args.seeds, args.every, args.steps
    )
    table = run_emergence(
        checkpoints,
        args.out,
        diagnostics=args.diagnostics,
        agent_counts=args.agents,
        episodes=args.episodes,
        workers=args.workers,
        backend=args.backend,
        scheduler=args.scheduler,
        resume=args.resume,
        overwrite=args.overwrite,
        progress=not args.no_progress,
        run=run_identity(args.run_dir),
        final_episodes=args.final_episodes,
        final_diagnostics=args.final_diagnostics,
    )
    seeds = sorted({c.seed for c in checkpoints})
    print(
        f"emergence of {len(checkpoints)} checkpoints ({len(seeds)} training seeds: {seeds}): "
        f"{table.attrs['ran']} episodes played now, {table.attrs['resumed']} resumed; results in {args.out}"
    )
    final = final_rates(table).merge(
        first_reliable_summary(table), on=["diagnostic", "tier", "num_agents", "seeds"], how="left"
    )
    final["cell"] = [
        f"{str(d).removeprefix('diagnostic_')} x{a}"
        for d, a in zip(final["diagnostic"], final["num_agents"], strict=True)
    ]
    final["final rate [95% CI] n"] = [
        f"{r:.2f} [{lo:.2f},{hi:.2f}] {n}"
        for r, lo, hi, n in zip(final["rate"], final["ci_low"], final["ci_high"], final["n"], strict=True)
    ]
    final["reliable seeds"] = [
        f"{k}/{s}" for k, s in zip(final["seeds_reached"], final["seeds"], strict=True)
    ]
    final["first reliable step (median)"] = [
        "-" if m != m else step_words(m)
        for m in final["first_step_median"]  # m != m: NaN
    ]
    columns = ["cell", "final rate [95% CI] n", "reliable seeds", "first reliable step (median)"]
    print("\n" + final[columns].to_string(index=False))
    _print_questions(table)
    if not args.no_figures and len(table):
        from cogames_lib import io
        from cogames_lib.learn.emergence_summary import emergence_grid, family_curves
        from cogames_lib.learn.learn_findings import FAMILY_FIGURE, HEATMAP_FIGURE
        from cogames_lib.plots import learned
        from cogames_lib.report.display import figure_png

        out = Path(args.out)
        io.write_bytes(out / HEATMAP_FIGURE, figure_png(learned.emergence_heatmap(emergence_grid(table))))
        io.write_bytes(out / FAMILY_FIGURE, figure_png(learned.family_curves(family_curves(table))))
        print(f"figures: {out / HEATMAP_FIGURE}, {out / FAMILY_FIGURE}")
    errors = int(table.attrs.get("run_errors", 0))
    if errors:
        print(
            f"\n{errors} episodes ended in RUN_ERROR (left out of n); see {args.out}/sweep/episodes.parquet"
        )
    if errors and int(table["n"].sum()) == 0:
        print("every episode crashed (RUN_ERROR)", file=sys.stderr)
        return EXIT_FAILED_WORK
    return EXIT_OK


def _print_questions(table: Any) -> None:
    """The seed's redundancy questions from these checkpoints, next to the committed ablation answer."""
    from cogames_lib.learn.emergence_reference import load_ablation_pairs
    from cogames_lib.learn.redundancy import learned_redundancy, seed_question_answers

    answers = seed_question_answers(learned_redundancy(table), load_ablation_pairs())
    answers = answers[answers["n_shared"].fillna(0) > 0]
    learned = answers[answers["source"] == "learned"]
    if learned.empty:
        return
    evaluated = set(zip(learned["diagnostic_a"], learned["diagnostic_b"], strict=True))
    answers = answers[
        [pair in evaluated for pair in zip(answers["diagnostic_a"], answers["diagnostic_b"], strict=True)]
    ]
    answers = answers.sort_values(
        ["question", "diagnostic_a", "diagnostic_b", "source"], ascending=[True, True, True, False]
    )
    answers["pair"] = [
        f"{str(a).removeprefix('diagnostic_')} / {str(b).removeprefix('diagnostic_')}"
        for a, b in zip(answers["diagnostic_a"], answers["diagnostic_b"], strict=True)
    ]
    answers["agreement [95% CI] n"] = [
        f"{g:.2f} [{lo:.2f},{hi:.2f}] {int(n)}"
        for g, lo, hi, n in zip(
            answers["agreement"], answers["ci_low"], answers["ci_high"], answers["n_shared"], strict=True
        )
    ]
    print(
        "\nredundancy questions (learned: checkpoint verdicts; ablations: the committed scripted ablations):"
    )
    print(answers[["question", "pair", "source", "agreement [95% CI] n", "reading"]].to_string(index=False))
