"""Getting somewhere: dead reckoning, cached plans, frontier exploration, unjamming.

`Navigator` owns the agent's position estimate and its map memory. A plan (a path of cells) is kept
while its goal and the known obstacles are unchanged, so BFS runs only when something relevant changed
(a new goal, a newly seen wall or station, a failed move), not every step.
"""

from __future__ import annotations

import random

import numpy as np

from cogames_lib.cvc import rules
from cogames_lib.policies.scripted.frontier import ALL_DIRECTIONS, frontier_target
from cogames_lib.policies.scripted.memory import EMPTY, ORIGIN, UNKNOWN, MapMemory
from cogames_lib.policies.scripted.planning import (
    STEPS,
    Cell,
    DistanceField,
    bfs,
    distance_field,
    greedy_step,
    move_action,
    neighbours,
)
from cogames_lib.policies.scripted.skills import Skills

_DELTA = {action: (dr, dc) for action, dr, dc in STEPS}
# A way over known cells only is taken if at most this many times as long as the optimistic one (see `_plan`;
# 0 turns the rule off, which the engine pin's replay of recorded play relies on).
KNOWN_WAY_RATIO = 1.5
GIVE_WAY_LIMIT = 60  # steps of backing off at most (a teammate that does not follow is no push)
WAIT_BEFORE_SIDESTEP = 2  # steps blocked by a teammate before stepping aside (breaks corridor jams)


# Spawns out of each other's view: the first assembler seen is the team's centre (`Navigator.observe`).
ASSEMBLER_CENTRE = True


