"""Is model A better than model B on the same tasks? (`compare_models`)

Tasks are paired by task id: a task counts when both models have a verdict for it under the frame's
`no_score_policy` (`success_for_rate` not NA). A model with several rows for one task id (several
experiments or layouts) succeeds on it when any row succeeded, as repetitions combine within a task.
Per group (overall, each task type, each agent count):

- `rate_a`, `rate_b` and `difference` = rate_a - rate_b over the paired tasks;
- `ci_low`, `ci_high`: percentile bootstrap interval of the difference, resampling tasks (the paired
  unit), seeded; NaN below two tasks (`stats.bootstrap_interval`);
- `both_succeeded`, `only_a`, `only_b`, `neither`: the 2x2 table of paired outcomes;
- `mcnemar_p`: exact McNemar test (two-sided binomial test of `only_a` among the discordant tasks,
  p = 0.5); 1.0 when no task is discordant.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from cogames_lib.errors import ParameterError
from cogames_lib.stats import bootstrap_interval
from cogames_lib.tables import MINDCRAFT_COMPARISON

COMPARISON_COLUMNS: tuple[str, ...] = MINDCRAFT_COMPARISON.columns
COMPARISON_GROUPS: tuple[str, ...] = ("overall", "task_type", "agent_count")


def _per_task(runs: pd.DataFrame, model: str) -> pd.DataFrame:
    rows = runs[(runs["model_name"].astype("string") == model) & runs["success_for_rate"].notna()]
    agents = rows["expected_agent_count"].astype("Float64").fillna(rows["agent_count"].astype("Float64"))
    frame = pd.DataFrame(
        {
            "task_id": rows["task_id"].astype(str),
            "task_type": rows["task_type"].astype("string").fillna("unknown").astype(str),
            "agent_count": agents.astype("Int64").astype("string").fillna("unknown").astype(str),
            "success": rows["success_for_rate"].astype(bool).astype(int),
        }
    )
    return frame.groupby("task_id", as_index=False).agg(
        task_type=("task_type", "first"), agent_count=("agent_count", "first"), success=("success", "max")
    )


def mcnemar_exact_p(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts."""
    discordant = only_a + only_b
    if discordant == 0:
        return 1.0
    return float(scipy_stats.binomtest(only_a, discordant, 0.5).pvalue)


def _compare_row(group: str, value: str, a: np.ndarray, b: np.ndarray, seed: int, resamples: int) -> dict:
    n = len(a)
    difference = (a - b).astype(float)
    _, low, high = bootstrap_interval(difference, "mean", n_resamples=resamples, seed=seed)
    only_a, only_b = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
    return {
        "group": group,
        "value": value,
        "n_tasks": n,
        "rate_a": float(a.mean()) if n else float("nan"),
        "rate_b": float(b.mean()) if n else float("nan"),
        "difference": float(difference.mean()) if n else float("nan"),
        "ci_low": low,
        "ci_high": high,
        "both_succeeded": int(((a == 1) & (b == 1)).sum()),
        "only_a": only_a,
        "only_b": only_b,
        "neither": int(((a == 0) & (b == 0)).sum()),
        "mcnemar_p": mcnemar_exact_p(only_a, only_b),
    }


def compare_models(
    runs: pd.DataFrame, a: str, b: str, *, seed: int = 0, n_resamples: int = 2000
) -> pd.DataFrame:
    """Model `a` vs model `b` paired by task id (columns `COMPARISON_COLUMNS`; module docstring).

    `runs` is an `aggregate_results` frame holding both models. `frame.attrs` records the models, the
    policy and the tasks only one model has (`unpaired_a`, `unpaired_b`).
    """
    if a == b:
        raise ParameterError(f"models: give two different models, got {a!r} twice")
    known = sorted(runs["model_name"].dropna().astype(str).unique())
    for name in (a, b):
        if name not in known:
            raise ParameterError(
                f"models: {name!r} is not in the runs (models found: {', '.join(known) or 'none'})"
            )
    tasks_a, tasks_b = _per_task(runs, a), _per_task(runs, b)
    paired = tasks_a.merge(tasks_b[["task_id", "success"]], on="task_id", suffixes=("_a", "_b"))
    rows = []
    for group in COMPARISON_GROUPS:
        parts = [("all", paired)] if group == "overall" else paired.groupby(group, sort=True)
        for value, part in parts:
            a_success, b_success = part["success_a"].to_numpy(), part["success_b"].to_numpy()
            rows.append(_compare_row(group, str(value), a_success, b_success, seed, n_resamples))
    table = MINDCRAFT_COMPARISON.frame(rows)
    table.attrs.update(
        model_a=a,
        model_b=b,
        no_score_policy=runs.attrs.get("no_score_policy", ""),
        unpaired_a=len(tasks_a) - len(paired),
        unpaired_b=len(tasks_b) - len(paired),
    )
    return table


def most_paired_models(runs: pd.DataFrame) -> tuple[str, str] | None:
    """The two models sharing the most task ids (ties: by name), or None with fewer than two models."""
    named = runs[runs["model_name"].notna()]
    tasks = {
        str(model): set(group["task_id"].astype(str))
        for model, group in named.groupby("model_name", observed=True)
    }
    models = sorted(tasks)
    pairs = [(len(tasks[a] & tasks[b]), a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    if not pairs:
        return None
    _, a, b = min(pairs, key=lambda item: (-item[0], item[1], item[2]))
    return (a, b)
