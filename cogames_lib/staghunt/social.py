"""The one analysis path of a stag-hunt study: pure functions over tidy tables (nothing here draws).

Seeds are the independent unit everywhere: rows of one run (agents, cases, probe rounds, episodes) are
averaged within the run first, then a percentile bootstrap over seeds gives the 95% interval
(`cogames_lib.stats`; no interval from fewer than two seeds). Tables need `condition` and `seed`.

Three scales of the one-step intention probe (`with_scales`): `p_stag` = w_stag / (w_stag + w_hare), the
Q gap `q_gap` = Q_stag - Q_hare, and the `argmax` choice (1 when the stag-facing step has the higher Q,
0.5 on a tie). The left/right bias is estimated from the counterbalanced suite (`side_bias`: the preference
for STEP_LEFT over STEP_RIGHT whatever lies there) and removed by weighting the cases where the stag lies on
STEP_LEFT and those where it lies on STEP_RIGHT equally (`side_balanced`). A table without `stag_action`
(sorrel's suite) has the stag on STEP_LEFT in every case: its bias cannot be removed, and `side_bias`
says so with NaN.

- `partner_effect`: per condition, scale and partner side, the paired within-seed difference
  P(stag | same-kind partner) - P(stag | other-kind partner) for the condition's focal agents (hunters of
  `rules.PARTNER_TEST_FOCAL_KIND`), with a bootstrap interval, sign-flip and Wilcoxon p-values over seeds;
  plus the difference in differences between `not_all_can_hunt` and `all_can_hunt`.
- `acting_partner_effect`: the behavioural validation with acting partners, the same contrast per seed.
- `learning_curves` / `final_learning`: stag kills and return per episode, and their ratio to random play
  with an interval that carries the random baseline's standard error.
- `partner_curves`: side-balanced P(stag) (or the multi-step result) per partner kind over training.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from cogames_lib.errors import DataFileError
from cogames_lib.staghunt.rules import PARTNER_TEST_FOCAL_KIND
from cogames_lib.stats import (
    bootstrap_difference_interval,
    bootstrap_interval,
    permutation_p_value,
    sign_flip_p_value,
    wilcoxon_p_or_reason,
)
from cogames_lib.tables import STUDY_CURVE_COLUMNS, STUDY_EFFECT_COLUMNS

FINAL_FRACTION = 0.2  # the final window: probe rounds and epochs in the last 20% of training
CURVE_COLUMNS: list[str] = list(STUDY_CURVE_COLUMNS)
EFFECT_COLUMNS: list[str] = list(STUDY_EFFECT_COLUMNS)
LEARNING_METRICS: tuple[str, ...] = ("stags_killed", "mean_return")
SCALES: tuple[str, ...] = ("p_stag", "q_gap", "argmax")
PRIMARY_SCALE = "p_stag"
ALL_SIDES = "all"
# The difference in differences: the condition that removes the other kind's ability, and its control.
TREATMENT, CONTROL = "not_all_can_hunt", "all_can_hunt"
ACTING_METRICS: tuple[str, ...] = ("approached_stag", "attacked_stag", "stag_attacks", "stags_killed")
BOOTSTRAP_SEED = 0


def _require(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataFileError(f"{what}: table is missing columns {missing}")


def with_p_stag(intention: pd.DataFrame) -> pd.DataFrame:
    """The intention table with `p_stag` = w_stag / (w_stag + w_hare) (NaN when both weights are 0)."""
    _require(intention, ["weight_facing_stag", "weight_facing_hare"], "intention")
    total = intention["weight_facing_stag"] + intention["weight_facing_hare"]
    return intention.assign(p_stag=intention["weight_facing_stag"] / total.where(total > 0))


def with_scales(intention: pd.DataFrame) -> pd.DataFrame:
    """The intention table with the three scales (`SCALES`) and their left-step twins (`left_p`,
    `left_q_gap`, `left_argmax`: the same measures for STEP_LEFT against STEP_RIGHT, which the side bias
    is read from). Without `stag_action` (sorrel's suite) the stag-facing step is STEP_LEFT."""
    frame = with_p_stag(intention)
    _require(frame, ["q_val_step_left", "q_val_step_right"], "intention")
    if "stag_action" not in frame.columns:
        frame = frame.assign(stag_action="step_left")
    stag_left = frame["stag_action"].astype(str).eq("step_left")
    left, right = frame["q_val_step_left"], frame["q_val_step_right"]
    q_stag, q_hare = left.where(stag_left, right), right.where(stag_left, left)
    gap = q_stag - q_hare
    left_gap = left - right
    return frame.assign(
        q_gap=gap,
        argmax=np.sign(gap) * 0.5 + 0.5,
        left_p=frame["p_stag"].where(stag_left, 1 - frame["p_stag"]),
        left_q_gap=left_gap,
        left_argmax=np.sign(left_gap) * 0.5 + 0.5,
    )


def side_balanced(frame: pd.DataFrame, keys: Sequence[str], value: str) -> pd.DataFrame:
    """Per `keys`: the mean of `value` with the stag-on-STEP_LEFT and stag-on-STEP_RIGHT cases weighted
    equally (the mean of the two halves' means; a side bias adds +b to one half and -b to the other, so it
    cancels). `halves` says how many halves were present (1: the bias could not be removed)."""
    halves = frame.groupby([*keys, "stag_action"], observed=True)[value].mean().reset_index()
    grouped = halves.groupby(list(keys), observed=True)[value]
    return pd.concat([grouped.mean(), grouped.count().rename("halves")], axis=1).reset_index()


def focal_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows whose focal is in its condition's partner test: an agent that can hunt (when the table says),
    of the condition's focal kind (`rules.PARTNER_TEST_FOCAL_KIND`; KindA for a condition not listed)."""
    keep = pd.Series(True, index=frame.index)
    if "agent_can_hunt" in frame.columns:
        keep &= frame["agent_can_hunt"].astype(bool)
    if "agent_kind" in frame.columns:
        wanted = frame["condition"].map(lambda c: PARTNER_TEST_FOCAL_KIND.get(str(c), "AgentKindA"))
        keep &= wanted.isna() | frame["agent_kind"].astype(str).eq(wanted.astype(str))
    return frame[keep]


def _relations(frame: pd.DataFrame) -> pd.Series:
    """same / different / none; tables without `partner_relation` compare to `agent_kind` (KindA if absent)."""
    if "partner_relation" in frame.columns:
        return frame["partner_relation"].astype(str)
    focal = frame["agent_kind"].astype(str) if "agent_kind" in frame.columns else "AgentKindA"
    partner = frame["partner_kind"].astype(str)
    return pd.Series(np.where(partner.eq("no_partner"), "none", np.where(partner.eq(focal), "same", "different")),
                     index=frame.index)  # fmt: skip


def final_window(frame: pd.DataFrame, fraction: float = FINAL_FRACTION) -> pd.DataFrame:
    """Rows of each (condition, seed) run in the final `fraction` of training (epoch >= (1 - f) x last)."""
    last = frame.groupby(["condition", "seed"], observed=True)["epoch"].transform("max")
    return frame[frame["epoch"] >= (1 - fraction) * last]


def partner_differences(
    intention: pd.DataFrame,
    scale: str = PRIMARY_SCALE,
    fraction: float = FINAL_FRACTION,
    by_side: bool = False,
) -> pd.DataFrame:
    """Per (condition, seed[, partner_side]): `difference` = the side-balanced mean over the final window's
    paired cases of `scale` with a same-kind partner minus with an other-kind partner (focal agents only,
    `focal_rows`); `n_pairs` and `halves` (2 when both stag sides were probed). A pair is one (probe epoch,
    agent, map, version) probed with both partners; with several other-kind partners per case (identity-
    aware sorrel files) their rows are averaged first."""
    _require(intention, ["condition", "seed", "epoch", "agent_id", "map_name", "version", "partner_kind"],
             "intention")  # fmt: skip
    frame = focal_rows(final_window(with_scales(intention), fraction))
    frame = frame.assign(relation=_relations(frame))
    frame = frame[frame["relation"].isin(["same", "different"])]
    case = ["condition", "seed", "epoch", "agent_id", "map_name", "version", "stag_action"]
    if "partner_side" in frame.columns and by_side:
        case.append("partner_side")
    wide = frame.pivot_table(index=case, columns="relation", values=scale, aggfunc="mean", observed=True)
    keys = ["condition", "seed"] + (["partner_side"] if "partner_side" in case else [])
    if not {"same", "different"} <= set(wide.columns):
        return pd.DataFrame(columns=[*keys, "difference", "halves", "n_pairs"])
    pairs = wide.dropna(subset=["same", "different"])
    pairs = pairs.assign(difference=pairs["same"] - pairs["different"]).reset_index()
    balanced = side_balanced(pairs, keys, "difference")
    counts = pairs.groupby(keys, observed=True).size().rename("n_pairs").reset_index()
    return balanced.merge(counts, on=keys)


def _effect_row(effect: str, condition: str, scale: str, side: str, design: str, values: np.ndarray) -> dict:
    estimate, low, high = bootstrap_interval(values, seed=BOOTSTRAP_SEED)
    p_wilcoxon, note = wilcoxon_p_or_reason(values)
    return dict(effect=effect, condition=condition, scale=scale, partner_side=side, design=design,
                n_seeds=int(np.isfinite(values).sum()), estimate=estimate, ci_low=low, ci_high=high,
                p_sign_flip=sign_flip_p_value(values), p_wilcoxon=p_wilcoxon, wilcoxon_note=note,
                seeds_positive=int((values > 0).sum()))  # fmt: skip


def partner_effect(
    intention: pd.DataFrame,
    scales: Sequence[str] = SCALES,
    fraction: float = FINAL_FRACTION,
    by_side: bool = True,
    treatment: str = TREATMENT,
    control: str = CONTROL,
) -> pd.DataFrame:
    """The paired partner test, one row per (effect, condition, scale, partner side) (`EFFECT_COLUMNS`).

    `difference`: the mean over seeds of each seed's side-balanced paired difference same-kind minus
    other-kind partner (`partner_differences`); positive means the focal prefers the stag less beside the
    other kind. `partner_side` is `all` (every partner position) or, with `by_side`, `stag` / `hare` /
    `equidistant` (an "avoid the partner" tendency has opposite signs on the stag and hare sides).
    Interval: bootstrap over seeds; p-values (two-sided, over seeds): exact sign-flip permutation and
    Wilcoxon signed-rank. `difference_in_differences` (partner side `all`): `treatment` minus `control`,
    paired by seed when both ran the same seeds (same seed = same maps and initial networks), else two
    independent groups. Every estimate is reported whatever its size or p-value."""
    rows = []
    for scale in scales:
        per_seed = partner_differences(intention, scale, fraction)
        values_by_condition: dict[str, pd.Series] = {}
        for condition, part in per_seed.groupby("condition", sort=True):
            values = part.set_index("seed")["difference"]
            values_by_condition[str(condition)] = values
            rows.append(_effect_row("difference", str(condition), scale, ALL_SIDES, "paired within seed",
                                    values.to_numpy(float)))  # fmt: skip
        if by_side and "partner_side" in intention.columns:
            sided = partner_differences(intention, scale, fraction, by_side=True)
            for (condition, side), part in sided.groupby(["condition", "partner_side"], sort=True):
                rows.append(_effect_row("difference", str(condition), scale, str(side), "paired within seed",
                                        part["difference"].to_numpy(float)))  # fmt: skip
        if treatment in values_by_condition and control in values_by_condition:
            rows.append(_did_row(values_by_condition[treatment], values_by_condition[control],
                                 f"{treatment} - {control}", scale))  # fmt: skip
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)


