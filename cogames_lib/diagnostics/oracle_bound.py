"""A lower bound on the steps any team needs to pass a diagnostic episode, from full knowledge of the world.

Every term counts a step some agent cannot avoid; anything uncertain is relaxed in the bound's favour
(smaller), so the bound is a true lower bound for every policy, the oracle included:

- a held heart: the holder walks to the heart chest (shortest path ignoring other agents), changes vibe
  if it shows one that does not deposit, and uses the chest; without energy regen the walk is planned over
  (station, energy) states through the chargers (moves cost 2, a charger use nets at most +48);
- otherwise the heart is assembled first. Each resource the team lacks is fetched by one agent from one
  source (one use of a stocked resource chest after a vibe change, or ceil(need / best output) extractor
  uses, shared among teammates, plus one unclipping use when every extractor of it is clipped, preceded,
  somewhere earlier on the agent's tour, by crafting a decoder at the assembler: the gear vibe, and the use
  when the agent is alone). Resources the crafting consumes are not counted again (a relaxation). Every
  split of the fetches among agents and every visiting order is tried; an agent is ready after its tour
  to a cell next to the assembler and one vibe change (heart_a). The assembler use comes no earlier than
  the step the chorus is ready (agents act one after another within a step, so a teammate's last vibe
  change and the use may share a step) and one step after the user's own readiness; then the receiver's
  vibe change (when the whole team is the chorus, the receiver is the user), the walk to the chest and
  the deposit.
- without energy regen, an agent whose tour costs more energy than it holds needs at least
  ceil(deficit / 48) charger uses (each a step; the detour to the charger is not counted).
"""

from __future__ import annotations

import heapq
import itertools
import math
from typing import TYPE_CHECKING

from cogames_lib.cvc import rules
from cogames_lib.cvc.world import World
from cogames_lib.diagnostics.oracle_geometry import UNREACHABLE, Geometry

if TYPE_CHECKING:
    from cogames_lib.cvc.maps import GridMap
    from cogames_lib.diagnostics.catalogue import Diagnostic

CHARGE_NET_GAIN = rules.CHARGER_ENERGY_GAIN - rules.STATION_USE_ENERGY_COST
_DEPOSIT_VIBES = {rules.VIBE_INDEX[v] for v in rules.HEART_CHEST_DEPOSIT_VIBES}


def lower_bound(diagnostic: Diagnostic, grid_map: GridMap, num_agents: int, seed: int) -> int:
    """The bound for the episode `seed` of `diagnostic` on `grid_map` (spawns as the env's reset picks)."""
    world = World(grid_map, num_agents, diagnostic.env_config(num_agents))
    world.reset(seed)
    return world_bound(world)


def world_bound(world: World, geometry: Geometry | None = None) -> int:
    geometry = geometry or Geometry(world)
    holders = [a for a in world.agents if a.items[rules.HEART] > 0]
    if holders:
        return min(_deposit_time(world, geometry, a.position, a.energy, a.vibe) for a in holders)
    return _assembly_bound(world, geometry)


def _deposit_time(world: World, geometry: Geometry, start: int, energy: int, vibe: int) -> int:
    vibe_steps = 0 if vibe in _DEPOSIT_VIBES else 1
    chest = tuple(geometry.stations_by_kind.get("chest", ()))
    walk = geometry.field(chest)[start]
    if world.config.energy_refill or energy >= 2 * walk + rules.STATION_USE_ENERGY_COST:
        return min(UNREACHABLE, walk + 1 + vibe_steps)
    return min(UNREACHABLE, _charged_walk(world, geometry, start, energy, chest) + vibe_steps)


def _charged_walk(world: World, geometry: Geometry, start: int, energy: int, target: tuple[int, ...]) -> int:
    """Dijkstra over (place, energy): place is the start, a charger, or done (the target used)."""
    chargers = [(p,) for p in geometry.stations_by_kind.get("charger", ())]
    use_cost = rules.STATION_USE_ENERGY_COST
    best: dict[tuple, int] = {}
    queue: list[tuple[int, int, int]] = [(0, -1, energy)]  # (steps, place index, energy); -1 = start
    while queue:
        steps, place, left = heapq.heappop(queue)
        if place == -2:
            return steps
        if (place, left) in best:  # popped before with fewer or equal steps
            continue
        best[(place, left)] = steps

        def distance(to: tuple[int, ...], place: int = place) -> int:
            if place == -1:
                return geometry.field(to)[start]
            return geometry.between(chargers[place], to)

        walk = distance(target)
        if left >= 2 * walk + use_cost and walk < UNREACHABLE:
            heapq.heappush(queue, (steps + walk + 1, -2, 0))
        for index, charger in enumerate(chargers):
            walk = 0 if index == place else distance(charger)
            if walk < UNREACHABLE and left >= 2 * walk + use_cost:
                gained = min(rules.ENERGY_CAPACITY, left - 2 * walk - use_cost + rules.CHARGER_ENERGY_GAIN)
                if gained > left - 2 * walk:
                    heapq.heappush(queue, (steps + walk + 1, index, gained))
    return UNREACHABLE


