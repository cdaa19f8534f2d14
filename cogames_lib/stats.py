"""Honest intervals: Wilson score intervals for rates, a bootstrap over seeds, the interquartile mean.

Pure functions over numbers and tidy tables; nothing here draws. `rate_table` is the one helper every
summary uses, so every rate in the library carries its n and its interval the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from cogames_lib.errors import ParameterError
from cogames_lib.tables import RATE_COLUMNS

DEFAULT_CONFIDENCE = 0.95


def wilson_interval(successes: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; (nan, nan) when n == 0.

    Never the Wald interval: Wald collapses to a zero-width interval at 0/n and n/n, exactly the
    pass/fail rates a diagnostic suite produces most often.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ParameterError(f"wilson_interval: need 0 <= successes <= n, got successes={successes}, n={n}")
    if not 0 < confidence < 1:
        raise ParameterError(f"wilson_interval: confidence must be in (0, 1), got {confidence}")
    if n == 0:
        return (float("nan"), float("nan"))
    z = float(scipy_stats.norm.ppf(0.5 + confidence / 2))
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half_width = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # At 0/n and n/n the bound is exactly 0 or 1 algebraically; rounding would leave 1 - 1e-16, which
    # makes a bar's upper error negative and the interval exclude the observed rate.
    low = 0.0 if successes == 0 else max(0.0, centre - half_width)
    high = 1.0 if successes == n else min(1.0, centre + half_width)
    return (float(low), float(high))


def rate_table(
    frame: pd.DataFrame,
    by: str | Sequence[str] | None,
    success_column: str,
    confidence: float = DEFAULT_CONFIDENCE,
) -> pd.DataFrame:
    """Per group: n, successes, rate, ci_low, ci_high (Wilson). `by=None` gives one overall row.

    `success_column` holds booleans (or 0/1); missing values are not counted in n. Category order of
    categorical group columns is kept (observed groups only).
    """
    columns = list(RATE_COLUMNS)
    values = frame[success_column]
    usable = frame.loc[values.notna()].copy()
    usable["_success"] = usable[success_column].astype(bool).astype(int)

    def summarise(group: pd.DataFrame) -> pd.Series:
        n = len(group)
        successes = int(group["_success"].sum())
        low, high = wilson_interval(successes, n, confidence)
        rate = successes / n if n else float("nan")
        return pd.Series([n, successes, rate, low, high], index=columns)

    if by is None:
        result = summarise(usable).to_frame().T
    else:
        keys = [by] if isinstance(by, str) else list(by)
        result = usable.groupby(keys, observed=True, sort=True)[["_success"]].apply(summarise).reset_index()
    result["n"] = result["n"].astype(int)
    result["successes"] = result["successes"].astype(int)
    return result.reset_index(drop=True)


def interquartile_mean(values: Sequence[float] | np.ndarray) -> float:
    """Mean of the middle 50% of values (scipy's trimmed mean, 25% cut from each end)."""
    array = np.asarray(values, dtype=float)
    if array.size == 0:
        return float("nan")
    return float(scipy_stats.trim_mean(array, 0.25))


def bootstrap_interval(
    per_seed_values: Sequence[float] | np.ndarray,
    statistic: str = "mean",
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """(estimate, low, high) of `statistic` ("mean" or "iqm") by a percentile bootstrap over seeds.

    One value per seed goes in: seeds are the independent unit. With fewer than two values there is no
    interval (low and high are NaN: an interval "from n = 1" would claim a certainty nobody measured); two
    or more equal values give the honest zero-width interval of data without variation.
    """
    array = np.asarray(per_seed_values, dtype=float)
    array = array[~np.isnan(array)]
    functions: dict[str, Callable[..., Any]] = {
        "mean": np.mean,
        "iqm": lambda a, axis=-1: scipy_stats.trim_mean(a, 0.25, axis=axis),
    }
    if statistic not in functions:
        raise ParameterError(
            f"bootstrap_interval: statistic must be one of {sorted(functions)}, got {statistic!r}"
        )
    # checked up front: scipy answers a confidence of 1.5 with a silent (nan, nan) interval
    if not 0 < confidence < 1:
        raise ParameterError(f"bootstrap_interval: confidence must be in (0, 1), got {confidence}")
    if n_resamples < 1:
        raise ParameterError(f"bootstrap_interval: n_resamples must be at least 1, got {n_resamples}")
    function = functions[statistic]
    if array.size == 0:
        return (float("nan"), float("nan"), float("nan"))
    estimate = float(function(array, axis=-1))
    if array.size < 2:
        return (estimate, float("nan"), float("nan"))
    if np.all(array == array[0]):
        return (estimate, estimate, estimate)
    result = scipy_stats.bootstrap(
        (array,),
        function,
        confidence_level=confidence,
        n_resamples=n_resamples,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return (estimate, float(result.confidence_interval.low), float(result.confidence_interval.high))


def pearson_or_reason(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray
) -> tuple[float | None, str]:
    """Pearson r of paired values, or None with the reason it is undefined ("n too small" below three
    pairs, "no variation" when either side is constant); the text is what a figure or table should print."""
    first, second = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = ~(np.isnan(first) | np.isnan(second))
    first, second = first[keep], second[keep]
    if first.size < 3:
        return None, f"n too small (n={first.size})"
    if np.ptp(first) == 0 or np.ptp(second) == 0:
        return None, "no variation"
    r = float(np.corrcoef(first, second)[0, 1])
    return r, f"{r:.2f}"
