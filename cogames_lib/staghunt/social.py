"""The social-context analysis of a probe study: pure functions over tidy tables (nothing here draws).

Seeds are the independent unit everywhere: rows of one run (agents, maps, versions, epochs of a window)
are averaged within the run first, then a percentile bootstrap over seeds gives the 95% interval
(`cogames_lib.stats`; no interval from fewer than two seeds). Tables need `condition` and `seed`.

- `partner_curves`: intention P(stag) = w_stag / (w_stag + w_hare), or the multi-step result, per
  (condition, focal kind, partner kind, epoch) over training.
- `learning_curves` / `final_learning`: stag kills and return per episode over training, the mean of the
  final `fraction` of training, and stag kills as a ratio to the random-policy rate of the study's world.
- `partner_effect`: the paired test of "a KindA focal prefers the stag less with a KindB partner when
  KindB cannot hunt" (see its docstring).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from cogames_lib.errors import DataFileError
from cogames_lib.stats import (
    bootstrap_difference_interval,
    bootstrap_interval,
    permutation_p_value,
    sign_flip_p_value,
    wilcoxon_p_or_reason,
)

FINAL_FRACTION = 0.1
CURVE_COLUMNS = ["n_seeds", "mean", "ci_low", "ci_high"]
LEARNING_METRICS: tuple[str, ...] = ("stags_killed", "mean_return")
# The social-context question: which condition removes the partner's ability to hunt, which is the control.
TREATMENT, CONTROL = "not_all_can_hunt", "all_can_hunt"
EFFECT_COLUMNS = [
    "effect", "condition", "design", "n_seeds", "estimate", "ci_low", "ci_high", "p_sign_flip", "p_wilcoxon",
    "wilcoxon_note",
]  # fmt: skip


def _require(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataFileError(f"{what}: table is missing columns {missing}")


def with_p_stag(intention: pd.DataFrame) -> pd.DataFrame:
    """The intention table with `p_stag` = w_stag / (w_stag + w_hare) (NaN when both weights are 0)."""
    _require(intention, ["weight_facing_stag", "weight_facing_hare"], "intention")
    total = intention["weight_facing_stag"] + intention["weight_facing_hare"]
    return intention.assign(p_stag=intention["weight_facing_stag"] / total.where(total > 0))


def _across_seeds(per_seed: pd.DataFrame, keys: list[str], value: str) -> pd.DataFrame:
    rows = []
    for group, part in per_seed.groupby(keys, observed=True, sort=True):
        estimate, low, high = bootstrap_interval(part[value].to_numpy(float))
        row = dict(zip(keys, group if isinstance(group, tuple) else (group,), strict=True))
        row.update(n_seeds=int(part[value].notna().sum()), mean=estimate, ci_low=low, ci_high=high)
        rows.append(row)
    return pd.DataFrame(rows, columns=[*keys, *CURVE_COLUMNS])


def partner_curves(probe: pd.DataFrame, value: str = "p_stag") -> pd.DataFrame:
    """Per (condition, agent_kind, partner_kind, epoch): `n_seeds`, `mean`, `ci_low`, `ci_high` of `value`
    (`p_stag` from an intention table, or `result` from a multi-step table). `agent_kind` is the focal's
    kind ("all" when the table does not say)."""
    frame = with_p_stag(probe) if value == "p_stag" else probe
    _require(frame, ["condition", "seed", "epoch", "partner_kind", value], "partner_curves")
    frame = frame.assign(agent_kind=frame.get("agent_kind", "all"))
    keys = ["condition", "agent_kind", "partner_kind", "epoch"]
    per_seed = frame.groupby([*keys, "seed"], observed=True)[value].mean().reset_index()
    return _across_seeds(per_seed, keys, value)


def epoch_windows(epochs: pd.Series, windows: int) -> pd.Series:
    """The last epoch of each of `windows` equal spans of training that `epochs` falls in (curve x values)."""
    last = int(epochs.max())
    width = max(1, int(np.ceil(last / windows)))
    return np.minimum(((epochs - 1) // width + 1) * width, last).astype(int)


def learning_curves(training: pd.DataFrame, windows: int = 50) -> pd.DataFrame:
    """Per (condition, metric, epoch): the across-seed mean and interval of the per-episode `stags_killed`
    and `mean_return`, each seed averaged over `windows` equal spans of training (`epoch` = span end)."""
    _require(training, ["condition", "seed", "epoch", *LEARNING_METRICS], "training")
    if training.empty:
        return pd.DataFrame(columns=["condition", "metric", "epoch", *CURVE_COLUMNS])
    frame = training.assign(window=epoch_windows(training["epoch"], windows))
    long = frame.melt(["condition", "seed", "window"], list(LEARNING_METRICS), "metric", "value")
    per_seed = (
        long.groupby(["condition", "metric", "window", "seed"], observed=True)["value"].mean().reset_index()
    )
    curves = _across_seeds(per_seed, ["condition", "metric", "window"], "value")
    return curves.rename(columns={"window": "epoch"})


def final_window(frame: pd.DataFrame, fraction: float = FINAL_FRACTION) -> pd.DataFrame:
    """Rows of each (condition, seed) run in the final `fraction` of its training (epoch > (1 - f) x last)."""
    last = frame.groupby(["condition", "seed"], observed=True)["epoch"].transform("max")
    return frame[(frame["epoch"] > (1 - fraction) * last) | (frame["epoch"] == last)]


def final_learning(
    training: pd.DataFrame,
    random_policy_stag_rate: float | Mapping[str, float] | None,
    fraction: float = FINAL_FRACTION,
    random_policy_return: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Per (condition, metric): the final-`fraction` mean per episode across seeds with its interval, the
    random-play baseline `random_rate` (stag kills: `random_policy_stag_rate`, one number or per condition;
    return: `random_policy_return` per condition, when known) and the ratio to it (`ratio`, `ratio_low`,
    `ratio_high`: the interval scaled by the measured baseline, which is taken as exact); NaN without a
    positive baseline."""
    _require(training, ["condition", "seed", "epoch", *LEARNING_METRICS], "training")
    tail = final_window(training, fraction)
    long = tail.melt(["condition", "seed"], list(LEARNING_METRICS), "metric", "value")
    per_seed = long.groupby(["condition", "metric", "seed"], observed=True)["value"].mean().reset_index()
    summary = _across_seeds(per_seed, ["condition", "metric"], "value")
    conditions = sorted(summary["condition"].astype(str).unique())
    baselines = {
        "stags_killed": baseline_by_condition(random_policy_stag_rate, conditions),
        "mean_return": baseline_by_condition(random_policy_return, conditions),
    }
    summary["random_rate"] = [
        baselines[metric].get(str(condition), np.nan) for condition, metric in zip(summary["condition"], summary["metric"], strict=True)
    ]  # fmt: skip
    baseline = summary["random_rate"].where(summary["random_rate"] > 0)
    for column, source in (("ratio", "mean"), ("ratio_low", "ci_low"), ("ratio_high", "ci_high")):
        summary[column] = summary[source] / baseline
    return summary