def _did_row(treated: pd.Series, controlled: pd.Series, name: str, scale: str) -> dict:
    if set(treated.index) == set(controlled.index) and len(treated) >= 2:
        did = (treated - controlled.reindex(treated.index)).to_numpy(float)
        return _effect_row("difference_in_differences", name, scale, ALL_SIDES, "paired by seed", did)
    a, b = treated.to_numpy(float), controlled.to_numpy(float)
    estimate, low, high = bootstrap_difference_interval(a, b)
    return dict(effect="difference_in_differences", condition=name, scale=scale, partner_side=ALL_SIDES,
                design="independent groups", n_seeds=min(len(a), len(b)), estimate=estimate, ci_low=low,
                ci_high=high, p_sign_flip=permutation_p_value(a, b), p_wilcoxon=None,
                wilcoxon_note="unpaired seeds", seeds_positive=None)  # fmt: skip


SIDE_BIAS_COLUMNS = ["condition", "scale", "n_seeds", "estimate", "ci_low", "ci_high", "balanced"]
_LEFT = {"p_stag": "left_p", "q_gap": "left_q_gap", "argmax": "left_argmax"}
_NEUTRAL = {"p_stag": 0.5, "q_gap": 0.0, "argmax": 0.5}


def side_bias(intention: pd.DataFrame, fraction: float = FINAL_FRACTION) -> pd.DataFrame:
    """Per (condition, scale): the preference for STEP_LEFT over STEP_RIGHT whatever lies there, over the
    final window's rows of focal agents with every partner condition: P(left) - 0.5, mean Q_left - Q_right,
    or the left-argmax rate - 0.5, side-balanced per seed, bootstrap over seeds. `balanced` is False (and
    the estimate NaN) when the stag lay on one side only (sorrel's suite): the bias is then confounded with
    the stag preference and cannot be estimated."""
    frame = focal_rows(final_window(with_scales(intention), fraction))
    rows = []
    for scale in SCALES:
        per_seed = side_balanced(frame, ["condition", "seed"], _LEFT[scale])
        for condition, part in per_seed.groupby("condition", sort=True):
            balanced = bool((part["halves"] == 2).all())
            values = (
                (part[_LEFT[scale]] - _NEUTRAL[scale]).to_numpy(float) if balanced else np.array([np.nan])
            )
            estimate, low, high = bootstrap_interval(values, seed=BOOTSTRAP_SEED)
            rows.append(dict(condition=condition, scale=scale, n_seeds=len(part), estimate=estimate, ci_low=low,
                             ci_high=high, balanced=balanced))  # fmt: skip
    return pd.DataFrame(rows, columns=SIDE_BIAS_COLUMNS)


