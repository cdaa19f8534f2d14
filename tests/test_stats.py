"""cogames_lib.stats against values worked out by hand (closed forms written out in each test)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from cogames_lib.errors import ParameterError
from cogames_lib.stats import (
    bootstrap_interval,
    interquartile_mean,
    pearson_or_reason,
    rate_table,
    t_interval,
    wilson_interval,
)

Z95 = 1.959963984540054  # Phi^-1(0.975)


def test_wilson_half_rate_by_hand():
    # 5/10: p = 0.5, z^2/n = 0.38415, denominator 1.38415, centre exactly 0.5,
    # half width = z * sqrt(0.025 + 0.0096037) / 1.38415 = 0.263406
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.236593, abs=1e-6)
    assert high == pytest.approx(0.763407, abs=1e-6)


def test_wilson_zero_and_full_are_exact_at_the_edge():
    # 0/n: upper bound = (z^2/n) / (1 + z^2/n); n/n mirrors it. Never the Wald [0, 0].
    upper = (Z95**2 / 10) / (1 + Z95**2 / 10)
    assert upper == pytest.approx(0.277533, abs=1e-6)
    assert wilson_interval(0, 10) == (0.0, pytest.approx(upper, abs=1e-12))
    low, high = wilson_interval(10, 10)
    assert high == 1.0 and low == pytest.approx(1 - upper, abs=1e-12)


def test_wilson_one_of_three_by_hand():
    # p = 1/3, n = 3: centre = (1/3 + z^2/6) / (1 + z^2/3); half = z*sqrt(2/27 + z^2/36) / (1 + z^2/3)
    denominator = 1 + Z95**2 / 3
    centre = (1 / 3 + Z95**2 / 6) / denominator
    half = Z95 * math.sqrt(2 / 27 + Z95**2 / 36) / denominator
    low, high = wilson_interval(1, 3)
    assert (low, high) == (pytest.approx(centre - half), pytest.approx(centre + half))
    assert low == pytest.approx(0.061492, abs=1e-6) and high == pytest.approx(0.792340, abs=1e-6)


def test_wilson_other_confidence_and_empty():
    # 90%: z = 1.644854; 0/4 -> upper = (z^2/4) / (1 + z^2/4) = 0.676386 / 1.676386 = 0.403478
    assert wilson_interval(0, 4, confidence=0.90)[1] == pytest.approx(0.403478, abs=1e-6)
    low, high = wilson_interval(0, 0)
    assert math.isnan(low) and math.isnan(high)


@pytest.mark.parametrize("successes,n,confidence", [(3, 2, 0.95), (-1, 2, 0.95), (1, 2, 1.0), (1, 2, 0.0)])
def test_wilson_rejects_bad_arguments(successes, n, confidence):
    with pytest.raises(ParameterError, match="wilson_interval"):
        wilson_interval(successes, n, confidence)


def test_rate_table_groups_and_overall():
    frame = pd.DataFrame(
        dict(
            policy=pd.Categorical(["b", "b", "a", "a", "a"], categories=["b", "a"]),
            success=[True, False, True, True, None],
        )
    )
    table = rate_table(frame, "policy", "success")
    assert list(table["policy"]) == ["b", "a"]  # category order kept
    assert list(table["n"]) == [2, 2] and list(table["successes"]) == [
        1,
        2,
    ]  # the missing value is not counted
    assert list(table["rate"]) == [0.5, 1.0]
    assert table.loc[1, "ci_high"] == 1.0
    # 1/2 by hand: centre 0.5, half = z*sqrt(0.125 + z^2/16) / (1 + z^2/2) = 0.405469
    assert table.loc[0, "ci_low"] == pytest.approx(0.5 - 0.405469, abs=1e-6)
    overall = rate_table(frame, None, "success")
    assert overall.loc[0, "n"] == 4 and overall.loc[0, "successes"] == 3 and overall.loc[0, "rate"] == 0.75


def test_interquartile_mean_by_hand():
    # 8 values: drop 2 from each end -> mean(3, 4, 5, 6) = 4.5
    assert interquartile_mean([8, 1, 7, 2, 6, 3, 5, 4]) == 4.5
    # 10 values: int(0.25 * 10) = 2 dropped each end -> mean(3..8) = 5.5; an outlier does not move it
    assert interquartile_mean([1, 2, 3, 4, 5, 6, 7, 8, 9, 1000]) == 5.5
    assert math.isnan(interquartile_mean([]))


def test_bootstrap_degenerate_and_empty():
    estimate, low, high = bootstrap_interval([0.7, 0.7, 0.7])
    assert estimate == pytest.approx(0.7) and low == estimate == high
    estimate, low, high = bootstrap_interval([0.4])  # n = 1: an estimate, no interval
    assert estimate == 0.4 and math.isnan(low) and math.isnan(high)
    assert all(math.isnan(v) for v in bootstrap_interval([]))
    assert bootstrap_interval([1.0, float("nan"), 1.0]) == (1.0, 1.0, 1.0)  # NaN seeds are dropped


def test_bootstrap_two_seeds_by_hand():
    # Resampling two values (0, 1) gives means 0, 0.5 or 1 with probabilities 1/4, 1/2, 1/4:
    # the 2.5% and 97.5% percentiles are 0 and 1.
    estimate, low, high = bootstrap_interval([0.0, 1.0], n_resamples=4000)
    assert estimate == 0.5 and low == 0.0 and high == 1.0


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    values = np.array([0.2, 0.4, 0.5, 0.9, 0.3, 0.6])
    first = bootstrap_interval(values, seed=3)
    assert first == bootstrap_interval(values, seed=3)
    estimate, low, high = first
    assert estimate == pytest.approx(values.mean())
    assert values.min() <= low < estimate < high <= values.max()
    iqm = bootstrap_interval(values, statistic="iqm")
    assert iqm[0] == pytest.approx(interquartile_mean(values))


def test_t_interval_by_hand_and_wider_than_a_bootstrap_over_three_seeds():
    # mean 0.2, sample sd 0.02, sem 0.02 / sqrt(3) = 0.011547; t(0.975, 2) = 4.302653: half width 0.049682
    estimate, low, high = t_interval([0.18, 0.20, 0.22])
    assert estimate == pytest.approx(0.2)
    assert (low, high) == (pytest.approx(0.2 - 0.049682, abs=1e-6), pytest.approx(0.2 + 0.049682, abs=1e-6))
    # a percentile bootstrap over three values cannot leave their range: the t interval does
    _, boot_low, boot_high = bootstrap_interval([0.18, 0.20, 0.22])
    assert low < 0.18 <= boot_low and boot_high <= 0.22 < high


def test_t_interval_bounds_and_degenerate_cases():
    assert t_interval([0.0, 0.1, 1.0], bounds=(0.0, 1.0))[1] == 0.0
    assert t_interval([0.9, 1.0, 1.0], bounds=(0.0, 1.0))[2] == 1.0
    assert t_interval([0.5, 0.5]) == (0.5, 0.5, 0.5)
    estimate, low, high = t_interval([0.4, float("nan")])  # one seed left: no interval
    assert estimate == 0.4 and math.isnan(low) and math.isnan(high)
    assert all(math.isnan(v) for v in t_interval([]))
    with pytest.raises(ParameterError, match="t_interval: confidence must be in"):
        t_interval([0.1, 0.2], confidence=1.0)


def test_bootstrap_rejects_unknown_statistic():
    with pytest.raises(ParameterError, match="statistic must be one of"):
        bootstrap_interval([1.0, 2.0], statistic="median")


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"confidence": 1.5}, "confidence must be in \\(0, 1\\), got 1.5"),
        ({"confidence": 0.0}, "confidence must be in"),
        ({"n_resamples": 0}, "n_resamples must be at least 1, got 0"),
    ],
)
def test_bootstrap_rejects_bad_confidence_and_resamples(keywords, message):
    with pytest.raises(ParameterError, match=message):
        bootstrap_interval([1.0, 2.0, 3.0], **keywords)


def test_pearson_says_why_it_is_undefined():
    assert pearson_or_reason([0.1, 0.5], [0.0, 1.0]) == (None, "n too small (n=2)")
    assert pearson_or_reason([0.2, 0.2, 0.2], [0.0, 1.0, 0.5]) == (None, "no variation")
    r, text = pearson_or_reason([0.0, 0.5, 1.0, float("nan")], [0.0, 1.0, 2.0, 5.0])
    assert r == pytest.approx(1.0) and text == "1.00"  # the NaN pair is dropped


def test_sign_flip_p_value_is_exact_for_small_n() -> None:
    from cogames_lib.stats import sign_flip_p_value

    # five positive differences: only all-plus and all-minus reach |mean| -> 2/32
    assert sign_flip_p_value([0.1, 0.2, 0.3, 0.4, 0.5]) == pytest.approx(2 / 32)
    # symmetric differences: every pattern is at least as extreme as a mean of 0
    assert sign_flip_p_value([0.1, -0.1]) == 1.0
    assert np.isnan(sign_flip_p_value([0.3]))
    # many values, Monte Carlo: a clear shift is significant, noise is not
    rng = np.random.default_rng(1)
    assert sign_flip_p_value(rng.normal(1.0, 0.5, 40)) < 0.01
    assert sign_flip_p_value(rng.normal(0.0, 0.5, 40)) > 0.05


def test_wilcoxon_p_or_reason() -> None:
    from scipy import stats as scipy_stats

    from cogames_lib.stats import wilcoxon_p_or_reason

    values = [0.1, 0.25, -0.05, 0.3, 0.2]
    p, text = wilcoxon_p_or_reason(values)
    assert p == pytest.approx(scipy_stats.wilcoxon(values).pvalue) and text == f"{p:.3g}"
    assert wilcoxon_p_or_reason([0.0, 0.0, 0.0]) == (None, "no variation")
    assert wilcoxon_p_or_reason([0.2]) == (None, "n too small (n=1)")


def test_two_group_difference_interval_and_permutation() -> None:
    from cogames_lib.stats import bootstrap_difference_interval, permutation_p_value

    high, low = [0.9, 1.0, 1.1, 1.05, 0.95], [0.1, 0.0, 0.05, -0.05, 0.15]
    estimate, ci_low, ci_high = bootstrap_difference_interval(high, low)
    assert estimate == pytest.approx(0.95) and ci_low < 0.95 < ci_high and ci_low > 0.7
    assert np.isnan(bootstrap_difference_interval([1.0], low)[1])
    assert permutation_p_value(high, low) < 0.02
    assert permutation_p_value([0.1, 0.3, 0.2], [0.2, 0.1, 0.3]) > 0.5
    assert bootstrap_difference_interval(high, low) == bootstrap_difference_interval(high, low)  # seeded


def test_stratified_comparison_resamples_within_cells_and_reads_every_interval_from_one_bootstrap():
    from cogames_lib.stats import stratified_comparison

    first = [[1, 1, 1, 0], [1, 0, 1, 0], [1, 1, 1, 1]]
    second = [[0, 0, 1, 0], [0, 0, 0, 0], [1, 1, 1, 1]]
    result = stratified_comparison(first, second, thresholds=(0.0, 0.5), n_resamples=500, seed=3)
    # per cell: 0.75 - 0.25, 0.5 - 0, 1 - 1 -> mean 1/3; pass/fail: P(improvement) = 0.5 + half of it
    assert result.cells == 3 and np.isclose(result.difference[0], 1 / 3)
    assert np.isclose(result.improvement[0], 0.5 + 1 / 6)
    low, high = result.difference[1:]
    # the third cell is 1 - 1 in every resample (strata are never mixed), so no resample exceeds (1 + 1 + 0) / 3
    assert low < 1 / 3 < high and low >= -1 and high <= 2 / 3
    assert list(result.profile_first[0]) == [1.0, 2 / 3] and list(result.profile_second[0]) == [2 / 3, 1 / 3]
    assert (result.profile_first[1] <= result.profile_first[0]).all()
    again = stratified_comparison(first, second, thresholds=(0.0, 0.5), n_resamples=500, seed=3)
    assert again.difference == result.difference  # seeded
    single = stratified_comparison([[1]], [[0]])
    assert single.difference[0] == 1.0 and np.isnan(single.difference[1])  # one episode a side: no interval
    with pytest.raises(ParameterError, match="no cell"):
        stratified_comparison([], [])
    with pytest.raises(ParameterError, match="without episodes"):
        stratified_comparison([[1], []], [[0], [1]])


def test_the_pass_fail_shortcut_of_the_probability_of_improvement_equals_comparing_every_pair():
    from cogames_lib.stats import stratified_comparison

    rng = np.random.default_rng(0)
    first = [(rng.random(7) < 0.6).astype(float) for _ in range(5)]
    second = [(rng.random(6) < 0.4).astype(float) for _ in range(5)]
    shortcut = stratified_comparison(first, second, n_resamples=300, seed=1)
    # scores 0/2 take the every-pair path and order the episodes exactly as 0/1 do
    pairs = stratified_comparison([2 * x for x in first], [2 * y for y in second], n_resamples=300, seed=1)
    assert np.allclose(shortcut.improvement, pairs.improvement)
