"""A study's headline numbers in words, and an honest verdict on whether a run learned anything.

`learning_verdict` (defined with the findings, in `study_findings`, re-exported here) exists because a flat
curve from a run too short to learn looks like a result: the figures and pages print the verdict next to it ("smoke run: too short to learn (epsilon 0.97 at the end)").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from cogames_lib.staghunt import social
from cogames_lib.staghunt.study_findings import EPSILON_TOO_HIGH, learning_verdict, staghunt_findings

__all__ = ["EPSILON_TOO_HIGH", "learning_verdict", "study_headline"]


def study_headline(
    training: pd.DataFrame,
    intention: pd.DataFrame,
    random_policy: pd.DataFrame | float | Mapping[str, float] | None,
    acting_partners: pd.DataFrame | None = None,
    random_policy_return: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """Finding key -> its sentence (`study_findings.staghunt_findings`, the one analysis path), for the
    console and the index, plus `learning` with the verdict when the runs cannot be read as learning.
    `random_policy`: the study's `random_policy` table, or a stag rate (one number or per condition) with
    `random_policy_return` per condition (their standard errors then unknown, taken as 0)."""
    if not isinstance(random_policy, pd.DataFrame):
        rates = social.baseline_by_condition(
            random_policy, sorted(training["condition"].astype(str).unique())
        )
        returns = social.baseline_by_condition(random_policy_return, list(rates))
        baseline = pd.DataFrame({"condition": list(rates), "stags_per_episode": list(rates.values()),
                                 "stags_standard_error": 0.0,
                                 "mean_return": [returns.get(c, float("nan")) for c in rates],
                                 "return_standard_error": 0.0})  # fmt: skip
    else:
        baseline = random_policy
    tables = {"training": training, "probe_intention": intention, "random_policy": baseline}
    if acting_partners is not None:
        tables["acting_partners"] = acting_partners
    headline: dict[str, Any] = {finding.key: finding.text for finding in staghunt_findings(tables)}
    verdict = learning_verdict(
        training, dict(zip(baseline["condition"], baseline["stags_per_episode"], strict=True))
    )
    if verdict:
        headline["learning"] = verdict
    return headline
