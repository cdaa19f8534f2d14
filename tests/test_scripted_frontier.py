"""Unit tests of the scripted baseline's frontier rules (issue 24, fifth pass), each on a small hand-built
map where the rule changes the choice."""

from __future__ import annotations

import pytest

from cogames_lib.policies.scripted import frontier
from cogames_lib.policies.scripted.frontier import frontier_target
from cogames_lib.policies.scripted.memory import EMPTY, ORIGIN, UNKNOWN, WALL, MapMemory


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
