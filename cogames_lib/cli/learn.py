"""`cogames-lib learn train`: train the learned baseline (PPO, one shared network) on the diagnostics;
`cogames-lib learn emergence`: every checkpoint of a run through every diagnostic (`cli/_learn_emergence.py`)."""

from __future__ import annotations

import argparse
import shlex

from cogames_lib.cli._codes import EXIT_OK
from cogames_lib.cli._learn_emergence import add_emergence_parser
from cogames_lib.errors import ParameterError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "learn",
        help="train learned agents on the diagnostics",
        description="Train a PPO agent (one network shared by all agents) on a multi-task curriculum of "
        "normal-tier diagnostics; checkpoints are `learned:` policies (docs/cvc_learned.md).",
    )
    actions = parser.add_subparsers(dest="learn_command", metavar="ACTION", required=True)
    train = actions.add_parser(
        "train",
        help="train seeds side by side (in one process or --workers N); write RUN_DIR/run.json and RUN_DIR/seed_<s>/checkpoint_<step>.pt",
    )
    train.add_argument("--out", required=True, metavar="RUN_DIR", help="the run directory")
    train.add_argument("--seeds", nargs="+", type=int, default=[0], metavar="S", help="training seeds")
    train.add_argument("--steps", type=int, default=2_000_000, help="agent-steps per seed")
    train.add_argument("--checkpoints", type=int, default=10, metavar="K",
                       help="K evenly spaced checkpoints after the one at step 0")  # fmt: skip
    train.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="torch device")
    train.add_argument("--collect-workers", type=int, default=1, metavar="N",
                       help="processes that step the worlds (default 1: the training process); "
                       "the results are the same for any N")  # fmt: skip
    train.add_argument("--workers", type=int, default=1, metavar="N",
                       help="processes the seeds are dealt out to (default 1: all in this process); "
                       "each seed's checkpoints are the same for any N")  # fmt: skip
    train.add_argument("--diagnostics", nargs="+", default=None, metavar="D",
                       help="the curriculum: normal-tier names, or `normal` (the default: every one); NAME@1 "
                       "(or @1,2) trains NAME at those agent counts only")  # fmt: skip
    train.add_argument("--worlds", nargs=3, type=int, default=None, metavar=("N1", "N2", "N4"),
                       help="worlds with 1, 2 and 4 agents (default 48 12 6)")  # fmt: skip
    train.add_argument("--frames", type=int, default=None, help="grid frames the network sees (memory)")
    train.add_argument("--hidden", type=int, default=None, help="hidden units")
    train.add_argument("--no-shaping", action="store_true", help="train on the success reward alone")
    train.add_argument("--novelty", type=float, default=None, help="bonus per newly visited cell")
    train.add_argument("--novelty-until", type=int, default=None, metavar="STEPS",
                       help="agent-steps by which the gated novelty bonus has grown to twice --novelty "
                       "(default 3000000), or, with --no-novelty-gate, annealed to 0")  # fmt: skip
    train.add_argument("--novelty-gate", action=argparse.BooleanOptionalAction, default=None,
                       help="scale the novelty bonus per task by 1 - its recent success and grow it "
                       "(the default), or anneal it to 0 (--no-novelty-gate; the earlier default also "
                       "had --novelty-until 1500000)")  # fmt: skip
    train.add_argument("--pickup", type=float, default=None, help="bonus per new item high in an episode")
    train.add_argument("--assembly", type=float, default=None,
                       help="scale of the heart chain's potential-based shaping (0 switches it off)")  # fmt: skip
    train.add_argument("--map-symmetries", nargs="+", default=None, metavar="KIND",
                       help="also train on these mirror images / quarter turns of the maps, drawn per "
                       "episode with the map itself (left_right top_bottom both transpose rotate_cw "
                       "rotate_ccw anti_transpose; default: the shipped maps only)")  # fmt: skip
    train.add_argument("--solved-drop", type=float, default=None, metavar="X",
                       help="a task's draw weight is (1 - X * its recent success) / budget (default 0.75: a "
                       "solved task is drawn a quarter as often); less keeps solved tasks in the draw")  # fmt: skip
    train.add_argument("--lr-anneal", type=float, default=None, metavar="F",
                       help="let the learning rate fall linearly towards 0 over the last fraction F of the "
                       "planned steps (default 0: constant; 1: over the whole run, as CleanRL)")  # fmt: skip
    train.add_argument("--time-limit", type=float, default=None, metavar="MINUTES",
                       help="stop every seed at the same step before this much wall time (recorded in run.json)")  # fmt: skip
    train.add_argument("--quiet", action="store_true", help="no progress lines")
    train.set_defaults(handler=handle_train)
    add_emergence_parser(actions)


def handle_train(args: argparse.Namespace) -> int:
    from dataclasses import replace

    if len(set(args.seeds)) != len(args.seeds):
        raise ParameterError(f"--seeds: each seed once, got {args.seeds}")
    if args.steps < 1 or args.checkpoints < 1:
        raise ParameterError("--steps and --checkpoints must be >= 1")
    from cogames_lib.learn.curriculum import NO_SHAPING, ShapingConfig
    from cogames_lib.learn.ppo import PPOConfig
    from cogames_lib.learn.runs import train_run
    from cogames_lib.policies.learned import NetworkConfig

    config = PPOConfig(total_steps=args.steps, collect_workers=args.collect_workers)
    if args.diagnostics:
        from cogames_lib.diagnostics import resolve_diagnostics
        from cogames_lib.learn.curriculum import entry_name

        entries: list[str] = []
        for text in args.diagnostics:  # a name, a tier, or `name@N[,N]` (trained at those agent counts only)
            entries += [entry_name(text)] if "@" in text else [d.name for d in resolve_diagnostics(text)]
        config = replace(config, curriculum=tuple(entries))
    if args.worlds:
        config = replace(config, worlds=tuple(args.worlds))
    if args.solved_drop is not None:
        config = replace(config, solved_drop=args.solved_drop)
    if args.lr_anneal is not None:
        config = replace(config, lr_anneal=args.lr_anneal)
    if args.map_symmetries:
        config = replace(config, map_symmetries=tuple(args.map_symmetries))
    network = NetworkConfig()
    if args.frames is not None:
        network = replace(network, frames=args.frames)
    if args.hidden is not None:
        network = replace(network, hidden=args.hidden)
    shaping = NO_SHAPING if args.no_shaping else ShapingConfig()
    if args.novelty is not None:
        shaping = replace(shaping, novelty=args.novelty)
    if args.novelty_until is not None:
        shaping = replace(shaping, novelty_until=args.novelty_until)
    if args.novelty_gate is not None:
        shaping = replace(shaping, novelty_gate=args.novelty_gate)
    if args.pickup is not None:
        shaping = replace(shaping, pickup=args.pickup)
    if args.assembly is not None:
        shaping = replace(shaping, assembly=args.assembly)
    config = replace(config, network=network, shaping=shaping)
    command = "cogames-lib " + " ".join(shlex.quote(a) for a in args.argv)
    limit = None if args.time_limit is None else args.time_limit * 60.0
    record = train_run(
        config,
        args.seeds,
        args.out,
        args.checkpoints,
        args.device,
        command,
        not args.quiet,
        limit,
        args.workers,
    )
    for run in record["runs"]:
        print(f"seed {run['seed']}: {run['steps']} agent-steps in {run['seconds']} s "
              f"({run['agent_steps_per_second']}/s); final {args.out}/{run['final_checkpoint']}")  # fmt: skip
    return EXIT_OK
