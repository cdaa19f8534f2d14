"""The classic Mindcraft tables, computed from the runs frame of `aggregate_results`.

Every rate comes from `cogames_lib.stats.rate_table` on the `success_for_rate` column, so each row
has `n, successes, rate, ci_low, ci_high` (Wilson) and the denominator follows the frame's
`no_score_policy`. When the frame holds more than one model, every table is also split by
`model_name` (first column). Missing text groups show as "unknown"; rows whose numeric group value
is unknown (e.g. the depth of a task without a definition) are left out of that table only.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from cogames_lib.outcomes import STATUS_ORDER, CompletionStatus
from cogames_lib.stats import rate_table
from cogames_lib.tables import RATE_COLUMNS

# Mindcraft logs use the first six statuses; RUN_ERROR belongs to the diagnostics sweeps.
MINDCRAFT_STATUSES: tuple[str, ...] = tuple(s for s in STATUS_ORDER if s != CompletionStatus.RUN_ERROR)
UNKNOWN = "unknown"


def _prepared(runs: pd.DataFrame, task_type: str | None = None) -> tuple[pd.DataFrame, list[str]]:
    frame = runs if task_type is None else runs[runs["task_type"] == task_type]
    frame = frame.copy()
    for column in ("model_name", "task_type", "plan_availability"):
        if column in frame.columns:
            frame[column] = frame[column].astype("string").fillna(UNKNOWN)
    keys = ["model_name"] if runs["model_name"].astype("string").fillna(UNKNOWN).nunique() > 1 else []
    return frame, keys


def _rates(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    if frame.empty or frame["success_for_rate"].notna().sum() == 0:
        return pd.DataFrame({**{key: [] for key in keys}, **{column: [] for column in RATE_COLUMNS}})
    return rate_table(frame, keys or None, "success_for_rate")


def summary_overall(runs: pd.DataFrame) -> pd.DataFrame:
    """Overall success rate (one row, or one per model)."""
    frame, keys = _prepared(runs)
    return _rates(frame, keys)


def _grouped(runs: pd.DataFrame, column: str, task_type: str | None = None) -> pd.DataFrame:
    frame, keys = _prepared(runs, task_type)
    frame = frame[frame[column].notna()]
    return _rates(frame, [*keys, column])


def summary_by_task_type(runs: pd.DataFrame) -> pd.DataFrame:
    return _grouped(runs, "task_type")


def summary_by_agent_count(runs: pd.DataFrame) -> pd.DataFrame:
    return _grouped(runs, "agent_count")


def summary_by_depth(runs: pd.DataFrame) -> pd.DataFrame:
    """Techtree success by crafting depth."""
    return _grouped(runs, "depth", "techtree")


def summary_by_plan_availability(runs: pd.DataFrame) -> pd.DataFrame:
    """Techtree success by plan availability (full / partial / no plan, from the task id)."""
    return _grouped(runs, "plan_availability", "techtree")


def summary_by_missing_items(runs: pd.DataFrame) -> pd.DataFrame:
    """Techtree success by the number of missing items."""
    return _grouped(runs, "missing_item_count", "techtree")


def summary_cooking_by_blocked_agents(runs: pd.DataFrame) -> pd.DataFrame:
    """Cooking success by the number of agents without access to a recipe."""
    return _grouped(runs, "blocked_agent_count", "cooking")


def summary_construction_scores(runs: pd.DataFrame) -> pd.DataFrame:
    """Construction: completion rate (score 100), score statistics and the "score > 0" rate.

    All follow the frame's `no_score_policy`: under "failure" a run without a score (no verdict, an
    unreadable or stale log, a legacy timeout) counts as score 0; under "exclude" runs without a verdict
    are left out (a legacy timeout still counts as 0: it is a verdict). Columns: the completion rate's
    `n, successes, rate, ci_low, ci_high`; `scored_runs, mean_score, std_score, median_score, min_score,
    max_score` (0..1 scale); `positive_runs, positive_rate, positive_ci_low, positive_ci_high` (Wilson).
    """
    frame, keys = _prepared(runs, "construction")
    rates = _rates(frame, keys)
    score_columns = ["scored_runs", "mean_score", "std_score", "median_score", "min_score", "max_score"]
    positive_columns = ["positive_runs", "positive_rate", "positive_ci_low", "positive_ci_high"]
    if frame.empty or frame["success_for_rate"].notna().sum() == 0:
        return rates.assign(**{column: [] for column in score_columns + positive_columns})
    counted = frame[frame["success_for_rate"].notna()]
    scores = counted.assign(score=counted["overall_raw_score"].astype("float64").fillna(0.0))
    scores = scores.assign(score_positive=scores["score"] > 0)

    def describe(group: pd.DataFrame) -> pd.Series:
        values = group["score"]
        return pd.Series(
            [len(values), values.mean(), values.std(), values.median(), values.min(), values.max()],
            index=score_columns,
        )

    renamed = dict(zip(("successes", "rate", "ci_low", "ci_high"), positive_columns, strict=True))
    positive = rate_table(scores, keys or None, "score_positive").rename(columns=renamed)[
        [*keys, *positive_columns]
    ]
    if keys:
        stats = scores.groupby(keys, observed=True)[["score"]].apply(describe).reset_index()
        result = rates.merge(stats, on=keys, how="outer").merge(positive, on=keys, how="outer")
    else:
        result = pd.concat(
            [rates.reset_index(drop=True), describe(scores).to_frame().T, positive.reset_index(drop=True)],
            axis=1,
        )
    result["scored_runs"] = result["scored_runs"].fillna(0).astype(int)
    result["positive_runs"] = result["positive_runs"].fillna(0).astype(int)
    return result


def status_counts(runs: pd.DataFrame) -> pd.DataFrame:
    """Number of runs per completion status, by task type (the six Mindcraft statuses in STATUS_ORDER)."""
    frame, keys = _prepared(runs)
    table = pd.crosstab([frame[key] for key in [*keys, "task_type"]], frame["overall_completion_status"])
    table = table.reindex(columns=list(MINDCRAFT_STATUSES), fill_value=0)
    table.columns = table.columns.astype(str)
    table.columns.name = None
    table["total"] = table.sum(axis=1)
    return table.reset_index()


SUMMARY_TABLES: dict[str, Callable[[pd.DataFrame], pd.DataFrame]] = {
    "overall": summary_overall,
    "status counts": status_counts,
    "by task type": summary_by_task_type,
    "by agent count": summary_by_agent_count,
    "techtree by depth": summary_by_depth,
    "techtree by plan availability": summary_by_plan_availability,
    "techtree by missing items": summary_by_missing_items,
    "cooking by blocked agents": summary_cooking_by_blocked_agents,
    "construction scores": summary_construction_scores,
}


def summary_tables(runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Every classic table, by name, in a fixed order (what the CLI prints)."""
    return {name: function(runs) for name, function in SUMMARY_TABLES.items()}
