"""Trajectory digests of the Cogs vs Clips engine, to pin a rewrite of the engine to the engine it replaced.

`trajectory_digest` plays one episode through `make_env` and hashes, step by step, every agent's observation,
the rewards, the episode ends and the event log (actions, their success, deposits and assemblies). The digests
in `fixtures/cvc_engine_trajectories.json` were recorded by the Python engine before the compiled one replaced
it (commit 4f46c97; `python -m tests.engine_digest` rewrites the file); `tests/test_cvc_engine_pin.py`
replays every case on today's engine and compares.

Cases: every normal-tier diagnostic at every allowed agent count, played by random actions (which try every
action everywhere), by the scripted policy and by the oracle (which complete every task: assemblies, deposits,
unclipping, chests), and every hard-tier diagnostic at its fewest agents by scripted (large generated maps).

The pin is of the engine, so the policies play as they did when the digests were recorded: a later change
of a policy's behaviour is undone here for the replay (`RECORDED_POLICY`), not re-recorded.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from contextlib import ExitStack
from pathlib import Path
from unittest import mock

import numpy as np

from cogames_lib.cvc import rules
from cogames_lib.diagnostics import DIAGNOSTICS, HARD_DIAGNOSTICS, make_env
from cogames_lib.policies.base import resolve_policy
from cogames_lib.sweep.seeds import agent_seed

FIXTURE = Path(__file__).parent / "fixtures" / "cvc_engine_trajectories.json"
# Scripted-policy constants as they were when the digests were recorded (module, name, value): the scripted
# policy charges to 249 since 27 Nov (docs/cvc_scripted.md, "Energy"); it charged to 205 or more before.
# Since 29 Nov it prefers a way over known cells (navigation.KNOWN_WAY_RATIO; 0 never prefers one), counts
# on its teammates' seeds (behaviour.TEAM_SEEDS) and leads a heart's carrier to the chest (behaviour.GUIDE_STEPS;
# 0 never leads); since 29 Nov (third) spawns out of each other's view count sectors from the assembler
# (navigation.ASSEMBLER_CENTRE) and trade no source before (behaviour.SHARED_CENTRE); since 29 Nov (fourth)
# an agent that made way at the assembler does not slide back (assembler.YIELD_KEPT) and the frontier adds no
# travel overhead (frontier.TRAVEL_OVERHEAD, 3 before). (The seed decoders of 29 Nov, fourth, act only with
# TEAM_SEEDS.)
RECORDED_POLICY = (
    ("cogames_lib.policies.scripted.energy", "CHARGE_TARGET", 205),
    ("cogames_lib.policies.scripted.navigation", "KNOWN_WAY_RATIO", 0),
    ("cogames_lib.policies.scripted.behaviour", "TEAM_SEEDS", False),
    ("cogames_lib.policies.scripted.behaviour", "GUIDE_STEPS", 0),
    ("cogames_lib.policies.scripted.navigation", "ASSEMBLER_CENTRE", False),
    ("cogames_lib.policies.scripted.behaviour", "SHARED_CENTRE", False),
    ("cogames_lib.policies.scripted.assembler", "YIELD_KEPT", False),
    ("cogames_lib.policies.scripted.frontier", "TRAVEL_OVERHEAD", 3),
)
SEED = 7
RANDOM_STEPS = 400  # random play rarely ends early; 400 steps cover every rule a random agent can reach


def cases() -> list[tuple[str, int, str]]:
    normal = [
        (name, count, policy)
        for name, record in DIAGNOSTICS.items()
        for count in record.allowed_agent_counts
        for policy in ("random", "scripted", "oracle")
    ]
    hard = [(name, min(record.allowed_agent_counts), "scripted") for name, record in HARD_DIAGNOSTICS.items()]
    return normal + hard


def trajectory_digest(name: str, count: int, policy_name: str, seed: int = SEED) -> dict[str, object]:
    with ExitStack() as stack:
        for module, attribute, value in RECORDED_POLICY:
            stack.enter_context(mock.patch.object(importlib.import_module(module), attribute, value))
        return _digest(name, count, policy_name, seed)


def _digest(name: str, count: int, policy_name: str, seed: int) -> dict[str, object]:
    env = make_env(name, count, seed=seed)
    world = env.unwrapped.world
    world.record_events = True
    observations, _ = env.reset(seed=seed)
    names = list(env.possible_agents)
    digest = hashlib.sha256()

    def absorb(obs: dict) -> None:
        for agent in names:
            digest.update(obs[agent]["grid"].tobytes())
            digest.update(obs[agent]["self"].tobytes())

    absorb(observations)
    if policy_name == "random":
        rng = np.random.default_rng(seed)
        policies = None
    else:
        spec = resolve_policy(policy_name)
        policies = [spec.make() for _ in names]
        for index, policy in enumerate(policies):
            if policy_name == "oracle":
                policy.attach_world(world)
            policy.reset(index, count, agent_seed(seed, index))
    steps = 0
    while env.agents and (policies is not None or steps < RANDOM_STEPS):
        if policies is None:
            chosen = rng.integers(0, len(rules.ACTIONS), count).tolist()
        else:
            chosen = [int(p.act(observations[a])) for a, p in zip(names, policies, strict=True)]
        observations, rewards, terminations, truncations, _ = env.step(dict(zip(names, chosen, strict=True)))
        steps += 1
        absorb(observations)
        digest.update(repr([rewards[a] for a in names]).encode())
        digest.update(repr([(terminations[a], truncations[a]) for a in names]).encode())
    digest.update(repr([(e.step, e.agent, e.action, e.success, e.detail) for e in world.events]).encode())
    return {"steps": steps, "success": bool(world.succeeded), "digest": digest.hexdigest()}


def case_key(name: str, count: int, policy: str) -> str:
    return f"{name}|{count}|{policy}"


def main() -> None:
    table = {}
    for name, count, policy in cases():
        table[case_key(name, count, policy)] = trajectory_digest(name, count, policy)
        print(case_key(name, count, policy), table[case_key(name, count, policy)], file=sys.stderr)
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
