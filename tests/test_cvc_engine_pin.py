"""Today's engine replays the recorded trajectories of the Python engine it replaced, case by case."""

from __future__ import annotations

import json

import pytest

from tests.engine_digest import FIXTURE, case_key, cases, trajectory_digest

RECORDED = json.loads(FIXTURE.read_text())


def test_the_fixture_covers_every_case() -> None:
    assert sorted(RECORDED) == sorted(case_key(*case) for case in cases())
    assert sum(entry["success"] for entry in RECORDED.values()) >= 130  # the rules of success are exercised


@pytest.mark.parametrize(("name", "count", "policy"), cases(), ids=lambda value: str(value))
def test_engine_replays_the_recorded_trajectory(name: str, count: int, policy: str) -> None:
    assert trajectory_digest(name, count, policy) == RECORDED[case_key(name, count, policy)]
