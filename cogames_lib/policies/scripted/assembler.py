"""The assembler half of the scripted policy: joining a chorus, crafting decoders, making way.

A mixin of `ScriptedPolicy`, kept apart because the chorus coordination is the one part where agents react
to each other. What it needs from the class it is mixed into is declared by `AssemblerHost` (a Protocol the
mixin inherits, so a type checker holds every attribute and helper it uses to a declared type).
"""

from __future__ import annotations

import random
from typing import Protocol

from cogames_lib.cvc import rules
from cogames_lib.policies.scripted.navigation import Navigator
from cogames_lib.policies.scripted.planning import Cell, move_action
from cogames_lib.policies.scripted.skills import Skills

DEFAULT, HEART_A, HEART_B, GEAR = (rules.VIBE_INDEX[v] for v in ("default", "heart_a", "heart_b", "gear"))
CHORUS_VIBES = frozenset({DEFAULT, HEART_A})  # vibes that never break the heart protocol's exact match
YIELD_STEPS = 10  # after sliding aside for a teammate, stay off the orthogonal cells this long
YIELD_KEPT = True  # ... not even to make way again (`_make_way`)
FULL_CHORUS_PATIENCE = 6  # steps a diagonal agent watches a full chorus fire nothing before gathering
ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))
RING = (*ORTHOGONAL, (-1, -1), (-1, 1), (1, -1), (1, 1))  # orthogonal cells first


def vibe_action(vibe: int) -> int:
    return rules.FIRST_VIBE_ACTION + vibe


class AssemblerHost(Protocol):
    """The state and helpers of the policy that `AssemblerBehaviour` reads and writes."""

    nav: Navigator
    skills: Skills
    rng: random.Random
    vibe: int  # the vibe this agent shows now
    chorus_size: int  # agents the heart protocol needs (1 without the chorus skill)
    failed_uses: int  # uses in a row that did not succeed
    search_steps: int  # steps spent searching for a resource never seen
    incomplete_steps: int  # steps standing in the ring while the chorus is incomplete
    self_sufficient: bool  # gathering every input alone instead of waiting for teammates

    def _use(self, station: Cell, key: object, vibe: int | None, use_cost: int = 0) -> int: ...

    def _explore_or_wander(self) -> int: ...

    def _leave_assembler_vibe(self, action: int | None) -> int | None: ...

    def _empty_handed(self) -> bool: ...


