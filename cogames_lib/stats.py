"""Honest intervals: Wilson score intervals for rates, a bootstrap or a t interval over seeds, the interquartile
mean.

Pure functions over numbers and tidy tables; nothing here draws. `rate_table` is the one helper every
summary uses, so every rate in the library carries its n and its interval the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
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


def t_interval(
    per_seed_values: Sequence[float] | np.ndarray,
    confidence: float = DEFAULT_CONFIDENCE,
    bounds: tuple[float, float] | None = None,
) -> tuple[float, float, float]:
    """(mean, low, high) with a Student-t interval over seeds: for the few seeds a training study affords.

    A percentile bootstrap over three values can only return their range (every resample mean lies between
    the smallest and the largest), an interval far narrower than the uncertainty of a mean of three; the t
    interval widens with the t quantile of n - 1 degrees of freedom (4.30 at n = 3). Same conventions as
    `bootstrap_interval`: NaN seeds dropped, no interval below two seeds, zero width for constant data.
    `bounds` clips the interval to the values' range (a rate's (0, 1)).
    """
    if not 0 < confidence < 1:
        raise ParameterError(f"t_interval: confidence must be in (0, 1), got {confidence}")
    array = np.asarray(per_seed_values, dtype=float)
    array = array[~np.isnan(array)]
    if array.size == 0:
        return (float("nan"), float("nan"), float("nan"))
    estimate = float(array.mean())
    if array.size < 2:
        return (estimate, float("nan"), float("nan"))
    half = float(scipy_stats.t.ppf(0.5 + confidence / 2, array.size - 1) * scipy_stats.sem(array))
    low, high = estimate - half, estimate + half
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return (estimate, low, high)


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


# Exact enumeration of all sign patterns up to this many values (2**16 = 65,536 means); Monte Carlo above.
EXACT_SIGN_FLIP_MAX = 16


def sign_flip_p_value(
    differences: Sequence[float] | np.ndarray, n_resamples: int = 20_000, seed: int = 0
) -> float:
    """Two-sided sign-flip permutation p-value of "the mean paired difference is 0" (one value per seed).

    Under the null each seed's difference is as likely positive as negative. Exact over all 2**n sign
    patterns up to `EXACT_SIGN_FLIP_MAX` values (so with 5 seeds the smallest possible p is 2/32 = 0.0625),
    a seeded Monte Carlo above. NaN with fewer than two values.
    """
    array = np.asarray(differences, dtype=float)
    array = array[~np.isnan(array)]
    if array.size < 2:
        return float("nan")
    observed = abs(array.mean())
    if array.size <= EXACT_SIGN_FLIP_MAX:
        patterns = ((np.arange(2**array.size)[:, None] >> np.arange(array.size)) & 1) * 2 - 1
    else:
        patterns = np.random.default_rng(seed).choice([-1, 1], size=(n_resamples, array.size))
    means = np.abs((patterns * array).mean(axis=1))
    # a tolerance so float rounding of equal means does not drop the observed pattern itself
    return float(np.mean(means >= observed - 1e-12 * max(1.0, observed)))


def wilcoxon_p_or_reason(differences: Sequence[float] | np.ndarray) -> tuple[float | None, str]:
    """Two-sided Wilcoxon signed-rank p-value of paired differences, or None with the reason it is
    undefined ("n too small" below two values, "no variation" when every difference is 0)."""
    array = np.asarray(differences, dtype=float)
    array = array[~np.isnan(array)]
    if array.size < 2:
        return None, f"n too small (n={array.size})"
    if np.all(array == 0):
        return None, "no variation"
    p = float(scipy_stats.wilcoxon(array, alternative="two-sided").pvalue)
    return p, f"{p:.3g}"


def bootstrap_difference_interval(
    first: Sequence[float] | np.ndarray,
    second: Sequence[float] | np.ndarray,
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """(mean(first) - mean(second), low, high) for two independent groups of seeds: each group is
    resampled on its own (percentile bootstrap). No interval unless both groups have two or more values."""
    a = np.asarray(first, dtype=float)
    b = np.asarray(second, dtype=float)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    if a.size == 0 or b.size == 0:
        return (float("nan"),) * 3
    estimate = float(a.mean() - b.mean())
    if a.size < 2 or b.size < 2:
        return (estimate, float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means_a = a[rng.integers(0, a.size, size=(n_resamples, a.size))].mean(axis=1)
    means_b = b[rng.integers(0, b.size, size=(n_resamples, b.size))].mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means_a - means_b, [tail, 100 - tail])
    return (estimate, float(low), float(high))


def permutation_p_value(
    first: Sequence[float] | np.ndarray,
    second: Sequence[float] | np.ndarray,
    n_resamples: int = 20_000,
    seed: int = 0,
) -> float:
    """Two-sided permutation p-value of "the two independent groups have the same mean" (labels shuffled,
    seeded Monte Carlo; the observed split counts once). NaN unless both groups are non-empty and n >= 3."""
    a = np.asarray(first, dtype=float)
    b = np.asarray(second, dtype=float)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    if a.size == 0 or b.size == 0 or a.size + b.size < 3:
        return float("nan")
    pooled = np.concatenate([a, b])
    observed = abs(a.mean() - b.mean())
    rng = np.random.default_rng(seed)
    orders = np.argsort(rng.random((n_resamples, pooled.size)), axis=1)
    shuffled = pooled[orders]
    differences = np.abs(shuffled[:, : a.size].mean(axis=1) - shuffled[:, a.size :].mean(axis=1))
    hits = np.sum(differences >= observed - 1e-12 * max(1.0, observed))
    return float((hits + 1) / (n_resamples + 1))


# -- suite-level comparison of two policies (rliable's statistics, Agarwal et al. 2021) ---------------------
STRATIFIED_BOOTSTRAP_METHOD = (
    "stratified percentile bootstrap (scipy.stats.bootstrap): each policy's episodes resampled within each "
    "(diagnostic, agent count) cell"
)
PROFILE_THRESHOLDS: tuple[float, ...] = tuple(float(t) for t in np.linspace(0.0, 1.0, 21))


@dataclass(frozen=True)
class StratifiedComparison:
    """Two policies over the same cells (strata). `difference` and `improvement` are (estimate, low, high):
    the mean over cells of the per-cell score difference (first - second), and the probability of
    improvement (the mean over cells of P(a first score > a second score) + 0.5 P(equal), the Mann-Whitney U
    statistic / (n m); with pass/fail scores it is 0.5 + half the difference). `profile_first` /
    `profile_second` are arrays of shape (3, len(thresholds)): the fraction of cells whose mean score is
    above each threshold (a performance profile), its low and high bound."""

    cells: int
    difference: tuple[float, float, float]
    improvement: tuple[float, float, float]
    thresholds: tuple[float, ...]
    profile_first: np.ndarray
    profile_second: np.ndarray
    confidence: float
    n_resamples: int
    method: str = STRATIFIED_BOOTSTRAP_METHOD


def _cell_means(samples: Sequence[np.ndarray], axis: int) -> np.ndarray:
    return np.stack([sample.mean(axis=axis) for sample in samples], axis=-1)


def stratified_comparison(
    first: Sequence[Sequence[float] | np.ndarray],
    second: Sequence[Sequence[float] | np.ndarray],
    thresholds: Sequence[float] = PROFILE_THRESHOLDS,
    confidence: float = DEFAULT_CONFIDENCE,
    n_resamples: int = 2000,
    seed: int = 0,
) -> StratifiedComparison:
    """Compare two policies over the same cells: `first[i]` and `second[i]` are the scores (1/0 for
    pass/fail) of each policy's episodes in cell i. One bootstrap gives every interval, so the difference,
    the probability of improvement and both profiles are read from the same resamples; a cell's episodes are
    resampled within that cell only (the strata of rliable's stratified bootstrap). No interval (NaN bounds)
    when every cell has fewer than two episodes on a side."""
    if len(first) != len(second):
        raise ParameterError(
            f"stratified_comparison: {len(first)} cells of one policy, {len(second)} of the other"
        )
    if not first:
        raise ParameterError("stratified_comparison: no cell that both policies played")
    if not 0 < confidence < 1:
        raise ParameterError(f"stratified_comparison: confidence must be in (0, 1), got {confidence}")
    a = [np.asarray(values, dtype=float) for values in first]
    b = [np.asarray(values, dtype=float) for values in second]
    if any(values.size == 0 for values in (*a, *b)):
        raise ParameterError("stratified_comparison: a cell without episodes for one of the policies")
    taus = np.asarray(thresholds, dtype=float)
    cells = len(a)
    # pass/fail scores: P(x > y) + P(x = y) / 2 = p(1 - q) + (pq + (1 - p)(1 - q)) / 2 from the two rates,
    # which saves comparing every pair of episodes in every resample (1.6 s -> 0.4 s CPU for the default sweep)
    binary = all(np.isin(values, (0.0, 1.0)).all() for values in (*a, *b))

    def statistic(*samples: np.ndarray, axis: int = -1) -> np.ndarray:
        left, right = samples[:cells], samples[cells:]
        rates_left, rates_right = _cell_means(left, axis), _cell_means(right, axis)
        difference = (rates_left - rates_right).mean(axis=-1)
        if binary:
            p, q = rates_left, rates_right
            improvement = (p * (1 - q) + 0.5 * (p * q + (1 - p) * (1 - q))).mean(axis=-1)
        else:
            improvement = np.stack(
                [
                    (x[..., :, None] > y[..., None, :]).mean(axis=(-1, -2))
                    + 0.5 * (x[..., :, None] == y[..., None, :]).mean(axis=(-1, -2))
                    for x, y in zip(left, right, strict=True)
                ],
                axis=-1,
            ).mean(axis=-1)
        profile_left = (rates_left[..., None] > taus).mean(axis=-2)
        profile_right = (rates_right[..., None] > taus).mean(axis=-2)
        return np.concatenate(
            [
                difference[None],
                improvement[None],
                np.moveaxis(profile_left, -1, 0),
                np.moveaxis(profile_right, -1, 0),
            ]
        )

    estimate = statistic(*a, *b)
    if all(values.size < 2 for values in (*a, *b)):
        low = high = np.full_like(estimate, np.nan)
    else:
        result = scipy_stats.bootstrap(
            (*a, *b),
            statistic,
            n_resamples=n_resamples,
            confidence_level=confidence,
            method="percentile",
            vectorized=True,
            rng=np.random.default_rng(seed),
        )
        # a statistic constant over resamples (every cell 0/n or n/n) gives scipy's nan bounds: the honest
        # interval of data without variation is the point itself
        low = np.where(np.isnan(result.confidence_interval.low), estimate, result.confidence_interval.low)
        high = np.where(np.isnan(result.confidence_interval.high), estimate, result.confidence_interval.high)
    count = len(taus)
    bounds = np.stack([estimate, low, high])
    return StratifiedComparison(
        cells=cells,
        difference=(float(estimate[0]), float(low[0]), float(high[0])),
        improvement=(float(estimate[1]), float(low[1]), float(high[1])),
        thresholds=tuple(float(t) for t in taus),
        profile_first=bounds[:, 2 : 2 + count],
        profile_second=bounds[:, 2 + count :],
        confidence=confidence,
        n_resamples=n_resamples,
    )
