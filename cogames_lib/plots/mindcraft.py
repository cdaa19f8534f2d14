"""Figures of the Mindcraft outcomes: the `mindcraft_runs` table (or a rate table derived from it) in."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from cogames_lib.plots.style import (
    MIN_BOX_VALUES,
    STATUS_PALETTE,
    STATUSES,
    TEXT_PT,
    empty_figure,
    new_figure,
    require_columns,
)
from cogames_lib.plots.summaries import status_fractions
from cogames_lib.tables import RATE_COLUMNS

STATUS_COLUMN = "overall_completion_status"


def _category_labels(values: pd.Series) -> list[str]:
    # Agent counts and depths are numbers: keep numeric order; task types keep their observed order.
    distinct = list(dict.fromkeys(values.dropna().tolist()))
    try:
        distinct = sorted(distinct)
    except TypeError:
        distinct = sorted(distinct, key=str)
    return [str(v) for v in distinct]


def status_breakdown(runs: pd.DataFrame, by: Sequence[str] = ("task_type", "agent_count")) -> plt.Figure:
    """Completion-status shares as stacked bars, one panel per grouping column; n above each bar."""
    require_columns(runs, [STATUS_COLUMN, *by], "status_breakdown")
    if runs.empty:
        return empty_figure("Completion status", "no task folders")
    figure, axes_list = plt.subplots(
        1, len(by), figsize=(5.2 * len(by) + 1.8, 4), layout="constrained", squeeze=False
    )
    frame = runs.assign(**{STATUS_COLUMN: runs[STATUS_COLUMN].astype(str)})
    frame[STATUS_COLUMN] = pd.Categorical(frame[STATUS_COLUMN], categories=list(STATUSES), ordered=True)
    for axes, column in zip(axes_list[0], by, strict=True):
        groups = _category_labels(frame[column])
        part = frame.dropna(subset=[column]).assign(**{column: lambda f, c=column: f[c].astype(str)})
        fractions = status_fractions(part, column, STATUS_COLUMN)
        table = (
            fractions.pivot(index=column, columns=STATUS_COLUMN, values="fraction").reindex(groups).fillna(0)
        )
        totals = part.groupby(column).size().reindex(groups).fillna(0).astype(int)
        bottom = np.zeros(len(groups))
        for status in STATUSES:
            if status not in table.columns or not table[status].any():
                continue
            axes.bar(groups, table[status], bottom=bottom, color=STATUS_PALETTE[status], label=status)
            bottom += table[status].to_numpy()
        for x, total in enumerate(totals):
            axes.text(x, 1.01, f"n={total}", ha="center", va="bottom", fontsize=TEXT_PT)
        axes.set_ylim(0, 1.1)
        axes.set_xlabel(column)
        axes.set_ylabel("share of task folders")
        axes.set_title(f"Completion status by {column}")
    handles, labels = [], []
    for axes in axes_list[0]:
        for handle, label in zip(*axes.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    order = [labels.index(s) for s in STATUSES if s in labels]
    axes_list[0][-1].legend(
        [handles[i] for i in order],
        [labels[i] for i in order],
        fontsize=TEXT_PT,
        loc="upper left",
        bbox_to_anchor=(1.01, 1),
    )
    return figure


def success_rates(rate_table: pd.DataFrame, category: str, title: str | None = None) -> plt.Figure:
    """Success rate per category with its Wilson interval and successes/n (a summary helper's table in).

    When the table has several models (`model_name`), bars are grouped per category, one colour per model.
    """
    require_columns(rate_table, [category, *RATE_COLUMNS], "success_rates")
    name = title or f"Success rate by {category}"
    table = rate_table.dropna(subset=[category])
    if table.empty:
        return empty_figure(name, "no task folders")
    models = (
        [str(m) for m in dict.fromkeys(table["model_name"].astype(str))]
        if "model_name" in table.columns
        else [""]
    )
    labels = _category_labels(table[category])
    figure, axes = new_figure(max(4.5, 0.9 * len(labels) * max(1, len(models) / 1.5) + 2.5), 3.6)
    width = 0.8 / len(models)
    colours = sns.color_palette("deep", len(models)) if len(models) > 1 else [STATUS_PALETTE["SUCCESS"]]
    for index, model in enumerate(models):
        part = table if model == "" else table[table["model_name"].astype(str) == model]
        part = part.assign(_label=part[category].astype(str)).set_index("_label").reindex(labels)
        x = np.arange(len(labels)) + (index - (len(models) - 1) / 2) * width
        errors = np.clip(np.vstack([part["rate"] - part["ci_low"], part["ci_high"] - part["rate"]]), 0, None)
        axes.bar(
            x,
            part["rate"],
            width=width,
            color=colours[index],
            yerr=errors,
            capsize=3,
            alpha=0.85,
            label=model or None,
        )
        for xi, high, n, successes in zip(x, part["ci_high"], part["n"], part["successes"], strict=True):
            if pd.notna(n):
                axes.text(  # above the interval's top, so the error bar never crosses the label
                    xi,
                    min(1.0, high) + 0.02,
                    f"{int(successes)}/{int(n)}",
                    ha="center",
                    va="bottom",
                    fontsize=TEXT_PT,
                )
    axes.set_xticks(
        np.arange(len(labels)),
        labels,
        rotation=30 if max(len(s) for s in labels) > 8 else 0,
        ha="right" if max(len(s) for s in labels) > 8 else "center",
    )
    axes.set_ylim(0, 1.15)
    axes.set_xlabel(category)
    axes.set_ylabel("success rate")
    axes.set_title(f"{name} (Wilson 95% CI)")
    if len(models) > 1:
        axes.legend(title="model", fontsize=TEXT_PT, loc="upper left", bbox_to_anchor=(1.01, 1))
    return figure


def construction_scores(runs: pd.DataFrame, score_column: str = "overall_raw_score") -> plt.Figure:
    """Distribution of construction scores (0..1, 1 = complete blueprint): points, over a box from five."""
    require_columns(runs, ["task_type", score_column], "construction_scores")
    scores = runs[(runs["task_type"].astype(str) == "construction")].dropna(subset=[score_column])
    if scores.empty:
        return empty_figure("Construction scores", "no scored construction task")
    figure, axes = new_figure(6.5, 2.8)
    if len(scores) >= MIN_BOX_VALUES:
        sns.boxplot(x=scores[score_column], ax=axes, color="#dddddd", fliersize=0, linewidth=0.8)
    sns.stripplot(
        x=scores[score_column], ax=axes, color=STATUS_PALETTE["FAILED_PARTIAL_SCORE"], size=4, jitter=0.2
    )
    axes.set_xlim(-0.05, 1.05)
    axes.set_xlabel("construction score (fraction of blueprint built)")
    axes.set_title(
        f"Construction score distribution (n={len(scores)}, mean {scores[score_column].mean():.2f})"
    )
    return figure


COMPARISON_GROUP_LABELS = {"overall": "all tasks", "task_type": "task type", "agent_count": "agents"}


def model_difference(comparison: pd.DataFrame, title: str | None = None) -> plt.Figure:
    """Success-rate difference A - B per group (overall, each task type, each agent count) with its
    bootstrap interval over paired tasks; n and the McNemar p beside each row (`compare_models` table in)."""
    require_columns(
        comparison,
        ["group", "value", "n_tasks", "difference", "ci_low", "ci_high", "mcnemar_p"],
        "model_difference",
    )
    model_a = comparison.attrs.get("model_a", "A")
    model_b = comparison.attrs.get("model_b", "B")
    name = title or f"{model_a} minus {model_b}: success rate on the same tasks"
    table = comparison[comparison["n_tasks"] > 0].reset_index(drop=True)
    if table.empty:
        return empty_figure(name, "no task both models ran")
    labels = [
        COMPARISON_GROUP_LABELS.get(group, group) + ("" if group == "overall" else f": {value}")
        for group, value in zip(table["group"], table["value"], strict=True)
    ]
    figure, axes = new_figure(7.5, 0.55 * len(table) + 1.6)
    y = np.arange(len(table))[::-1]
    has_interval = table["ci_low"].notna() & table["ci_high"].notna()
    errors = np.vstack([table["difference"] - table["ci_low"], table["ci_high"] - table["difference"]])
    errors = np.where(has_interval.to_numpy(), np.clip(errors, 0, None), 0)
    axes.errorbar(table["difference"], y, xerr=errors, fmt="o", color="#333333", capsize=3)
    axes.axvline(0, color="#999999", linewidth=0.8, linestyle="--")
    for yi, n, p, interval in zip(y, table["n_tasks"], table["mcnemar_p"], has_interval, strict=True):
        note = f"n={int(n)}, McNemar p={p:.2f}" + ("" if interval else " (no interval)")
        axes.text(1.07, yi, note, va="center", ha="left", fontsize=TEXT_PT)
    axes.set_yticks(y, labels)
    axes.set_xlim(-1.05, 1.05)
    axes.set_xlabel(f"success rate {model_a} - {model_b} (bootstrap 95% CI over tasks)")
    axes.set_title(name)
    return figure
