"""Figures of a learned agent's capability emergence: the aggregates of `cogames_lib.learn.emergence_summary`
in, a Figure out (nothing is computed here)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from cogames_lib.plots.style import (
    PAGE_WIDTH_IN,
    annotated_grid,
    empty_figure,
    numeric_order,
    palette,
    require_columns,
)

_GRID_COLUMNS = ("diagnostic", "num_agents", "step", "n_seeds", "n", "rate")
_CURVE_COLUMNS = ("family", "num_agents", "step", "n_seeds", "rate", "ci_low", "ci_high")


def step_text(step: int) -> str:
    """Training steps as a reader counts them: 950, 20k, 1.5M."""
    if step >= 1_000_000:
        return f"{step / 1_000_000:.3g}M"
    if step >= 1_000:
        return f"{step / 1_000:.3g}k"
    return str(int(step))


def emergence_heatmap(grid: pd.DataFrame, title: str = "") -> plt.Figure:
    """Pass rate per (diagnostic x agent count) row and training-step column, episodes pooled over the
    training seeds (`emergence_grid`); each cell prints the rate and its n (episodes)."""
    require_columns(grid, _GRID_COLUMNS, "emergence_heatmap")
    if grid.empty:
        return empty_figure("Capability emergence", "no checkpoints evaluated")
    steps = numeric_order(grid["step"])
    rows = list(
        dict.fromkeys(zip(grid["diagnostic"].astype(str), grid["num_agents"].astype(int), strict=True))
    )
    names = [f"{d.removeprefix('diagnostic_')} x{a}" for d, a in rows]
    keyed = grid.assign(
        row=list(zip(grid["diagnostic"].astype(str), grid["num_agents"].astype(int), strict=True))
    )
    values = keyed.pivot(index="row", columns="step", values="rate").reindex(index=rows, columns=steps)
    labels = (
        keyed.assign(label=[f"{r:.2f}\nn={int(n)}" for r, n in zip(keyed["rate"], keyed["n"], strict=True)])
        .pivot(index="row", columns="step", values="label")
        .reindex(index=rows, columns=steps)
        .fillna("")
    )
    values.index, labels.index = names, names
    values.columns = labels.columns = [step_text(s) for s in steps]
    width = min(PAGE_WIDTH_IN, 3.0 + 0.75 * len(steps) + 1.2)
    figure, axes = plt.subplots(figsize=(width, 0.42 * len(rows) + 1.6), layout="constrained")
    note = annotated_grid(axes, values, labels, "RdYlGn", "pass rate", fontsize=7)
    axes.set_xlabel("training step (agent-steps)")
    axes.set_ylabel("diagnostic x agents")
    seeds = int(grid["n_seeds"].max())
    heading = title or "Capability emergence"
    axes.set_title(
        f"{heading}\npass rate on held-out episodes, pooled over {seeds} training seed{'s' if seeds != 1 else ''}"
        + (f"\n({note})" if note else "")
    )
    return figure


def family_curves(curves: pd.DataFrame, reliable_rate: float | None = 0.8, title: str = "") -> plt.Figure:
    """Pass rate by capability family over training, one panel per agent count: the mean over training
    seeds with its Student-t 95% band (`learn.emergence_summary.family_curves`)."""
    require_columns(curves, _CURVE_COLUMNS, "family_curves")
    if curves.empty:
        return empty_figure("Pass rate by capability family", "no checkpoints evaluated")
    counts = numeric_order(curves["num_agents"])
    families = sorted(curves["family"].astype(str).unique())
    colours = palette(families, {})  # stable colours by sorted position
    figure, axes_list = plt.subplots(
        1,
        len(counts),
        figsize=(min(PAGE_WIDTH_IN, 4.2 * len(counts) + 1.8), 3.8),
        layout="constrained",
        sharey=True,
        squeeze=False,
    )
    for axes, count in zip(axes_list[0], counts, strict=True):
        part = curves[curves["num_agents"] == count]
        for family in families:
            line = part[part["family"].astype(str) == family].sort_values("step")
            if line.empty:
                continue
            colour = colours.get(family, "grey")
            axes.plot(line["step"], line["rate"], marker="o", ms=3, color=colour, label=family)
            band = line.dropna(subset=["ci_low", "ci_high"])
            if len(band):
                axes.fill_between(band["step"], band["ci_low"], band["ci_high"], color=colour, alpha=0.15)
        if reliable_rate is not None:
            axes.axhline(reliable_rate, color="black", lw=0.8, ls=":")
        axes.set_title(f"{count} agent{'s' if count != 1 else ''}")
        axes.set_xlabel("training step (agent-steps)")
        axes.set_ylim(-0.03, 1.03)
        ticks = axes.get_xticks()
        axes.set_xticks(ticks, [step_text(int(t)) if t >= 0 else "" for t in ticks])
        low = float(np.min(part["step"])) if len(part) else 0.0
        high = float(np.max(curves["step"])) or 1.0
        if high <= low:  # one checkpoint (a final-only evaluation): a window around it, not an empty one
            low, high = low - max(1.0, 0.05 * abs(low)), high + max(1.0, 0.05 * abs(high))
        axes.set_xlim(low, high)
    axes_list[0][0].set_ylabel("pass rate (mean over training seeds)")
    handles, names = [], []
    for axes in axes_list[0]:
        for handle, name in zip(*axes.get_legend_handles_labels(), strict=True):
            if name not in names:
                handles.append(handle)
                names.append(name)
    figure.legend(handles, names, loc="outside right center", title="family")
    seeds = int(curves["n_seeds"].max())
    band = "Student-t 95% over seeds" if seeds >= 2 else "one seed: no interval"
    dotted = f"; dotted: the {reliable_rate:g} bar" if reliable_rate is not None else ""
    figure.suptitle(
        f"{title or 'Pass rate by capability family'} (n = {seeds} training seeds, {band}{dotted})"
    )
    return figure


_MIRROR_COLUMNS = ("policy", "diagnostic", "num_agents", "map", "n", "successes")


def mirror_heatmap(
    table: pd.DataFrame, maps: tuple[str, ...], policies: tuple[str, ...] = (), title: str = ""
) -> plt.Figure:
    """The mirror control (`learn.mirror_control.mirror_table`): one panel per policy (the learned
    checkpoints pooled over training seeds; `policies` first, in that order, then the others), a row per
    (diagnostic x agent count), a column per map in `maps` order; each cell prints the pass rate and
    successes / episodes."""
    require_columns(table, _MIRROR_COLUMNS, "mirror_heatmap")
    if table.empty:
        return empty_figure("Mirror control", "no episodes")
    pooled = table.groupby(["policy", "diagnostic", "num_agents", "map"], sort=False)[
        ["n", "successes"]
    ].sum()
    pooled = pooled.reset_index()
    pooled["rate"] = pooled["successes"] / pooled["n"]
    rows = list(
        dict.fromkeys(zip(pooled["diagnostic"].astype(str), pooled["num_agents"].astype(int), strict=True))
    )
    names = [f"{d.removeprefix('diagnostic_')} x{a}" for d, a in rows]
    present = list(dict.fromkeys(pooled["policy"].astype(str)))
    order = [name for name in policies if name in present] + [
        name for name in present if name not in policies
    ]
    figure, axes_list = plt.subplots(
        1,
        len(order),
        figsize=(min(PAGE_WIDTH_IN, 2.4 * len(order) + 2.6), 0.42 * len(rows) + 1.8),
        layout="constrained",
        sharey=True,
        squeeze=False,
    )
    for index, (axes, policy) in enumerate(zip(axes_list[0], order, strict=True)):
        part = pooled[pooled["policy"].astype(str) == policy].assign(
            row=lambda f: list(zip(f["diagnostic"].astype(str), f["num_agents"].astype(int), strict=True))
        )
        values = part.pivot(index="row", columns="map", values="rate").reindex(index=rows, columns=list(maps))
        labels = (
            part.assign(
                label=[
                    f"{r:.2f}\n{int(s)}/{int(n)}"
                    for r, s, n in zip(part["rate"], part["successes"], part["n"], strict=True)
                ]
            )
            .pivot(index="row", columns="map", values="label")
            .reindex(index=rows, columns=list(maps))
            .astype(object)  # a map no row played is an all-NaN float column
            .fillna("")
        )
        values.index, labels.index = names, names
        last = index == len(order) - 1
        annotated_grid(axes, values, labels, "RdYlGn", "pass rate", fontsize=7, colourbar=last)
        axes.set_title(policy)
        axes.set_xlabel("map")
        axes.tick_params(axis="x", labelrotation=30)
    axes_list[0][0].set_ylabel("diagnostic x agents")
    figure.suptitle(title or "Mirror control: the same maps, mirrored")
    return figure


_RUN_SUMMARY_COLUMNS = ("run", "policy", "group", "rate", "ci_low", "ci_high")
_RUN_SEED_COLUMNS = ("run", "policy", "training_seed", "group", "rate")


def map_group_comparison(
    summary: pd.DataFrame, seed_rates: pd.DataFrame, groups: tuple[str, ...], title: str = ""
) -> plt.Figure:
    """Runs' mirror controls side by side (`learn.mirror_control.runs_by_map_group`): per map group (x, in
    `groups` order), each run's learned checkpoints as the mean over training seeds with its interval and
    each seed's own rate as a dot; the baselines as short grey ticks (scripted above, random below)."""
    require_columns(summary, _RUN_SUMMARY_COLUMNS, "map_group_comparison")
    require_columns(seed_rates, _RUN_SEED_COLUMNS, "map_group_comparison")
    learned_rows = summary[summary["policy"] == "learned"]
    if learned_rows.empty:
        return empty_figure("Mirror control by map group", "no learned checkpoints")
    runs = list(dict.fromkeys(learned_rows["run"].astype(str)))
    colours = palette(runs, {})
    figure, axes = plt.subplots(
        figsize=(min(PAGE_WIDTH_IN, 1.8 * len(groups) + 2.6), 3.8), layout="constrained"
    )
    width = 0.6 / max(1, len(runs))
    for index, run in enumerate(runs):
        offset = (index - (len(runs) - 1) / 2) * width
        rows = learned_rows[learned_rows["run"] == run].set_index("group").reindex(list(groups))
        x = np.arange(len(groups)) + offset
        axes.errorbar(x, rows["rate"], yerr=[rows["rate"] - rows["ci_low"], rows["ci_high"] - rows["rate"]],
                      fmt="o", ms=7, capsize=4, color=colours[run], label=run)  # fmt: skip
        seeds = seed_rates[(seed_rates["run"] == run) & (seed_rates["policy"] == "learned")]
        for position, group in enumerate(groups):
            dots = seeds[seeds["group"] == group]["rate"]
            axes.plot(np.full(len(dots), position + offset + width * 0.3), dots, "_", ms=9, mew=1.5,
                      color=colours[run], alpha=0.7)  # fmt: skip
    for policy, marker in (("scripted", "v"), ("random", "^")):
        rows = summary[summary["policy"] == policy].drop_duplicates("group").set_index("group")
        rows = rows.reindex(list(groups))
        if rows["rate"].notna().any():  # right of each group's runs, clear of their intervals
            x = np.arange(len(groups)) + (len(runs) / 2 + 0.3) * width
            axes.plot(x, rows["rate"], marker, ms=6, color="grey", ls="none", label=policy)
    axes.set_xticks(np.arange(len(groups)), list(groups))
    axes.set_xlim(-0.6, len(groups) - 0.4)
    axes.set_ylim(-0.03, 1.03)
    axes.set_ylabel("pass rate")
    axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    seeds_n = int(
        seed_rates[seed_rates["policy"] == "learned"].groupby("run")["training_seed"].nunique().min()
    )
    axes.set_title(
        f"{title or 'Mirror control by map group'}\nmean over {seeds_n} training seeds, Student-t 95%; "
        "dashes: each seed; grey: baselines (Wilson 95% in the table)",
        fontsize=9,
    )
    return figure
