"""What a message channel for station locations would be worth to the scripted team (a ceiling, not a policy).

The game gives teammates no channel: each scripted agent knows only the stations it has seen itself
(docs/cvc_scripted.md, "Several agents"). This study plays the scripted team on the hard tier three ways and
counts passes per cell:

- `off`: as it is (the same episodes as `run_episode("scripted", ...)`);
- `meet`: after every step, each agent is handed every extractor any teammate within its 11 x 11 view has
  seen (what a perfect exchange between agents in sight of each other could carry);
- `all`: after every step, each agent is handed every extractor any teammate has seen, wherever it is
  (a perfect radio).

The hand-over translates cells between the agents' dead-reckoned frames with the true spawns, which no
policy may read: that is what makes it a ceiling. Only extractors are handed over (where the extractor is,
its clipped state and uses left, as the teammate last saw them); the assembler, chests and chargers are not.
Seeds are tuning seeds (100-129 by default), never the tier sweep's.
Usage: python benchmarks/scripted_sharing_ceiling.py [--agents 2 4] [--seeds 100 130] [--modes off meet all]
       [--workers 2] [--only multi_station agile]
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from cogames_lib.cvc.observation import VIEW_RADIUS
from cogames_lib.diagnostics import HARD_DIAGNOSTICS, get_diagnostic, make_env
from cogames_lib.parallel import fan_out
from cogames_lib.policies.scripted.behaviour import ScriptedPolicy
from cogames_lib.policies.scripted.memory import STATION_CODE, MapMemory
from cogames_lib.sweep.seeds import agent_seed

EXTRACTOR_CODES = tuple(code for name, code in STATION_CODE.items() if name.endswith("_extractor"))
MODES = ("off", "meet", "all")


def _hand_over(receiver: MapMemory, giver: MapMemory, shift: tuple[int, int]) -> None:
    """Copy every extractor `giver` knows into `receiver`; `shift` maps the giver's frame to the receiver's."""
    dr, dc = shift
    for code in EXTRACTOR_CODES:
        for row, col in list(giver.stations[code]):
            cell = (row + dr, col + dc)
            if cell in receiver.stations[code]:
                continue
            receiver.stations[code].add(cell)
            receiver.kind[cell] = code
            receiver.clipped[cell] = giver.clipped[row, col]
            receiver.uses_left[cell] = giver.uses_left[row, col]
            receiver.stock[cell] = giver.stock[row, col]
            bounds = receiver.bounds
            bounds[0], bounds[1] = min(bounds[0], cell[0]), max(bounds[1], cell[0] + 1)
            bounds[2], bounds[3] = min(bounds[2], cell[1]), max(bounds[3], cell[1] + 1)
            receiver.version += 1  # a new station: cached plans and fields are stale


def play(task: tuple[str, int, int, str]) -> dict[str, object]:
    """One scripted episode of (diagnostic, agents, episode seed) with the hand-over of `mode`."""
    name, agents, seed, mode = task
    env = make_env(get_diagnostic(name), agents, seed=seed)
    observations, _ = env.reset(seed=seed)
    world = env.unwrapped.world
    policies = [ScriptedPolicy() for _ in range(agents)]
    for index, policy in enumerate(policies):
        policy.reset(index, agents, agent_seed(seed, index))
    names = list(env.possible_agents)
    spawns = [(agent.row, agent.col) for agent in world.agents]
    steps = 0
    while env.agents:
        actions = [policy.act(observations[agent]) for agent, policy in zip(names, policies, strict=True)]
        observations, *_ = env.step(dict(zip(names, actions, strict=True)))
        steps += 1
        if mode == "off":
            continue
        where = [(agent.row, agent.col) for agent in world.agents]
        for i, receiver in enumerate(policies):
            for j, giver in enumerate(policies):
                near = max(abs(where[i][0] - where[j][0]), abs(where[i][1] - where[j][1])) <= VIEW_RADIUS
                if i == j or (mode == "meet" and not near):
                    continue
                shift = (spawns[j][0] - spawns[i][0], spawns[j][1] - spawns[i][1])
                _hand_over(receiver.nav.memory, giver.nav.memory, shift)
    short = name.removeprefix("diagnostic_").removesuffix("_hard")
    return {
        "diagnostic": short,
        "agents": agents,
        "seed": seed,
        "mode": mode,
        "success": world.succeeded,
        "steps": steps,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--seeds", type=int, nargs=2, default=[100, 130], metavar=("FIRST", "STOP"))
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--only", nargs="*", default=[], help="diagnostic name parts to keep (default: all)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    tasks = [
        (record.name, agents, seed, mode)
        for mode in args.modes
        for record in HARD_DIAGNOSTICS.values()
        for agents in record.allowed_agent_counts
        if agents in args.agents and (not args.only or any(part in record.name for part in args.only))
        for seed in range(*args.seeds)
    ]
    started = time.perf_counter()
    frame = pd.DataFrame(fan_out(play, tasks, workers=args.workers, description="episodes", unit="episode"))
    table = frame.pivot_table(index=["diagnostic", "agents"], columns="mode", values="success", aggfunc="sum")
    table = table[[mode for mode in args.modes]]
    print(table.astype(int).to_string())
    totals = frame.groupby(["agents", "mode"])["success"].agg(["sum", "count"]).unstack("mode")
    print(totals.to_string())
    print(f"wall {time.perf_counter() - started:.1f} s for {len(frame)} episodes")


if __name__ == "__main__":
    main()