LEVEL_COLUMNS = ["condition", "scale", "partner_relation", *CURVE_COLUMNS]


def preference_levels(intention: pd.DataFrame, fraction: float = FINAL_FRACTION) -> pd.DataFrame:
    """Per (condition, scale, partner relation none / same / different): the focal agents' final-window
    level with the side bias removed (`side_balanced` per seed), mean and bootstrap interval over seeds."""
    frame = focal_rows(final_window(with_scales(intention), fraction))
    frame = frame.assign(partner_relation=_relations(frame))
    rows = []
    for scale in SCALES:
        per_seed = side_balanced(frame, ["condition", "partner_relation", "seed"], scale)
        for (condition, relation), part in per_seed.groupby(["condition", "partner_relation"], sort=True):
            estimate, low, high = bootstrap_interval(part[scale].to_numpy(float), seed=BOOTSTRAP_SEED)
            rows.append(dict(condition=condition, scale=scale, partner_relation=relation, n_seeds=len(part),
                             mean=estimate, ci_low=low, ci_high=high))  # fmt: skip
    return pd.DataFrame(rows, columns=LEVEL_COLUMNS)


ACTING_EFFECT_COLUMNS = ["condition", "metric", "n_seeds", "same", "different", "estimate", "ci_low", "ci_high",
                         "p_sign_flip", "seeds_positive"]  # fmt: skip


