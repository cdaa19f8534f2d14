"""The oracle's joint plan: one action per agent per step, re-planned from the full world state.

Phases, decided from the state every step (so a failed move or a changed station simply re-plans):
1. an agent holds a heart: it shows a depositing vibe and walks to the heart chest; the others stand still
   unless they block its way;
2. the team lacks part of the recipe: each missing resource becomes one task (withdraw from a stocked
   resource chest, extract, unclip with a held decoder, or craft a decoder at the assembler first), handed
   to the nearest free agent; agents without a task gather next to the assembler;
3. the team holds the recipe: everyone stands next to the assembler, the chorus shows heart_a (the rest
   default) and one chorus member next to it orthogonally uses it.
Without energy regen, an agent that could not reach its target and then a charger first charges on the way.
"""

from __future__ import annotations

from collections import deque

from cogames_lib.cvc import rules
from cogames_lib.cvc.world import EMPTY, AgentState, World
from cogames_lib.diagnostics.oracle_geometry import UNREACHABLE, Geometry

NOOP = rules.NOOP
_VIBE = rules.VIBE_INDEX
_DEPOSIT = _VIBE["default"]
_HEART_A = _VIBE["heart_a"]
_GEAR = _VIBE["gear"]
_RECIPE = rules.HEART_INPUTS
_DETOUR_MARGIN = 6  # moves of energy kept for walking around teammates on the way to the chest


def _vibe_action(vibe: int) -> int:
    return rules.FIRST_VIBE_ACTION + vibe