def baseline_by_condition(
    value: float | Mapping[str, float] | None, conditions: Sequence[str]
) -> dict[str, float]:
    """A random-play baseline given as one number or per condition, as a dict per condition."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return {str(condition): float(rate) for condition, rate in value.items()}
    return {str(condition): float(value) for condition in conditions}


def _paired_differences(
    intention: pd.DataFrame, focal_kind: str, partners: tuple[str, str], fraction: float
) -> pd.DataFrame:
    frame = with_p_stag(intention)
    _require(
        frame, ["condition", "seed", "epoch", "agent_id", "map_name", "version", "partner_kind"], "intention"
    )
    if "agent_kind" in frame.columns:
        frame = frame[frame["agent_kind"] == focal_kind]
    frame = final_window(frame, fraction)
    frame = frame[frame["partner_kind"].astype(str).isin(partners)]
    pair = ["condition", "seed", "epoch", "agent_id", "map_name", "version"]
    # identity-aware sorrel files hold one row per partner *agent*: average the rows of one kind first
    wide = frame.pivot_table(
        index=pair, columns=frame["partner_kind"].astype(str), values="p_stag", aggfunc="mean"
    )
    if not set(partners) <= set(wide.columns):
        return pd.DataFrame(columns=[*pair, "difference"])
    wide = wide.dropna(subset=list(partners))
    return wide.assign(difference=wide[partners[0]] - wide[partners[1]]).reset_index()[[*pair, "difference"]]


def partner_effect_per_seed(
    intention: pd.DataFrame,
    focal_kind: str = "AgentKindA",
    partners: tuple[str, str] = ("AgentKindA", "AgentKindB"),
    fraction: float = FINAL_FRACTION,
) -> pd.DataFrame:
    """Per (condition, seed): `n_pairs` and `difference`, the mean over pairs of P(stag | partners[0]) -
    P(stag | partners[1]) for `focal_kind` focals in the final `fraction` of training. A pair is one
    (seed, probe epoch, agent, map, version) probed with both partners. A table without `agent_kind`
    (sorrel's files) cannot tell focal kinds apart: every focal is then counted."""
    pairs = _paired_differences(intention, focal_kind, partners, fraction)
    grouped = pairs.groupby(["condition", "seed"], observed=True)["difference"]
    return pd.concat([grouped.size().rename("n_pairs"), grouped.mean()], axis=1).reset_index()


def _effect_row(effect: str, condition: str, design: str, interval: tuple[float, float, float], p_flip: float,
                wilcoxon: tuple[float | None, str], n: int) -> dict:  # fmt: skip
    estimate, low, high = interval
    p_wilcoxon, note = wilcoxon
    return dict(effect=effect, condition=condition, design=design, n_seeds=n, estimate=estimate, ci_low=low,
                ci_high=high, p_sign_flip=p_flip, p_wilcoxon=p_wilcoxon, wilcoxon_note=note)  # fmt: skip


def partner_effect(
    intention: pd.DataFrame,
    focal_kind: str = "AgentKindA",
    partners: tuple[str, str] = ("AgentKindA", "AgentKindB"),
    fraction: float = FINAL_FRACTION,
    treatment: str = TREATMENT,
    control: str = CONTROL,
) -> pd.DataFrame:
    """The paired test, one row per effect (`EFFECT_COLUMNS`).

    `difference` (one row per condition): the mean over seeds of each seed's paired difference
    P(stag | KindA partner) - P(stag | KindB partner) for KindA focals in the final 10% of training;
    positive means the focal prefers the stag less with a KindB partner. Interval: bootstrap over seeds;
    p-values (two-sided, over seeds): exact sign-flip permutation and Wilcoxon signed-rank.
    `difference_in_differences`: treatment (`not_all_can_hunt`) minus control (`all_can_hunt`); paired by
    seed when both conditions ran the same seeds (same seed = same maps and initial networks, so the
    seed is a common-random-numbers block), else two independent groups (two-group bootstrap and a label
    permutation test; no Wilcoxon). The estimate is reported whatever its size or p-value.
    """
    per_seed = partner_effect_per_seed(intention, focal_kind, partners, fraction)
    rows = []
    values_by_condition: dict[str, pd.Series] = {}
    for condition, part in per_seed.groupby("condition", sort=True):
        values = part.set_index("seed")["difference"]
        values_by_condition[str(condition)] = values
        array = values.to_numpy(float)
        rows.append(_effect_row("difference", str(condition), "paired within seed", bootstrap_interval(array),
                                sign_flip_p_value(array), wilcoxon_p_or_reason(array), len(array)))  # fmt: skip
    if treatment in values_by_condition and control in values_by_condition:
        treated, controlled = values_by_condition[treatment], values_by_condition[control]
        name = f"{treatment} - {control}"
        if set(treated.index) == set(controlled.index) and len(treated) >= 2:
            did = (treated - controlled.reindex(treated.index)).to_numpy(float)
            rows.append(_effect_row("difference_in_differences", name, "paired by seed", bootstrap_interval(did),
                                    sign_flip_p_value(did), wilcoxon_p_or_reason(did), len(did)))  # fmt: skip
        else:
            a, b = treated.to_numpy(float), controlled.to_numpy(float)
            rows.append(_effect_row("difference_in_differences", name, "independent groups",
                                    bootstrap_difference_interval(a, b), permutation_p_value(a, b),
                                    (None, "unpaired seeds"), min(len(a), len(b))))  # fmt: skip
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)


