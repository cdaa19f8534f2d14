"""Pictures of episodes over their map: where each agent went in a (failed) episode; the redundancy map.

The map is drawn with the engine's own object colours (`cvc.render.OBJECT_COLOURS`) so a station looks
the same here as in a rendered frame.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from cogames_lib.plots.style import empty_figure, new_figure, require_columns

TRACE_COLUMNS = ("step", "agent", "row", "col")
AGENT_LINE_COLOURS = ("#1b6ca8", "#d1342f", "#2e9e44", "#7b3fa0", "#f0a202", "#111111")


def _map_image(cells: Sequence[Sequence[str]]) -> np.ndarray:
    from cogames_lib.cvc.render import OBJECT_COLOURS

    unknown = (255, 0, 255)  # a name the renderer does not know stands out rather than hiding
    return np.array([[OBJECT_COLOURS.get(name, unknown) for name in row] for row in cells], dtype=np.uint8)


def episode_trajectory(trace: pd.DataFrame, cells: Sequence[Sequence[str]], title: str) -> plt.Figure:
    """One episode's agent paths (row/col per step) over its map: start circle, end cross, one colour each."""
    require_columns(trace, TRACE_COLUMNS, "episode_trajectory")
    if trace.empty:
        return empty_figure(title, "no trace rows")
    image = _map_image(cells)
    height, width = image.shape[:2]
    figure, axes = new_figure(min(10, 1.5 + width * 0.28), min(10, 1.2 + height * 0.28))
    axes.imshow(image, interpolation="nearest")
    for agent, path in trace.sort_values("step").groupby("agent", sort=True):
        colour = AGENT_LINE_COLOURS[int(agent) % len(AGENT_LINE_COLOURS)]
        # a small per-agent offset keeps overlapping paths of several agents visible
        offset = (int(agent) - 0.5 * (trace["agent"].nunique() - 1)) * 0.12
        xs, ys = path["col"].to_numpy() + offset, path["row"].to_numpy() + offset
        axes.plot(
            xs, ys, color=colour, linewidth=1.4, alpha=0.85, label=f"agent {agent} ({len(path) - 1} steps)"
        )
        axes.scatter(xs[:1], ys[:1], color=colour, marker="o", s=40, edgecolor="white", zorder=3)
        axes.scatter(xs[-1:], ys[-1:], color=colour, marker="X", s=60, edgecolor="white", zorder=3)
    axes.set_xticks([])
    axes.set_yticks([])
    axes.set_xlabel("column")
    axes.set_ylabel("row")
    axes.set_title(title, fontsize=9)
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return figure


def redundancy_heatmap(agreement: pd.DataFrame, threshold: float | None = None) -> plt.Figure:
    """Clustered heatmap of pass/fail agreement between diagnostics (a square diagnostic x diagnostic table).

    Pairs at or above `threshold` are outlined: they rarely disagree, so one of them may be redundant.
    """
    if agreement.empty or agreement.shape[0] < 2:
        return empty_figure("Redundancy", "fewer than two diagnostics to compare")
    if list(agreement.index) != list(agreement.columns):
        from cogames_lib.errors import ParameterError

        raise ParameterError("redundancy_heatmap: the agreement table must be square with the same labels")
    matrix = agreement.astype(float).copy()
    labels = [str(name).removeprefix("diagnostic_") for name in matrix.index]
    matrix.index, matrix.columns = labels, labels
    size = 2.5 + 0.42 * len(labels)
    filled = matrix.fillna(0.5)  # clustering needs numbers; a pair never compared sits in the middle
    try:
        grid = sns.clustermap(
            filled,
            vmin=0,
            vmax=1,
            cmap="viridis",
            figsize=(size, size),
            annot=len(labels) <= 12,
            fmt=".2f",
            annot_kws={"fontsize": 6},
            cbar_kws={"label": "agreement"},
        )
    except (ValueError, FloatingPointError):  # degenerate distances (e.g. all identical): no clustering
        grid = sns.clustermap(
            filled,
            vmin=0,
            vmax=1,
            cmap="viridis",
            figsize=(size, size),
            row_cluster=False,
            col_cluster=False,
            cbar_kws={"label": "agreement"},
        )
    axes = grid.ax_heatmap
    if threshold is not None:
        order = [
            labels[i]
            for i in (grid.dendrogram_row.reordered_ind if grid.dendrogram_row else range(len(labels)))
        ]
        for i, row in enumerate(order):
            for j, column in enumerate(order):
                if i != j and filled.loc[row, column] >= threshold:
                    axes.add_patch(plt.Rectangle((j, i), 1, 1, fill=False, edgecolor="red", linewidth=1.5))
    axes.set_xlabel("diagnostic")
    axes.set_ylabel("diagnostic")
    suffix = f"; red: >= {threshold:.2f}" if threshold is not None else ""
    grid.figure.suptitle(f"Pass/fail agreement between diagnostics{suffix}", fontsize=10)
    return grid.figure