class OraclePlanner:
    def __init__(self, world: World) -> None:
        self.world = world
        self.geometry = Geometry(world)
        kinds = self.geometry.stations_by_kind
        self.chest = tuple(kinds.get("chest", ()))
        self.assembler = tuple(kinds.get("assembler", ())[:1])
        self.chargers = tuple(kinds.get("charger", ()))
        self.last_seen: dict[int, int] = {}
        self.came_from: dict[int, int] = {}

    # -- the step -----------------------------------------------------------------------------------
    def actions(self) -> list[int]:
        world = self.world
        if world.step_count == 0:
            self.last_seen, self.came_from = {}, {}
        for agent in world.agents:  # where each agent came from: a detour never steps straight back
            if self.last_seen.get(agent.index, agent.position) != agent.position:
                self.came_from[agent.index] = self.last_seen[agent.index]
            self.last_seen[agent.index] = agent.position
        self.occupied = {a.position for a in world.agents}
        self.blocked: set[int] = set()
        self.busy: set[int] = set()
        chosen = [NOOP] * world.num_agents
        holders = [a for a in world.agents if a.items[rules.HEART] > 0]
        if holders:
            field = self.geometry.field(self.chest)
            holder = min(holders, key=lambda a: field[a.position])
            chosen[holder.index] = self._use(holder, self.chest, _DEPOSIT, final=True)
            self.busy.add(holder.index)
        elif self.assembler:
            pooled = {r: sum(a.items[rules.ITEM_INDEX[r]] for a in world.agents) for r in rules.RESOURCES}
            missing = [r for r, amount in _RECIPE if pooled[r] < amount]
            if missing:
                self._gather(missing, chosen)
            else:
                self._assemble(chosen)
        self._make_way(chosen)
        return chosen

    # -- phases -------------------------------------------------------------------------------------
    def _gather(self, missing: list[str], chosen: list[int]) -> None:
        world, kinds = self.world, self.geometry.stations_by_kind
        tasks: list[tuple[tuple[int, ...], int | None, bool]] = []
        for resource in missing:
            chests = tuple(p for p in kinds.get(f"chest_{resource}", ()) if world.stations[p].stock_value())
            live = [
                p for p in kinds.get(f"{resource}_extractor", ()) if world.stations[p].uses_left_value() > 0
            ]
            unclipped = tuple(p for p in live if not world.stations[p].clipped_value())
            if chests:
                tasks.append((chests, _VIBE[f"{resource}_a"], False))
            elif unclipped:
                tasks.append((unclipped, None, False))
            elif live:
                tasks.append((tuple(live), None, True))
        free = list(world.agents)
        while tasks and free:
            # The (task, agent) pair with the shortest walk goes first; an unclip prefers a decoder holder.
            def cost(pair: tuple) -> tuple:
                (stations, _, clipped), agent = pair
                lacks_decoder = clipped and agent.items[rules.DECODER] == 0
                return (lacks_decoder, self.geometry.field(stations)[agent.position], agent.index)

            task, agent = min(((t, a) for t in tasks for a in free), key=cost)
            tasks.remove(task)
            free.remove(agent)
            stations, vibe, clipped = task
            self.busy.add(agent.index)
            if clipped and agent.items[rules.DECODER] == 0:
                chosen[agent.index] = self._use(agent, self.assembler, _GEAR)
            else:
                chosen[agent.index] = self._use(agent, stations, vibe)
        for agent in free:  # nothing to fetch: wait next to the assembler, showing nothing
            if agent.vibe != _DEPOSIT and self._in_ring(agent):
                chosen[agent.index] = _vibe_action(_DEPOSIT)
            else:
                chosen[agent.index] = self._approach(agent, self.geometry.field(self.assembler, True))

    def _assemble(self, chosen: list[int]) -> None:
        world = self.world
        ring_field = self.geometry.field(self.assembler, True)
        ranked = sorted(world.agents, key=lambda a: (ring_field[a.position], a.index))
        chorus = ranked[: world.chorus_size]
        in_ring = [a for a in world.agents if self._in_ring(a)]
        ready = all(self._in_ring(a) and a.vibe == _HEART_A for a in chorus) and all(
            a.vibe == _DEPOSIT for a in in_ring if a not in chorus
        )
        pooled_ok = all(sum(a.items[rules.ITEM_INDEX[r]] for a in in_ring) >= amount for r, amount in _RECIPE)
        if ready and pooled_ok:
            for agent in chorus:
                action = self._adjacent_use(agent, self.assembler)
                if action is not None:
                    chosen[agent.index] = action
                    return
        orthogonal = self.geometry.field(self.assembler)
        user = min(chorus, key=lambda a: (orthogonal[a.position], a.index))
        carry = min(
            (self.geometry.field(self.chest)[c] for c in self.geometry.approach_cells(self.assembler, True)),
            default=0,
        )
        for agent in world.agents:
            self.busy.add(agent.index)
            if not world.config.energy_refill and self.chargers:
                # Whoever receives the heart must still reach the chest: no one joins the chorus short of that.
                need = (
                    2 * (ring_field[agent.position] + carry + _DETOUR_MARGIN)
                    + 2 * rules.STATION_USE_ENERGY_COST
                )
                if agent.energy < need:
                    chosen[agent.index] = self._charge_to(agent, need)
                    continue
            vibe = _HEART_A if agent in chorus else _DEPOSIT
            target = orthogonal if agent is user else ring_field
            if target[agent.position] == 0 or (ready and not pooled_ok and self._in_ring(agent)):
                chosen[agent.index] = _vibe_action(vibe) if agent.vibe != vibe else NOOP
            else:
                chosen[agent.index] = self._approach(agent, target)
        self._shuffle_ring(chosen, ring_field)

    def _shuffle_ring(self, chosen: list[int], ring_field: list[int]) -> None:
        """Agents next to the assembler that stand in a stuck teammate's way move along the ring; one that
        cannot passes the request on to its ring neighbours (they make room first, it follows next step)."""
        moved: set[int] = set()
        for _ in range(3):
            for agent in self.world.agents:
                if agent.index in moved or not self._in_ring(agent) or agent.position not in self.blocked:
                    continue
                for index, delta in enumerate(self.geometry.deltas):
                    neighbour = agent.position + delta
                    if (
                        ring_field[neighbour] == 0
                        and self.world.kind[neighbour] == EMPTY
                        and neighbour not in self.occupied
                        and neighbour not in self.blocked
                    ):
                        chosen[agent.index] = self._moved(agent, index, neighbour)
                        moved.add(agent.index)
                        break
                else:
                    for other in self.world.agents:
                        beside = other.position - agent.position in self.geometry.deltas
                        if other is not agent and beside and self._in_ring(other):
                            self.blocked.add(other.position)

    # -- moving and using ---------------------------------------------------------------------------
    def _in_ring(self, agent: AgentState) -> bool:
        return bool(self.assembler) and any(agent.position + d == self.assembler[0] for d in self.world.ring)

    def _adjacent_use(self, agent: AgentState, stations: tuple[int, ...]) -> int | None:
        for index, delta in enumerate(self.geometry.deltas):
            if agent.position + delta in stations:
                return rules.FIRST_MOVE_ACTION + index
        return None

    def _use(
        self, agent: AgentState, stations: tuple[int, ...], vibe: int | None, final: bool = False
    ) -> int:
        """Walk to a cell next to one of `stations`, show `vibe` (if any), use it; charge first if needed."""
        adjacent = self._adjacent_use(agent, stations)
        if adjacent is not None:
            if vibe is not None and agent.vibe != vibe:
                return _vibe_action(vibe)
            cost = self.world.stations[agent.position + self.geometry.deltas[adjacent - 1]].energy_cost
            if self.world.config.energy_refill or agent.energy >= cost or not self.chargers:
                return adjacent
        if not self.world.config.energy_refill and self.chargers:
            charging = self._charge_on_the_way(agent, stations, final)
            if charging is not None:
                return charging
        return self._approach(agent, self.geometry.field(stations))

    def _energy_needed(self, stations: tuple[int, ...], walk: int, final: bool) -> int:
        use = max(self.world.stations[s].energy_cost for s in stations)
        reserve = 0 if final else 2 * (self.geometry.between(stations, self.chargers) + _DETOUR_MARGIN)
        return 2 * walk + use + min(reserve, rules.ENERGY_CAPACITY)

    def _charge_on_the_way(self, agent: AgentState, stations: tuple[int, ...], final: bool) -> int | None:
        geometry = self.geometry
        need = self._energy_needed(stations, geometry.field(stations)[agent.position], final)
        if agent.energy >= need:
            return None
        here = self._adjacent_use(agent, self.chargers)
        if here is not None:
            adjacent = (agent.position + geometry.deltas[here - 1],)
            after = self._energy_needed(stations, geometry.between(adjacent, stations), final)
            if agent.energy < min(after, rules.ENERGY_CAPACITY - rules.CHARGER_ENERGY_GAIN + 2):
                return here
        best, best_cost = None, UNREACHABLE
        for charger in self.chargers:
            walk = geometry.field((charger,))[agent.position]
            if walk == 0 or 2 * walk + rules.STATION_USE_ENERGY_COST > agent.energy:
                continue
            total = walk + geometry.between((charger,), stations)
            if total < best_cost:
                best, best_cost = charger, total
        if best is None:
            return None
        return self._approach(agent, geometry.field((best,)))

    def _charge_to(self, agent: AgentState, need: int) -> int:
        """Charge at the nearest charger until `need` energy (or as full as a use can make it)."""
        here = self._adjacent_use(agent, self.chargers)
        if here is not None:
            return here if agent.energy < min(need, rules.ENERGY_CAPACITY - 2) else NOOP
        return self._approach(agent, self.geometry.field(self.chargers))

    def _approach(self, agent: AgentState, field: list[int]) -> int:
        """One move down `field`; when the way down is taken, a detour around agents (BFS)."""
        position = agent.position
        if field[position] == 0 or field[position] >= UNREACHABLE:
            return NOOP
        downhill = []
        for index, delta in enumerate(self.geometry.deltas):
            neighbour = position + delta
            if self.world.kind[neighbour] == EMPTY and field[neighbour] < field[position]:
                downhill.append((index, neighbour))
                if neighbour not in self.occupied and neighbour != self.came_from.get(agent.index):
                    return self._moved(agent, index, neighbour)
        step = self._detour(position, field)
        if step is not None:
            return self._moved(agent, step, position + self.geometry.deltas[step])
        for index, neighbour in downhill:  # no way around: straight back is better than standing still
            if neighbour not in self.occupied:
                return self._moved(agent, index, neighbour)
        self._ask_way(position, field)
        return NOOP

    def _ask_way(self, position: int, field: list[int]) -> None:
        """Truly stuck: every agent on the shortest way (ignoring agents) is asked to make way."""
        for _ in range(12):
            lower = [position + d for d in self.geometry.deltas if field[position + d] < field[position]]
            if not lower:
                return
            position = lower[0]
            if position in self.occupied:
                self.blocked.add(position)

    def _moved(self, agent: AgentState, index: int, target: int) -> int:
        self.occupied.add(target)
        return rules.FIRST_MOVE_ACTION + index

    def _detour(self, start: int, field: list[int]) -> int | None:
        """First move of a shortest path around the other agents to a free goal cell (field 0)."""
        kind, deltas = self.world.kind, self.geometry.deltas
        first = {start: -1}
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            if field[cell] == 0 and cell != start:
                return first[cell]
            for index, delta in enumerate(deltas):
                neighbour = cell + delta
                if kind[neighbour] == EMPTY and neighbour not in first and neighbour not in self.occupied:
                    first[neighbour] = index if cell == start else first[cell]
                    queue.append(neighbour)
        return None

    def _make_way(self, chosen: list[int]) -> None:
        """An agent with nothing to do that stands where a busy one wants to go steps aside."""
        for agent in self.world.agents:
            if agent.index in self.busy or agent.position not in self.blocked:
                continue
            for index, delta in enumerate(self.geometry.deltas):
                neighbour = agent.position + delta
                free = neighbour not in self.occupied and neighbour not in self.blocked
                if self.world.kind[neighbour] == EMPTY and free:
                    chosen[agent.index] = self._moved(agent, index, neighbour)
                    break
