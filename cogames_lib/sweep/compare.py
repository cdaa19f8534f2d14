"""Two policies (or two checkpoints) compared over the whole suite, as rliable does for Atari.

A suite is many (diagnostic, agent count) cells of a few episodes each; per-cell rates alone do not say
whether one policy is better overall. `compare_policies` gives the difference in pass rate averaged over the
cells both played, with a stratified bootstrap interval (episodes resampled within their cell), the
probability of improvement and a performance profile (the fraction of cells above each pass rate), all from
one bootstrap (`stats.stratified_comparison`; rliable itself is not a dependency: its `arch` requirement
buys nothing scipy's bootstrap does not do here, and the method is named in every output).

`first` and `second` are policy names of one episodes table, or of two (`second_episodes`: e.g. two sweep
folders of two checkpoints of one learned policy). Cells only one side played are left out and counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from cogames_lib.errors import ParameterError, UnknownNameError, close_matches_message
from cogames_lib.tables import COMPARISON_CELLS, PERFORMANCE_PROFILE

CELL_KEYS: tuple[str, ...] = COMPARISON_CELLS.key
SCORE_COLUMN = "success"


@dataclass(frozen=True)
class PolicyComparison:
    """The result of `compare_policies`: the statistics (`result`) and the cells they were computed over."""

    first: str
    second: str
    result: object  # stats.StratifiedComparison (typed loosely: importing stats here would load scipy)
    cells: pd.DataFrame  # COMPARISON_CELLS
    unmatched_cells: int

    def profile_table(self) -> pd.DataFrame:
        """The performance profile as a tidy PERFORMANCE_PROFILE table (one row per policy and threshold)."""
        from cogames_lib.stats import StratifiedComparison

        result = self.result
        assert isinstance(result, StratifiedComparison)
        rows = [
            {"policy": name, "threshold": threshold, "fraction": fraction, "low": low, "high": high}
            for name, profile in ((self.first, result.profile_first), (self.second, result.profile_second))
            for threshold, fraction, low, high in zip(result.thresholds, *profile, strict=True)
        ]
        return PERFORMANCE_PROFILE.frame(rows)


def _episodes_of(episodes: pd.DataFrame, policy: str, side: str) -> pd.DataFrame:
    names = sorted(episodes["policy"].astype(str).unique())
    if policy not in names:
        raise UnknownNameError(close_matches_message(f"policy ({side} episodes)", policy, names))
    part = episodes[episodes["policy"].astype(str) == policy]
    return part.assign(diagnostic=part["diagnostic"].astype(str), num_agents=part["num_agents"].astype(int))


def compare_policies(
    episodes: pd.DataFrame,
    first: str,
    second: str,
    second_episodes: pd.DataFrame | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
) -> PolicyComparison:
    """`first` against `second` over the (diagnostic, agent count) cells both played (see the module)."""
    from cogames_lib.stats import stratified_comparison

    other = episodes if second_episodes is None else second_episodes
    if second_episodes is None and first == second:
        raise ParameterError(f"compare: both sides are {first!r}; name two policies (or give a second sweep)")
    left = _episodes_of(episodes, first, "first")
    right = _episodes_of(other, second, "second" if second_episodes is not None else "the same")
    keys = list(CELL_KEYS)
    scores_left = left.groupby(keys, sort=True)[SCORE_COLUMN].apply(lambda s: s.astype(float).to_numpy())
    scores_right = right.groupby(keys, sort=True)[SCORE_COLUMN].apply(lambda s: s.astype(float).to_numpy())
    shared = scores_left.index.intersection(scores_right.index)
    unmatched = len(scores_left.index.union(scores_right.index)) - len(shared)
    if not len(shared):
        raise ParameterError(f"compare: {first!r} and {second!r} share no (diagnostic, agent count) cell")
    result = stratified_comparison(
        [scores_left[cell] for cell in shared],
        [scores_right[cell] for cell in shared],
        n_resamples=n_resamples,
        seed=seed,
    )
    cells = COMPARISON_CELLS.frame(
        {
            "diagnostic": diagnostic,
            "num_agents": agents,
            "n_first": len(scores_left[(diagnostic, agents)]),
            "rate_first": float(scores_left[(diagnostic, agents)].mean()),
            "n_second": len(scores_right[(diagnostic, agents)]),
            "rate_second": float(scores_right[(diagnostic, agents)].mean()),
        }
        for diagnostic, agents in shared
    )
    return PolicyComparison(first, second, result, cells, unmatched)