def _source_options(world: World, geometry: Geometry, resource: str, need: int) -> list[tuple]:
    """(stations, steps, energy, clipped) for every way to get `need` more of `resource`."""
    options = []
    chests = tuple(
        p for p in geometry.stations_by_kind.get(f"chest_{resource}", ()) if world.stations[p].stock_value()
    )
    if chests:
        options.append((chests, 2, rules.STATION_USE_ENERGY_COST, False))
    extractors = tuple(geometry.stations_by_kind.get(f"{resource}_extractor", ()))
    live = [p for p in extractors if world.stations[p].uses_left_value() > 0]
    if live:
        rule = world.config.extractor_rule(resource)
        best = min(
            rule.max_output, rule.output + rule.bonus_per_extra_adjacent_agent * (world.num_agents - 1)
        )
        # Teammates may share the uses (each its own action, several per step): one agent makes at least
        # its share of them.
        uses = math.ceil(math.ceil(need / max(1, best)) / world.num_agents)
        clipped = all(world.stations[p].clipped_value() for p in live)
        steps = uses + int(clipped)
        energy = uses * rule.energy_cost + (rules.STATION_USE_ENERGY_COST if clipped else 0)
        options.append((tuple(live), steps, energy, clipped))
    return options


def _tour(world: World, geometry: Geometry, agent_index: int, stops: tuple[tuple, ...]) -> int:
    """Fewest steps for one agent: start, every stop in the best order (a decoder is crafted at the
    assembler before the first clipped extractor when the agent holds too few), then the assembler."""
    agent = world.agents[agent_index]
    assembler = tuple(geometry.stations_by_kind.get("assembler", ()))
    ring = geometry.field(assembler, diagonal=True)
    if not stops:
        return ring[agent.position]
    crafts = max(0, sum(stop[3] for stop in stops) - agent.items[rules.DECODER])
    visits = [(*stop, False) for stop in stops]
    if crafts:
        # The craft is a stop of its own: the gear vibe, and one assembler use per decoder. With teammates,
        # another agent may do the use while this one (showing gear, receiving the decoder) stands on any
        # of the eight cells around the assembler, so only the vibe change is counted.
        alone = world.num_agents == 1
        uses = crafts if alone else 0
        visits.append((assembler, 1 + uses, uses * rules.STATION_USE_ENERGY_COST, False, not alone))
    steps_at_stops = sum(stop[1] for stop in visits)
    energy_at_stops = sum(stop[2] for stop in visits)
    best = UNREACHABLE
    for order in itertools.permutations(visits):
        if crafts:
            craft_at = next(i for i, stop in enumerate(order) if stop[0] == assembler)
            if any(stop[3] for stop in order[:craft_at]):
                continue  # a clipped extractor before the decoder exists
        moves = geometry.field(order[0][0], order[0][4])[agent.position]
        for previous, stop in itertools.pairwise(order):
            moves += geometry.between(previous[0], stop[0], stop[4], previous[4])
        moves += geometry.between(order[-1][0], assembler, True, order[-1][4])
        steps = moves + steps_at_stops
        if not world.config.energy_refill:
            deficit = 2 * moves + energy_at_stops - agent.energy
            steps += max(0, math.ceil(deficit / CHARGE_NET_GAIN))
        best = min(best, steps)
    return best


def _assembly_bound(world: World, geometry: Geometry) -> int:
    assembler = tuple(geometry.stations_by_kind.get("assembler", ()))
    if not assembler:
        return UNREACHABLE
    pooled = {r: sum(a.items[rules.ITEM_INDEX[r]] for a in world.agents) for r in rules.RESOURCES}
    missing = [(r, amount - pooled[r]) for r, amount in rules.HEART_INPUTS if pooled[r] < amount]
    choices = [_source_options(world, geometry, r, need) for r, need in missing]
    if any(not options for options in choices):
        return UNREACHABLE
    agents = range(world.num_agents)
    chorus = world.chorus_size
    whole_team = chorus >= world.num_agents
    ring = geometry.field(assembler, diagonal=True)
    nearest = min(ring[a.position] for a in world.agents)
    memo: dict[tuple, int] = {}
    best = UNREACHABLE
    for sources in itertools.product(*choices):
        for owners in itertools.product(agents, repeat=len(sources)):
            times = []
            for agent in agents:
                stops = tuple(s for s, owner in zip(sources, owners, strict=True) if owner == agent)
                key = (agent, stops)
                if key not in memo:
                    memo[key] = _tour(world, geometry, agent, stops)
                times.append((memo[key] + 1, bool(stops)))  # + the heart_a vibe change
            fetchers = max((t for t, fetches in times if fetches), default=0)
            ready = max(fetchers, sorted(t for t, _ in times)[chorus - 1])
            # Agents act one after another within a step, so the use may share a step with a teammate's last
            # move or vibe change: it comes after the ready step, or one step after the user's own readiness
            # (the earliest of anyone's).
            earliest_user = min(t for t, _ in times) if whole_team else nearest
            best = min(best, max(ready, earliest_user + 1) if world.num_agents > 1 else ready + 1)
    if best >= UNREACHABLE:
        return UNREACHABLE
    chest = tuple(geometry.stations_by_kind.get("chest", ()))
    carry = min(geometry.field(chest)[c] for c in geometry.approach_cells(assembler, diagonal=True))
    # With the whole team in the chorus the user shows heart_a and receives the heart: its vibe change to a
    # depositing vibe is its next action. Otherwise a receiver acting later in the use's step may overlap it.
    vibe_change = 1 if whole_team else 0
    return min(UNREACHABLE, best + vibe_change + carry + 1)
