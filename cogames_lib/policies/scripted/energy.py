"""The energy half of the scripted policy: when to charge, and at which charger.

A mixin of `ScriptedPolicy` (it uses the policy's `nav`, `skills`, `energy`, `energy_limited` and
`_approach_cells`). Every distance here is a true path length over the remembered map (a charger behind
a wall is as far as the walk round it), from two distance fields the navigator caches: one from the
agent's cell and one from every known charger at once. The charge is planned before the tank is short:
a leg is started only with the energy to walk it, use the station and then still reach a charger.
"""

from __future__ import annotations

from typing import Protocol

from cogames_lib.cvc import rules
from cogames_lib.policies.scripted.navigation import Navigator
from cogames_lib.policies.scripted.planning import Cell
from cogames_lib.policies.scripted.skills import Skills

ENERGY_MARGIN = 6
# Charge until the tank is (nearly) full, even if the last use overflows: where energy does not refill, the
# tank is what ends each search excursion from a charger, and a use is one step (docs/cvc_scripted.md,
# "Energy"; it was CAPACITY - GAIN, one use short, until 27 Nov).
CHARGE_TARGET = rules.ENERGY_CAPACITY - ENERGY_MARGIN
THRIFTY_BELOW = 40  # with finite energy and less than this, wait for a teammate instead of side-stepping
EXPLORE_SLACK = 6  # steps of wandering we keep energy for beyond the way back to a charger
# Arriving at a charger needs the energy of the use itself (a use is charged like any station's).
CHARGER_USE = rules.STATION_USE_ENERGY_COST


class EnergyHost(Protocol):
    """The state and helpers of the policy that `EnergyPlanning` reads."""

    nav: Navigator
    skills: Skills
    energy: int  # this agent's energy now (from its observation)
    energy_limited: bool  # energy has been seen below capacity: it does not refill every step here

    def _approach_cells(self, station: Cell, free_only: bool = False) -> list[Cell]: ...


class EnergyPlanning(EnergyHost):
    def _to_charger(self, cell: Cell) -> int | None:
        """Moves from `cell` into the nearest reachable known charger (None: none is reachable)."""
        field = self.nav.charger_field()
        steps = None if field is None else field.get(cell)
        return None if steps is None else steps + 1

    def _leg_cost(self, goals: list[Cell], use_cost: int) -> int:
        """Energy to walk to the nearest of `goals`, use the station there, and still reach a charger."""
        if not goals:
            return use_cost
        here = self.nav.field_from_here()
        reachable = [(steps, g) for g in goals if (steps := here.get(g)) is not None]
        if not reachable:
            return use_cost + ENERGY_MARGIN
        steps, goal = min(reachable)
        cost = rules.MOVE_ENERGY_COST * steps + use_cost
        back = self._to_charger(goal)
        if back is not None:
            cost += rules.MOVE_ENERGY_COST * back + CHARGER_USE
        return cost + ENERGY_MARGIN

    def _return_cost(self) -> int:
        """Energy to get back to the nearest reachable charger, plus an exploring leg's worth of slack."""
        back = self._to_charger(self.nav.pos)
        if back is None:
            return 0
        return rules.MOVE_ENERGY_COST * (back + EXPLORE_SLACK) + CHARGER_USE + ENERGY_MARGIN

    def _needs_charge(self, goals: list[Cell] | None, use_cost: int) -> bool:
        """Charge before this leg (`goals`: walk there and use a station; None: keep exploring)?
        Energy that refills never needs it, and then no path length is computed at all."""
        if not (self.skills.recharge and self.energy_limited and self.energy < CHARGE_TARGET):
            return False
        if goals is None:
            return self._energy_short(max(self._return_cost(), THRIFTY_BELOW))
        return self._energy_short(self._leg_cost(goals, use_cost))

    def _energy_short(self, leg_cost: int) -> bool:
        return (
            self.skills.recharge
            and self.energy_limited
            and self.energy < CHARGE_TARGET
            and self.energy < max(leg_cost, ENERGY_MARGIN)
            and self._to_charger(self.nav.pos) is not None
        )

    def _free_charger(self, within: int) -> bool:
        """A known charger has a side no teammate stands on, at most `within` moves away (a side one
        move away cannot be cut off by teammates: only standing on it would, and then it is not free)."""
        here = self.nav.field_from_here()
        return any(
            (here.get(side) or 0) <= within and here.get(side) is not None
            for charger in self.nav.memory.known("charger")
            for side in self._approach_cells(charger, free_only=True)
        )

    def _recharge(self) -> int | None:
        """One step towards (or into) the charger nearest by path; None if charging is not wanted or
        no known charger is reachable. A charger whose every side is taken by teammates is passed
        over for another reachable one; only when every reachable charger is taken does the agent
        queue (stand) next to the nearest."""
        nav = self.nav
        if not self.skills.recharge or self.energy >= CHARGE_TARGET:
            self.charging = False
            return None
        here = nav.field_from_here()
        options = []
        for charger in nav.memory.known("charger"):
            if nav.distance(charger) == 1:
                self.charging = True
                return nav.moved(nav.move_into(charger))
            sides = self._approach_cells(charger)
            lengths = [steps for c in sides if (steps := here.get(c)) is not None]
            if lengths:
                free = bool(self._approach_cells(charger, free_only=True))
                options.append((not free, min(lengths), charger))
        if not options:
            self.charging = False
            return None
        self.charging = True
        taken, nearest, charger = min(options)
        if taken and nearest <= 2:
            return rules.NOOP  # every side of every reachable charger is taken: queue here
        goals = self._approach_cells(charger, free_only=True) or self._approach_cells(charger)
        action = nav.go_to(goals, ("charge", charger))
        return nav.wander() if action is None else action