class Navigator:
    def __init__(self, skills: Skills, rng: random.Random) -> None:
        self.skills = skills
        self.rng = rng
        self.memory = MapMemory(forget=not skills.memory)
        self.pos: Cell = (ORIGIN, ORIGIN)
        self.step_order = tuple(rng.sample(range(4), 4))
        self.path: list[Cell] = []
        self.plan_key: object = None
        self.plan_version = -1
        self.explore_target: Cell | None = None
        self.blocked_steps = 0
        self.thrifty = False  # energy is scarce: never spend it on a random step
        self.sector = ALL_DIRECTIONS  # directions searched first when dividing (`frontier.own_sector`)
        self.explore_mode: tuple[bool, bool] = (False, False)  # (divided, exclusive) of the current target
        self.giving_way = False  # backing off for a teammate in a corridor (see `_give_way`)
        self.give_way_steps = 0
        self._pending_move: Cell | None = None
        self.num_agents = 1
        # The point sectors and far sources are counted from: the centre of the team's spawns when every
        # teammate is in view at the first step (see `_see_team`), else the first assembler seen (see
        # `observe`), my own spawn until then.
        self.centre: tuple[float, float] = (float(ORIGIN), float(ORIGIN))
        self.centre_shared = False  # `centre` is a point every teammate agrees on (spawns or assembler)
        self._first_view = True
        self._fields: dict[str, tuple[object, DistanceField]] = {}

    # -- perception ------------------------------------------------------------------------------
    def observe(self, grid: np.ndarray, last_action_succeeded: bool) -> None:
        """Dead-reckon the last move, then write the view into memory.

        A successful move into an empty cell moves us; into a station it used the station and we stayed.
        The target cell was in view when we chose the move, so memory knows which it was.
        """
        target = self._pending_move
        if target is not None and last_action_succeeded and self.memory.kind[target] <= EMPTY:
            self.pos = target
            if self.path and self.path[0] == target:
                self.path.pop(0)
        elif target is not None:
            self.path = []  # the move failed or used a station: the plan is stale
        self._pending_move = None
        self.memory.update(grid, *self.pos)
        if self._first_view:
            self._first_view = False
            self._see_team()
        if ASSEMBLER_CENTRE and not self.centre_shared and self.num_agents > 1:
            assemblers = self.memory.known("assembler")
            if assemblers:
                # Spawns too far apart to see each other: the assembler is the one point every teammate
                # finds and all count sectors from it. (Of several known at once, the least cell: maps with
                # decoy assemblers allow one agent only.)
                cell = min(assemblers)
                self.centre = (float(cell[0]), float(cell[1]))
                self.centre_shared = True

    def _see_team(self) -> None:
        """Teammates spawn close together, a few cells apart. Sectors counted from each one's own spawn
        disagree for a source near a diagonal (two teammates then both fetch it, or neither). When every
        teammate is in view at the first step, every one of them sees the same spawns, so the centre of
        all spawns is one point they all agree on, whatever the agent: sectors are counted from there."""
        others = list(self.memory.agents)
        if self.num_agents > 1 and len(others) == self.num_agents - 1:
            cells = [self.pos, *others]
            self.centre_shared = True
            self.centre = (
                sum(c[0] for c in cells) / len(cells),
                sum(c[1] for c in cells) / len(cells),
            )

    def moved(self, action: int) -> int:
        """Record an outgoing action (so the next observation can dead-reckon it) and return it."""
        delta = _DELTA.get(action)
        self._pending_move = None if delta is None else (self.pos[0] + delta[0], self.pos[1] + delta[1])
        return action

    # -- moving ----------------------------------------------------------------------------------
    def go_to(self, goals: list[Cell], key: object) -> int | None:
        """One step towards the nearest of `goals` (walkable cells); None if there is no way at all."""
        if self.pos in goals:
            return rules.NOOP
        memory = self.memory
        others = memory.agents
        if not self.skills.pathfinding:
            goal = min(goals, key=lambda g: abs(g[0] - self.pos[0]) + abs(g[1] - self.pos[1]))
            step = greedy_step(memory, self.pos, goal, others, self.rng)
            return rules.NOOP if step is None else self.moved(move_action(self.pos, step))
        if (
            key != self.plan_key
            or not self.path
            or memory.version != self.plan_version
            or self.path[-1] not in goals
            or abs(self.path[0][0] - self.pos[0]) + abs(self.path[0][1] - self.pos[1]) != 1
        ):
            self._plan(goals, key)
            if not self.path:
                return None
        step = self.path[0]
        if self.giving_way and not self.thrifty:
            # Backing off for a teammate: stepping back towards it would only block it again, so keep
            # backing off while it follows (the path's next cell touches it).
            ahead = self.path[:2]
            pushing = [c for c in others if c in ahead]
            self.give_way_steps += 1
            if pushing and self.give_way_steps <= GIVE_WAY_LIMIT:
                return self._give_way(pushing[0])
            self.giving_way = False
        if step in others:
            # A teammate stands in the way. Waiting a random while before detouring keeps two agents
            # that block each other from side-stepping in lockstep forever.
            self.blocked_steps += 1
            # Giving way already: keep backing off at once (a long corridor takes many steps). Short of
            # energy: wait, every step spent going round may be the one missing to reach a charger.
            if self.thrifty or (
                not self.giving_way and (self.blocked_steps < WAIT_BEFORE_SIDESTEP or self.rng.random() < 0.5)
            ):
                return rules.NOOP
            self._plan(goals, key)
            if not self.path or self.path[0] in others:
                self.path = []
                return self._give_way(step)
            step = self.path[0]
        self.blocked_steps = 0
        self.giving_way = False
        self.give_way_steps = 0
        return self.moved(move_action(self.pos, step))

    def _plan(self, goals: list[Cell], key: object) -> None:
        """BFS around the teammates close by (far ones will have moved), else straight through them.

        The search is optimistic (unknown cells are walkable), so a way through the unknown can look
        shorter than the way the agent walked: where the plan crosses unknown cells and a way over known
        cells only is at most `KNOWN_WAY_RATIO` times as long, that one is taken. Without it an agent
        holding its share walked towards the assembler for 200 steps along imagined ways round a
        serpentine of lanes (through the unknown strip outside the map's border wall), replanning at every
        newly seen wall, and never arrived (`agile_hard` at 2 agents, tuning seed 105)."""
        memory = self.memory
        near = [c for c in memory.agents if abs(c[0] - self.pos[0]) + abs(c[1] - self.pos[1]) <= 3]
        blocked: list[Cell] = near  # the teammates this plan goes round (the known way goes round them too)
        self.path = bfs(memory, self.pos, goals, blocked, self.step_order) or []
        if not self.path and near:
            blocked = []
            self.path = bfs(memory, self.pos, goals, blocked, self.step_order) or []
        # Only towards a known goal: an exploring agent's goal is an unknown cell, which no known way reaches.
        if (
            self.path
            and any(memory.kind[goal] == EMPTY for goal in goals)
            and any(memory.kind[cell] == UNKNOWN for cell in self.path)
        ):
            known = bfs(memory, self.pos, goals, blocked, self.step_order, known_only=True)
            if known and len(known) <= KNOWN_WAY_RATIO * len(self.path):
                self.path = known
        self.plan_key, self.plan_version = key, memory.version

    def _give_way(self, blocker: Cell) -> int:
        """No way round a teammate (a corridor): exactly one of the two gives way, by a convention both
        derive from what they see: the one whose blocker stands south or east of it steps back (sideways
        if it can), the other holds. Random steps instead would leave the pair pushing against each
        other for ever, each one's step back answered by the other's step forward."""
        dr, dc = blocker[0] - self.pos[0], blocker[1] - self.pos[1]
        if not (dr > 0 or (dr == 0 and dc > 0)):
            self.giving_way = False
            return rules.NOOP
        free = [
            c
            for c in neighbours(self.pos)
            if self.memory.is_free(c) and c not in self.memory.agents and c != blocker
        ]
        self.giving_way = bool(free)
        if not free:
            return rules.NOOP
        # Sideways first (it clears the line; a sideways cell shares neither row nor column with the
        # blocker), then straight back; a fixed order, no coin flips.
        free.sort(key=lambda c: (c[0] == blocker[0] or c[1] == blocker[1], c))
        return self.moved(move_action(self.pos, free[0]))

    def wander(self) -> int:
        """A random step to a free neighbouring cell (or stay if boxed in, or if energy is scarce)."""
        if self.thrifty:
            return rules.NOOP
        free = [c for c in neighbours(self.pos) if self.memory.is_free(c) and c not in self.memory.agents]
        if not free:
            return rules.NOOP
        return self.moved(move_action(self.pos, self.rng.choice(free)))

    def explore(self, divided: bool = False, exclusive: bool = False) -> int | None:
        """Walk to the most promising unknown cell (frontier exploration); stay put when the skill is off.

        None when exploring is on and no unknown cell is reachable (everything reachable is known).
        `divided`: search the own sector first (for what this agent alone needs, see `frontier`).
        `exclusive`: search the own sector only; None once it is searched out.
        """
        if not self.skills.explore:
            return rules.NOOP  # no search: stay and act only on what comes into view
        memory = self.memory
        target = self.explore_target
        # Re-pick as soon as the target is seen: short legs keep the search close to where we are,
        # which finds nearby stations fast, and momentum still carries it into open areas.
        mode = (divided or exclusive, exclusive)
        if target is None or memory.kind[target] != UNKNOWN or mode != self.explore_mode:
            self.explore_mode = mode
            target = self._pick_frontier(self.sector if mode[0] else ALL_DIRECTIONS, exclusive)
            self.explore_target = target
            if target is None:
                return None
        action = self.go_to([target], ("explore", target))
        if action is None:
            self.explore_target = None
            return self.wander()
        return action

    def _pick_frontier(self, sector: frozenset[int], exclusive: bool = False) -> Cell | None:
        memory = self.memory
        if self.skills.pathfinding:
            # Teammates do not block the choice (they move on; go_to waits or goes round them).
            found = frontier_target(
                memory, self.pos, (ORIGIN, ORIGIN), sector, centre=self.centre, exclusive=exclusive
            )
            if found is None:
                return None
            target, path = found
            crowded = any(self.distance(c) <= 3 for c in memory.agents)
            if path and not crowded and self.distance(path[0]) == 1:
                # The search already found the way (it ignores teammates, so only when none is
                # close): keep it as the plan instead of planning again.
                self.path, self.plan_key, self.plan_version = path, ("explore", target), memory.version
            return target
        # Without search: the nearest unknown cell as the crow flies.
        r0, r1, c0, c1 = memory.bounds
        rows, cols = np.nonzero(memory.kind[r0 - 1 : r1 + 1, c0 - 1 : c1 + 1] == UNKNOWN)
        if rows.size == 0:
            return None
        distance = np.abs(rows + r0 - 1 - self.pos[0]) + np.abs(cols + c0 - 1 - self.pos[1])
        best = np.flatnonzero(distance == distance.min())
        pick = int(best[self.rng.randrange(best.size)])
        return int(rows[pick]) + r0 - 1, int(cols[pick]) + c0 - 1

    # -- true path lengths -------------------------------------------------------------------------
    def field_from_here(self) -> DistanceField:
        """Path lengths from the agent's cell (cached until it moves or an obstacle appears)."""
        return self._field("here", (self.pos, self.memory.version, tuple(self.memory.bounds)), [self.pos])

    def centre_field(self) -> DistanceField:
        """Path lengths from the team's centre (`centre`; its walkable cells within 2), cached until an
        obstacle appears or the known box grows."""
        row, col = self.centre
        sources = [
            (r, c)
            for r in range(int(row) - 2, int(row) + 3)
            for c in range(int(col) - 2, int(col) + 3)
            if abs(r - row) + abs(c - col) <= 2 and self.memory.kind[r, c] == EMPTY
        ]
        return self._field("centre", (self.centre, self.memory.version, tuple(self.memory.bounds)), sources)

    def charger_field(self) -> DistanceField | None:
        """Path lengths to the nearest known charger's side, from every cell (None: no charger known)."""
        chargers = self.memory.known("charger")
        if not chargers:
            return None
        sides = [n for c in sorted(chargers) for n in neighbours(c) if self.memory.is_free(n)]
        return self._field("charger", (self.memory.version, len(chargers), tuple(self.memory.bounds)), sides)

    def _field(self, name: str, key: object, sources: list[Cell]) -> DistanceField:
        cached = self._fields.get(name)
        if cached is None or cached[0] != key:
            cached = (key, distance_field(self.memory, sources))
            self._fields[name] = cached
        return cached[1]

    def move_into(self, cell: Cell) -> int:
        return move_action(self.pos, cell)

    def distance(self, cell: Cell) -> int:
        return abs(cell[0] - self.pos[0]) + abs(cell[1] - self.pos[1])
