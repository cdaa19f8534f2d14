"""The stag-hunt study's findings: every number the README, the notebook and the report show, as `Finding`s.

`staghunt_findings(tables)` takes the study's tables keyed by name, as `study_tables.ProbeStudy.tables`
returns them (`training`, `probe_intention`, `random_policy`, and when present `acting_partners`), and
computes everything through `social` (seeds as the unit, bootstrap intervals over seeds). Nothing else
computes a stag-hunt number for a page.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from cogames_lib.errors import DataFileError
from cogames_lib.finding import UNIT_SEEDS, Finding, interval_text
from cogames_lib.staghunt import social

CAPABILITY = "staghunt"
SCALE_WORDS = {
    "p_stag": "P(stag)",
    "q_gap": "Q gap (Q_stag - Q_hare)",
    "argmax": "argmax choice of the stag step",
}
ACTING_WORDS = {
    "approached_stag": "episodes in which it stood next to a stag",
    "attacked_stag": "episodes in which it attacked a stag",
    "stag_attacks": "attacks on stags per episode",
    "stags_killed": "stags killed per episode",
}
BOOTSTRAP = "95% percentile bootstrap over seeds"
# the figures the findings read from, as the probe page names them (keys of `report.study_views.study_figures`)
LEARNING_FIGURE = "learning_curves.png"
PARTNER_EFFECT_FIGURE = "partner_effect.png"


# Exploration still above this at the end of training: the agents mostly acted at random.
EPSILON_TOO_HIGH = 0.5


def learning_verdict(
    training: pd.DataFrame, random_policy_stag_rate: float | Mapping[str, float] | None = None
) -> str:
    """'' when the run looks trained; otherwise why its curves cannot be read as learning: epsilon still
    high at the end ("too short to learn"), or final-window stag kills not above random play."""
    if training.empty:
        return "no training epochs"
    last = training[training["epoch"] == training["epoch"].max()]
    epsilon = float(last["epsilon"].mean())
    if epsilon > EPSILON_TOO_HIGH:
        return f"too short to learn (epsilon still {epsilon:.2f} at the end; flat lines mean nothing learned)"
    if random_policy_stag_rate is not None:
        stags = social.final_learning(training, random_policy_stag_rate).query("metric == 'stags_killed'")
        upper = stags["ci_high"].where(stags["ci_high"].notna(), stags["mean"])
        if stags["random_rate"].notna().all() and (upper <= stags["random_rate"]).all():
            return "no stag learning: final stag kills per episode not above random play"
    return ""


def _p(value: float | None) -> str:
    return (
        "p n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"p = {value:.3g}"
    )


def _finding(key: str, text: str, row: Mapping, estimate: str, low: str, high: str, n: str, method: str,
             source: str, figure: str | None = None) -> Finding:  # fmt: skip
    def number(name: str) -> float | None:
        value = row[name]
        return None if value is None or pd.isna(value) else float(value)

    return Finding(CAPABILITY, key, text, number(estimate), number(low), number(high), int(row[n]), UNIT_SEEDS,
                   method, figure, source)  # fmt: skip


def learning_findings(training: pd.DataFrame, random_policy: pd.DataFrame) -> list[Finding]:
    """Final-window stag kills per episode and their ratio to random play, per condition."""
    table = social.final_learning(training, random_policy)
    findings = []
    for row in table[table["metric"] == "stags_killed"].to_dict("records"):
        condition = row["condition"]
        kills = interval_text(row["mean"], row["ci_low"], row["ci_high"], row["n_seeds"], UNIT_SEEDS)
        ratio = interval_text(
            row["ratio"], row["ratio_low"], row["ratio_high"], row["n_seeds"], UNIT_SEEDS, 1
        )
        window = f"the final {social.FINAL_FRACTION:.0%} of training"
        text = f"{condition}: {kills} stag kills per episode in {window}"
        findings.append(_finding(f"learning.{condition}.stags_per_episode", text, row, "mean", "ci_low", "ci_high",
                                 "n_seeds", f"per-seed mean of {window}; {BOOTSTRAP}", "training",
                                 LEARNING_FIGURE))  # fmt: skip
        error = row["random_error"]
        baseline = (f"{row['random_rate']:.3f} +- {error:.3f} per episode, the interval carries both"
                    if pd.notna(error) else f"{row['random_rate']:.3f} per episode, its standard error not recorded")  # fmt: skip
        text = f"{condition}: stag kills per episode in {window} are {ratio} times random play ({baseline})"
        method = f"{BOOTSTRAP}, the random baseline resampled from its standard error in each resample"
        findings.append(_finding(f"learning.{condition}.stags_vs_random", text, row, "ratio", "ratio_low",
                                 "ratio_high", "n_seeds", method, "training, random_policy", LEARNING_FIGURE))  # fmt: skip
        per_seed = (
            social.final_window(training[training["condition"] == condition])
            .groupby("seed")["stags_killed"]
            .mean()
        )
        worst = float(per_seed.min() / row["random_rate"]) if row["random_rate"] > 0 else float("nan")
        above = int((per_seed >= 4 * row["random_rate"]).sum())
        text = (f"{condition}: the seed with the fewest stag kills in {window} still kills {worst:.1f} times as many "
                f"as random play; {above} of {len(per_seed)} seeds are at 4x random play or above")  # fmt: skip
        findings.append(Finding(CAPABILITY, f"learning.{condition}.worst_seed_vs_random", text, worst, None, None,
                                len(per_seed), UNIT_SEEDS, "minimum over seeds of the final-window mean / random play",
                                LEARNING_FIGURE, "training, random_policy"))  # fmt: skip
    return findings


def partner_findings(
    intention: pd.DataFrame, preregistered: Mapping[str, str] | None = None
) -> list[Finding]:
    """The partner effect on the three scales per condition (every partner position), the difference in
    differences, and the left/right bias per condition."""
    effects = social.partner_effect(intention, by_side=False)
    findings = []
    for row in effects.to_dict("records"):
        scale, condition = row["scale"], row["condition"]
        digits = (
            3 if scale == "argmax" else 4
        )  # a partner effect of 0.0004 in P(stag) must not print as 0.000
        number = interval_text(
            row["estimate"], row["ci_low"], row["ci_high"], row["n_seeds"], UNIT_SEEDS, digits
        )
        if row["effect"] == "difference":
            expected = (preregistered or {}).get(condition)
            text = (f"{condition}: partner effect on {SCALE_WORDS[scale]} (same-kind minus other-kind partner, "
                    f"left/right bias removed) {number}, sign-flip {_p(row['p_sign_flip'])}, positive in "
                    f"{row['seeds_positive']:.0f} of {row['n_seeds']} seeds"
                    + (f"; pre-registered expectation: {expected}" if expected else ""))  # fmt: skip
            key = f"partner_effect.{condition}.{scale}"
        else:
            text = (f"difference in differences ({condition}) on {SCALE_WORDS[scale]}: {number}, "
                    f"{_p(row['p_sign_flip'])} ({row['design']})")  # fmt: skip
            key = f"partner_effect.difference_in_differences.{scale}"
        method = f"paired within seed, side-balanced; {BOOTSTRAP}; two-sided exact sign-flip test over seeds"
        findings.append(
            _finding(
                key,
                text,
                row,
                "estimate",
                "ci_low",
                "ci_high",
                "n_seeds",
                method,
                "probe_intention",
                PARTNER_EFFECT_FIGURE,
            )
        )
    bias = social.side_bias(intention)
    for row in bias[bias["balanced"]].to_dict("records"):
        if row["scale"] != social.PRIMARY_SCALE:
            continue
        number = interval_text(row["estimate"], row["ci_low"], row["ci_high"], row["n_seeds"], UNIT_SEEDS, 3)
        text = (
            f"{row['condition']}: left/right bias P(STEP_LEFT) - 0.5 = {number} whatever lies on each side "
            "(estimated from the mirrored cases and removed from every partner effect)"
        )
        findings.append(_finding(f"side_bias.{row['condition']}.p_stag", text, row, "estimate", "ci_low",
                                 "ci_high", "n_seeds", BOOTSTRAP, "probe_intention"))  # fmt: skip
    return findings


def acting_findings(acting: pd.DataFrame) -> list[Finding]:
    """The behavioural validation: same-kind minus other-kind acting partner, per condition and measure."""
    findings = []
    for row in social.acting_partner_effect(acting).to_dict("records"):
        if row["metric"] not in ("approached_stag", "attacked_stag"):
            continue
        number = interval_text(row["estimate"], row["ci_low"], row["ci_high"], row["n_seeds"], UNIT_SEEDS, 3)
        text = (
            f"{row['condition']}: beside trained acting partners, the focal's share of "
            f"{ACTING_WORDS[row['metric']]} is {row['same']:.3f} with a same-kind and {row['different']:.3f} "
            f"with an other-kind partner; difference {number}, sign-flip {_p(row['p_sign_flip'])}"
        )
        findings.append(_finding(f"acting_partners.{row['condition']}.{row['metric']}", text, row, "estimate",
                                 "ci_low", "ci_high", "n_seeds", f"paired within seed; {BOOTSTRAP}",
                                 "acting_partners"))  # fmt: skip
    return findings


def staghunt_findings(tables: Mapping[str, pd.DataFrame]) -> list[Finding]:
    """Every finding of a stag-hunt study from its tables (module docstring): with `training` and
    `random_policy` the learning findings; a `learning` statement first when the runs cannot be read as
    learning (`learning_verdict`; a smoke run has no `random_policy` and gets only that); `probe_intention`
    gives the partner findings, `acting_partners` the behavioural ones."""
    if "training" not in tables:
        raise DataFileError(f"staghunt_findings: table 'training' is missing (have {sorted(tables)})")
    training, random_policy = tables["training"], tables.get("random_policy")
    rates = (
        dict(zip(random_policy["condition"].astype(str), random_policy["stags_per_episode"], strict=True))
        if random_policy is not None
        else None
    )
    verdict = learning_verdict(training, rates) if "epsilon" in training.columns or training.empty else ""
    findings = []
    if verdict:
        findings.append(Finding(CAPABILITY, "learning", f"Learning: {verdict}.", figure=LEARNING_FIGURE
                                if len(training) else None, source="training"))  # fmt: skip
    if random_policy is not None and len(training):
        findings += learning_findings(training, random_policy)
    if "probe_intention" in tables and len(tables["probe_intention"]):
        expected = tables.get("preregistration")
        expectations = (
            dict(zip(expected["condition"], expected["expected_effect"], strict=True))
            if isinstance(expected, pd.DataFrame) and len(expected)
            else None
        )
        findings += partner_findings(tables["probe_intention"], expectations)
    if "acting_partners" in tables and len(tables["acting_partners"]):
        findings += acting_findings(tables["acting_partners"])
    return findings
