"""The performance profile of a suite-level comparison (`sweep.compare`): draws, computes nothing."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from cogames_lib.plots.style import POLICY_COLOURS, TEXT_PT, new_figure, palette, require_columns
from cogames_lib.tables import PERFORMANCE_PROFILE


def performance_profile(profile: pd.DataFrame, title: str | None = None) -> plt.Figure:
    """Fraction of (diagnostic, agent count) cells whose pass rate is above each threshold, one step line
    per policy with its stratified bootstrap 95% band (a `PolicyComparison.profile_table()`). A curve above
    another at every threshold dominates it (rliable's performance profile)."""
    require_columns(profile, PERFORMANCE_PROFILE.columns, "performance_profile")
    policies = list(dict.fromkeys(profile["policy"].astype(str)))
    colours = palette(policies, POLICY_COLOURS)
    figure, axes = new_figure(5.2, 3.2)
    for policy in policies:
        part = profile[profile["policy"].astype(str) == policy].sort_values("threshold")
        colour = colours[policy]
        axes.step(part["threshold"], part["fraction"], where="post", color=colour, label=policy, linewidth=2)
        axes.fill_between(part["threshold"], part["low"], part["high"], step="post", color=colour, alpha=0.2)
    axes.set_xlim(0, 1)
    axes.set_ylim(-0.05, 1.05)  # a curve at 0 or 1 stays visible off the frame
    axes.set_xlabel("pass rate threshold τ")
    axes.set_ylabel("fraction of cells with pass rate > τ")
    axes.set_title(title or "Performance profile (95% stratified bootstrap bands)", fontsize=TEXT_PT + 1)
    axes.legend(fontsize=TEXT_PT, frameon=False)
    axes.grid(alpha=0.3)
    return figure
