"""`cogames-lib sweep`: run an evaluation grid and print pass rates by diagnostic x agent count.

    cogames-lib sweep --policies scripted random noop --diagnostics all --agents 1 2 4 --seeds 10 \\
        --workers 2 --out reports/sweep [--backend dask --scheduler tcp://host:8786] [--traces]
    cogames-lib sweep --base memory --map my_memory.map [--max-steps 300] --out reports/my_memory
    cogames-lib sweep compare scripted random --sweep reports/sweep [--against DIR] [--figure profile.png]

`--diagnostics` takes names or a tier: all (normal and hard, the default), normal, hard. `--base NAME` with
`--map FILE` and/or `--max-steps N` runs a custom variant of NAME (`<NAME>@<map stem>`, tier "custom"),
alone or next to the diagnostics named with `--diagnostics`.

Results land in OUT (see docs: episodes/ parts, episodes.parquet, manifest.json); an OUT that holds an
earlier sweep needs --resume (run only the episodes not on disk) or --overwrite (start again). Exit 0 when the sweep finished (episodes that ended in RUN_ERROR are rows, reported
in a line), 2 on a bad parameter (unknown diagnostic, agent count no diagnostic allows, ...).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from cogames_lib.cli._codes import EXIT_FAILED_WORK, EXIT_OK
from cogames_lib.cli._out_dir import add_out_dir_flags


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("sweep", help="run policies x diagnostics x agent counts x seeds")
    parser.add_argument("--policies", nargs="+", default=["scripted", "random", "noop"], metavar="P")
    parser.add_argument(
        "--diagnostics",
        nargs="+",
        default=None,
        metavar="NAME",
        help="names or a tier: all, normal, hard (default: all, or only the variant with --base)",
    )
    parser.add_argument("--base", default=None, metavar="NAME", help="base diagnostic of a custom variant")
    parser.add_argument("--map", default=None, metavar="FILE", help="the variant's .map file (needs --base)")
    parser.add_argument("--max-steps", type=int, default=None, metavar="N", help="the variant's step budget")
    parser.add_argument("--agents", nargs="+", type=int, default=[1, 2, 4], metavar="N", help="agent counts")
    parser.add_argument("--seeds", type=int, default=10, metavar="K", help="seed indices 0..K-1 (default 10)")
    parser.add_argument("--sweep-seed", type=int, default=0, metavar="S", help="sweep seed (default 0)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: cores)")
    parser.add_argument("--backend", default="local", choices=["local", "dask"])
    parser.add_argument(
        "--scheduler", default=None, metavar="ADDR", help="Dask scheduler, e.g. tcp://host:8786"
    )
    parser.add_argument("--out", default=None, metavar="DIR", help="output directory (required)")
    add_out_dir_flags(parser)
    parser.add_argument("--traces", action="store_true", help="also record per-step traces")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run)
    verbs = parser.add_subparsers(dest="verb", metavar="{compare}", required=False)
    compare = verbs.add_parser(
        "compare",
        help="compare two policies of a sweep over every (diagnostic, agent count) cell both played",
        description=COMPARE_DESCRIPTION,
    )
    compare.add_argument("first", metavar="A", help="a policy of the sweep (the one whose gain is reported)")
    compare.add_argument("second", metavar="B", help="the policy A is compared against")
    compare.add_argument("--sweep", required=True, metavar="DIR", help="a sweep's output folder (its --out)")
    compare.add_argument(
        "--against",
        default=None,
        metavar="DIR",
        help="read B from this second sweep folder (e.g. a checkpoint)",
    )
    compare.add_argument(
        "--figure", default=None, metavar="PNG", help="also draw the performance profile here"
    )
    compare.add_argument("--resamples", type=int, default=2000, metavar="N", help="bootstrap resamples")
    compare.add_argument("--seed", type=int, default=0, metavar="S", help="bootstrap seed (default 0)")
    compare.set_defaults(handler=run_compare)


COMPARE_DESCRIPTION = """\
Suite-level comparison (rliable's statistics, computed with scipy's bootstrap): the difference in pass rate
A - B averaged over the (diagnostic, agent count) cells both played, with a stratified bootstrap 95% interval
(episodes resampled within each cell), the probability of improvement, and with --figure the performance
profile (the fraction of cells above each pass rate) of both."""


def run_compare(args: Any) -> int:
    from cogames_lib.errors import ParameterError
    from cogames_lib.sweep import load_episodes
    from cogames_lib.sweep.compare import compare_policies
    from cogames_lib.sweep.sweep_findings import comparison_findings

    if args.resamples < 1:
        raise ParameterError(f"--resamples: must be at least 1, got {args.resamples}")
    episodes = load_episodes(args.sweep)
    against = load_episodes(args.against) if args.against else None
    comparison = compare_policies(episodes, args.first, args.second, against, args.resamples, args.seed)
    findings = comparison_findings(comparison, args.figure)
    for finding in findings:
        print(finding.text)
    print(f"method: {findings[0].method}")
    if args.figure:
        from cogames_lib import io, plots
        from cogames_lib.report.display import figure_png

        io.write_bytes(args.figure, figure_png(plots.performance_profile(comparison.profile_table())))
        print(f"performance profile: {args.figure}")
    return EXIT_OK


def run(args: Any) -> int:
    from cogames_lib.errors import ParameterError
    from cogames_lib.sweep import pass_rate_grid, run_sweep
    from cogames_lib.sweep.variant_option import with_variant

    if args.out is None:
        raise ParameterError("--out: the sweep needs an output folder (--out DIR)")

    table = run_sweep(
        args.policies,
        with_variant(args.diagnostics, {"base": args.base, "map": args.map, "max_steps": args.max_steps}),
        args.agents,
        args.seeds,
        args.out,
        workers=args.workers,
        backend=args.backend,
        scheduler=args.scheduler,
        resume=args.resume,
        overwrite=args.overwrite,
        progress=not args.no_progress,
        record_traces=args.traces,
        sweep_seed=args.sweep_seed,
    )
    attrs = table.attrs
    print(  # what ran now and what was reused from an earlier run in --out (with when): never silent
        f"sweep {attrs['sweep_id']}: {attrs['reuse']}; {attrs['skipped_count']} cells skipped "
        f"(agent count not allowed by the diagnostic); results in {args.out}"
    )
    for policy in table["policy"].cat.categories:
        grid = pass_rate_grid(table, policy)
        grid.index = [str(name).removeprefix("diagnostic_") for name in grid.index]
        grid.columns = [f"{count} agents" for count in grid.columns]
        print(f"\npass rate of {policy} (rate [Wilson 95% CI] (n); '-' = not allowed):")
        print(grid.to_string())
    if table["tier"].nunique() > 1:
        from cogames_lib.sweep import summarise

        tiers = summarise(table, ("policy", "tier"))
        tiers = tiers.pivot(index="policy", columns="tier", values="rate")
        print("\npass rate by tier (all diagnostics and agent counts pooled):")
        print(tiers.to_string(float_format=lambda rate: f"{rate:.3f}"))
    errors = int((table["status"].astype(str) == "RUN_ERROR").sum())
    if errors:
        print(f"\n{errors} episodes ended in RUN_ERROR; their last traceback line is in the 'error' column")
    if len(table) and errors == len(table):
        # Nothing was evaluated: a script chaining on the exit status must not read this as a result.
        print(f"every one of the {len(table)} episodes crashed (RUN_ERROR)", file=sys.stderr)
        return EXIT_FAILED_WORK
    return EXIT_OK
