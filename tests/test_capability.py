"""Capability matrix: each single-skill ablation of `scripted` fails the diagnostics that claim its skill."""

from __future__ import annotations

import pytest

from cogames_lib.diagnostics import DIAGNOSTICS
from cogames_lib.errors import ParameterError, UnknownNameError
from cogames_lib.policies import ABLATIONS
from cogames_lib.sweep.capability import (
    BASELINE,
    FAIL_AT_MOST,
    MATRIX_COLUMNS,
    ablation_matrix,
    claimed_cells,
    failed_claims,
    matrix_markdown,
    matrix_table,
)


def test_claims_follow_the_catalogue() -> None:
    claims = claimed_cells()
    assert set(claims["ablation"]) == set(ABLATIONS)  # every ablation is claimed by some diagnostic
    chorus = claims[claims["ablation"] == "chorus"]
    assert (chorus["num_agents"] >= 2).all()
    assert {"diagnostic_chorus_pair", "diagnostic_chorus_quad"} <= set(chorus["diagnostic"])
    unclip = claims[claims["ablation"] == "unclip"]
    for name in ("diagnostic_unclip_craft", "diagnostic_unclip_preseed"):
        assert set(unclip[unclip["diagnostic"] == name]["num_agents"]) == {1, 2, 3, 4}
    assert ("recharge", "diagnostic_charge_up", 1) in set(map(tuple, claims.values.tolist()))
    assert ("memory", "diagnostic_memory", 1) in set(map(tuple, claims.values.tolist()))
    for _, row in claims.iterrows():
        assert row["num_agents"] in DIAGNOSTICS[row["diagnostic"]].allowed_agent_counts


def test_matrix_is_computed_by_playing() -> None:
    matrix = ablation_matrix(["recharge"], ["charge_up"], agent_counts=(1, 2), seeds=2)
    assert list(matrix.columns) == list(MATRIX_COLUMNS)
    assert len(matrix) == 2  # charge_up allows one agent only: the 2-agent cell is skipped
    rates = dict(zip(matrix["ablation"], matrix["pass_rate"], strict=True))
    assert rates == {BASELINE: 1.0, "recharge": 0.0}
    assert (matrix["n"] == 2).all()
    assert failed_claims(matrix).empty
    table = matrix_table(matrix)
    assert list(table.columns) == [BASELINE, "recharge"]
    markdown = matrix_markdown(matrix).splitlines()
    assert markdown[0] == "| diagnostic | agents | scripted | -recharge |"
    assert markdown[2] == "| charge_up | 1 | 1.00 | 0.00* |"  # the claimed cell is starred


def test_failed_claims_reports_an_ablation_that_passes() -> None:
    import pandas as pd

    fake = pd.DataFrame(
        [("memory", "diagnostic_memory", 1, 0.9, 10), ("memory", "diagnostic_radial", 1, 1.0, 10)],
        columns=list(MATRIX_COLUMNS),
    )
    failed = failed_claims(fake)
    assert list(failed["diagnostic"]) == ["diagnostic_memory"]  # radial does not claim memory


def test_bad_arguments() -> None:
    with pytest.raises(ParameterError, match="flying"):
        ablation_matrix(["flying"], ["charge_up"], seeds=1)
    with pytest.raises(UnknownNameError):
        ablation_matrix(["memory"], ["no_such_diagnostic"], seeds=1)
    with pytest.raises(ParameterError, match="seed"):
        ablation_matrix(["memory"], ["charge_up"], seeds=[])
    with pytest.raises(ParameterError, match="at least one diagnostic"):  # not silently all 23 of them
        ablation_matrix(["memory"], [], seeds=1)


@pytest.mark.slow
@pytest.mark.parametrize("ablation", ABLATIONS)
def test_each_ablation_fails_what_claims_its_skill(ablation: str) -> None:
    claims = claimed_cells()
    mine = claims[claims["ablation"] == ablation]
    counts = tuple(sorted(set(mine["num_agents"])))
    matrix = ablation_matrix(
        [ablation], sorted(set(mine["diagnostic"])), agent_counts=counts, seeds=3, include_baseline=False
    )
    failed = failed_claims(matrix)
    assert failed.empty, f"-{ablation} passes claimed cells (> {FAIL_AT_MOST}):\n{failed}"
