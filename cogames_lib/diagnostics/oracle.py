"""`oracle`: the reference ceiling. A full-knowledge team planner, registered as the policy name "oracle".

Unlike every policy under `cogames_lib.policies` (observation-only by construction, a test checks their
imports), the oracle reads the engine's state: `run_episode` hands the episode's `World` to it (and to no other
policy) through `attach_world(world)` before the first step. That is allowed for this reference only, to
answer "is this episode solvable within its budget, and how fast?": it is a ceiling, never a baseline.
All agents' instances share one joint plan per step (`OraclePlanner`), computed once per step.
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from cogames_lib.cvc.world import World
from cogames_lib.diagnostics.oracle_planner import OraclePlanner
from cogames_lib.errors import PolicyLoadError

# World -> [planner, the episode's agents list, step of the cached actions, the actions].
_PLANS: WeakKeyDictionary[World, list[Any]] = WeakKeyDictionary()


def joint_actions(world: World) -> list[int]:
    """The team's actions for the world's current step (computed once, shared by every agent)."""
    entry = _PLANS.get(world)
    # reset builds a new agents list: a new episode (maybe other spawns). The entry holds the list itself,
    # so a new list can never be mistaken for it (an id could be reused once the old list is freed).
    if entry is None or entry[1] is not world.agents:
        entry = [OraclePlanner(world), world.agents, -1, None]
        _PLANS[world] = entry
    if entry[2] != world.step_count:
        entry[2], entry[3] = world.step_count, entry[0].actions()
    return entry[3]


class OraclePolicy:
    """One agent's share of the oracle's joint plan (needs `attach_world`; see the module docstring)."""

    def __init__(self) -> None:
        self._world: World | None = None
        self._agent = 0

    def attach_world(self, world: World) -> None:
        self._world = world

    def reset(self, agent_id: int, num_agents: int, seed: int) -> None:
        self._agent = agent_id

    def act(self, observation: dict[str, Any]) -> int:
        if self._world is None:
            raise PolicyLoadError(
                "oracle: it plans from the world state; run it through run_episode/run_sweep, which attach it"
            )
        return joint_actions(self._world)[self._agent]