Q_COLUMNS: tuple[str, ...] = (
    "q_val_forward",
    "q_val_backward",
    "q_val_step_left",
    "q_val_step_right",
    "q_val_attack",
)


KIND_COLUMNS = ["condition", "agent_kind", "stage", "n_seeds", "kind_change", "presence_change", "ratio",
                "ratio_low", "ratio_high"]  # fmt: skip


def _kind_changes(frame: pd.DataFrame) -> pd.DataFrame:
    case = ["condition", "agent_kind", "seed", "epoch", "agent_id", "map_name", "version"]
    q = frame.groupby([*case, "partner_kind"], observed=True)[list(Q_COLUMNS)].mean()
    kinds = set(q.index.get_level_values("partner_kind"))
    if not {"AgentKindA", "AgentKindB", "no_partner"} <= kinds:
        return pd.DataFrame(columns=["condition", "agent_kind", "seed", "kind_change", "presence_change"])
    kind_a, kind_b, alone = (
        q.xs(kind, level="partner_kind") for kind in ("AgentKindA", "AgentKindB", "no_partner")
    )
    changes = pd.DataFrame(
        {
            "kind_change": (kind_a - kind_b).abs().max(axis=1),
            "presence_change": (kind_a - alone).abs().max(axis=1),
        }
    ).dropna()
    return changes.groupby(["condition", "agent_kind", "seed"], observed=True).mean().reset_index()


