"""`cogames-lib diagnostics list|run`: the diagnostic catalogue and single episodes from the command line.

list
    one line per diagnostic: name, allowed agent counts, max_steps, what it tests.
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
    listing.set_defaults(handler=run_list)

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


def catalogue_lines() -> list[str]:
    from cogames_lib.diagnostics import DIAGNOSTICS

    rows = [
        (name, agent_counts_text(record.allowed_agent_counts), str(record.max_steps), record.description)
        for name, record in DIAGNOSTICS.items()
    ]
    header = ("name", "agents", "max_steps", "what it tests")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    return [
        f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:>{widths[2]}}  {row[3]}"
        for row in [header, *rows]
    ]


def run_list(args: Any) -> int:
    print("\n".join(catalogue_lines()))
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
