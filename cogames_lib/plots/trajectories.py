"""Pictures of episodes over their map: where each agent went in a (failed) episode; the redundancy map.

The map is drawn with the engine's own object colours (`cvc.render.OBJECT_COLOURS`) so a station looks
the same here as in a rendered frame.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from cogames_lib.plots.style import TEXT_PT, annotated_grid, empty_figure, new_figure, plural, require_columns
from cogames_lib.tables import TRACES

_PLOTTED = TRACES.pick("step", "agent", "row", "col")
CROP_MARGIN = 4  # cells shown around the agents' paths
AGENT_LINE_COLOURS = ("#1b6ca8", "#d1342f", "#2e9e44", "#7b3fa0", "#f0a202", "#111111")


def _map_image(cells: Sequence[Sequence[str]]) -> np.ndarray:
    from cogames_lib.cvc.render import OBJECT_COLOURS

    unknown = (255, 0, 255)  # a name the renderer does not know stands out rather than hiding
    return np.array([[OBJECT_COLOURS.get(name, unknown) for name in row] for row in cells], dtype=np.uint8)


def episode_trajectory(trace: pd.DataFrame, cells: Sequence[Sequence[str]], title: str) -> plt.Figure:
    """One episode's agent paths (row/col per step) over its map: start circle, end cross, one colour each."""
    require_columns(trace, _PLOTTED, "episode_trajectory")
    if trace.empty:
        return empty_figure(title, "no trace rows")
    image = _map_image(cells)
    # Large maps: show the part the agents used, with a margin, so a short failed walk stays readable.
    top, bottom = (
        max(0, trace["row"].min() - CROP_MARGIN),
        min(image.shape[0] - 1, trace["row"].max() + CROP_MARGIN),
    )
    left, right = (
        max(0, trace["col"].min() - CROP_MARGIN),
        min(image.shape[1] - 1, trace["col"].max() + CROP_MARGIN),
    )
    height, width = bottom - top + 1, right - left + 1
    figure, axes = new_figure(min(10, 2.5 + width * 0.3), min(10, 1.2 + height * 0.3))
    axes.imshow(image, interpolation="nearest")
    for agent, path in trace.sort_values("step").groupby("agent", sort=True):
        colour = AGENT_LINE_COLOURS[int(agent) % len(AGENT_LINE_COLOURS)]
        # a small per-agent offset keeps overlapping paths of several agents visible
        offset = (int(agent) - 0.5 * (trace["agent"].nunique() - 1)) * 0.12
        xs, ys = path["col"].to_numpy() + offset, path["row"].to_numpy() + offset
        axes.plot(
            xs,
            ys,
            color=colour,
            linewidth=1.4,
            alpha=0.85,
            label=f"agent {agent} ({plural(len(path) - 1, 'step')})",
        )
        axes.scatter(xs[:1], ys[:1], color=colour, marker="o", s=40, edgecolor="white", zorder=3)
        axes.scatter(xs[-1:], ys[-1:], color=colour, marker="X", s=60, edgecolor="white", zorder=3)
    axes.set_xlim(left - 0.5, right + 0.5)
    axes.set_ylim(bottom + 0.5, top - 0.5)  # rows grow downward, as in the map file
    axes.set_xticks([])
    axes.set_yticks([])
    axes.set_xlabel("column")
    axes.set_ylabel("row")
    axes.set_title(title, fontsize=TEXT_PT)
    axes.legend(fontsize=TEXT_PT, loc="upper left", bbox_to_anchor=(1.01, 1))
    return figure


def redundancy_heatmap(pairs: pd.DataFrame) -> plt.Figure:
    """Pass/fail agreement between diagnostics, clustered; pairs flagged `redundant` are outlined in red.

    Takes the tidy pairs table of `diagnostics.redundancy.redundancy` (one row per pair: agreement,
    n_shared, redundant); the matrix and its clustered order come from the same module.
    """
    from cogames_lib.diagnostics.redundancy import agreement_matrix, linkage_order

    require_columns(
        pairs, ["diagnostic_a", "diagnostic_b", "agreement", "n_shared", "redundant"], "redundancy_heatmap"
    )
    if pairs.empty:
        return empty_figure("Redundancy", "fewer than two diagnostics to compare")
    matrix = agreement_matrix(pairs)
    order = linkage_order(matrix) if len(matrix) > 2 else list(matrix.index)
    matrix = matrix.reindex(index=order, columns=order)
    labels = [str(name).removeprefix("diagnostic_") for name in order]
    size = 3 + 0.38 * len(labels)
    figure, axes = new_figure(size + 1.2, size)
    shown = pd.DataFrame(matrix.to_numpy(dtype=float), index=labels, columns=labels)
    texts = shown.map(lambda v: f"{v:.2f}") if len(labels) <= 12 else None
    note = annotated_grid(axes, shown, texts, "viridis", "agreement (shared cells)", scale="data")
    axes.set_xticks(range(len(labels)), labels, rotation=90)
    position = {name: index for index, name in enumerate(order)}
    flagged = pairs[pairs["redundant"].astype(bool)]
    for row in flagged.itertuples(index=False):
        i, j = position[row.diagnostic_a], position[row.diagnostic_b]
        for x, y in ((i, j), (j, i)):
            axes.add_patch(
                plt.Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=1.5)
            )
    axes.tick_params(labelsize=TEXT_PT)
    axes.set_xlabel("diagnostic")
    axes.set_ylabel("diagnostic")
    cells = int(pairs["n_shared"].max()) if len(pairs) else 0
    axes.set_title(
        f"Pass/fail agreement between diagnostics (up to {cells} shared cells; "
        f"red: redundant, {plural(len(flagged), 'pair')})" + (f"\n({note})" if note else ""),
        fontsize=TEXT_PT,
    )
    return figure
