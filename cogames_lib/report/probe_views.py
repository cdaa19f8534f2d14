"""The probe page's derived tables: last-epoch means with intervals over seeds, the training table to draw
and the headline numbers.

Pure functions (tidy in, tidy out), so the notebook stays one call per cell and the selection rules are
tested here rather than buried in a notebook.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib.report.headline_rates import rate_headline


def last_epoch_table(table: pd.DataFrame, value: str, by: Iterable[str]) -> pd.DataFrame:
    """Mean of `value` at the last epoch per group with a bootstrap interval over seeds: one row per group
    with the `by` columns, `estimate`, `low`, `high` (NaN below two seeds), `n` and `unit` ("seed"/"row").

    Seeds are the independent unit: rows of one seed (agents, repeats) are averaged first, so the interval
    and n describe seeds, not correlated rows. Without a `seed` column every row counts as one unit.
    """
    from cogames_lib.stats import bootstrap_interval

    keys = list(by)
    columns = [*keys, "estimate", "low", "high", "n", "unit"]
    if table.empty:
        return pd.DataFrame(columns=columns)
    last = table[table["epoch"] == table["epoch"].max()]
    unit = "seed" if "seed" in last.columns else None
    per_unit = (
        last.groupby([*keys, unit], observed=True)[value].mean() if unit else last.set_index(keys)[value]
    )
    rows = []
    for key, values in per_unit.groupby(level=list(range(len(keys))), observed=True):
        estimate, low, high = bootstrap_interval(values.to_numpy(dtype=float))
        rows.append(
            [*(key if isinstance(key, tuple) else (key,)), estimate, low, high, len(values), unit or "row"]
        )
    return pd.DataFrame(rows, columns=columns)


def mean_text(estimate: float, low: float, high: float, n: int, unit: str) -> str:
    """ "0.512 [0.480, 0.540] n=3 seeds", or "0.512 (no interval) n=1 seed" below two units."""
    interval = f"[{low:.3f}, {high:.3f}]" if n >= 2 else "(no interval)"
    return f"{estimate:.3f} {interval} n={n} {unit}{'' if n == 1 else 's'}"


def last_epoch_means(table: pd.DataFrame, value: str, by: Iterable[str]) -> dict[str, str]:
    """Mean of `value` at the last epoch per group, as "mean [low, high] n=K seeds" (`last_epoch_table`)."""
    keys = list(by)
    headline: dict[str, str] = {}
    for row in last_epoch_table(table, value, keys).itertuples(index=False):
        label = "/".join(str(getattr(row, key)) for key in keys)
        headline[f"{value}[{label}]"] = mean_text(row.estimate, row.low, row.high, row.n, row.unit)
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
        rate_headline("alignment_agreement", rate_table(attacked, None, "agrees"), None)
        if len(attacked)
        else {"alignment_agreement": None}
    )
    headline["alignment_attacks"] = len(attacked)
    return headline
