"""Fixed category orders and colours shared by every figure.

A policy, a partner condition or a status keeps the same colour in every figure of every report, so a
reader never has to re-learn a legend. Colours are data tables; names not listed get a stable colour from
a fallback palette chosen by sorted position (so an unknown user policy is still deterministic).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from cogames_lib.outcomes import STATUS_COLOURS, STATUS_ORDER

# Reference policies first (best first), then the ablations of `scripted` in the spec's switch order.
POLICY_ORDER: tuple[str, ...] = (
    "scripted",
    "scripted:-memory",
    "scripted:-explore",
    "scripted:-pathfinding",
    "scripted:-chorus",
    "scripted:-recharge",
    "scripted:-unclip",
    "random",
    "noop",
)
POLICY_COLOURS: dict[str, str] = {
    "scripted": "#1b6ca8",
    "scripted:-memory": "#5aa9e6",
    "scripted:-explore": "#2a9d8f",
    "scripted:-pathfinding": "#8ab17d",
    "scripted:-chorus": "#e9c46a",
    "scripted:-recharge": "#f4a261",
    "scripted:-unclip": "#e76f51",
    "random": "#8d6e63",
    "noop": "#7f7f7f",
}

# Probe tests: who stands next to the focal agent, and which population was trained.
PARTNER_ORDER: tuple[str, ...] = ("no_partner", "AgentKindA", "AgentKindB")
PARTNER_COLOURS: dict[str, str] = {"no_partner": "#7f7f7f", "AgentKindA": "#1b6ca8", "AgentKindB": "#d1342f"}
CONDITION_ORDER: tuple[str, ...] = (
    "all_can_hunt",
    "not_all_can_hunt",
    "roles_swapped",
    "two_of_each",
    "kind_shuffled",
)
CONDITION_COLOURS: dict[str, str] = {"all_can_hunt": "#2e9e44", "not_all_can_hunt": "#7b3fa0", "roles_swapped": "#d17a00",
                                     "two_of_each": "#1f6fb4", "kind_shuffled": "#7f7f7f"}  # fmt: skip
AGENT_KIND_ORDER: tuple[str, ...] = ("AgentKindA", "AgentKindB")

STATUS_PALETTE: dict[str, str] = {str(k): v for k, v in STATUS_COLOURS.items()}
STATUSES: tuple[str, ...] = STATUS_ORDER

# The smallest text any figure sets, in points: readable at 100% zoom in an HTML report.
TEXT_PT = 9.0
# Figures are saved at the browser's 96 pixels per inch, so a point in a figure is a point on the page at
# 100% zoom, and a figure at most PAGE_WIDTH_IN wide is never scaled down by a report page (1190 px of
# content): text set at TEXT_PT stays at least TEXT_PT on screen.
SCREEN_DPI = 96
PAGE_WIDTH_IN = 1190 / SCREEN_DPI
# Fewer values than this in a group are drawn as points, not summarised by a box.
MIN_BOX_VALUES = 5

FALLBACK_PALETTE: tuple[str, ...] = tuple(
    matplotlib.colors.to_hex(c)
    for c in plt.get_cmap("tab20").colors  # type: ignore[attr-defined]
)


def ordered(values: Iterable[object], preferred: Sequence[str]) -> list[str]:
    """Observed values as strings: those in `preferred` in its order, then the rest sorted."""
    present = {str(v) for v in values if not pd.isna(v)}
    known = [name for name in preferred if name in present]
    return known + sorted(present - set(known))


def palette(names: Sequence[str], table: dict[str, str]) -> dict[str, str]:
    """Colour per name: the fixed table first, then fallback colours by position among unknown names."""
    unknown = [name for name in names if name not in table]
    colours = dict(table)
    for index, name in enumerate(sorted(unknown)):
        colours[name] = FALLBACK_PALETTE[index % len(FALLBACK_PALETTE)]
    return {name: colours[name] for name in names}


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """'1 agent', '2 agents' (labels read as sentences, not as '1 agents')."""
    return f"{count} {noun if count == 1 else (plural_form or noun + 's')}"


def numeric_order(values: Iterable[Any]) -> list[Any]:
    """Sorted distinct values (agent counts, epochs): numbers sort as numbers."""
    return sorted({v for v in values if not pd.isna(v)})


def new_figure(width: float, height: float) -> tuple[plt.Figure, plt.Axes]:
    # `constrained` layout keeps titles and colour bars from overlapping without per-figure tuning.
    figure, axes = plt.subplots(figsize=(width, height), layout="constrained")
    return figure, axes


def require_columns(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    """Plots take tidy tables; a missing column is a caller mistake, named in one line."""
    from cogames_lib.errors import ParameterError

    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise ParameterError(f"{what}: table is missing column(s) {missing} (has {list(frame.columns)})")


def empty_figure(title: str, message: str) -> plt.Figure:
    """A figure that says there is nothing to draw (instead of an exception or a blank canvas)."""
    figure, axes = new_figure(6, 2)
    axes.set_title(title)
    axes.text(0.5, 0.5, message, ha="center", va="center", transform=axes.transAxes)
    axes.set_axis_off()
    return figure


def annotated_grid(
    axes: plt.Axes,
    values: pd.DataFrame,
    labels: pd.DataFrame | None,
    cmap: str,
    colourbar_label: str,
    fontsize: float = TEXT_PT,
    colourbar: bool = True,
    scale: str = "fixed",
) -> str | None:
    """A heatmap of `values` (NaN cells left blank) with one text label per cell.

    `scale="fixed"` colours 0..1 (a pass rate keeps its meaning across panels); `"data"` stretches the
    colours over the values present, so agreements of 0.8-1.0 do not read as one solid colour. When every
    cell holds the same value the returned note says so, for the caller to put in the title (otherwise
    None), and a `"data"` scale draws no colour bar (it would show nothing).

    imshow plus plain text is several times faster than seaborn's annotated heatmap on report-sized
    grids, which matters for the quick report's minute budget.
    """
    data = values.to_numpy(dtype=float)
    finite = data[np.isfinite(data)]
    all_equal = finite.size > 0 and bool(np.all(finite == finite[0]))
    low, high = (0.0, 1.0)
    if scale == "data" and finite.size and not all_equal:
        low, high = float(finite.min()), float(finite.max())
    image = axes.imshow(data, cmap=cmap, vmin=low, vmax=high, aspect="auto", interpolation="nearest")
    colour_map = image.get_cmap()
    if labels is not None:
        for (row, column), text in np.ndenumerate(labels.to_numpy(dtype=object)):
            value = data[row, column]
            if not text or np.isnan(value):
                continue
            red, green, blue, _ = colour_map((value - low) / (high - low))
            dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5  # light text on dark cells
            axes.text(
                column,
                row,
                str(text),
                ha="center",
                va="center",
                fontsize=fontsize,
                color="white" if dark else "black",
            )
    axes.set_xticks(range(values.shape[1]), [str(c) for c in values.columns])
    axes.set_yticks(range(values.shape[0]), [str(i) for i in values.index])
    axes.tick_params(length=0)
    for spine in axes.spines.values():
        spine.set_visible(False)
    if colourbar and not (all_equal and scale == "data"):
        axes.figure.colorbar(image, ax=axes, label=colourbar_label, shrink=0.6)
    if not all_equal:
        return None
    return f"all {finite.size} cells {finite[0]:.2f}" if finite.size > 1 else f"one cell: {finite[0]:.2f}"
