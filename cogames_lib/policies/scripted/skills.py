"""The scripted policy's skill switches and its team conventions (all derived from `reset` arguments)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from cogames_lib.cvc import rules
from cogames_lib.errors import ParameterError

HEART_RECIPE: dict[str, int] = dict(rules.HEART_INPUTS)


@dataclass(frozen=True)
class Skills:
    """Each field turns one capability on (True) or off (an ablation).

    memory: keep what was seen (off: forget every cell outside the current view each step).
    explore: frontier exploration when a needed station is unknown (off: stay and wait for it to show up).
    pathfinding: BFS over the remembered map (off: greedy straight-line steps).
    chorus: wait until all N teammates show heart_a at the assembler (off: believe the chorus is 1, so
        show heart_a only while no teammate there does, and use the assembler alone).
    recharge: use chargers when energy does not refill (off: never use a charger).
    unclip: craft decoders and unclip extractors (off: treat clipped extractors as lost).
    """

    memory: bool = True
    explore: bool = True
    pathfinding: bool = True
    chorus: bool = True
    recharge: bool = True
    unclip: bool = True

    @classmethod
    def without(cls, disabled: tuple[str, ...] | list[str]) -> Skills:
        names = [f.name for f in fields(cls)]
        unknown = [skill for skill in disabled if skill not in names]
        if unknown:
            raise ParameterError(f"ScriptedPolicy(disabled=...): unknown skill(s) {unknown}; known: {names}")
        return cls(**{name: name not in disabled for name in names})


def role_resources(
    agent_id: int, num_agents: int, resources: tuple[str, ...] = rules.RESOURCES
) -> tuple[str, ...]:
    """The resources this agent fetches first: `resources` (the recipe's) split into N contiguous groups.

    A convention every teammate derives from (agent_id, num_agents) alone, so a team splits the
    gathering without talking (N=2: carbon+oxygen / germanium+silicon). If the pooled inputs turn out
    short at the assembler, the agent falls back to gathering a whole recipe on its own. A team whose
    seeds cover some kinds splits only the others (`ScriptedPolicy._split_what_seeds_leave`).
    """
    if num_agents <= 1:
        return resources
    groups = min(num_agents, len(resources))
    if agent_id >= groups:
        return ()
    base, extra = divmod(len(resources), groups)
    start = agent_id * base + min(agent_id, extra)
    return resources[start : start + base + (1 if agent_id < extra else 0)]
