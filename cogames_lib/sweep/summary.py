"""Aggregates of the `episodes` table: pass rates with n and Wilson intervals, derived, never stored alone."""

from __future__ import annotations

import pandas as pd

from cogames_lib.errors import ParameterError
from cogames_lib.outcomes import CompletionStatus
from cogames_lib.tables import SWEEP_SUMMARY

SUMMARY_KEYS: tuple[str, ...] = SWEEP_SUMMARY.key


def summarise(episodes: pd.DataFrame, by: tuple[str, ...] | list[str] = SUMMARY_KEYS) -> pd.DataFrame:
    """Pass rate per group (default: policy, diagnostic, num_agents).

    Columns: the group keys, n, successes, rate, ci_low, ci_high (Wilson 95%), timed_out and run_errors
    (counts). Categorical keys keep their category order (policies as given, diagnostics as registered).
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
    return table.merge(counts, on=keys, how="left")


def pass_rate_grid(episodes: pd.DataFrame, policy: str) -> pd.DataFrame:
    """For one policy: diagnostics as rows, agent counts as columns, cells "rate [low, high] n=N"."""
    part = episodes[episodes["policy"].astype(str) == policy]
    table = summarise(part, ("diagnostic", "num_agents"))
    table["cell"] = [
        f"{rate:.2f} [{low:.2f},{high:.2f}] n={n}"
        for rate, low, high, n in zip(
            table["rate"], table["ci_low"], table["ci_high"], table["n"], strict=True
        )
    ]
    grid = table.pivot(index="diagnostic", columns="num_agents", values="cell")
    if isinstance(part["diagnostic"].dtype, pd.CategoricalDtype):
        order = [d for d in part["diagnostic"].cat.categories if d in grid.index]
        grid = grid.reindex(order)
    return grid.fillna("-")
