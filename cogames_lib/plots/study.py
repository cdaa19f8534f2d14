"""Figures of a probe study (`staghunt.social` tables in, a Figure out; nothing is computed here).

Bands are 95% bootstrap intervals across seeds; a point with fewer than two seeds has no band (and says so).
`label` (which study: the reference study, or a live smoke run) and `verdict` (why the curves cannot show
learning, e.g. "too short to learn") go into the titles, so a flat picture is never read as a finding.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from cogames_lib.plots.style import (
    CONDITION_COLOURS,
    CONDITION_ORDER,
    PARTNER_COLOURS,
    PARTNER_ORDER,
    TEXT_PT,
    empty_figure,
    ordered,
    palette,
    plural,
    require_columns,
)
from cogames_lib.staghunt.social import CURVE_COLUMNS, EFFECT_COLUMNS  # defined once, with the tables

METRIC_LABELS = {
    "stags_killed": "stag kills per episode",
    "mean_return": "return per episode (mean over agents)",
}
MIN_EFFECT_SPAN = 0.05


def _title(text: str, label: str, verdict: str) -> str:
    lines = [text, label] + ([f"NOTE: {verdict}"] if verdict else [])
    return "\n".join(line for line in lines if line)


def _seed_note(table: pd.DataFrame) -> str:
    seeds = int(table["n_seeds"].max()) if len(table) else 0
    return plural(seeds, "seed") + (
        " per point, 95% bootstrap CI" if seeds >= 2 else " per point: no interval"
    )


# Series that coincide (a run that learned nothing) stay distinguishable by line style and marker.
SERIES_STYLES: tuple[tuple[str, str], ...] = (("-", "o"), ("--", "s"), (":", "^"), ("-.", "D"))


def _curve(axes: plt.Axes, table: pd.DataFrame, colour: str, label: str, index: int = 0) -> None:
    table = table.sort_values("epoch")
    line, marker = SERIES_STYLES[index % len(SERIES_STYLES)]
    axes.plot(table["epoch"], table["mean"], line, marker=marker, markersize=4, color=colour, label=label)
    if table["ci_low"].notna().any():
        axes.fill_between(
            table["epoch"], table["ci_low"], table["ci_high"], color=colour, alpha=0.18, linewidth=0
        )


def _random_lines(
    axes: plt.Axes, baseline: float | Mapping[str, float] | None, colours: dict[str, str]
) -> None:
    """Dashed random-play lines: one black line for one number, else one per condition in its colour."""
    if baseline is None:
        return
    if not isinstance(baseline, Mapping):
        axes.axhline(
            baseline, color="black", linestyle="--", linewidth=1, label=f"random play ({baseline:.2f})"
        )
        return
    for condition, colour in colours.items():
        if condition in baseline:
            axes.axhline(baseline[condition], color=colour, linestyle="--", linewidth=1, alpha=0.8,
                         label=f"random play, {condition} ({baseline[condition]:.2f})")  # fmt: skip


def study_learning_curves(
    curves: pd.DataFrame,
    random_policy_stag_rate: float | Mapping[str, float] | None = None,
    label: str = "",
    verdict: str = "",
    random_policy_return: Mapping[str, float] | None = None,
) -> plt.Figure:
    """`social.learning_curves` output: stag kills and return per episode over training, a line per
    condition; dashed lines at random play's stag kills (one number or per condition) and, when given,
    random play's return per condition."""
    require_columns(curves, ["condition", "metric", "epoch", *CURVE_COLUMNS], "study_learning_curves")
    if curves.empty:
        return empty_figure("Learning curves", "no training epochs")
    conditions = ordered(curves["condition"], CONDITION_ORDER)
    colours = palette(conditions, CONDITION_COLOURS)
    metrics = [m for m in METRIC_LABELS if m in set(curves["metric"])]
    figure, axes_row = plt.subplots(1, len(metrics), figsize=(5.6 * len(metrics) + 1.4, 3.8), layout="constrained",
                                    squeeze=False)  # fmt: skip
    for axes, metric in zip(axes_row[0], metrics, strict=True):
        part = curves[curves["metric"] == metric]
        for index, condition in enumerate(conditions):
            _curve(axes, part[part["condition"] == condition], colours[condition], condition, index)
        if not part[["mean", "ci_low"]].min().min() < 0:  # kills and returns: the axis starts at 0, padded
            top = axes.get_ylim()[1]
            axes.set_ylim(-0.03 * top, top)
        baseline = random_policy_stag_rate if metric == "stags_killed" else random_policy_return
        _random_lines(axes, baseline, colours)
        axes.set_xlabel("epoch (end of window)")
        axes.set_ylabel(METRIC_LABELS[metric])
        axes.set_title(f"{METRIC_LABELS[metric]}\n({_seed_note(part)})", fontsize=TEXT_PT)
        axes.legend(fontsize=TEXT_PT)
    figure.suptitle(_title("Learning curves", label, verdict), fontsize=TEXT_PT + 1)
    return figure