def kind_sensitivity(intention: pd.DataFrame, fraction: float = FINAL_FRACTION) -> pd.DataFrame:
    """Does the network read the partner's kind at all? Per (condition, agent_kind, stage): the largest
    Q-value change when only the partner's kind changes (KindA -> KindB partner: `kind_change`) and when
    the partner is removed (`presence_change`), averaged over probe cases and then over seeds, and `ratio`
    = kind / presence per seed with its bootstrap interval across seeds. `stage` is `start` (the first probe
    epoch, the untrained network: any input change moves its output) or `final` (the final `fraction` of
    training). The two probe observations differ only in the partner's kind channels: a final ratio falling
    toward 0 means training taught the network to ignore the kind, so no partner-kind effect can appear."""
    _require(
        intention, [*Q_COLUMNS, "condition", "seed", "epoch", "agent_id", "map_name", "version"], "intention"
    )
    frame = intention.assign(
        agent_kind=intention.get("agent_kind", "all"), partner_kind=intention["partner_kind"].astype(str)
    )
    first = frame.groupby(["condition", "seed"], observed=True)["epoch"].transform("min")
    rows = []
    for stage, part in (("start", frame[frame["epoch"] == first]), ("final", final_window(frame, fraction))):
        per_seed = _kind_changes(part)
        per_seed = per_seed.assign(
            ratio=per_seed["kind_change"] / per_seed["presence_change"].where(per_seed["presence_change"] > 0)
        )
        for (condition, kind), group in per_seed.groupby(["condition", "agent_kind"], sort=True):
            ratio, low, high = bootstrap_interval(group["ratio"].to_numpy(float))
            rows.append({"condition": condition, "agent_kind": kind, "stage": stage, "n_seeds": len(group),
                         "kind_change": float(group["kind_change"].mean()),
                         "presence_change": float(group["presence_change"].mean()),
                         "ratio": ratio, "ratio_low": low, "ratio_high": high})  # fmt: skip
    return pd.DataFrame(rows, columns=KIND_COLUMNS)
