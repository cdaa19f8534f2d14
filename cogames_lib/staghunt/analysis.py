"""Pure summaries of probe tables for `probe analyze FOLDER` and the notebook (tidy in, tidy out; nothing here
draws).

Intervals come from the one analysis path's rule (`social`): runs are the independent unit. Rows of one run
(`run_id`, else `seed`; a table with neither is one run) are averaged within the run first, then a 95%
percentile bootstrap over runs gives the interval (`stats.bootstrap_interval`). `n` counts runs: with one run
the interval is NaN (an interval over one seed's rows would claim a certainty nobody measured). Group keys
include `condition` whenever the table has that column.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from cogames_lib.errors import DataFileError
from cogames_lib.staghunt.probes import INTENTION_COLUMNS, MULTISTEP_COLUMNS
from cogames_lib.staghunt.rules import PARTNER_KINDS
from cogames_lib.stats import bootstrap_interval


def _require(frame: pd.DataFrame, columns: Sequence[str], table: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataFileError(f"{table} table is missing columns {missing}")


def _keys(frame: pd.DataFrame, keys: Sequence[str]) -> list[str]:
    return (["condition"] if "condition" in frame.columns else []) + list(keys)


def _ordered(frame: pd.DataFrame) -> pd.DataFrame:
    if "partner_kind" in frame:
        frame["partner_kind"] = pd.Categorical(
            frame["partner_kind"], categories=list(PARTNER_KINDS), ordered=True
        )
    return frame


def _run_column(frame: pd.DataFrame) -> pd.Series:
    for column in ("run_id", "seed"):
        if column in frame.columns:
            return frame[column].astype(str)
    return pd.Series("one run", index=frame.index)


def _summarise(frame: pd.DataFrame, keys: list[str], columns: Sequence[str]) -> pd.DataFrame:
    frame = frame.assign(_run=_run_column(frame))
    per_run = frame.groupby([*keys, "_run"], observed=True, sort=True)[list(columns)].mean().reset_index()
    rows = []
    for group, part in per_run.groupby(keys, observed=True, sort=True):
        row = dict(zip(keys, group if isinstance(group, tuple) else (group,), strict=True))
        row["n"] = len(part)
        for column in columns:
            row[f"{column}_mean"], row[f"{column}_low"], row[f"{column}_high"] = bootstrap_interval(
                part[column]
            )
        rows.append(row)
    return pd.DataFrame(rows)


def intention_summary(intention: pd.DataFrame) -> pd.DataFrame:
    """Per ([condition,] epoch, partner_kind): `n` (runs), `weight_facing_stag_{mean,low,high}`,
    `weight_facing_hare_{mean,low,high}` and `stag_hare_ratio` (mean stag weight / mean hare weight;
    above 1 means the stag-facing step is preferred)."""
    _require(intention, INTENTION_COLUMNS, "intention")
    keys = _keys(intention, ["epoch", "partner_kind"])
    summary = _summarise(_ordered(intention.copy()), keys, ["weight_facing_stag", "weight_facing_hare"])
    summary["stag_hare_ratio"] = summary["weight_facing_stag_mean"] / summary["weight_facing_hare_mean"]
    return summary


def behaviour_summary(multistep: pd.DataFrame) -> pd.DataFrame:
    """Per ([condition,] epoch, partner_kind, agent_kind): `n` (runs), `result_{mean,low,high}` (1 stag, 0
    hare, 0.5 no attack) and the rates `stag_rate`, `hare_rate`, `no_attack_rate` (over every row)."""
    _require(multistep, MULTISTEP_COLUMNS, "multi-step")
    frame = _ordered(multistep.copy())
    if "agent_kind" not in frame:
        frame["agent_kind"] = "unknown"
    keys = _keys(frame, ["epoch", "partner_kind", "agent_kind"])
    summary = _summarise(frame, keys, ["result"])
    rates = (
        frame.assign(
            stag_rate=frame["first_attack_target"].eq("stag"),
            hare_rate=frame["first_attack_target"].eq("hare"),
            no_attack_rate=frame["first_attack_target"].eq("none"),
        )
        .groupby(keys, observed=True, sort=True)[["stag_rate", "hare_rate", "no_attack_rate"]]
        .mean()
    )
    return summary.merge(rates.reset_index(), on=keys, how="left")


def _unit_keys(frame: pd.DataFrame) -> list[str]:
    run = ["run_id"] if "run_id" in frame.columns else (["seed"] if "seed" in frame.columns else [])
    return _keys(frame, [*run, "epoch", "agent_id", "partner_kind"])


def alignment_pairs(intention: pd.DataFrame, multistep: pd.DataFrame) -> pd.DataFrame:
    """Per ([condition,] [run_id,] epoch, agent_id, partner_kind): `p_stag_intention` (mean over maps and
    versions of w_stag / (w_stag + w_hare)), `intended` (stag if p > 0.5 else hare), `result` and
    `first_attack_target` from the multi-step probe, `agrees` (intended == target; NaN without attack)."""
    _require(intention, INTENTION_COLUMNS, "intention")
    _require(multistep, MULTISTEP_COLUMNS, "multi-step")
    keys = _unit_keys(intention)
    frame = intention.assign(
        p_stag_intention=intention["weight_facing_stag"]
        / (intention["weight_facing_stag"] + intention["weight_facing_hare"])
    )
    per_unit = frame.groupby(keys, sort=True)["p_stag_intention"].mean().reset_index()
    pairs = per_unit.merge(multistep[[*keys, "result", "first_attack_target"]], on=keys, how="inner")
    pairs["intended"] = np.where(pairs["p_stag_intention"] > 0.5, "stag", "hare")
    attacked = pairs["first_attack_target"].isin(["stag", "hare"])
    pairs["agrees"] = (pairs["intended"] == pairs["first_attack_target"]).where(attacked)
    return _ordered(pairs)


def alignment_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per ([condition,] epoch): `n`, `n_attacked`, `agreement_rate` (among units whose focal attacked)
    and `correlation` (Pearson, p_stag_intention vs result over all units; NaN if either is constant)."""
    keys = _keys(pairs, ["epoch"])
    rows = []
    for group, part in pairs.groupby(keys, sort=True):
        row = dict(zip(keys, group if isinstance(group, tuple) else (group,), strict=True))
        attacked = part["agrees"].dropna()
        row.update(n=len(part), n_attacked=len(attacked))
        row["agreement_rate"] = float(attacked.astype(float).mean()) if len(attacked) else float("nan")
        x, y = part["p_stag_intention"].to_numpy(float), part["result"].to_numpy(float)
        constant = len(part) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0
        row["correlation"] = float("nan") if constant else float(np.corrcoef(x, y)[0, 1])
        rows.append(row)
    return pd.DataFrame(rows)