def acting_partner_effect(acting: pd.DataFrame) -> pd.DataFrame:
    """Per (condition, metric): the focal's per-episode measure beside a same-kind trained partner minus
    beside an other-kind one (`acting_partners` table), averaged over a seed's focals (and over its
    other-kind partners) first; bootstrap interval and sign-flip p over seeds. `same` / `different`: the
    two levels, mean over seeds."""
    _require(
        acting, ["condition", "seed", "focal_id", "partner_relation", *ACTING_METRICS], "acting_partners"
    )
    rows = []
    for metric in ACTING_METRICS:
        per_focal = acting.pivot_table(index=["condition", "seed", "focal_id"], columns="partner_relation",
                                       values=metric, aggfunc="mean")  # fmt: skip
        if not {"same", "different"} <= set(per_focal.columns):
            continue
        per_seed = per_focal.groupby(["condition", "seed"]).mean()
        for condition, part in per_seed.groupby("condition", sort=True):
            values = (part["same"] - part["different"]).to_numpy(float)
            estimate, low, high = bootstrap_interval(values, seed=BOOTSTRAP_SEED)
            rows.append(dict(condition=condition, metric=metric, n_seeds=len(values),
                             same=float(part["same"].mean()), different=float(part["different"].mean()),
                             estimate=estimate, ci_low=low, ci_high=high, p_sign_flip=sign_flip_p_value(values),
                             seeds_positive=int((values > 0).sum())))  # fmt: skip
    return pd.DataFrame(rows, columns=ACTING_EFFECT_COLUMNS)


