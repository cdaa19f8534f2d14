"""Small tables the notebooks show next to their figures, derived from the capability tables.

Pure functions (tidy in, tidy out), so the notebooks stay one call per cell and the selection rules are
tested here rather than buried in a notebook.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib.tables import EPISODE_DISPLAY_KEY, MINDCRAFT_AGENTS

ERROR_COLUMNS = MINDCRAFT_AGENTS.pick(
    "experiment", "task_id", "file_name", "completion_status", "parsing_errors"
)


def json_files(paths: Iterable[str | Path]) -> list[str]:
    """Task-file parameters: files as given, folders expanded to their `*.json` (sorted, for a fixed order).

    A path that does not exist is passed through unchanged so validation can name it.
    """
    files: list[str] = []
    for path in [paths] if isinstance(paths, (str, Path)) else paths:
        folder = Path(path)
        files.extend(sorted(str(p) for p in folder.glob("*.json")) if folder.is_dir() else [str(path)])
    return files


def failed_episodes(
    episodes: pd.DataFrame, limit: int = 3, last_policies: Iterable[str] = ("noop",)
) -> pd.DataFrame:
    """Up to `limit` failed episodes worth drawing: one per (policy, diagnostic) pair, in table order, with
    policies that never move (`noop`) last, so the pictures show different, informative failures."""
    failed = episodes[~episodes["success"].astype(bool)]
    distinct = failed.drop_duplicates(subset=["policy", "diagnostic"], keep="first")
    late = distinct["policy"].astype(str).isin(set(last_policies))
    ordered = pd.concat([distinct[~late], distinct[late]])
    return ordered.head(limit)[[*EPISODE_DISPLAY_KEY, "status", "steps"]].reset_index(drop=True)


def error_folders(agents: pd.DataFrame, skipped: Iterable[Mapping[str, Any]] = ()) -> pd.DataFrame:
    """Agent logs that could not be read or parsed cleanly, plus skipped non-task folders.

    One row per problem: experiment, task_id, file_name, completion_status, parsing_errors (text from the
    logs; the HTML export escapes it).
    """
    errors = agents["parsing_errors"].fillna("").astype(str)
    broken = agents[(errors != "") | (agents["completion_status"].astype(str) == "LOG_FILE_ERROR")]
    table = broken[list(ERROR_COLUMNS)].astype({"completion_status": str}).reset_index(drop=True)
    extra = pd.DataFrame(
        [
            {
                "experiment": Path(item["path"]).parent.name,
                "task_id": Path(item["path"]).name,
                "file_name": "",
                "completion_status": "SKIPPED",
                "parsing_errors": str(item["reason"]),
            }
            for item in skipped
        ],
        columns=list(ERROR_COLUMNS),
    )
    return pd.concat([table, extra], ignore_index=True) if len(extra) else table


def last_epoch_means(table: pd.DataFrame, value: str, by: Iterable[str]) -> dict[str, str]:
    """Mean of `value` at the last epoch per group, as "mean [low, high] n=K seeds" (bootstrap over seeds).

    Seeds are the independent unit: rows of one seed (agents, repeats) are averaged first, so the interval
    and n describe seeds, not correlated rows. Without a `seed` column every row counts as one unit.
    """
    from cogames_lib.stats import bootstrap_interval

    if table.empty:
        return {}
    last = table[table["epoch"] == table["epoch"].max()]
    keys = list(by)
    unit = "seed" if "seed" in last.columns else None
    per_unit = (
        last.groupby([*keys, unit], observed=True)[value].mean() if unit else last.set_index(keys)[value]
    )
    headline: dict[str, str] = {}
    for key, values in per_unit.groupby(level=list(range(len(keys))), observed=True):
        estimate, low, high = bootstrap_interval(values.to_numpy(dtype=float))
        label = "/".join(map(str, key if isinstance(key, tuple) else (key,)))
        unit_name = ("seed" if unit else "row") + ("" if len(values) == 1 else "s")
        interval = f"[{low:.3f}, {high:.3f}]" if len(values) >= 2 else "(no interval)"
        headline[f"{value}[{label}]"] = f"{estimate:.3f} {interval} n={len(values)} {unit_name}"
    return headline


def failed_episode_traces(
    episodes: pd.DataFrame, sweep_dir: str | Path, limit: int = 3
) -> list[tuple[str, pd.DataFrame, tuple[tuple[str, ...], ...]]]:
    """(title, trace, map cells) of up to `limit` failed episodes of a sweep run with `record_traces=True`."""
    from cogames_lib.diagnostics import diagnostic_map
    from cogames_lib.sweep import load_traces

    pictures = []
    for row in failed_episodes(episodes, limit).itertuples(index=False):
        trace = load_traces(
            sweep_dir,
            policy=str(row.policy),
            diagnostic=str(row.diagnostic),
            num_agents=int(row.num_agents),
            seed=int(row.seed),
        )
        title = f"{row.policy} / {row.diagnostic} / {row.num_agents} agent(s) / seed {row.seed}: {row.status}"
        pictures.append((title, trace, diagnostic_map(str(row.diagnostic)).cells))
    return pictures


def _rate_headline(prefix: str, table: pd.DataFrame, key: str | None) -> dict[str, Any]:
    headline: dict[str, Any] = {}
    for row in table.itertuples(index=False):
        label = f"{prefix}[{getattr(row, key)}]" if key else prefix
        headline[label] = f"{row.rate:.3f} [{row.ci_low:.3f}, {row.ci_high:.3f}] n={row.n}"
    return headline


def diagnostics_headline(episodes: pd.DataFrame, sweep_seconds: float) -> dict[str, Any]:
    """Headline numbers of a sweep: size, pass rate per policy (Wilson CI), timeouts, errors, wall time."""
    from cogames_lib.stats import rate_table

    status = episodes["status"].astype(str)
    headline: dict[str, Any] = {
        "episodes": len(episodes),
        "policies": episodes["policy"].astype(str).nunique(),
        "diagnostics": episodes["diagnostic"].astype(str).nunique(),
        "skipped_cells": int(episodes.attrs.get("skipped_count", 0)),
        "timed_out": int((status == "TIMED_OUT").sum()),
        "run_errors": int((status == "RUN_ERROR").sum()),
        "sweep_seconds": round(float(sweep_seconds), 2),
    }
    headline.update(_rate_headline("pass_rate", rate_table(episodes, "policy", "success"), "policy"))
    return headline


def mindcraft_headline(
    runs: pd.DataFrame, tables: Mapping[str, pd.DataFrame], error_count: int
) -> dict[str, Any]:
    """Headline numbers of a Mindcraft analysis: folders, statuses, overall success (Wilson CI)."""
    status = runs["overall_completion_status"].astype(str).value_counts()
    headline: dict[str, Any] = {
        "task_folders": len(runs),
        "agent_logs": int(runs["total_agent_logs_found"].sum()),
        "no_score_policy": runs.attrs.get("no_score_policy", ""),
        "folders_with_errors_or_skipped": int(error_count),
    }
    headline.update({f"status[{name}]": int(count) for name, count in status.items() if count})
    overall = tables["overall"]
    key = "model_name" if "model_name" in overall.columns else None
    headline.update(_rate_headline("success_rate", overall, key))
    return headline


def probe_source(probe_folder: str | Path | None, runs_dir: str | Path) -> pd.DataFrame:
    """The training table to draw: our combined `training_all.csv` when we trained, else one found in the
    probe folder (ours), else an empty table (sorrel's folders hold probe CSVs only)."""
    folder = Path(probe_folder) if probe_folder is not None else Path(runs_dir)
    combined = folder / "training_all.csv"
    if combined.is_file():
        return pd.read_csv(combined)
    frames = []
    for path in sorted(folder.rglob("training.csv")):
        frame = pd.read_csv(path)
        if "condition" not in frame.columns:  # a single run: name it by its folders (<condition>/seed_<n>)
            frame.insert(0, "condition", path.parent.parent.name)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["epoch"])


