"""The learned agent's findings in words: what it learned, when, what it did not, and what its outcomes say
about the redundancy of the diagnostics. One pure function over tidy tables (`learned_findings`); the
notebook writes the records to `summary.json` and the report renders them.

Units: a rate over episodes carries a Wilson 95% interval (n = episodes); a rate compared across training
seeds a Student-t interval over seeds (n = seeds: a training study has few, and a percentile bootstrap over
three values only returns their range); an agreement a Wilson interval over checkpoint cells.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from cogames_lib.finding import UNIT_CELLS, UNIT_EPISODES, UNIT_SEEDS, Finding, interval_text
from cogames_lib.learn.emergence import RELIABLE_RATE, short_name
from cogames_lib.learn.emergence_summary import (
    final_checkpoints,
    final_rates,
    first_reliable_summary,
    pooled_rates,
)
from cogames_lib.learn.redundancy import SEED_QUESTIONS, learned_redundancy, seed_question_answers
from cogames_lib.stats import t_interval

CAPABILITY = "learned agents"
# The file names the notebook saves its figures under (the findings point at them).
HEATMAP_FIGURE = "emergence_heatmap.png"
FAMILY_FIGURE = "family_curves.png"
REDUNDANCY_SOURCE = "learned redundancy (checkpoint verdicts) and ablation redundancy"


def _cell(diagnostic: object, agents: object) -> str:
    return f"{short_name(diagnostic)} x{int(str(agents))}"


def step_words(step: float) -> str:
    """950, 20k, 1.5M."""
    value = float(step)
    if value >= 1e6:
        return f"{value / 1e6:.3g}M"
    if value >= 1e3:
        return f"{value / 1e3:.3g}k"
    return f"{value:.0f}"


def _rate(row: object) -> str:
    values = [getattr(row, name) for name in ("rate", "ci_low", "ci_high", "n")]
    return interval_text(values[0], values[1], values[2], int(values[3]), UNIT_EPISODES)


def _listed(items: list[str], limit: int = 12) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def learned_findings(
    tables: Mapping[str, pd.DataFrame], label: str = "", reliable_rate: float = RELIABLE_RATE
) -> list[Finding]:
    """Findings of an emergence table (`tables["emergence"]`), with the ablation-based redundancy answer
    next to the learned one when `tables["ablation_pairs"]` is given. `label` opens every sentence (e.g.
    "Committed reference run (3 seeds, 2M steps)")."""
    table = tables["emergence"]
    prefix = f"{label}. " if label else ""
    if table.empty:
        return [Finding(CAPABILITY, "empty", f"{prefix}No checkpoint was evaluated.")]
    source = "emergence table"
    normal = table[table["tier"].astype(str) == "normal"]
    scope = normal if len(normal) else table
    findings = [
        *_learned(scope, prefix, reliable_rate, source),
        *_not_learned(scope, prefix, reliable_rate, source),
        *_hard_tier(table, prefix, source),
        *_redundancy(scope, tables.get("ablation_pairs"), prefix, reliable_rate),
    ]
    return findings


def _learned(table: pd.DataFrame, prefix: str, bar: float, source: str) -> list[Finding]:
    final = final_rates(table, bar)
    seeds = int(table["seed"].nunique())
    steps = sorted(final_checkpoints(table).groupby("seed")["step"].max().unique())
    at = step_words(steps[0]) if len(steps) == 1 else f"{step_words(steps[0])}-{step_words(steps[-1])}"
    # the final pass rate over every evaluated cell, per training seed, then across seeds
    per_seed = pooled_rates(final_checkpoints(table), ["seed"])
    estimate, low, high = t_interval(per_seed["rate"].to_numpy(), bounds=(0.0, 1.0))
    learned = final[final["seeds_reliable"] == final["seeds"]]
    some = final[(final["seeds_reliable"] > 0) & (final["seeds_reliable"] < final["seeds"])]
    summary = first_reliable_summary(table).set_index(["diagnostic", "num_agents"])
    described = []
    for row in learned.itertuples(index=False):
        when = summary.loc[(row.diagnostic, row.num_agents)]
        described.append(
            f"{_cell(row.diagnostic, row.num_agents)} {_rate(row)}, first reliable at "
            f"{step_words(when['first_step_median'])} (median; {step_words(when['first_step_min'])}-"
            f"{step_words(when['first_step_max'])})"
        )
    cells = len(final)
    if described:
        what = (
            f"{len(learned)} of {cells} (diagnostic, agent count) cells are passed reliably (rate >= {bar:g}) by "
            f"the final checkpoint of every training seed: {_listed(described)}."
        )
    else:
        what = f"No (diagnostic, agent count) cell of {cells} is passed reliably (rate >= {bar:g}) by every seed."
    if len(some):
        partly = [
            f"{_cell(r.diagnostic, r.num_agents)} ({r.seeds_reliable} of {r.seeds} seeds)"
            for r in some.itertuples()
        ]
        what += f" Reached by some seeds only: {_listed(partly)}."
    overall = interval_text(estimate, low, high, seeds, UNIT_SEEDS)
    text = (
        f"{prefix}What the learned agent learned (final checkpoints at {at} agent-steps, held-out episodes; "
        f"rates pooled over seeds with Wilson 95% intervals): {what} Its pass rate over all {cells} cells is "
        f"{overall} (Student-t over training seeds){_untrained(table)}."
    )
    return [
        Finding(
            CAPABILITY,
            "learned",
            text,
            estimate,
            low,
            high,
            seeds,
            UNIT_SEEDS,
            "final-checkpoint pass rate over every evaluated cell, mean over training seeds, Student-t interval",
            HEATMAP_FIGURE,
            source,
        )
    ]


def _untrained(table: pd.DataFrame) -> str:
    """ ", against <rate> for the untrained network (step 0)" where the table has step 0, else ""."""
    first = table[table["step"] == 0]
    if first.empty:
        return ""
    pooled = pooled_rates(first.assign(all="all"), ["all"]).iloc[0]
    return f", against {_rate(pooled)} for the untrained network at step 0 (episodes pooled)"


def _not_learned(table: pd.DataFrame, prefix: str, bar: float, source: str) -> list[Finding]:
    ever = table.groupby(["diagnostic", "num_agents"], sort=False).agg(
        n=("n", "sum"), successes=("successes", "sum")
    )
    never = ever[ever["successes"] == 0].reset_index()
    final = final_rates(table, bar)
    below = final[(final["seeds_reliable"] == 0) & (final["successes"] > 0)]
    total = int(never["n"].sum())
    parts = [
        f"{len(never)} of {len(ever)} cells were never passed by any checkpoint of any seed "
        f"(0 of {total} episodes): {_listed([_cell(r.diagnostic, r.num_agents) for r in never.itertuples()])}."
        if len(never)
        else "Every cell was passed at least once by some checkpoint."
    ]
    if len(below):
        parts.append(
            "Passed sometimes but reliably by no seed at the end: "
            + _listed([f"{_cell(r.diagnostic, r.num_agents)} {_rate(r)}" for r in below.itertuples()])
            + "."
        )
    return [
        Finding(
            CAPABILITY,
            "not_learned",
            f"{prefix}What it did not learn: " + " ".join(parts),
            float(len(never)),
            None,
            None,
            len(ever),
            UNIT_CELLS,
            "cells with 0 successes over every checkpoint and seed",
            FAMILY_FIGURE,
            source,
        )
    ]


def _hard_tier(table: pd.DataFrame, prefix: str, source: str) -> list[Finding]:
    tiers = set(table["tier"].astype(str))
    if not {"normal", "hard"} <= tiers:
        return []
    final = final_checkpoints(table).assign(
        base=lambda f: f["diagnostic"].astype(str).str.removesuffix("_hard"),
        tier=lambda f: f["tier"].astype(str),
    )
    shared = set(final.loc[final["tier"] == "hard", "base"]) & set(
        final.loc[final["tier"] == "normal", "base"]
    )
    part = final[final["base"].isin(shared)]
    rates = pooled_rates(part, ["tier"]).set_index("tier")
    normal, hard = rates.loc["normal"], rates.loc["hard"]
    return [
        Finding(
            CAPABILITY,
            "hard_tier",
            f"{prefix}On the hard tier the final checkpoints fall from {_rate(normal)} (normal maps) to "
            f"{_rate(hard)} on the same {len(shared)} diagnostics (all agent counts and seeds pooled).",
            float(hard["rate"] - normal["rate"]),
            None,
            None,
            int(hard["n"]),
            UNIT_EPISODES,
            "pooled pass rate hard minus normal, final checkpoints",
            None,
            source,
        )
    ]


def _redundancy(
    table: pd.DataFrame, ablation_pairs: pd.DataFrame | None, prefix: str, bar: float
) -> list[Finding]:
    answers = seed_question_answers(learned_redundancy(table, reliable_rate=bar), ablation_pairs)
    findings = []
    for question, _ in SEED_QUESTIONS:
        rows = answers[answers["question"] == question]
        learned = rows[(rows["source"] == "learned") & (rows["n_shared"].fillna(0) > 0)]
        if learned.empty:
            continue
        sentences = []
        for pair in learned.itertuples(index=False):
            name = f"{short_name(pair.diagnostic_a)} / {short_name(pair.diagnostic_b)}"
            text = (
                f"{name}: learned {interval_text(pair.agreement, pair.ci_low, pair.ci_high, int(pair.n_shared), UNIT_CELLS)}"
                f", {pair.reading}"
            )
            ablation = rows[
                (rows["source"] == "ablations")
                & (rows["diagnostic_a"] == pair.diagnostic_a)
                & (rows["diagnostic_b"] == pair.diagnostic_b)
            ]
            if len(ablation) and pd.notna(ablation["n_shared"].iloc[0]):
                other = ablation.iloc[0]
                text += (
                    f"; ablations {interval_text(other['agreement'], other['ci_low'], other['ci_high'], int(other['n_shared']), UNIT_CELLS)}"
                    f" ({'redundant' if other['redundant'] else 'not redundant'})"
                )
            sentences.append(text)
        weakest = learned.sort_values(["agreement", "n_shared"], ascending=[True, False]).iloc[0]
        findings.append(
            Finding(
                CAPABILITY,
                f"redundancy {question}",
                f"{prefix}Redundancy, {question} (agreement of the checkpoints' pass verdicts, Wilson 95%; "
                f"cell = training seed x checkpoint x agent count): " + "; ".join(sentences) + ".",
                float(weakest["agreement"]),
                float(weakest["ci_low"]),
                float(weakest["ci_high"]),
                int(weakest["n_shared"]),
                UNIT_CELLS,
                "lowest learned agreement among the question's pairs (diagnostics.redundancy.pair_agreement)",
                None,
                REDUNDANCY_SOURCE,
            )
        )
    return findings
