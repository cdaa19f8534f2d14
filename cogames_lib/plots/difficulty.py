"""Figures of the hard tier's difficulty: how hard the instances are, and where each policy breaks.

`bound_share_distribution` takes any table with `diagnostic` and `bound_share` columns (a feasibility table,
or a sweep's hard instances, `sweep.instances.instances_frame`); `difficulty_rates` takes
`sweep.difficulty.difficulty_table`. Plots only draw: the rates and intervals come from that table.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from cogames_lib.plots.style import (
    PAGE_WIDTH_IN,
    POLICY_COLOURS,
    POLICY_ORDER,
    TEXT_PT,
    empty_figure,
    new_figure,
    ordered,
    palette,
    require_columns,
)

ORACLE_COLOUR = "#2b2b2b"  # the reference ceiling: not a policy of the style table, never its blue
NEED_COLOUR = "#e08a1e"  # the searcher's need, next to the bound's blue


def bound_share_distribution(table: pd.DataFrame, title: str = "Hard tier: bound / budget") -> plt.Figure:
    """Left: the pooled histogram of bound / budget with its median and 90th percentile (and, where the
    table has `need_share`, the searcher's need as an outline with its median); right: every instance per
    variant (one dot each, jittered; need as a hollow ring), variants in table order."""
    require_columns(table, ["diagnostic", "bound_share"], "bound_share_distribution")
    if table.empty:
        return empty_figure(title, "no hard instances")
    names = list(dict.fromkeys(table["diagnostic"].astype(str)))
    short = {n: n.removeprefix("diagnostic_").removesuffix("_hard") for n in names}
    height = max(4.0, 0.22 * len(names) + 1.2)
    fig, (left, right) = plt.subplots(
        1,
        2,
        figsize=(min(PAGE_WIDTH_IN, 11.0), height),
        gridspec_kw={"width_ratios": [1, 1.3]},
        layout="constrained",
    )
    shares = table["bound_share"].astype(float)
    need = table["need_share"].astype(float) if "need_share" in table.columns else None
    edges = np.linspace(0, 1.0 if need is not None else 0.8, 21 if need is not None else 17)
    left.hist(shares, bins=edges, color="#1b6ca8", edgecolor="white", label="bound")
    for value, label, style in ((shares.median(), "median", "-"), (shares.quantile(0.9), "90th pct", "--")):
        left.axvline(value, color="#d1342f", linestyle=style, label=f"{label} {value:.2f}")
    if need is not None:
        left.hist(
            need, bins=edges, histtype="step", color=NEED_COLOUR, linewidth=1.4, label="searcher's need"
        )
        left.axvline(
            need.median(), color=NEED_COLOUR, linestyle=":", label=f"need median {need.median():.2f}"
        )
    left.set_xlabel("oracle lower bound / step budget" if need is None else "share of the step budget",
                    fontsize=TEXT_PT)  # fmt: skip
    left.set_ylabel(f"instances (n = {len(shares)})", fontsize=TEXT_PT)
    left.legend(fontsize=TEXT_PT, frameon=False)
    left.set_title(title, fontsize=TEXT_PT + 1)
    rng = np.random.default_rng(0)  # jitter only: the same table always draws the same figure
    for index, name in enumerate(names):
        rows = table.loc[table["diagnostic"].astype(str) == name]
        jitter = rng.uniform(-0.25, 0.25, len(rows))
        right.scatter(
            rows["bound_share"].astype(float), index + jitter, s=6, alpha=0.5, color="#1b6ca8", linewidths=0
        )
        if need is not None:
            searched = rows["need_share"].astype(float) > rows["bound_share"].astype(float)
            right.scatter(rows.loc[searched, "need_share"].astype(float), (index + jitter)[searched.to_numpy()],
                          s=8, facecolors="none", edgecolors=NEED_COLOUR, linewidths=0.5, alpha=0.6)  # fmt: skip
    right.set_yticks(range(len(names)), [short[n] for n in names], fontsize=TEXT_PT)
    right.invert_yaxis()
    right.set_xlim(0, 1.02 if need is not None else 0.85)
    right.axvline(0.8, color="#7f7f7f", linewidth=0.8)
    right.set_xlabel("bound / budget per instance" + (" (ring: searcher's need)" if need is not None else ""),
                     fontsize=TEXT_PT)  # fmt: skip
    right.tick_params(axis="x", labelsize=TEXT_PT)
    left.tick_params(labelsize=TEXT_PT)
    return fig


def difficulty_rates(
    table: pd.DataFrame, title: str = "Pass rate by difficulty (hard tier)", share: str = "bound_share"
) -> plt.Figure:
    """Pass rate (Wilson 95% interval) per share bin, one line per policy; `share` names the table's
    measure (`sweep.difficulty.SHARES`) on the x axis."""
    from cogames_lib.sweep.difficulty import SHARES

    require_columns(table, ["policy", "share_bin", "n", "rate", "ci_low", "ci_high"], "difficulty_rates")
    if table.empty:
        return empty_figure(title, "no hard episodes")
    fig, ax = new_figure(6.5, 3.6)
    labels = sorted(dict.fromkeys(table["share_bin"].astype(str)))
    position = {label: i for i, label in enumerate(labels)}
    policies = ordered(table["policy"].astype(str), (*POLICY_ORDER[:1], "oracle", *POLICY_ORDER[1:]))
    colours = palette(policies, {**POLICY_COLOURS, "oracle": ORACLE_COLOUR})
    for offset, policy in zip(np.linspace(-0.1, 0.1, len(policies)), policies, strict=True):
        rows = table[table["policy"].astype(str) == policy]
        x = np.array([position[str(b)] for b in rows["share_bin"]]) + offset
        rate = rows["rate"].to_numpy(dtype=float)
        errors = [rate - rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float) - rate]
        ax.errorbar(x, rate, yerr=errors, marker="o", capsize=3, label=policy, color=colours[policy])
    counts = table.groupby("share_bin", observed=True)["n"].max()
    ax.set_xticks(range(len(labels)), [f"{label}\n(n <= {int(counts.get(label, 0))})" for label in labels])
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel(SHARES.get(share, share), fontsize=TEXT_PT)
    ax.set_ylabel("pass rate", fontsize=TEXT_PT)
    ax.set_title(title, fontsize=TEXT_PT + 1)
    ax.legend(fontsize=TEXT_PT, frameon=False)
    ax.tick_params(labelsize=TEXT_PT)
    return fig
