"""A study's headline numbers in words, and an honest verdict on whether a run learned anything.

`learning_verdict` exists because a flat curve from a run too short to learn looks like a result: the
figures and pages print the verdict next to it ("smoke run: too short to learn (epsilon 0.97 at the end)").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from cogames_lib.staghunt.social import (
    FINAL_FRACTION,
    final_learning,
    kind_sensitivity,
    partner_effect,
    with_p_stag,
)

# Exploration still above this at the end of training: the agents mostly acted at random.
EPSILON_TOO_HIGH = 0.5


def _number(value: float) -> str:
    return f"{round(value, 3) + 0.0:.3f}"  # + 0.0: no "-0.000" for a tiny negative


def _interval(mean: float, low: float, high: float, n: int, unit: str = "seed") -> str:
    units = f"n={n} {unit}{'' if n == 1 else 's'}"
    if math.isnan(low) or math.isnan(high):
        return f"{_number(mean)} (no interval, {units})"
    return f"{_number(mean)} [{_number(low)}, {_number(high)}] ({units})"


def learning_verdict(
    training: pd.DataFrame, random_policy_stag_rate: float | Mapping[str, float] | None = None
) -> str:
    """'' when the run looks trained; otherwise why its curves cannot be read as learning: epsilon still
    high at the end ("too short to learn"), or stag kills in the final 10% not above random play."""
    if training.empty:
        return "no training epochs"
    last = training[training["epoch"] == training["epoch"].max()]
    epsilon = float(last["epsilon"].mean())
    if epsilon > EPSILON_TOO_HIGH:
        return f"too short to learn (epsilon still {epsilon:.2f} at the end; flat lines mean nothing learned)"
    if random_policy_stag_rate is not None:
        stags = final_learning(training, random_policy_stag_rate).query("metric == 'stags_killed'")
        upper = stags["ci_high"].where(stags["ci_high"].notna(), stags["mean"])
        if stags["random_rate"].notna().all() and (upper <= stags["random_rate"]).all():
            return "no stag learning: final stag kills per episode not above random play"
    return ""


def study_headline(
    training: pd.DataFrame,
    intention: pd.DataFrame,
    random_policy_stag_rate: float | Mapping[str, float] | None,
    fraction: float = FINAL_FRACTION,
    random_policy_return: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """Flat name -> short text (mean [95% CI] (n seeds)) for the console, `summary.json` and the index:
    final-10% stag kills and return per episode per condition, stag kills / random play, the partner effect."""
    headline: dict[str, Any] = {}
    learning = final_learning(training, random_policy_stag_rate, fraction, random_policy_return).sort_values(
        ["condition", "metric"], ascending=[True, False], kind="stable"
    )  # stag kills first
    for row in learning.itertuples(index=False):
        label = "stag kills per episode" if row.metric == "stags_killed" else "return per episode"
        headline[f"final {label}[{row.condition}]"] = _interval(
            row.mean, row.ci_low, row.ci_high, row.n_seeds
        )
        if not math.isnan(row.random_rate):
            headline[f"random play {label}[{row.condition}]"] = _number(row.random_rate)
        if not math.isnan(row.ratio):
            short = "stag kills" if row.metric == "stags_killed" else "return"
            headline[f"{short} / random play[{row.condition}]"] = _interval(
                row.ratio, row.ratio_low, row.ratio_high, row.n_seeds
            )
    effects = partner_effect(with_p_stag(intention))
    for row in effects.itertuples(index=False):
        name = (
            "KindA focal P(stag): KindA - KindB partner"
            if row.effect == "difference"
            else "difference in differences"
        )
        p_values = (
            f"sign-flip p={row.p_sign_flip:.3g}"
            if not math.isnan(row.p_sign_flip)
            else "sign-flip p: n too small"
        )
        wilcoxon = (
            f"Wilcoxon p={row.p_wilcoxon:.3g}"
            if row.p_wilcoxon is not None and not pd.isna(row.p_wilcoxon)
            else f"Wilcoxon: {row.wilcoxon_note}"
        )
        headline[f"{name}[{row.condition}]"] = (
            f"{_interval(row.estimate, row.ci_low, row.ci_high, row.n_seeds)}, {p_values}, {wilcoxon}, {row.design}"
        )  # fmt: skip
    kinds = kind_sensitivity(intention, fraction)
    kinds = kinds[kinds["agent_kind"].isin(["AgentKindA", "all"])].set_index(["condition", "stage"])
    for condition in sorted({c for c, _ in kinds.index}):
        if (condition, "final") in kinds.index and (condition, "start") in kinds.index:
            final, start = kinds.loc[(condition, "final")], kinds.loc[(condition, "start")]
            headline[f"KindA focal Q change, partner kind / partner presence[{condition}]"] = (
                f"{_interval(final['ratio'], final['ratio_low'], final['ratio_high'], int(final['n_seeds']))}"
                f" at the end; {_number(start['ratio'])} untrained (a ratio near 0 means the network ignores the kind)"
            )
    verdict = learning_verdict(training, random_policy_stag_rate)
    if verdict:
        headline["learning"] = verdict
    return headline