def probe_headline(
    intention: pd.DataFrame, multistep: pd.DataFrame, pairs: pd.DataFrame, training: pd.DataFrame
) -> dict[str, Any]:
    """Headline numbers of the probe tests: final-epoch stag weight, behaviour result, agreement."""
    from cogames_lib.stats import rate_table

    by = ["condition", "partner_kind"] if "condition" in intention.columns else ["partner_kind"]
    headline: dict[str, Any] = {
        "runs": int(intention[["condition", "seed"]].drop_duplicates().shape[0])
        if {"condition", "seed"} <= set(intention.columns)
        else 1,
        "last_epoch": int(intention["epoch"].max()) if len(intention) else None,
        "training_epochs": int(training["epoch"].max()) if len(training) else 0,
    }
    headline.update(last_epoch_means(intention, "weight_facing_stag", by))
    headline.update(last_epoch_means(multistep, "result", by))
    attacked = pairs.dropna(subset=["agrees"]) if len(pairs) else pairs
    # a binary rate over attacks: Wilson interval and n, like every other rate in the report
    headline.update(
        _rate_headline("alignment_agreement", rate_table(attacked, None, "agrees"), None)
        if len(attacked)
        else {"alignment_agreement": None}
    )
    headline["alignment_attacks"] = len(attacked)
    return headline
