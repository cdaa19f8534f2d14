"""Analysis helpers: summaries, intervals and the intention/behaviour alignment on hand-built tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cogames_lib.errors import DataFileError
from cogames_lib.staghunt.analysis import (
    alignment_pairs,
    alignment_table,
    behaviour_summary,
    intention_summary,
)
from cogames_lib.staghunt.probes import INTENTION_COLUMNS, MULTISTEP_COLUMNS


def intention_rows(
    epoch: int, agent_id: int, partner: str, stag: float, hare: float, condition: str = "c"
) -> list[dict]:
    rows = []
    for map_name in ("m1", "m2"):
        row = dict.fromkeys(INTENTION_COLUMNS, 0.0)
        row.update(epoch=epoch, agent_id=agent_id, map_name=map_name, partner_kind=partner, version="ver1",
                   weight_facing_stag=stag, weight_facing_hare=hare, condition=condition, run_id=f"{condition}/seed_0")  # fmt: skip
        rows.append(row)
    return rows


def multistep_row(epoch, agent_id, partner, target, kind="AgentKindA", condition="c") -> dict:
    result = {"stag": 1.0, "hare": 0.0, "none": 0.5}[target]
    return {"epoch": epoch, "agent_id": agent_id, "partner_kind": partner, "first_attack_target": target,
            "result": result, "turn_of_first_attack": 2, "agent_kind": kind, "condition": condition,
            "run_id": f"{condition}/seed_0"}  # fmt: skip


def test_intention_summary_means_and_ratio() -> None:
    frame = pd.DataFrame(
        intention_rows(0, 0, "no_partner", 0.4, 0.2) + intention_rows(0, 1, "no_partner", 0.2, 0.2)
        + intention_rows(0, 0, "AgentKindA", 0.1, 0.3)
    )  # fmt: skip
    summary = intention_summary(frame)
    assert list(summary["partner_kind"].astype(str)) == ["no_partner", "AgentKindA"]  # fixed category order
    first = summary.iloc[0]
    assert first["n"] == 1 and first["weight_facing_stag_mean"] == pytest.approx(0.3)
    assert first["stag_hare_ratio"] == pytest.approx(1.5)
    assert np.isnan(first["weight_facing_stag_low"])  # one run (seed): no interval from its rows
    assert summary.iloc[1]["stag_hare_ratio"] == pytest.approx(1 / 3)
    # runs are the unit: two seeds give an interval over the two run means
    second_run = frame.assign(run_id="c/seed_1", weight_facing_stag=frame["weight_facing_stag"] + 0.1)
    two = intention_summary(pd.concat([frame, second_run])).iloc[0]
    assert two["n"] == 2 and two["weight_facing_stag_mean"] == pytest.approx(0.35)
    assert two["weight_facing_stag_low"] == pytest.approx(0.3) and two[
        "weight_facing_stag_high"
    ] == pytest.approx(0.4)


def test_behaviour_summary_rates_per_agent_kind() -> None:
    frame = pd.DataFrame([
        multistep_row(10, 0, "AgentKindA", "stag"), multistep_row(10, 1, "AgentKindA", "hare"),
        multistep_row(10, 2, "AgentKindA", "none", kind="AgentKindB"),
    ])  # fmt: skip
    summary = behaviour_summary(frame).set_index("agent_kind")
    assert summary.loc["AgentKindA", "result_mean"] == 0.5 and summary.loc["AgentKindA", "stag_rate"] == 0.5
    assert summary.loc["AgentKindB", "no_attack_rate"] == 1.0 and summary.loc["AgentKindB", "n"] == 1
    assert summary["result_low"].isna().all()  # one run


def test_alignment_agreement_and_correlation() -> None:
    intention = pd.DataFrame(
        intention_rows(5, 0, "no_partner", 0.6, 0.2) + intention_rows(5, 1, "no_partner", 0.1, 0.3)
        + intention_rows(5, 2, "no_partner", 0.5, 0.1)
    )  # fmt: skip
    multistep = pd.DataFrame([
        multistep_row(5, 0, "no_partner", "stag"), multistep_row(5, 1, "no_partner", "hare"),
        multistep_row(5, 2, "no_partner", "hare"),
    ])  # fmt: skip
    pairs = alignment_pairs(intention, multistep)
    assert pairs["p_stag_intention"].tolist() == pytest.approx([0.75, 0.25, 5 / 6])
    assert pairs["agrees"].tolist() == [True, True, False]
    table = alignment_table(pairs)
    assert table.loc[0, "agreement_rate"] == pytest.approx(2 / 3) and table.loc[0, "n_attacked"] == 3
    assert table.loc[0, "correlation"] == pytest.approx(np.corrcoef([0.75, 0.25, 5 / 6], [1, 0, 0])[0, 1])


def test_alignment_ignores_no_attack_in_agreement_and_handles_constants() -> None:
    intention = pd.DataFrame(
        intention_rows(1, 0, "no_partner", 0.6, 0.2) + intention_rows(1, 1, "no_partner", 0.6, 0.2)
    )
    multistep = pd.DataFrame(
        [multistep_row(1, 0, "no_partner", "none"), multistep_row(1, 1, "no_partner", "stag")]
    )
    table = alignment_table(alignment_pairs(intention, multistep))
    assert table.loc[0, "n_attacked"] == 1 and table.loc[0, "agreement_rate"] == 1.0
    assert np.isnan(table.loc[0, "correlation"])  # intention is constant


def test_missing_columns_are_a_data_error() -> None:
    with pytest.raises(DataFileError, match="intention table is missing columns"):
        intention_summary(pd.DataFrame({"epoch": [1]}))
    with pytest.raises(DataFileError, match="multi-step table is missing columns"):
        behaviour_summary(pd.DataFrame({c: [] for c in MULTISTEP_COLUMNS[:3]}))
