"""Figures of the diagnostics sweep: one function per figure, the `episodes` table in, a Figure out."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from cogames_lib.finding import interval_text
from cogames_lib.plots.style import (
    MIN_BOX_VALUES,
    PAGE_WIDTH_IN,
    POLICY_COLOURS,
    POLICY_ORDER,
    STATUS_PALETTE,
    TEXT_PT,
    annotated_grid,
    empty_figure,
    new_figure,
    numeric_order,
    ordered,
    palette,
    require_columns,
)
from cogames_lib.plots.summaries import rates
from cogames_lib.tables import EPISODES

# The columns of the episodes table these figures read.
_PLOTTED = EPISODES.pick("policy", "diagnostic", "num_agents", "seed", "status", "success", "steps")


def _diagnostic_order(episodes: pd.DataFrame) -> list[str]:
    # The sweep stores `diagnostic` as a categorical in catalogue order; keep it when present.
    column = episodes["diagnostic"]
    if isinstance(column.dtype, pd.CategoricalDtype):
        present = set(column.astype(str))
        return [str(c) for c in column.cat.categories if str(c) in present]
    return ordered(column, ())


def _cell_label(row: pd.Series) -> str:
    return interval_text(row["rate"], row["ci_low"], row["ci_high"], int(row["n"]), stacked=True)


def pass_rate_heatmap(episodes: pd.DataFrame) -> plt.Figure:
    """Pass rate per (diagnostic, agent count), one panel per policy; each cell: rate, Wilson CI, n.

    Panels wrap into rows so the figure fits a report page at 96 dpi (9 pt text is never scaled down).
    """
    require_columns(episodes, _PLOTTED, "pass_rate_heatmap")
    if episodes.empty:
        return empty_figure("Pass rate", "no episodes")
    policies = ordered(episodes["policy"], POLICY_ORDER)
    diagnostics = _diagnostic_order(episodes)
    counts = numeric_order(episodes["num_agents"])
    table = rates(
        episodes.assign(policy=episodes["policy"].astype(str)),
        ["policy", "diagnostic", "num_agents"],
        "success",
    )
    table["diagnostic"] = table["diagnostic"].astype(str)
    # 9 pt cell labels ("[0.00,0.66]") need ~0.9 in per column; the diagnostic names ~2.6 in
    panel_width = 0.9 * len(counts) + 0.3
    per_row = max(1, min(len(policies), int((PAGE_WIDTH_IN - 3.4) // panel_width)))
    rows = -(-len(policies) // per_row)
    figure, axes_grid = plt.subplots(
        rows,
        per_row,
        figsize=(2.6 + panel_width * per_row + 0.8, rows * (0.5 * len(diagnostics) + 1.2) + 0.6),
        layout="constrained",
        sharey=True,
        squeeze=False,
    )
    names = [d.removeprefix("diagnostic_") for d in diagnostics]
    for index, axes in enumerate(axes_grid.flat):
        if index >= len(policies):
            axes.set_visible(False)
            continue
        policy = policies[index]
        part = table[table["policy"] == policy]
        grid = part.pivot(index="diagnostic", columns="num_agents", values="rate").reindex(
            index=diagnostics, columns=counts
        )
        grid.index = names
        labels = (
            part.assign(label=part.apply(_cell_label, axis=1))
            .pivot(index="diagnostic", columns="num_agents", values="label")
            .reindex(index=diagnostics, columns=counts)
            .fillna("")
        )
        note = annotated_grid(axes, grid, labels, "RdYlGn", "pass rate", colourbar=False)
        axes.set_title(f"{policy}\n({note})" if note else policy)
        axes.set_xlabel("agents")
        axes.set_ylabel("diagnostic" if index % per_row == 0 else "")
    image = next(axes.images[0] for axes in axes_grid.flat if axes.get_visible() and axes.images)
    figure.colorbar(image, ax=axes_grid, label="pass rate", shrink=0.5 if rows == 1 else 0.3)
    figure.suptitle("Pass rate by diagnostic and agent count (Wilson 95% CI; blank = not run)")
    return figure


def outcome_rates(episodes: pd.DataFrame) -> plt.Figure:
    """Timeout and error rates per policy and agent count, with Wilson intervals and n."""
    require_columns(episodes, _PLOTTED, "outcome_rates")
    if episodes.empty:
        return empty_figure("Timeout and error rates", "no episodes")
    frame = episodes.assign(
        policy=episodes["policy"].astype(str),
        timed_out=episodes["status"].astype(str) == "TIMED_OUT",
        run_error=episodes["status"].astype(str) == "RUN_ERROR",
    )
    policies = ordered(frame["policy"], POLICY_ORDER)
    counts = numeric_order(frame["num_agents"])
    figure, axes_list = plt.subplots(1, 2, figsize=(11, 3.8), layout="constrained", sharey=True)
    width = 0.8 / max(1, len(policies))
    colours = palette(policies, POLICY_COLOURS)
    for axes, column, title in zip(
        axes_list, ["timed_out", "run_error"], ["Timeout rate", "Error rate"], strict=True
    ):
        table = rates(frame, ["policy", "num_agents"], column)
        for index, policy in enumerate(policies):
            part = table[table["policy"] == policy].set_index("num_agents").reindex(counts)
            x = np.arange(len(counts)) + (index - (len(policies) - 1) / 2) * width
            errors = np.clip(
                np.vstack([part["rate"] - part["ci_low"], part["ci_high"] - part["rate"]]), 0, None
            )
            axes.bar(
                x,
                part["rate"],
                width=width,
                color=colours[policy],
                label=policy,
                yerr=errors,
                capsize=2,
                error_kw={"elinewidth": 0.8},
            )
            # each bar's own n: the panel total alone hides that a bar may rest on a handful of episodes
            for x_position, n, high in zip(x, part["n"], part["ci_high"], strict=True):
                if pd.notna(n):
                    axes.text(
                        x_position,
                        high + 0.015,
                        f"n={int(n)}",
                        ha="center",
                        va="bottom",
                        fontsize=TEXT_PT,
                        rotation=90 if len(policies) > 4 else 0,
                    )
        axes.set_xticks(np.arange(len(counts)), [str(c) for c in counts])
        axes.set_xlabel("agents")
        axes.set_title(f"{title} (Wilson 95% CI, n={int(table['n'].sum())} episodes)")
        axes.set_ylim(0, 1.18 if len(policies) > 4 else 1.1)
    axes_list[0].set_ylabel("fraction of episodes")
    axes_list[1].legend(title="policy", fontsize=TEXT_PT, loc="upper left", bbox_to_anchor=(1.01, 1))
    return figure


def steps_to_success(episodes: pd.DataFrame) -> plt.Figure:
    """Distribution of steps taken by successful episodes, per diagnostic and policy."""
    require_columns(episodes, _PLOTTED, "steps_to_success")
    successes = episodes[episodes["success"].astype(bool)].copy()
    if successes.empty:
        return empty_figure("Steps to success", "no successful episode")
    successes["policy"] = successes["policy"].astype(str)
    successes["diagnostic"] = successes["diagnostic"].astype(str)
    policies = ordered(successes["policy"], POLICY_ORDER)
    diagnostics = [d for d in _diagnostic_order(episodes) if d in set(successes["diagnostic"])]
    figure, axes = new_figure(9, 0.35 * len(diagnostics) * max(1, len(policies) / 2) + 1.5)
    common = dict(y="diagnostic", x="steps", hue="policy", order=diagnostics, hue_order=policies,
                  palette=palette(policies, POLICY_COLOURS), ax=axes, dodge=True)  # fmt: skip
    sizes = successes.groupby(["diagnostic", "policy"]).size()
    boxed = successes.set_index(["diagnostic", "policy"]).index.map(lambda key: sizes[key] >= MIN_BOX_VALUES)
    if boxed.any():  # a box summarises five or more values; fewer are shown as they are
        sns.boxplot(data=successes[boxed], fliersize=2, linewidth=0.8, **common)
    sns.stripplot(data=successes[~boxed], size=4, jitter=0.15, legend=not boxed.any(), **common)
    axes.set_yticks(range(len(diagnostics)), [d.removeprefix("diagnostic_") for d in diagnostics])
    axes.set_xlabel("steps to success")
    axes.set_ylabel("diagnostic")
    axes.set_title(f"Steps to success ({len(successes)} successful episodes)")
    axes.legend(title="policy", fontsize=TEXT_PT, loc="upper left", bbox_to_anchor=(1.01, 1))
    return figure


def capability_matrix(episodes: pd.DataFrame) -> plt.Figure:
    """Pass rate of each policy / ablation (columns) on each diagnostic (rows), all agent counts pooled,
    Wilson CI and n in every cell. Diagnostics run down the page, so the figure stays page-wide however many
    diagnostics there are (9 pt labels are never scaled down)."""
    require_columns(episodes, _PLOTTED, "capability_matrix")
    if episodes.empty:
        return empty_figure("Capability matrix", "no episodes")
    frame = episodes.assign(
        policy=episodes["policy"].astype(str), diagnostic=episodes["diagnostic"].astype(str)
    )
    policies = ordered(frame["policy"], POLICY_ORDER)
    diagnostics = _diagnostic_order(episodes)
    table = rates(frame, ["policy", "diagnostic"], "success")
    grid = table.pivot(index="diagnostic", columns="policy", values="rate").reindex(
        index=diagnostics, columns=policies
    )
    labels = (
        # the same rate / Wilson interval / n label as the pass-rate heatmap: a 0.50 on n=4 is not a 0.50 on n=40
        table.assign(label=table.apply(_cell_label, axis=1))
        .pivot(index="diagnostic", columns="policy", values="label")
        .reindex(index=diagnostics, columns=policies)
        .fillna("")
    )
    grid.index = [d.removeprefix("diagnostic_") for d in diagnostics]
    # 9 pt cell labels ("[0.00,0.56]") need ~0.9 in of width and three lines of height per cell
    figure, axes = new_figure(max(5.0, 3.4 + 0.95 * len(policies)), 0.5 * len(diagnostics) + 2.2)
    note = annotated_grid(axes, grid, labels, "RdYlGn", "pass rate")
    axes.xaxis.tick_top()
    axes.xaxis.set_label_position("top")
    axes.set_xticks(range(len(policies)), policies, rotation=30, ha="left")
    axes.set_ylabel("diagnostic")
    axes.set_xlabel("policy / ablation")
    title = "Capability matrix: pass rate (agent counts pooled; Wilson 95% CI)"
    axes.set_title(f"{title}\n({note})" if note else title)
    return figure


def status_count_bars(episodes: pd.DataFrame) -> plt.Figure:
    """Episode outcomes per policy as stacked bars in the fixed status order and colours."""
    require_columns(episodes, _PLOTTED, "status_count_bars")
    if episodes.empty:
        return empty_figure("Episode outcomes", "no episodes")
    frame = episodes.assign(policy=episodes["policy"].astype(str), status=episodes["status"].astype(str))
    policies = ordered(frame["policy"], POLICY_ORDER)
    statuses = [s for s in STATUS_PALETTE if s in set(frame["status"])]
    counts = (
        frame.groupby(["policy", "status"])
        .size()
        .unstack(fill_value=0)
        .reindex(index=policies, columns=statuses)
    )
    figure, axes = new_figure(7, 0.4 * len(policies) + 1.5)
    left = np.zeros(len(policies))
    for status in statuses:
        axes.barh(policies, counts[status], left=left, color=STATUS_PALETTE[status], label=status)
        left += counts[status].to_numpy()
    axes.invert_yaxis()
    axes.set_xlabel("episodes")
    axes.set_ylabel("policy")
    axes.set_title("Episode outcomes")
    axes.legend(fontsize=TEXT_PT, loc="upper left", bbox_to_anchor=(1.01, 1))
    return figure
