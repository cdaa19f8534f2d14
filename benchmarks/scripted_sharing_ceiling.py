"""What a perfect hand-over of extractor locations does for the scripted team (a study, not a policy).

The game gives teammates no channel: each scripted agent knows only the stations it has seen itself
(docs/cvc_scripted.md, "Several agents"). This study plays the unchanged scripted team on the hard tier three
ways and counts passes per cell:

- `off`: as it is (the same episodes as `run_episode("scripted", ...)`);
- `meet`: after every step, each agent is handed every extractor a teammate within its 11 x 11 view knows
  (what the teammate saw, or was handed earlier), with the state of the freshest sighting;
- `all`: the same from every teammate, wherever it is (a perfect radio);
- `ring`: as `meet`, but only from a teammate standing next to an assembler (where waiting agents stand:
  what a board at the assembler could carry at most).

The hand-over translates cells between the agents' dead-reckoned frames with the true spawns, which no
policy may read. Only extractors are handed over (cell, clipped state, uses left, stock), and a cell's state
is replaced whenever the giver's sighting is newer than the receiver's (an extractor a teammate used up or
unclipped is passed on as it is now); the assembler, chests and chargers are not. It measures what this
policy does with the knowledge, not what the best possible use of a channel would be: both gains and losses
against `off` are printed (discordant episodes, and a two-sided sign test). Seeds are tuning seeds (100-129
by default), never the tier sweep's. With the defaults: 2,430 episodes, about 100 s on 2 workers.
Usage: python benchmarks/scripted_sharing_ceiling.py [--agents 2 4] [--seeds 100 130] [--modes off meet all ring]
       [--workers 2] [--only multi_station agile]
"""

from __future__ import annotations

import argparse
import sys
import time

import pandas as pd
from scipy.stats import binomtest

from cogames_lib.cvc.observation import VIEW_RADIUS
from cogames_lib.diagnostics import HARD_DIAGNOSTICS, get_diagnostic, make_env
from cogames_lib.parallel import fan_out
from cogames_lib.policies.scripted.behaviour import ScriptedPolicy
from cogames_lib.policies.scripted.memory import STATION_CODE, MapMemory
from cogames_lib.sweep.seeds import agent_seed

EXTRACTOR_CODES = tuple(code for name, code in STATION_CODE.items() if name.endswith("_extractor"))
MODES = ("off", "meet", "all", "ring")
Sightings = dict[tuple[int, int], int]  # extractor cell (own frame) -> step of the freshest sighting known


def _apart(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Chebyshev distance: within `VIEW_RADIUS` of each other, two cells share an 11 x 11 view."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _see(memory: MapMemory, where: tuple[int, int], step: int, seen: Sightings) -> None:
    """Stamp the extractors inside the agent's own view (at `where`, its own frame) as seen at `step`."""
    for code in EXTRACTOR_CODES:
        for cell in memory.stations[code]:
            if _apart(cell, where) <= VIEW_RADIUS:
                seen[cell] = step


def _hand_over(
    receiver: MapMemory, giver: MapMemory, shift: tuple[int, int], seen_by: Sightings, seen_from: Sightings
) -> None:
    """Copy every extractor `giver` knows into `receiver` where the giver's sighting is newer (or the
    receiver does not know it); `shift` maps the giver's frame to the receiver's."""
    dr, dc = shift
    for code in EXTRACTOR_CODES:
        for row, col in list(giver.stations[code]):
            cell = (row + dr, col + dc)
            when = seen_from.get((row, col), -1)
            known = cell in receiver.stations[code]
            if known and seen_by.get(cell, -1) >= when:
                continue
            seen_by[cell] = when
            receiver.clipped[cell] = giver.clipped[row, col]
            receiver.uses_left[cell] = giver.uses_left[row, col]
            receiver.stock[cell] = giver.stock[row, col]
            if known:
                continue
            receiver.stations[code].add(cell)
            receiver.kind[cell] = code
            bounds = receiver.bounds
            bounds[0], bounds[1] = min(bounds[0], cell[0]), max(bounds[1], cell[0] + 1)
            bounds[2], bounds[3] = min(bounds[2], cell[1]), max(bounds[3], cell[1] + 1)
            receiver.version += 1  # a new station: cached plans and fields are stale


def play_with_hand_over(task: tuple[str, int, int, str]) -> dict[str, object]:
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
    cells = world.grid_map.cells
    assemblers = [
        (r, c) for r, line in enumerate(cells) for c, kind in enumerate(line) if kind == "assembler"
    ]
    seen: list[Sightings] = [{} for _ in range(agents)]
    steps = 0
    while env.agents:
        actions = [policy.act(observations[agent]) for agent, policy in zip(names, policies, strict=True)]
        if mode != "off":
            for index, policy in enumerate(policies):  # what each saw in the observation it just acted on
                _see(policy.nav.memory, policy.nav.pos, steps, seen[index])
        observations, *_ = env.step(dict(zip(names, actions, strict=True)))
        steps += 1
        if mode == "off":
            continue
        where = [(agent.row, agent.col) for agent in world.agents]
        for i, receiver in enumerate(policies):
            for j, giver in enumerate(policies):
                if i == j or (mode != "all" and _apart(where[i], where[j]) > VIEW_RADIUS):
                    continue
                if mode == "ring" and not any(_apart(where[j], cell) == 1 for cell in assemblers):
                    continue
                shift = (spawns[j][0] - spawns[i][0], spawns[j][1] - spawns[i][1])
                _hand_over(receiver.nav.memory, giver.nav.memory, shift, seen[i], seen[j])
    short = name.removeprefix("diagnostic_").removesuffix("_hard")
    return {"diagnostic": short, "agents": agents, "seed": seed, "mode": mode, "success": world.succeeded}


def _against_off(frame: pd.DataFrame, mode: str) -> str:
    """Discordant episodes of `mode` against `off` (failures that pass, passes that fail) and a sign test."""
    keys = ["diagnostic", "agents", "seed"]
    paired = frame[frame["mode"] == "off"].merge(frame[frame["mode"] == mode], on=keys, suffixes=("_off", ""))
    gained = int((~paired["success_off"] & paired["success"]).sum())
    lost = int((paired["success_off"] & ~paired["success"]).sum())
    p = binomtest(gained, gained + lost).pvalue if gained + lost else 1.0
    return f"{mode} against off: {gained} failures pass, {lost} passes fail (sign test p = {p:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--seeds", type=int, nargs=2, default=[100, 130], metavar=("FIRST", "STOP"))
    parser.add_argument("--modes", nargs="+", choices=MODES, default=["off", "meet", "all"])
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
    if not tasks:
        sys.exit(f"scripted_sharing_ceiling: no hard cell matches --agents {args.agents} --only {args.only}")
    started = time.perf_counter()
    frame = pd.DataFrame(fan_out(play_with_hand_over, tasks, workers=args.workers, description="episodes"))
    table = frame.pivot_table(index=["diagnostic", "agents"], columns="mode", values="success", aggfunc="sum")
    print(table[list(args.modes)].astype(int).to_string())
    totals = frame.groupby(["agents", "mode"])["success"].agg(["sum", "count"]).unstack("mode")
    print(totals.to_string())
    if "off" in args.modes:
        for agents in sorted(frame["agents"].unique()):
            for mode in (m for m in args.modes if m != "off"):
                print(f"{agents} agents, {_against_off(frame[frame['agents'] == agents], mode)}")
    print(f"wall {time.perf_counter() - started:.1f} s for {len(frame)} episodes")


if __name__ == "__main__":
    main()
