"""Unit tests of the scripted baseline's rules from issue 24's fifth pass (the frontier's travel overhead, the
giver taking up what a far source's owner drops), each on a small hand-built case where the rule changes the
choice."""

from __future__ import annotations

import pytest

from cogames_lib.cvc import rules
from cogames_lib.policies.scripted import frontier
from cogames_lib.policies.scripted.behaviour import ScriptedPolicy
from cogames_lib.policies.scripted.frontier import frontier_target
from cogames_lib.policies.scripted.memory import EMPTY, ORIGIN, STATION_CODE, UNKNOWN, WALL, MapMemory


def _memory(rows: list[str]) -> MapMemory:
    memory = MapMemory()
    codes = {".": EMPTY, "#": WALL, "?": UNKNOWN}
    for r, line in enumerate(rows):
        for c, char in enumerate(line):
            memory.kind[ORIGIN + r, ORIGIN + c] = codes[char]
    memory.bounds = [ORIGIN, ORIGIN + len(rows), ORIGIN, ORIGIN + len(rows[0])]
    return memory


def _pocket_and_open_end() -> list[str]:
    """A corridor in rock: a one-cell unknown pocket at its west end, unknown open country past its east
    end (everything from column 17 on is unknown)."""
    rock = "#" * 17 + "?" * 23
    return [rock] * 6 + ["##?" + "." * 14 + "?" * 23] + [rock] * 6


def test_no_travel_overhead_closes_the_pocket_at_hand_first(monkeypatch: pytest.MonkeyPatch) -> None:
    memory = _memory(_pocket_and_open_end())
    here = (ORIGIN + 6, ORIGIN + 6)
    found = frontier_target(memory, here, here)
    assert found is not None
    assert found[0] == (ORIGIN + 6, ORIGIN + 2)  # 4 steps west: the pocket, before walking away from it
    # With the 6 steps of overhead used before the fifth pass, the far open end won (11 steps east),
    # and the agent came back for the pocket later.
    monkeypatch.setattr(frontier, "TRAVEL_OVERHEAD", 6)
    found = frontier_target(memory, here, here)
    assert found is not None
    assert found[0] == (ORIGIN + 6, ORIGIN + 17)


def _policy(agent_id: int, num_agents: int) -> ScriptedPolicy:
    policy = ScriptedPolicy()
    policy.reset(agent_id, num_agents, 0)
    policy.items = [0] * len(rules.ITEMS)
    return policy


def test_a_giver_takes_up_what_the_owner_drops_for_the_far_source() -> None:
    # Two agents: agent 0 (carbon, oxygen) owns north and south, agent 1 (germanium, silicon) east and
    # west. Both know the only carbon extractor, 40 cells due east: agent 1's sector.
    far_east = (ORIGIN, ORIGIN + 40)
    giver, owner = _policy(0, 2), _policy(1, 2)
    for policy in (giver, owner):
        policy.nav.memory.stations[STATION_CODE["carbon_extractor"]].add(far_east)
    # The owner claims carbon and, with a role of two, drops the last of its own: silicon.
    assert owner._duty() == ("carbon", "germanium")
    # The giver leaves carbon to the owner and takes up the silicon it dropped (before this rule it
    # fetched oxygen only and nobody fetched silicon: multi_station_hard at 2 agents, seed 0).
    assert giver._duty() == ("oxygen", "silicon")
    assert giver._dropped_for_me({"carbon": {1}}) == ["silicon"]
    assert owner._dropped_for_me({"carbon": {1}}) == []
