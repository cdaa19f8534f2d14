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
from cogames_lib.tables import STUDY_CURVE_COLUMNS, STUDY_EFFECT_COLUMNS

CURVE_COLUMNS = ("epoch", *STUDY_CURVE_COLUMNS)
METRIC_LABELS = {
    "stags_killed": "stag kills per episode",
    "mean_return": "return per episode (mean over agents)",
}
MIN_EFFECT_SPAN = 0.05
SCALE_LABELS = {
    "p_stag": "P(stag): same-kind - other-kind partner",
    "q_gap": "Q gap (Q_stag - Q_hare): same - other",
    "argmax": "argmax choice of the stag step: same - other",
}
ACTING_LABELS = {"approached_stag": "stood next to a stag", "attacked_stag": "attacked a stag"}


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


def _forest(axes: plt.Axes, rows: pd.DataFrame, names: list[str], span: float, digits: int = 3) -> None:
    positions = np.arange(len(rows))[::-1]
    for position, (_, row) in zip(positions, rows.iterrows(), strict=True):
        colour = CONDITION_COLOURS.get(str(row["condition"]), "black")
        has_interval = not (pd.isna(row["ci_low"]) or pd.isna(row["ci_high"]))
        if has_interval:
            axes.plot([row["ci_low"], row["ci_high"]], [position, position], color=colour, linewidth=2)
        axes.plot(row["estimate"], position, "o", color=colour, markersize=6)
        low, high = row["ci_low"], row["ci_high"]
        interval = f"[{low:.{digits}f}, {high:.{digits}f}]" if has_interval else "(no interval)"
        axes.annotate(f"{row['estimate']:+.{digits}f} {interval}\n{_p_text(row)}", (1.02, position),
                      xycoords=("axes fraction", "data"), va="center", fontsize=TEXT_PT)  # fmt: skip
    axes.axvline(0.0, color="black", linestyle="--", linewidth=1)
    # at least +-span: a difference of 0.0003 in P(stag) must not fill the panel like a real effect
    low, high = axes.get_xlim()
    axes.set_xlim(min(low, -span), max(high, span))
    axes.set_yticks(positions, names)
    axes.set_ylim(-0.7, len(rows) - 0.3)


def partner_effect_forest(
    effects: pd.DataFrame, label: str = "", verdict: str = "", side: str = "all"
) -> plt.Figure:
    """`social.partner_effect` output: a panel per scale (P(stag), Q gap, argmax), a row per condition (then
    the difference in differences) at partner side `side` (`all`, `stag`, `hare`, `equidistant`): the
    estimate with its 95% interval across seeds, sign-flip p, a line at 0 (no effect)."""
    require_columns(effects, STUDY_EFFECT_COLUMNS, "partner_effect_forest")
    rows = effects[effects["partner_side"].astype(str) == side]
    if rows.empty:
        return empty_figure(
            "Partner effect", f"no focal probed with both partner kinds (partner side {side})"
        )
    scales = [scale for scale in SCALE_LABELS if scale in set(rows["scale"])]
    conditions = ordered(rows.loc[rows["effect"] == "difference", "condition"], CONDITION_ORDER)
    height = 1.4 + 0.55 * (len(conditions) + 1)
    figure, axes_row = plt.subplots(1, len(scales), figsize=(5.2 * len(scales), height), layout="constrained",
                                    squeeze=False)  # fmt: skip
    for index, (axes, scale) in enumerate(zip(axes_row[0], scales, strict=True)):
        part = rows[rows["scale"] == scale]
        ordered_rows = pd.concat([part[(part["effect"] == "difference") & (part["condition"] == c)] for c in conditions]
                                 + [part[part["effect"] != "difference"]])  # fmt: skip
        names = [str(row["condition"]) if row["effect"] == "difference" else f"diff. in diff.\n({row['condition']})"
                 for _, row in ordered_rows.iterrows()]  # fmt: skip
        _forest(axes, ordered_rows.reset_index(drop=True), names if index == 0 else [""] * len(names),
                MIN_EFFECT_SPAN if scale != "q_gap" else 4 * MIN_EFFECT_SPAN,
                digits=3 if scale == "argmax" else 4)  # as the findings: 0.0004 in P(stag) must not read 0.000  # fmt: skip
        axes.set_xlabel(SCALE_LABELS[scale], fontsize=TEXT_PT)
    where = "every partner position" if side == "all" else f"partner on the {side} side"
    figure.suptitle(_title(f"Partner effect, focal hunters, {where}, left/right bias removed (paired by seed; "
                           "two-sided sign-flip p)", label, verdict), fontsize=TEXT_PT)  # fmt: skip
    return figure


def acting_partner_forest(effects: pd.DataFrame, label: str = "", verdict: str = "") -> plt.Figure:
    """`social.acting_partner_effect` output: a panel per measure (stood next to a stag, attacked a stag), a
    row per condition: the focal's share of episodes beside a same-kind minus beside an other-kind trained,
    acting partner, with its 95% interval across seeds."""
    require_columns(effects, ["condition", "metric", "n_seeds", "estimate", "ci_low", "ci_high", "p_sign_flip"],
                    "acting_partner_forest")  # fmt: skip
    rows = effects[effects["metric"].isin(list(ACTING_LABELS))]
    if rows.empty:
        return empty_figure("Acting partners", "no acting-partner episodes")
    conditions = ordered(rows["condition"], CONDITION_ORDER)
    figure, axes_row = plt.subplots(1, len(ACTING_LABELS), figsize=(10.4, 1.4 + 0.55 * len(conditions)),
                                    layout="constrained", squeeze=False)  # fmt: skip
    for index, (axes, metric) in enumerate(zip(axes_row[0], ACTING_LABELS, strict=True)):
        part = rows[rows["metric"] == metric].set_index("condition").reindex(conditions).reset_index()
        _forest(axes, part, conditions if index == 0 else [""] * len(conditions), MIN_EFFECT_SPAN)
        axes.set_xlabel(f"share of episodes the focal {ACTING_LABELS[metric]}:\nsame-kind - other-kind partner",
                        fontsize=TEXT_PT)  # fmt: skip
    figure.suptitle(_title("Behaviour beside trained partners that act (greedy, paired by seed)", label, verdict),
                    fontsize=TEXT_PT)  # fmt: skip
    return figure
