"""The few aggregations the figures draw, as pure functions over tidy tables (unit-tested on their own).

Binary rates get Wilson intervals (`stats.rate_table`); means get a percentile bootstrap over the
independent unit (seeds when the table has several, else the rows themselves: agents, maps, versions).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from cogames_lib.stats import bootstrap_interval, rate_table

MEAN_COLUMNS = ["n", "mean", "ci_low", "ci_high"]


def rates(frame: pd.DataFrame, by: str | Sequence[str] | None, success_column: str) -> pd.DataFrame:
    """Per group: n, successes, rate, ci_low, ci_high (Wilson)."""
    return rate_table(frame, by, success_column)


def mean_with_interval(
    frame: pd.DataFrame,
    by: Sequence[str],
    value: str,
    unit: str | None = "seed",
    n_resamples: int = 1000,
) -> pd.DataFrame:
    """Per group of `by`: n (rows), mean of `value`, bootstrap interval over `unit`.

    Rows are first averaged within each unit (seed) so that correlated rows from one training run do
    not pose as independent evidence; with fewer than two units the bootstrap runs over the rows.
    The bootstrap seed is fixed, so the same table always gives the same interval.
    """
    keys = list(by)
    records: list[dict[str, object]] = []
    usable = frame.dropna(subset=[value])
    for group_key, group in usable.groupby(keys, observed=True, sort=True):
        key_tuple = group_key if isinstance(group_key, tuple) else (group_key,)
        if unit is not None and unit in group.columns and group[unit].nunique() >= 2:
            samples = group.groupby(unit, observed=True)[value].mean().to_numpy(dtype=float)
        else:
            samples = group[value].to_numpy(dtype=float)
        estimate, low, high = bootstrap_interval(samples, "mean", n_resamples=n_resamples, seed=0)
        record = dict(zip(keys, key_tuple, strict=True))
        record.update(n=len(group), mean=estimate, ci_low=low, ci_high=high)
        records.append(record)
    return pd.DataFrame.from_records(records, columns=[*keys, *MEAN_COLUMNS])


def status_fractions(frame: pd.DataFrame, by: str, status_column: str = "status") -> pd.DataFrame:
    """Long table: one row per (group, status) with count and fraction of the group's rows."""
    counts = frame.groupby([by, status_column], observed=False).size().rename("count").reset_index()
    totals = counts.groupby(by, observed=False)["count"].transform("sum")
    counts["fraction"] = np.where(totals > 0, counts["count"] / totals.where(totals > 0, 1), 0.0)
    return counts
