"""Figures of the stag-hunt probe tests: training metrics, `probe_intention`, `probe_multistep` in.

Intervals are bootstrap intervals over seeds (or over agents, maps and versions within one seed);
the reference lines (ratio 1, result 0.5) mark indifference between stag and hare.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from cogames_lib.plots.style import (
    AGENT_KIND_ORDER,
    CONDITION_COLOURS,
    CONDITION_ORDER,
    PARTNER_COLOURS,
    PARTNER_ORDER,
    TEXT_PT,
    empty_figure,
    ordered,
    palette,
    require_columns,
)
from cogames_lib.plots.summaries import mean_with_interval, rates
from cogames_lib.stats import pearson_or_reason
from cogames_lib.tables import PROBE_INTENTION, PROBE_MULTISTEP

# The columns of the probe tables these figures read.
_INTENTION_PLOTTED = PROBE_INTENTION.pick(
    "epoch", "agent_id", "map_name", "partner_kind", "version", "weight_facing_stag", "weight_facing_hare"
)
_MULTISTEP_PLOTTED = PROBE_MULTISTEP.columns
ALIGNMENT_COLUMNS = ("epoch", "partner_kind", "p_stag_intention", "result", "agrees")


def _unit(frame: pd.DataFrame) -> str | None:
    # A "seed" (our runs) or "run_id" (several sorrel folders) is the independent unit when present.
    return next((c for c in ("seed", "run_id") if c in frame.columns), None)


def _n_label(part: pd.DataFrame) -> str:
    """What one point's interval rests on, for the panel title: seeds, or rows of a single seed."""
    unit = _unit(part)
    units = part[unit].nunique() if unit else 0
    if units >= 2:
        return f"n={units} seeds per point"
    # one seed: the band is over agents/rows of that run, which says nothing about other seeds
    rows = int(part.groupby(["partner_kind", "epoch"], observed=True).size().max()) if len(part) else 0
    return f"1 seed, n={rows} rows per point"


def _with_condition(frame: pd.DataFrame) -> pd.DataFrame:
    if "condition" in frame.columns:
        return frame.assign(condition=frame["condition"].astype(str))
    return frame.assign(condition="all")


def _partner_frame(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str], dict[str, str]]:
    """The frame with string condition and partner columns, the partners present in fixed order, their colours."""
    frame = _with_condition(frame).assign(partner_kind=lambda f: f["partner_kind"].astype(str))
    partners = ordered(frame["partner_kind"], PARTNER_ORDER)
    return frame, partners, palette(partners, PARTNER_COLOURS)


def _line_with_band(axes: plt.Axes, table: pd.DataFrame, colour: str, label: str, style: str = "-") -> None:
    axes.plot(table["epoch"], table["mean"], style, color=colour, label=label, marker="o", markersize=3)
    axes.fill_between(
        table["epoch"], table["ci_low"], table["ci_high"], color=colour, alpha=0.18, linewidth=0
    )


def _panels(conditions: Sequence[str], height: float = 3.4) -> tuple[plt.Figure, np.ndarray]:
    figure, axes = plt.subplots(
        1,
        len(conditions),
        figsize=(5.2 * len(conditions) + 1.6, height),
        layout="constrained",
        sharey=True,
        squeeze=False,
    )
    return figure, axes[0]


def training_curves(metrics: pd.DataFrame, value_columns: Sequence[str], window: int = 10) -> plt.Figure:
    """One panel per metric (e.g. mean return, stags killed, epsilon) over epochs, one line per condition.

    A rolling mean over `window` epochs smooths the per-episode noise; the raw values stay in the table.
    """
    require_columns(metrics, ["epoch", *value_columns], "training_curves")
    if metrics.empty:
        return empty_figure("Training curves", "no training epochs")
    frame = _with_condition(metrics)
    conditions = ordered(frame["condition"], CONDITION_ORDER)
    colours = palette(conditions, CONDITION_COLOURS)
    figure, axes_list = plt.subplots(
        1,
        len(value_columns),
        figsize=(3.9 * len(value_columns) + 1.2, 3.2),
        layout="constrained",
        squeeze=False,
    )
    for axes, column in zip(axes_list[0], value_columns, strict=True):
        for condition in conditions:
            per_epoch = frame[frame["condition"] == condition].groupby("epoch")[column].mean()
            smooth = per_epoch.rolling(window, min_periods=1).mean()
            axes.plot(per_epoch.index, smooth.to_numpy(), color=colours[condition], label=condition)
        axes.set_xlabel("epoch")
        axes.set_ylabel(column)
        axes.set_title(f"{column} (rolling mean, {window} epochs)", fontsize=TEXT_PT)
    axes_list[0][-1].legend(title="condition", fontsize=TEXT_PT)
    return figure