class AssemblerBehaviour(AssemblerHost):
    # The mixin's own chorus state (the host's `reset` sets each to 0).
    backoff: int  # steps left of a random back-off (chorus ablation: two agents showed heart_a at once)
    full_chorus_steps: int  # steps a full chorus has stood without firing
    yielded: int  # steps left staying off the orthogonal cells after making way

    def _assembler_ring(self) -> tuple[Cell, list[Cell]] | None:
        assemblers = self.nav.memory.known("assembler")
        if not assemblers:
            return None
        assembler = min(assemblers, key=self.nav.distance)
        ring = [(assembler[0] + dr, assembler[1] + dc) for dr, dc in RING]
        return assembler, ring

    def _chorus(self) -> int:
        """Join the chorus at the assembler; walking there, show `heart_a` as a beacon for teammates."""
        nav, memory = self.nav, self.nav.memory
        found = self._assembler_ring()
        if found is None:
            return self._follow_beacon()
        assembler, ring = found
        free_orthogonal = [c for c in ring[:4] if memory.is_free(c) and c not in memory.agents]
        if self.yielded > 0:
            self.yielded -= 1
        if nav.pos not in ring or (nav.pos not in ring[:4] and free_orthogonal and not self.yielded):
            self.full_chorus_steps = 0
            self.incomplete_steps = 0
            if (
                self.skills.chorus
                and self.vibe != HEART_A
                and nav.distance(assembler) > 2
                and not self._empty_handed()
            ):
                return vibe_action(HEART_A)
            if not self.skills.chorus and self.vibe != DEFAULT:
                return vibe_action(DEFAULT)  # walk in quietly: a heart_a arriving could complete a chorus
            action = self._leave_assembler_vibe(None)
            if action is not None:
                return action
            for cells in (free_orthogonal, ring[4:]):  # orthogonal cells first: only they can use it
                goals = [c for c in cells if memory.is_free(c) and c not in memory.agents]
                action = nav.go_to(goals, ("chorus", assembler)) if goals else None
                if action is not None:
                    return action
            return rules.NOOP
        action = self._make_way(ring)
        if action is not None:
            return action
        others = [memory.agents[c] for c in ring if c in memory.agents]
        if any(v not in CHORUS_VIBES for v in others):  # someone crafts here: keep out of the way
            return rules.NOOP if self.vibe == DEFAULT else vibe_action(DEFAULT)
        if not self.skills.chorus:
            action = self._solo_turn(others)
            if action is not None:
                return action
        if self._empty_handed() and HEART_A not in others:
            # Back from helping without the kind the team lacks: heart_a here would tell the searcher
            # passing by that a helper holds it. Join in once a teammate in the ring shows heart_a.
            return rules.NOOP if self.vibe == DEFAULT else vibe_action(DEFAULT)
        if self.vibe != HEART_A:
            return vibe_action(HEART_A)
        showing = 1 + sum(1 for v in others if v == HEART_A)
        if showing != self.chorus_size:
            self.incomplete_steps += 1
            return rules.NOOP
        if nav.distance(assembler) == 1:
            self._chorus_use = True
            return nav.moved(move_action(nav.pos, assembler))
        self.full_chorus_steps += 1
        if self.full_chorus_steps > FULL_CHORUS_PATIENCE:
            self._pool_was_short()
        return rules.NOOP

    def _solo_turn(self, others: list[int]) -> int | None:
        """The chorus ablation believes one `heart_a` makes a heart, so a second one would spoil the
        exact match: it shows `heart_a` only while no teammate at the assembler does (backing off at
        random when two start together). None: go ahead and show heart_a / use."""
        if self.backoff > 0:
            self.backoff -= 1
            return rules.NOOP if self.vibe == DEFAULT else vibe_action(DEFAULT)
        if HEART_A in others:
            if self.vibe == HEART_A:
                self.backoff = self.rng.randrange(4)
                return vibe_action(DEFAULT)
            return rules.NOOP
        return None

    def _make_way(self, ring: list[Cell]) -> int | None:
        """A teammate next to me wants in (outside the ring) or out (in it, not showing heart_a): slide
        to another ring cell so that I am not the cork in a one-cell entrance. For `YIELD_STEPS` after a
        slide, not to an orthogonal cell (`YIELD_KEPT`): from a diagonal, whose only ring neighbours are
        orthogonal, that means staying put (two agents swapped cells in lockstep otherwise)."""
        nav, memory = self.nav, self.nav.memory
        pos = nav.pos
        stuck = [
            c for c, v in memory.agents.items() if nav.distance(c) == 1 and (c not in ring or v != HEART_A)
        ]
        if not stuck:
            return None
        spots = [
            c
            for c in ring
            if nav.distance(c) == 1
            and memory.is_free(c)
            and c not in memory.agents
            and c != pos
            and not (YIELD_KEPT and self.yielded and c in ring[:4])
        ]
        if not spots:
            return None
        # Having made way, do not take an orthogonal cell back for a while (or the two dance forever).
        self.yielded = YIELD_STEPS
        return nav.moved(move_action(pos, self.rng.choice(spots)))

    def _follow_beacon(self) -> int:
        """Assembler unknown: walk towards a teammate showing `heart_a` (it knows the way), else explore."""
        action = self._towards_teammate_showing(HEART_A) if self.skills.chorus else None
        return self._explore_or_wander() if action is None else action

    def _towards_teammate_showing(self, vibe: int) -> int | None:
        """One step towards a free cell round the nearest teammate in view showing `vibe` (None: none in
        view, or no way there)."""
        nav, memory = self.nav, self.nav.memory
        shown = [c for c, v in memory.agents.items() if v == vibe]
        if not shown:
            return None
        mate = min(shown, key=nav.distance)
        goals = [c for c in ((mate[0] + dr, mate[1] + dc) for dr, dc in RING) if memory.is_free(c)]
        goals = [c for c in goals if c not in memory.agents]
        return nav.go_to(goals, ("beacon", vibe, mate)) if goals else None

    def _beside_assembler(self) -> bool:
        """I stand on a cell of a known assembler's ring (where my vibe counts in its protocols)."""
        pos = self.nav.pos
        return any(
            max(abs(a[0] - pos[0]), abs(a[1] - pos[1])) == 1 for a in self.nav.memory.known("assembler")
        )

    def _pool_was_short(self) -> None:
        self.self_sufficient = True
        self.search_steps = 0
        self.failed_uses = 0
        self.full_chorus_steps = 0

    def _craft_decoder(self) -> int | None:
        """Make a decoder at the assembler: alone in showing a vibe there, show `gear` and use it."""
        found = self._assembler_ring()
        if found is None:
            return None
        assembler, ring = found
        nav, memory = self.nav, self.nav.memory
        if nav.distance(assembler) != 1:
            return self._use(assembler, ("craft", assembler), GEAR)
        others = [memory.agents[c] for c in ring if c in memory.agents]
        if self.backoff > 0:
            self.backoff -= 1
            return rules.NOOP if self.vibe == DEFAULT else vibe_action(DEFAULT)
        if any(v == GEAR for v in others):
            # Another crafter: step back to default for a random while (two crafters never match).
            self.backoff = self.rng.randrange(4)
            return rules.NOOP if self.vibe == DEFAULT else vibe_action(DEFAULT)
        if self.vibe != GEAR:
            return vibe_action(GEAR)
        if any(v != DEFAULT for v in others):  # chorus members see our gear and go back to default
            return rules.NOOP
        return nav.moved(move_action(nav.pos, assembler))
