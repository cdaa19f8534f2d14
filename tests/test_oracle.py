"""The oracle: a full-knowledge reference ceiling and a lower bound no policy can beat."""

from __future__ import annotations

from typing import ClassVar

import pytest

from cogames_lib.diagnostics import DIAGNOSTICS
from cogames_lib.diagnostics.hard_maps import CERTIFY_SHARE
from cogames_lib.diagnostics.oracle import OraclePolicy
from cogames_lib.errors import PolicyLoadError
from cogames_lib.policies import resolve_policy
from cogames_lib.sweep import against_ceiling, run_episode, run_sweep
from cogames_lib.sweep.feasibility import (
    FEASIBILITY_COLUMNS,
    episode_bound,
    feasibility_summary,
    feasibility_table,
    summary_markdown,
)

CELLS = [
    pytest.param(name, count, id=f"{name.removeprefix('diagnostic_')}-{count}")
    for name, diagnostic in DIAGNOSTICS.items()
    for count in diagnostic.allowed_agent_counts
]


@pytest.mark.parametrize(("name", "count"), CELLS)
def test_oracle_solves_every_diagnostic_no_faster_than_the_bound(name: str, count: int) -> None:
    for seed in range(3):
        bound, _ = episode_bound(name, count, seed)
        # The shipped budgets carry the same margin the hard tier is certified with.
        assert bound <= CERTIFY_SHARE * DIAGNOSTICS[name].max_steps
        oracle = run_episode("oracle", name, count, seed)
        assert oracle["success"], f"oracle failed {name} x{count} seed {seed}"
        assert bound <= oracle["steps"]
        # The bound holds for every policy: the scripted baseline never passes in fewer steps either.
        scripted = run_episode("scripted", name, count, seed)
        if scripted["success"]:
            assert bound <= scripted["steps"]


def test_bound_counts_what_the_episode_must_do() -> None:
    # chest_deposit_near: the chest is two moves away from the nearest spawn, plus the deposit.
    assert (
        episode_bound("chest_deposit_near", 1, 0)[0]
        == run_episode("oracle", "chest_deposit_near", 1, 0)["steps"]
    )
    # vibe_swap: four withdrawals need four vibe changes, then heart_a, the assembly, default, the deposit.
    assert episode_bound("vibe_swap", 1, 0)[0] >= 4 * 2 + 4
    # radial: one agent walks all four arms; four agents share them, so the bound drops.
    assert episode_bound("radial", 1, 0)[0] > 2 * episode_bound("radial", 4, 0)[0]


def test_oracle_is_registered_and_needs_the_world() -> None:
    spec = resolve_policy("oracle")
    policy = spec.make()
    assert isinstance(policy, OraclePolicy)
    policy.reset(0, 1, 0)
    with pytest.raises(PolicyLoadError, match="plans from the world state"):
        policy.act({})


def test_feasibility_table_compares_bound_budget_and_oracle() -> None:
    table = feasibility_table(["radial", "radial_hard"], agent_counts=(1, 4), seeds=2)
    assert list(table.columns) == list(FEASIBILITY_COLUMNS)
    assert len(table) == 8
    assert table["certified"].all() and table["oracle_success"].all()
    assert (table["bound"] <= table["oracle_steps"]).all()
    assert set(table["tier"]) == {"normal", "hard"}
    hard = table["tier"] == "hard"
    # radial_hard's stations start out of view: a searcher is granted more than the bound, within budget
    assert (table.loc[hard, "search_steps"] > table.loc[hard, "bound"]).all()
    assert (table.loc[~hard, "search_steps"] == 0).all()
    assert (table["need_share"] >= table["bound_share"]).all() and (table["need_share"] <= 1).all()
    summary = feasibility_summary(table)
    assert len(summary) == 4
    assert summary_markdown(summary).splitlines()[2].startswith("| radial | normal | 1 | 250 |")


def test_against_ceiling_puts_a_policy_next_to_the_oracle(tmp_path) -> None:
    episodes = run_sweep(["noop", "oracle"], ["memory"], [1], 2, tmp_path / "out", progress=False)
    table = against_ceiling(episodes, "noop")
    assert table[["rate", "ceiling_rate", "n"]].values.tolist() == [[0.0, 1.0, 2]]
    assert table["steps"].isna().all() and (table["ceiling_steps"] > 0).all()


class _Peeking:
    """A user policy that asks for the world like the oracle does: it must not get it."""

    seen: ClassVar[list] = []

    def attach_world(self, world) -> None:
        _Peeking.seen.append(world)

    def reset(self, agent_id: int, num_agents: int, seed: int) -> None:
        pass

    def act(self, observation) -> int:
        return 0


def test_only_the_builtin_oracle_gets_the_world() -> None:
    result = run_episode("tests.test_oracle:_Peeking", "memory", 1, 0)
    assert result["status"] == "TIMED_OUT" and _Peeking.seen == []
