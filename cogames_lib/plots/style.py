"""Fixed category orders and colours shared by every figure.

A policy, a partner condition or a status keeps the same colour in every figure of every report, so a
reader never has to re-learn a legend. Colours are data tables; names not listed get a stable colour from
a fallback palette chosen by sorted position (so an unknown user policy is still deterministic).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import matplotlib
import matplotlib.pyplot as plt
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
CONDITION_ORDER: tuple[str, ...] = ("all_can_hunt", "not_all_can_hunt")
CONDITION_COLOURS: dict[str, str] = {"all_can_hunt": "#2e9e44", "not_all_can_hunt": "#7b3fa0"}
AGENT_KIND_ORDER: tuple[str, ...] = ("AgentKindA", "AgentKindB")

STATUS_PALETTE: dict[str, str] = {str(k): v for k, v in STATUS_COLOURS.items()}
STATUSES: tuple[str, ...] = STATUS_ORDER

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


def numeric_order(values: Iterable[object]) -> list[object]:
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
