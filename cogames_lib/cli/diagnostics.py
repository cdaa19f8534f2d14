"""`cogames-lib diagnostics list|run|feasibility`: the catalogue, single episodes, the feasibility table.

list [--tier normal|hard|all]
    one line per diagnostic: name, allowed agent counts, max_steps, what it tests (default: normal tier).
feasibility [NAME ... | all | normal | hard] --agents N... --seeds K [--csv FILE]
    per diagnostic and agent count: the budget, the oracle's lower bound on steps (worst seed), its share
    of the budget, whether every seed is certified (bound <= 0.8 x max_steps), and the oracle's pass rate
    and worst achieved steps; --csv writes the per-episode table.
run NAME --agents N --policy P --seed S [--sweep-seed K] [--render]
    plays the episode a sweep would play for seed index S (same episode seed), prints pass/fail and
    steps; --render prints the ASCII frame after every step. Exit 0 when the episode ran (pass or
    fail), 1 on RUN_ERROR, 2 on a bad name or agent count.
"""

from __future__ import annotations

from typing import Any

from cogames_lib.cli._codes import EXIT_FAILED_WORK, EXIT_OK


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diagnostics", help="list the Cogs vs Clips diagnostics or run one episode"
    )
    actions = parser.add_subparsers(dest="diagnostics_command", metavar="ACTION", required=True)

    listing = actions.add_parser("list", help="the catalogue: name, agents, max_steps, what it tests")
    listing.add_argument("--tier", default="normal", choices=["normal", "hard", "all"], help="which tier")
    listing.set_defaults(handler=run_list)

    feasibility = actions.add_parser("feasibility", help="oracle lower bound vs max_steps, per diagnostic")
    feasibility.add_argument(
        "diagnostics", nargs="*", default=["all"], metavar="NAME", help="names or a tier"
    )
    feasibility.add_argument("--agents", nargs="+", type=int, default=[1, 2, 4], metavar="N")
    feasibility.add_argument("--seeds", type=int, default=3, metavar="K", help="env seeds 0..K-1")
    feasibility.add_argument("--csv", default=None, metavar="FILE", help="also write the per-episode table")
    feasibility.set_defaults(handler=run_feasibility)

    run = actions.add_parser("run", help="play one episode and print pass/fail")
    run.add_argument(
        "name", metavar="NAME", help="diagnostic name (the 'diagnostic_' prefix may be left out)"
    )
    run.add_argument("--agents", type=int, default=1, metavar="N", help="number of agents (default 1)")
    run.add_argument("--policy", default="scripted", metavar="P", help="policy name or pkg.module:Class")
    run.add_argument("--seed", type=int, default=0, metavar="S", help="seed index, as in a sweep (default 0)")
    run.add_argument("--sweep-seed", type=int, default=0, metavar="K", help="sweep seed (default 0)")
    run.add_argument("--render", action="store_true", help="print the ASCII frame after every step")
    run.set_defaults(handler=run_one)


def agent_counts_text(counts: tuple[int, ...]) -> str:
    """(1, 2, 3, 4) -> "1-4", (2,) -> "2", (1, 4) -> "1,4"."""
    values = sorted(counts)
    if len(values) > 1 and values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}-{values[-1]}"
    return ",".join(str(value) for value in values)


def catalogue_lines(tier: str = "normal") -> list[str]:
    from cogames_lib.diagnostics import REGISTRY, TIERS

    rows = [
        (name, agent_counts_text(record.allowed_agent_counts), str(record.max_steps), record.description)
        for name, record in ((name, REGISTRY[name]) for name in TIERS[tier])
    ]
    header = ("name", "agents", "max_steps", "what it tests")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    return [
        f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:>{widths[2]}}  {row[3]}"
        for row in [header, *rows]
    ]


def run_list(args: Any) -> int:
    print("\n".join(catalogue_lines(args.tier)))
    return EXIT_OK


def run_one(args: Any) -> int:
    from cogames_lib.diagnostics import check_agent_count, get_diagnostic
    from cogames_lib.errors import ParameterError
    from cogames_lib.policies import resolve_policy
    from cogames_lib.sweep import episode_seed, run_episode

    if args.seed < 0 or args.sweep_seed < 0:
        raise ParameterError(f"--seed and --sweep-seed must be >= 0, got {args.seed} and {args.sweep_seed}")
    record = get_diagnostic(args.name)
    check_agent_count(record, args.agents)
    spec = resolve_policy(args.policy)
    seed = episode_seed(args.sweep_seed, spec.name, record.name, args.agents, args.seed)

    def show(step: int, frame: str) -> None:
        print(f"-- step {step}\n{frame}", flush=True)

    result = run_episode(spec, record.name, args.agents, seed, on_frame=show if args.render else None)
    verdict = "PASS" if result["success"] else "FAIL"
    print(
        f"{verdict} {record.name} agents={args.agents} policy={spec.name} seed={args.seed} "
        f"(episode seed {seed}): {result['status']} after {result['steps']}/{result['max_steps']} steps"
        f" in {result['duration_s']:.2f}s"
    )
    if result["error"]:
        print(f"error: {result['error']}")
        return EXIT_FAILED_WORK
    return EXIT_OK


def run_feasibility(args: Any) -> int:
    from cogames_lib import io
    from cogames_lib.errors import ParameterError
    from cogames_lib.sweep.feasibility import feasibility_summary, feasibility_table, summary_markdown

    if args.seeds < 1:
        raise ParameterError(f"--seeds must be >= 1, got {args.seeds}")
    selection = args.diagnostics[0] if len(args.diagnostics) == 1 else args.diagnostics
    table = feasibility_table(selection, args.agents, args.seeds)
    if args.csv:
        io.write_csv(args.csv, table)
    print(summary_markdown(feasibility_summary(table)))
    return EXIT_OK