def intention_weights(intention: pd.DataFrame) -> plt.Figure:
    """Mean stag-facing (solid) and hare-facing (dashed) weight per epoch and partner, per condition."""
    require_columns(intention, _INTENTION_PLOTTED, "intention_weights")
    if intention.empty:
        return empty_figure("Intention weights", "no intention probe rows")
    frame, partners, colours = _partner_frame(intention)
    conditions = ordered(frame["condition"], CONDITION_ORDER)
    figure, axes_list = _panels(conditions)
    for axes, condition in zip(axes_list, conditions, strict=True):
        part = frame[frame["condition"] == condition]
        for column, style, word in (
            ("weight_facing_stag", "-", "stag"),
            ("weight_facing_hare", "--", "hare"),
        ):
            table = mean_with_interval(part, ["partner_kind", "epoch"], column, unit=_unit(part))
            for partner in partners:
                _line_with_band(
                    axes,
                    table[table["partner_kind"] == partner],
                    colours[partner],
                    f"{partner} ({word})",
                    style,
                )
        axes.set_title(
            f"{condition}: intention weights\n(95% bootstrap CI, {_n_label(part)})", fontsize=TEXT_PT
        )
        axes.set_xlabel("epoch")
        axes.set_ylim(0, 1)
    axes_list[0].set_ylabel("softmax weight of the turn")
    axes_list[-1].legend(fontsize=TEXT_PT, loc="upper left", bbox_to_anchor=(1.01, 1))
    return figure


def intention_ratio(intention: pd.DataFrame) -> plt.Figure:
    """Stag-to-hare weight ratio per epoch and partner, per condition; dashed line at 1 (indifference)."""
    require_columns(intention, _INTENTION_PLOTTED, "intention_ratio")
    if intention.empty:
        return empty_figure("Intention ratio", "no intention probe rows")
    frame, partners, colours = _partner_frame(intention)
    hare = frame["weight_facing_hare"].where(frame["weight_facing_hare"] > 0)
    frame = frame.assign(stag_hare_ratio=frame["weight_facing_stag"] / hare)
    conditions = ordered(frame["condition"], CONDITION_ORDER)
    figure, axes_list = _panels(conditions)
    for axes, condition in zip(axes_list, conditions, strict=True):
        part = frame[frame["condition"] == condition]
        table = mean_with_interval(part, ["partner_kind", "epoch"], "stag_hare_ratio", unit=_unit(part))
        for partner in partners:
            _line_with_band(axes, table[table["partner_kind"] == partner], colours[partner], partner)
        axes.axhline(1.0, color="black", linestyle="--", linewidth=1)
        axes.set_title(
            f"{condition}: stag / hare weight ratio\n(95% bootstrap CI, {_n_label(part)})", fontsize=9
        )
        axes.set_xlabel("epoch")
    axes_list[0].set_ylabel("w_stag / w_hare")
    axes_list[-1].legend(title="partner", fontsize=TEXT_PT, loc="upper left", bbox_to_anchor=(1.01, 1))
    return figure