def _across_seeds(per_seed: pd.DataFrame, keys: list[str], value: str) -> pd.DataFrame:
    rows = []
    for group, part in per_seed.groupby(keys, observed=True, sort=True):
        estimate, low, high = bootstrap_interval(part[value].to_numpy(float), seed=BOOTSTRAP_SEED)
        row = dict(zip(keys, group if isinstance(group, tuple) else (group,), strict=True))
        row.update(n_seeds=int(part[value].notna().sum()), mean=estimate, ci_low=low, ci_high=high)
        rows.append(row)
    return pd.DataFrame(rows, columns=[*keys, *CURVE_COLUMNS])


def partner_curves(probe: pd.DataFrame, value: str = "p_stag") -> pd.DataFrame:
    """Per (condition, agent_kind, partner_kind, epoch): `n_seeds`, `mean`, `ci_low`, `ci_high` of `value`
    (`p_stag` from an intention table, side-balanced within each seed when the table has both stag sides;
    or `result` from a multi-step table). `agent_kind` is the focal's kind ("all" when the table does not
    say); only agents that can hunt when the table says who can."""
    frame = with_scales(probe) if value in SCALES else probe
    _require(frame, ["condition", "seed", "epoch", "partner_kind", value], "partner_curves")
    frame = frame.assign(agent_kind=frame.get("agent_kind", "all"))
    if "agent_can_hunt" in frame.columns:
        frame = frame[frame["agent_can_hunt"].astype(bool)]
    keys = ["condition", "agent_kind", "partner_kind", "epoch"]
    if "stag_action" in frame.columns:
        per_seed = side_balanced(frame, [*keys, "seed"], value)
    else:
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


