"""A probe study's findings: the stag-hunt numbers a report shows, through the one analysis path.

`staghunt_findings(tables)` takes a study's `training` and `intention` tables (each with `condition` and
`seed`) and returns `Finding` records computed by `staghunt.social` with seeds as the unit of analysis: rows
of one run are averaged within the run, a percentile bootstrap over seeds gives the 95% interval, and fewer
than two seeds give no interval. The headline comes first: the partner effect in the condition where the
partner's kind matters. Figure names are the keys of the study's figures (`report.study_views`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from cogames_lib.finding import UNIT_SEEDS, Finding, interval_text
from cogames_lib.staghunt.social import (
    CONTROL,
    FINAL_FRACTION,
    TREATMENT,
    final_learning,
    partner_effect,
)

CAPABILITY = "staghunt"
PARTNER_EFFECT_FIGURE = "partner_effect"
LEARNING_FIGURE = "learning_curves"
BOOTSTRAP = "percentile bootstrap over seeds, 95%"


def _with_study_keys(frame: pd.DataFrame) -> pd.DataFrame:
    if "condition" not in frame.columns:
        frame = frame.assign(condition="all")
    if "seed" not in frame.columns:
        frame = frame.assign(seed=frame["run_id"].astype(str) if "run_id" in frame.columns else 0)
    return frame.assign(condition=frame["condition"].astype(str))


def _number(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def _effect_findings(intention: pd.DataFrame) -> list[Finding]:
    effects = partner_effect(intention)
    # the treatment condition first: it is the one where the partner's kind should matter
    effects = effects.assign(
        _order=[0 if c == TREATMENT else 1 if c == CONTROL else 2 for c in effects["condition"]]
    ).sort_values(["effect", "_order"], kind="stable")
    findings: list[Finding] = []
    for row in effects.itertuples(index=False):
        p_value = "" if pd.isna(row.p_sign_flip) else f", sign-flip p = {row.p_sign_flip:.2g}"
        number = interval_text(row.estimate, row.ci_low, row.ci_high, int(row.n_seeds), UNIT_SEEDS, 3)
        if row.effect == "difference":
            text = (
                f"In {row.condition}, a KindA focal's P(stag) with a KindA partner minus with a KindB partner, "
                f"in the final {FINAL_FRACTION:.0%} of training: {number}{p_value}."
            )
        else:
            text = f"Difference in differences ({row.condition}, {row.design}): {number}{p_value}."
        findings.append(
            Finding(
                CAPABILITY,
                f"partner_effect[{row.condition}]",
                text,
                _number(row.estimate),
                _number(row.ci_low),
                _number(row.ci_high),
                int(row.n_seeds),
                UNIT_SEEDS,
                f"{BOOTSTRAP}; two-sided sign-flip permutation p ({row.design})",
                f"{PARTNER_EFFECT_FIGURE}.png" if not findings else None,
                "intention",
            )
        )
    return findings


def _learning_findings(training: pd.DataFrame) -> list[Finding]:
    learning = final_learning(training, None)
    findings: list[Finding] = []
    for row in learning[learning["metric"] == "stags_killed"].itertuples(index=False):
        number = interval_text(row.mean, row.ci_low, row.ci_high, int(row.n_seeds), UNIT_SEEDS)
        findings.append(
            Finding(
                CAPABILITY,
                f"final_stags_per_episode[{row.condition}]",
                f"In {row.condition}, stags killed per episode in the final {FINAL_FRACTION:.0%} of training: "
                f"{number}.",
                _number(row.mean),
                _number(row.ci_low),
                _number(row.ci_high),
                int(row.n_seeds),
                UNIT_SEEDS,
                BOOTSTRAP,
                f"{LEARNING_FIGURE}.png" if not findings else None,
                "training",
            )
        )
    return findings


def staghunt_findings(tables: Mapping[str, pd.DataFrame]) -> list[Finding]:
    """The study's findings (see the module): the partner effect per condition and the difference in
    differences, then final stag kills per episode per condition, then whether the run could learn at all."""
    from cogames_lib.staghunt.study_summary import learning_verdict

    findings: list[Finding] = []
    intention = tables.get("intention")
    if intention is not None and len(intention):
        findings += _effect_findings(_with_study_keys(intention))
    training = tables.get("training")
    has_training = training is not None and len(training) and "epsilon" in training.columns
    if has_training:
        assert training is not None
        training = _with_study_keys(training)
        findings += _learning_findings(training)
        verdict = learning_verdict(training)
        if verdict:
            findings.append(Finding(CAPABILITY, "learning", f"These runs cannot show learning: {verdict}."))
    if not findings:
        findings.append(Finding(CAPABILITY, "probes", "The study holds no probe or training rows."))
    return findings
