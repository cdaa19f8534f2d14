"""Behavioural validation with acting partners: scripted agents in a tiny fixed map with a known outcome."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cogames_lib.staghunt import social
from cogames_lib.staghunt.acting_partners import acting_partner_rows, greedy_actions, play_pair
from cogames_lib.staghunt.rules import AGENT_KINDS, Action, AgentSpec
from cogames_lib.staghunt.world_config import StagHuntConfig

A, B = AGENT_KINDS
# A stag at the west end of a corridor, two spawns east of it; agents face West. The area attack (forward
# 0..2) of either spawn covers the stag, so two hunters attacking in the same turn kill it on turn 1.
CORRIDOR = "WWWWW\nW1AAW\nWWWWW\n"


class Always:
    """A batch-capable agent that always picks `action` (Q = 1 there, 0 elsewhere)."""

    def __init__(self, action: Action) -> None:
        self.action = action

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        q = np.zeros((*np.shape(obs)[:-1], len(Action)))
        q[..., self.action] = 1.0
        return q


class OneAtATime(Always):
    """The same agent that only takes one observation at a time (the probe protocol's minimum)."""

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        if np.ndim(obs) != 1:
            raise ValueError("one observation at a time")
        return super().q_values(obs)


@pytest.fixture
def world(tmp_path: Path) -> StagHuntConfig:
    path = tmp_path / "corridor.txt"
    path.write_text(CORRIDOR)
    return StagHuntConfig(map_path=str(path), max_turns=4, attack_shape="area", start_orientation="west",
                          observation_timing="before_act", episode_length="uniform")  # fmt: skip


def test_two_attacking_hunters_kill_the_stag_and_a_partner_that_cannot_hunt_never_does(world) -> None:
    attack = Always(Action.ATTACK)
    hunters = play_pair(attack, attack, (AgentSpec(A), AgentSpec(A)), world, episodes=6, seed=1)
    assert hunters["stags_killed"].tolist() == [1.0] * 6  # fixed-length episodes: `uniform` is switched off
    assert hunters["attacked_stag"].tolist() == [1.0] * 6 and (hunters["stag_attacks"] >= 1).all()
    alone = play_pair(attack, attack, (AgentSpec(A), AgentSpec(B, can_hunt=False)), world, episodes=6, seed=1)
    assert alone["stags_killed"].tolist() == [0.0] * 6
    assert alone["stag_attacks"].tolist() == [4.0] * 6  # it kept attacking a stag that healed every turn
    assert hunters["stag_attacks"].tolist() == [1.0] * 6  # the stag is gone after the first turn
    # next to a live stag: only when it spawned beside it (the stag died in turn 1 beside two hunters)
    assert hunters["approached_stag"].sum() == 0 and set(np.unique(alone["approached_stag"])) <= {0.0, 1.0}


def test_same_episodes_for_both_partners_and_a_per_row_agent_gives_the_same_numbers(world) -> None:
    idle, attack = Always(Action.BACKWARD), Always(Action.ATTACK)
    batched = play_pair(attack, idle, (AgentSpec(A), AgentSpec(B)), world, episodes=5, seed=3)
    rowwise = play_pair(OneAtATime(Action.ATTACK), OneAtATime(Action.BACKWARD), (AgentSpec(A), AgentSpec(B)),
                        world, episodes=5, seed=3)  # fmt: skip
    for name in batched:
        np.testing.assert_array_equal(batched[name], rowwise[name])
    assert greedy_actions(OneAtATime(Action.ATTACK), np.zeros((3, 7))).tolist() == [Action.ATTACK] * 3


def test_acting_partner_rows_and_their_paired_effect(world) -> None:
    population = (AgentSpec(A), AgentSpec(A), AgentSpec(B, can_hunt=False))
    agents = [Always(Action.ATTACK)] * 3
    rows = acting_partner_rows(agents, population, world, episodes=4, seed=0, focal_kind=A)
    assert rows[["focal_id", "partner_id", "partner_relation"]].values.tolist() == [
        [0, 1, "same"], [0, 2, "different"], [1, 0, "same"], [1, 2, "different"]]  # fmt: skip
    assert rows.loc[rows["partner_relation"] == "same", "stags_killed"].tolist() == [1.0, 1.0]
    assert rows.loc[rows["partner_relation"] == "different", "stags_killed"].tolist() == [0.0, 0.0]
    table = pd.concat([rows.assign(condition="not_all_can_hunt", seed=seed) for seed in range(3)])
    effect = social.acting_partner_effect(table).set_index("metric")
    assert effect.loc["stags_killed", "estimate"] == 1.0 and effect.loc["stags_killed", "n_seeds"] == 3
    assert effect.loc["attacked_stag", "estimate"] == 0.0  # it attacked the stag beside either partner