def ratio_interval(
    per_seed: np.ndarray,
    baseline: float,
    baseline_error: float,
    resamples: int = 4000,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float, float]:
    """(ratio, low, high) of mean(per_seed) / baseline: each resample draws the seeds with replacement and
    the baseline from a normal with its standard error (random play's own sampling error), so the interval
    carries both. A baseline resample at or below 0 gives an infinite ratio; percentiles stay defined."""
    values = np.asarray(per_seed, dtype=float)
    values = values[np.isfinite(values)]
    if not baseline > 0 or values.size == 0:
        return (float("nan"),) * 3
    ratio = float(values.mean() / baseline)
    if values.size < 2:
        return (ratio, float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, values.size, (resamples, values.size))].mean(axis=1)
    error = baseline_error if np.isfinite(baseline_error) else 0.0
    bases = baseline + error * rng.standard_normal(resamples)
    ratios = np.where(bases > 0, means / np.where(bases > 0, bases, 1.0), np.inf)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return (ratio, float(low), float(high))


def final_learning(
    training: pd.DataFrame,
    random_policy: pd.DataFrame | float | Mapping[str, float] | None,
    fraction: float = FINAL_FRACTION,
    random_policy_return: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Per (condition, metric): the final-`fraction` mean per episode across seeds with its interval, the
    random-play baseline `random_rate` and `random_error` (its standard error) and the ratio to it (`ratio`,
    `ratio_low`, `ratio_high`: seeds and baseline resampled together, `ratio_interval`); NaN without a
    positive baseline. `random_policy` is the study's `random_policy` table (condition, stags_per_episode,
    stags_standard_error, mean_return, return_standard_error), or a stag rate (one number or per
    condition, errors then unknown and taken as 0) with `random_policy_return` per condition."""
    _require(training, ["condition", "seed", "epoch", *LEARNING_METRICS], "training")
    tail = final_window(training, fraction)
    long = tail.melt(["condition", "seed"], list(LEARNING_METRICS), "metric", "value")
    per_seed = long.groupby(["condition", "metric", "seed"], observed=True)["value"].mean().reset_index()
    summary = _across_seeds(per_seed, ["condition", "metric"], "value")
    conditions = sorted(summary["condition"].astype(str).unique())
    baselines = random_baselines(random_policy, conditions, random_policy_return)
    ratios = []
    for row in summary.itertuples(index=False):
        rate, error = baselines.get((str(row.condition), str(row.metric)), (np.nan, np.nan))
        values = per_seed[(per_seed["condition"] == row.condition) & (per_seed["metric"] == row.metric)][
            "value"
        ]
        ratios.append((rate, error, *ratio_interval(values.to_numpy(float), rate, error)))
    extra = pd.DataFrame(ratios, columns=["random_rate", "random_error", "ratio", "ratio_low", "ratio_high"])
    return pd.concat([summary.reset_index(drop=True), extra], axis=1)


def random_baselines(
    random_policy: pd.DataFrame | float | Mapping[str, float] | None,
    conditions: Sequence[str],
    random_policy_return: Mapping[str, float] | None = None,
) -> dict[tuple[str, str], tuple[float, float]]:
    """(condition, metric) -> (random-play mean, its standard error) from the forms `final_learning` takes."""
    out: dict[tuple[str, str], tuple[float, float]] = {}
    if isinstance(random_policy, pd.DataFrame):
        for row in random_policy.to_dict("records"):
            condition = str(row["condition"])
            out[(condition, "stags_killed")] = (
                float(row["stags_per_episode"]),
                float(row.get("stags_standard_error", 0.0)),
            )
            if "mean_return" in row:
                out[(condition, "mean_return")] = (
                    float(row["mean_return"]),
                    float(row.get("return_standard_error", 0.0)),
                )
        return out
    for condition, rate in baseline_by_condition(random_policy, conditions).items():
        out[(condition, "stags_killed")] = (rate, 0.0)
    for condition, rate in baseline_by_condition(random_policy_return, conditions).items():
        out[(condition, "mean_return")] = (rate, 0.0)
    return out


def baseline_by_condition(
    value: float | Mapping[str, float] | None, conditions: Sequence[str]
) -> dict[str, float]:
    """A random-play baseline given as one number or per condition, as a dict per condition."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return {str(condition): float(rate) for condition, rate in value.items()}
    return {str(condition): float(value) for condition in conditions}
