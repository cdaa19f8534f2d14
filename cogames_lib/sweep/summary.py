"""Aggregates of the `episodes` table: pass rates with n and Wilson intervals, derived, never stored alone."""

from __future__ import annotations

import pandas as pd

from cogames_lib.errors import ParameterError
from cogames_lib.finding import interval_text
from cogames_lib.outcomes import CompletionStatus
from cogames_lib.tables import SWEEP_SUMMARY

SUMMARY_KEYS: tuple[str, ...] = SWEEP_SUMMARY.key


def summarise(episodes: pd.DataFrame, by: tuple[str, ...] | list[str] = SUMMARY_KEYS) -> pd.DataFrame:
    """Pass rate per group (default: policy, diagnostic, num_agents).

    Columns: the group keys, n, successes, rate, ci_low, ci_high (Wilson 95%), timed_out and run_errors
    (counts), and `tier` (normal / hard / custom) last when grouping by diagnostic without tier.
    Categorical keys keep their category order (policies as given, diagnostics as registered).
    """
    # scipy.stats is imported on use so that `import cogames_lib.sweep` stays light
    from cogames_lib.stats import rate_table

    keys = list(by)
    missing = [column for column in [*keys, "success", "status"] if column not in episodes.columns]
    if missing:
        raise ParameterError(f"summarise: the episodes table has no column(s) {missing}")
    table = rate_table(episodes, keys, "success")
    status = episodes["status"].astype(str)
    counts = (
        episodes.assign(
            timed_out=(status == CompletionStatus.TIMED_OUT.value).astype(int),
            run_errors=(status == CompletionStatus.RUN_ERROR.value).astype(int),
        )
        .groupby(keys, observed=True, sort=True)[["timed_out", "run_errors"]]
        .sum()
        .reset_index()
    )
    table = table.merge(counts, on=keys, how="left")
    if "tier" in episodes.columns and "diagnostic" in keys and "tier" not in keys:
        tier_of = dict(zip(episodes["diagnostic"].astype(str), episodes["tier"].astype(str), strict=True))
        table["tier"] = table["diagnostic"].astype(str).map(tier_of)
    return table


def pass_rate_grid(episodes: pd.DataFrame, policy: str) -> pd.DataFrame:
    """For one policy: diagnostics as rows, agent counts as columns, cells "rate [low, high] (n = N)"."""
    part = episodes[episodes["policy"].astype(str) == policy]
    table = summarise(part, ("diagnostic", "num_agents"))
    table["cell"] = [
        interval_text(rate, low, high, n)
        for rate, low, high, n in zip(
            table["rate"], table["ci_low"], table["ci_high"], table["n"], strict=True
        )
    ]
    grid = table.pivot(index="diagnostic", columns="num_agents", values="cell")
    if isinstance(part["diagnostic"].dtype, pd.CategoricalDtype):
        order = [d for d in part["diagnostic"].cat.categories if d in grid.index]
        grid = grid.reindex(order)
    return grid.fillna("-")


CEILING_COLUMNS = (
    "diagnostic",
    "tier",
    "num_agents",
    "n",
    "rate",
    "ceiling_rate",
    "steps",
    "ceiling_steps",
)


def against_ceiling(
    episodes: pd.DataFrame, policy: str = "scripted", ceiling: str = "oracle"
) -> pd.DataFrame:
    """A policy against the oracle ceiling, per (diagnostic, tier, num_agents) of a sweep that ran both.

    rate / ceiling_rate: pass rates; steps / ceiling_steps: mean steps of the passed episodes (NaN if
    none). A cell where the ceiling passes and the policy does not is the policy's shortfall; a cell the
    ceiling fails says the budget, not the policy, is the problem (see sweep.feasibility).
    """
    missing = {policy, ceiling} - set(episodes["policy"].astype(str))
    if missing:
        raise ParameterError(f"against_ceiling: the episodes table has no rows of {sorted(missing)}")
    keys = ["diagnostic", "tier", "num_agents"]
    frames = []
    for name, prefix in ((policy, ""), (ceiling, "ceiling_")):
        part = episodes[episodes["policy"].astype(str) == name]
        grouped = part.assign(passed_steps=part["steps"].where(part["success"].astype(bool))).groupby(
            keys, observed=True, sort=True
        )
        frame = grouped.agg(n=("success", "size"), rate=("success", "mean"), steps=("passed_steps", "mean"))
        frames.append(frame.rename(columns={"rate": f"{prefix}rate", "steps": f"{prefix}steps"}))
    table = frames[0].join(frames[1].drop(columns="n"), how="outer").reset_index()
    return table[list(CEILING_COLUMNS)]
