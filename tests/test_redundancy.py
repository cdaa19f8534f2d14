"""Redundancy analysis: pairwise agreement over (policy, agent count, seed) cells, threshold, clustering order."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from cogames_lib.diagnostics.redundancy import agreement_matrix, linkage_order, outcome_matrix, redundancy
from cogames_lib.errors import ParameterError
from cogames_lib.stats import wilson_interval

NAV, NEAR, MEMORY, RADIAL = (
    "diagnostic_chest_navigation1",
    "diagnostic_chest_deposit_near",
    "diagnostic_memory",
    "diagnostic_radial",
)


def episodes_from(outcomes: dict[str, list[bool]], policy: str = "p", num_agents: int = 1) -> pd.DataFrame:
    """One episode per (diagnostic, seed index) with the given pass/fail list."""
    rows = [
        {
            "policy": policy,
            "diagnostic": name,
            "num_agents": num_agents,
            "seed": seed,
            "success": passed,
            "status": "SUCCESS" if passed else "TIMED_OUT",
        }
        for name, results in outcomes.items()
        for seed, passed in enumerate(results)
    ]
    return pd.DataFrame(rows)


def pair(table: pd.DataFrame, a: str, b: str) -> pd.Series:
    return table[(table["diagnostic_a"] == a) & (table["diagnostic_b"] == b)].iloc[0]


def test_counts_agreement_interval_and_kappa_by_hand():
    a = [True] * 10 + [False] * 10
    b = list(a)
    c = [True] * 5 + [False] * 5 + [True] * 5 + [False] * 5  # agrees with a on 10 of 20
    table = redundancy(episodes_from({NAV: a, NEAR: b, MEMORY: c}))
    assert list(zip(table["diagnostic_a"], table["diagnostic_b"], strict=True)) == [
        (NAV, NEAR),
        (NAV, MEMORY),
        (NEAR, MEMORY),
    ]
    same = pair(table, NAV, NEAR)
    assert (same.n_shared, same.agreements, same.both_pass, same.both_fail) == (20, 20, 10, 10)
    assert same.agreement == 1.0 and same.kappa == pytest.approx(1.0) and bool(same.redundant)
    assert (same.ci_low, same.ci_high) == pytest.approx(wilson_interval(20, 20))
    half = pair(table, NAV, MEMORY)
    assert (half.agreements, half.both_pass, half.both_fail, half.only_a, half.only_b) == (10, 5, 5, 5, 5)
    assert half.agreement == 0.5 and half.kappa == pytest.approx(0.0) and not half.redundant


@pytest.mark.parametrize(("disagreements", "redundant"), [(0, True), (1, True), (2, False)])
def test_the_threshold_allows_one_disagreement_in_twenty(disagreements, redundant):
    a = [seed % 3 == 0 for seed in range(20)]
    b = [not v if seed < disagreements else v for seed, v in enumerate(a)]
    row = redundancy(episodes_from({NAV: a, NEAR: b})).iloc[0]
    assert row.agreements == 20 - disagreements and bool(row.redundant) is redundant


def test_too_few_shared_cells_is_never_redundant():
    outcomes = [True, False] * 9  # 18 cells, perfect agreement
    row = redundancy(episodes_from({NAV: outcomes, NEAR: outcomes})).iloc[0]
    assert row.agreement == 1.0 and row.n_shared == 18 and not row.redundant
    assert bool(redundancy(episodes_from({NAV: outcomes, NEAR: outcomes}), min_shared=18).iloc[0].redundant)


def test_only_shared_cells_count_and_run_errors_are_left_out():
    one_agent = episodes_from({NAV: [True] * 20, RADIAL: [True] * 20})
    two_agents = episodes_from({RADIAL: [False] * 20}, num_agents=2)  # NAV never ran with 2 agents
    errors = episodes_from({NAV: [False] * 20}, policy="q").assign(status="RUN_ERROR")
    errors_radial = episodes_from({RADIAL: [False] * 20}, policy="q")
    row = redundancy(pd.concat([one_agent, two_agents, errors, errors_radial])).iloc[0]
    assert row.n_shared == 20 and row.agreement == 1.0
    assert math.isnan(row.kappa)  # both always pass on the shared cells: chance agreement is 1
    matrix = outcome_matrix(pd.concat([one_agent, two_agents]))
    assert matrix.shape == (40, 2) and matrix[NAV].isna().sum() == 20


def test_bad_tables_are_clear_errors():
    table = episodes_from({NAV: [True], NEAR: [False]})
    with pytest.raises(ParameterError, match=r"no column\(s\) \['success'\]"):
        redundancy(table.drop(columns="success"))
    with pytest.raises(ParameterError, match="duplicate episodes"):
        redundancy(pd.concat([table, table]))


def test_linkage_order_puts_agreeing_diagnostics_next_to_each_other():
    x = [seed % 2 == 0 for seed in range(20)]
    y = [seed < 10 for seed in range(20)]
    table = redundancy(episodes_from({NAV: x, MEMORY: y, NEAR: x, RADIAL: y}))
    matrix = agreement_matrix(table)
    assert matrix.loc[NAV, NEAR] == 1.0 and matrix.loc[NAV, NAV] == 1.0
    assert matrix.loc[NAV, MEMORY] == matrix.loc[MEMORY, NAV] == 0.5
    order = linkage_order(matrix)
    assert sorted(order) == sorted([NAV, MEMORY, NEAR, RADIAL])
    positions = {name: order.index(name) for name in order}
    assert abs(positions[NAV] - positions[NEAR]) == 1 and abs(positions[MEMORY] - positions[RADIAL]) == 1
    assert linkage_order(matrix.loc[[NAV, NEAR], [NAV, NEAR]]) == [NAV, NEAR]