def multistep_results(multistep: pd.DataFrame) -> plt.Figure:
    """Mean multi-step result (1 stag, 0 hare, 0.5 no attack) per epoch and partner, a row per agent kind."""
    require_columns(multistep, _MULTISTEP_PLOTTED, "multistep_results")
    if multistep.empty:
        return empty_figure("Multi-step probe", "no multi-step probe rows")
    frame, partners, colours = _partner_frame(multistep)
    if "agent_kind" not in frame.columns:
        frame["agent_kind"] = "all agents"
    frame["agent_kind"] = frame["agent_kind"].astype(str)
    conditions = ordered(frame["condition"], CONDITION_ORDER)
    kinds = ordered(frame["agent_kind"], AGENT_KIND_ORDER)
    figure, axes_grid = plt.subplots(
        len(kinds),
        len(conditions),
        figsize=(5.2 * len(conditions) + 1.6, 2.9 * len(kinds) + 0.4),
        layout="constrained",
        sharey=True,
        squeeze=False,
    )
    for row, kind in enumerate(kinds):
        for column, condition in enumerate(conditions):
            axes = axes_grid[row][column]
            part = frame[(frame["condition"] == condition) & (frame["agent_kind"] == kind)]
            table = mean_with_interval(part, ["partner_kind", "epoch"], "result", unit=_unit(part))
            for partner in partners:
                _line_with_band(axes, table[table["partner_kind"] == partner], colours[partner], partner)
            axes.axhline(0.5, color="black", linestyle="--", linewidth=1)
            axes.set_ylim(-0.05, 1.05)
            axes.set_title(f"{condition} / {kind} ({_n_label(part)})", fontsize=TEXT_PT)
            axes.set_xlabel("epoch")
            axes.set_ylabel("result (1 = stag first)" if column == 0 else "")
    axes_grid[0][-1].legend(title="partner", fontsize=TEXT_PT, loc="upper left", bbox_to_anchor=(1.01, 1))
    figure.suptitle("Multi-step probe: first attack target (95% bootstrap CI)")
    return figure


def alignment(pairs: pd.DataFrame) -> plt.Figure:
    """Intention P(stag) against behaviour (left) and the agreement rate over epochs (right).

    Takes `staghunt.alignment_pairs` output: one row per (run, epoch, agent, partner) with
    `p_stag_intention`, `result` and `agrees` (NaN when the focal never attacked, so not counted).
    The agreement rate is a binary rate: Wilson interval, n = probes with an attack.
    """
    require_columns(pairs, ALIGNMENT_COLUMNS, "alignment")
    frame = pairs.dropna(subset=["p_stag_intention", "result"])
    if frame.empty:
        return empty_figure("Intention-behaviour alignment", "no aligned probe rows")
    frame, partners, colours = _partner_frame(frame)
    conditions = ordered(frame["condition"], CONDITION_ORDER)
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8), layout="constrained")
    jitter = np.random.default_rng(0).uniform(-0.03, 0.03, len(frame))  # fixed seed: same picture every run
    for partner in partners:
        part = (frame["partner_kind"] == partner).to_numpy()
        left.scatter(
            frame.loc[part, "p_stag_intention"],
            frame.loc[part, "result"] + jitter[part],
            s=10,
            alpha=0.6,
            color=colours[partner],
            label=partner,
        )
    _, correlation = pearson_or_reason(frame["p_stag_intention"], frame["result"])
    left.axvline(0.5, color="grey", linestyle=":", linewidth=1)
    left.axhline(0.5, color="grey", linestyle=":", linewidth=1)
    left.set_xlabel("intention P(stag) = w_stag / (w_stag + w_hare)")
    left.set_ylabel("behaviour (multi-step result)")
    left.set_title(f"Intention vs behaviour (n={len(frame)}, Pearson r: {correlation})", fontsize=TEXT_PT)
    attacked = frame.dropna(subset=["agrees"]).assign(agrees=lambda f: f["agrees"].astype(bool))
    styles = dict(zip(conditions, ["-", "--", ":", "-."], strict=False))
    if not attacked.empty:
        table = rates(attacked, ["condition", "partner_kind", "epoch"], "agrees")
        for (condition, partner), part in table.groupby(["condition", "partner_kind"], sort=False):
            band = part.rename(columns={"rate": "mean"})
            label = partner if len(conditions) == 1 else f"{condition} / {partner}"
            _line_with_band(right, band, colours[partner], label, styles.get(condition, "-"))
    right.set_ylim(-0.05, 1.05)
    right.set_xlabel("epoch")
    right.set_ylabel("agreement rate")
    right.set_title(
        f"Intention-behaviour agreement (Wilson 95% CI, n={len(attacked)} attacks)", fontsize=TEXT_PT
    )
    if right.lines:
        right.legend(fontsize=TEXT_PT, loc="upper left", bbox_to_anchor=(1.01, 1))
    return figure