def partner_preference_curves(
    curves: pd.DataFrame,
    focal_kind: str = "AgentKindA",
    value_label: str = "intention P(stag)",
    label: str = "",
    verdict: str = "",
) -> plt.Figure:
    """`social.partner_curves` output for one focal kind: a panel per condition, a line per partner kind,
    a dashed line at 0.5 (indifference between stag and hare). Intention P(stag) is
    w_stag / (w_stag + w_hare); pass `value_label="multi-step result"` for the behaviour curves."""
    require_columns(
        curves,
        ["condition", "agent_kind", "partner_kind", "epoch", *CURVE_COLUMNS],
        "partner_preference_curves",
    )
    frame = curves[curves["agent_kind"].astype(str).isin([focal_kind, "all"])]
    if frame.empty:
        return empty_figure(f"{value_label} by partner", f"no rows for focal kind {focal_kind}")
    frame = frame.assign(partner_kind=frame["partner_kind"].astype(str))
    conditions = ordered(frame["condition"], CONDITION_ORDER)
    partners = ordered(frame["partner_kind"], PARTNER_ORDER)
    colours = palette(partners, PARTNER_COLOURS)
    figure, axes_row = plt.subplots(1, len(conditions), figsize=(5.4 * len(conditions) + 1.8, 3.6),
                                    layout="constrained", sharey=True, squeeze=False)  # fmt: skip
    for axes, condition in zip(axes_row[0], conditions, strict=True):
        part = frame[frame["condition"] == condition]
        for index, partner in enumerate(partners):
            _curve(axes, part[part["partner_kind"] == partner], colours[partner], partner, index)
        axes.axhline(0.5, color="black", linestyle="--", linewidth=1)
        axes.set_ylim(-0.05, 1.05)
        axes.set_xlabel("epoch")
        axes.set_title(f"{condition}, {focal_kind} focal\n({_seed_note(part)})", fontsize=TEXT_PT)
    axes_row[0][0].set_ylabel(value_label)
    axes_row[0][-1].legend(title="partner", fontsize=TEXT_PT, loc="upper left", bbox_to_anchor=(1.01, 1))
    figure.suptitle(
        _title(f"{value_label} by partner kind over training", label, verdict), fontsize=TEXT_PT + 1
    )
    return figure


def _p_text(row: pd.Series) -> str:
    n = plural(int(row["n_seeds"]), "seed")
    p = row["p_sign_flip"]
    return (
        f"{n}, p={p:.3g}" if not (p is None or (isinstance(p, float) and math.isnan(p))) else f"{n}, no test"
    )


def partner_effect_forest(effects: pd.DataFrame, label: str = "", verdict: str = "") -> plt.Figure:
    """`social.partner_effect` output: one row per effect (the per-condition difference, then the
    difference in differences), the estimate with its 95% interval across seeds, a line at 0 (no effect)."""
    require_columns(effects, EFFECT_COLUMNS, "partner_effect_forest")
    if effects.empty:
        return empty_figure("Partner effect", "no KindA focal probed with both partner kinds")
    rows = effects.reset_index(drop=True)
    figure, axes = plt.subplots(figsize=(8.6, 1.1 + 0.7 * len(rows)), layout="constrained")
    positions = np.arange(len(rows))[::-1]
    for position, (_, row) in zip(positions, rows.iterrows(), strict=True):
        colour = CONDITION_COLOURS.get(str(row["condition"]), "black")
        has_interval = not (math.isnan(row["ci_low"]) or math.isnan(row["ci_high"]))
        if has_interval:
            axes.plot([row["ci_low"], row["ci_high"]], [position, position], color=colour, linewidth=2)
        axes.plot(row["estimate"], position, "o", color=colour, markersize=7)
        interval = f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]" if has_interval else "(no interval)"
        axes.annotate(f"{row['estimate']:+.3f} {interval}; {_p_text(row)}", (1.02, position),
                      xycoords=("axes fraction", "data"), va="center", fontsize=TEXT_PT)  # fmt: skip
    axes.axvline(0.0, color="black", linestyle="--", linewidth=1)
    # at least +-MIN_EFFECT_SPAN: a difference of 0.0003 in P(stag) must not fill the panel like a real effect
    low, high = axes.get_xlim()
    axes.set_xlim(min(low, -MIN_EFFECT_SPAN), max(high, MIN_EFFECT_SPAN))
    names = [
        f"{row['condition']}"
        if row["effect"] == "difference"
        else f"difference in differences\n({row['condition']})"
        for _, row in rows.iterrows()
    ]
    axes.set_yticks(positions, names)
    axes.set_ylim(-0.7, len(rows) - 0.3)
    axes.set_xlabel("P(stag | KindA partner) - P(stag | KindB partner), KindA focal, final 10% of training")
    axes.set_title(
        _title("Partner effect (paired by seed; sign-flip p, two-sided)", label, verdict), fontsize=TEXT_PT
    )
    return figure
