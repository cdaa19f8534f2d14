"""Aggregates of the `emergence` table for its figures and findings: pure functions, nothing draws here.

Two units, never mixed: a rate pooled over episodes carries a Wilson interval (n = episodes); a rate
compared across training seeds carries a Student-t interval over seeds (n = seeds, none below two), because
the seeds are the independent replications of training (and are few: `stats.t_interval`).

Capability family: the first skill the catalogue lists for a diagnostic (`Diagnostic.skills[0]`: navigation,
deposit, explore, chorus, extraction, unclip, recharge, memory, vibes), so the families are the catalogue's
own claims and a new diagnostic joins one by its record.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from cogames_lib.errors import ParameterError
from cogames_lib.learn.emergence import (
    RELIABLE_RATE,
    check_reliable_rate,
    diagnostic_order,
    passes_bar,
    short_name,
)
from cogames_lib.stats import t_interval, wilson_interval
from cogames_lib.tables import EMERGENCE, RATE_COLUMNS

OTHER_FAMILY = "other"
FAMILY_CURVE_COLUMNS = ("family", "num_agents", "step", "n_seeds", "n", "rate", "ci_low", "ci_high")
# Issue 19's learning targets, each at >= RELIABLE_RATE on held-out episodes of a seed's final checkpoint:
# the five chest diagnostics and the charger at 1 agent, and a chorus at 2 agents (`chorus_pair`).
CHORUS_TARGET = ("diagnostic_chorus_pair", 2)
LEARNING_TARGETS = (
    *(
        (f"diagnostic_{name}", 1)
        for name in (
            "chest_deposit_near",
            "chest_deposit_search",
            "chest_navigation1",
            "chest_navigation2",
            "chest_navigation3",
            "charge_up",
        )
    ),
    CHORUS_TARGET,
)
TARGET_EPISODES = 20  # the targets' rates are over at least this many episodes per final cell
STRETCH_ONE_AGENT = 12  # the stretch: this many of the documented diagnostics at 1 agent
SCORECARD_COLUMNS = (
    "seed",
    "step",
    "one_agent_passed",
    "one_agent_played",
    "chorus",
    "targets",
    "stretch",
    "missing_targets",
    "fewest_episodes",
    "final_drops",
    *RATE_COLUMNS,
)
FIRST_PASS_COLUMNS = (
    "diagnostic",
    "tier",
    "num_agents",
    "seeds",
    "seeds_reached",
    "first_step_median",
    "first_step_min",
    "first_step_max",
)


def capability_family(diagnostic: str) -> str:
    """The first skill the catalogue claims for `diagnostic` (its base's, for a hard or custom record)."""
    from cogames_lib.diagnostics import get_diagnostic
    from cogames_lib.errors import CogamesLibError

    try:
        skills = get_diagnostic(diagnostic).skills
    except CogamesLibError:
        return OTHER_FAMILY
    return skills[0] if skills else OTHER_FAMILY


def pooled_rates(table: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Summed n and successes per group with rate and Wilson 95% interval (`tables.RATE_COLUMNS`)."""
    EMERGENCE.validate(table, "emergence table", EMERGENCE.pick("n", "successes"))
    grouped = table.groupby(list(by), sort=False)[["n", "successes"]].sum().reset_index()
    intervals = [
        wilson_interval(int(s), int(n)) for s, n in zip(grouped["successes"], grouped["n"], strict=True)
    ]
    grouped["rate"] = np.where(grouped["n"] > 0, grouped["successes"] / grouped["n"].clip(lower=1), np.nan)
    grouped["ci_low"] = [low for low, _ in intervals]
    grouped["ci_high"] = [high for _, high in intervals]
    return grouped[[*by, *RATE_COLUMNS]]


def over_training(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of diagnostics every checkpoint of their seed played (not those only the final checkpoints
    played, such as the hard tier): what the curves over training show."""
    steps = table.groupby("seed")["step"].nunique()
    played = table.groupby(["seed", "diagnostic", "num_agents"])["step"].transform("nunique")
    return table[played.to_numpy() == table["seed"].map(steps).to_numpy()]


def emergence_grid(table: pd.DataFrame) -> pd.DataFrame:
    """Per (diagnostic, num_agents, step), pooled over training seeds: n_seeds and the `RATE_COLUMNS`.
    Diagnostics in catalogue order (the heatmap's rows); only those every checkpoint played."""
    table = over_training(table)
    rates = pooled_rates(table, ["diagnostic", "num_agents", "step"])
    seeds = table.groupby(["diagnostic", "num_agents", "step"], sort=False)["seed"].nunique()
    rates.insert(3, "n_seeds", seeds.to_numpy())
    order = {name: i for i, name in enumerate(diagnostic_order(table["diagnostic"]))}
    rates = rates.assign(_order=rates["diagnostic"].map(order))
    rates = rates.sort_values(["_order", "num_agents", "step"], kind="stable").drop(columns="_order")
    return rates.reset_index(drop=True)


def family_curves(table: pd.DataFrame) -> pd.DataFrame:
    """Per (family, num_agents, step): the pass rate of each training seed (episodes pooled over the
    family's diagnostics), then their mean across seeds with a Student-t 95% interval over seeds, clipped to
    [0, 1] (`FAMILY_CURVE_COLUMNS`; no interval below two seeds; `stats.t_interval` says why not a
    bootstrap over so few seeds). `n` counts the episodes behind the mean.
    Only the diagnostics every checkpoint played (`over_training`)."""
    table = over_training(table)
    families = table.assign(family=table["diagnostic"].map(capability_family))
    per_seed = pooled_rates(families, ["family", "num_agents", "step", "seed"])
    rows = []
    for (family, agents, step), group in per_seed.groupby(["family", "num_agents", "step"], sort=True):
        estimate, low, high = t_interval(group["rate"].to_numpy(), bounds=(0.0, 1.0))
        rows.append((family, agents, step, len(group), int(group["n"].sum()), estimate, low, high))
    return pd.DataFrame(rows, columns=list(FAMILY_CURVE_COLUMNS))


def final_checkpoints(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of each training seed's last evaluated step."""
    last = table.groupby("seed")["step"].transform("max")
    return table[table["step"] == last].reset_index(drop=True)


def final_rates(table: pd.DataFrame, reliable_rate: float = RELIABLE_RATE) -> pd.DataFrame:
    """Per (diagnostic, tier, num_agents) at each seed's final checkpoint: episodes pooled over seeds
    (`RATE_COLUMNS`, Wilson), `seeds` and `seeds_reliable` (seeds whose final rate reaches the bar)."""
    final = final_checkpoints(table)
    rates = pooled_rates(final, ["diagnostic", "tier", "num_agents"])
    reliable = final.assign(ok=passes_bar(final["successes"], final["n"], reliable_rate))
    counts = reliable.groupby(["diagnostic", "tier", "num_agents"], sort=False).agg(
        seeds=("seed", "nunique"), seeds_reliable=("ok", "sum")
    )
    return rates.merge(counts.reset_index(), on=["diagnostic", "tier", "num_agents"], how="left")


def first_reliable_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per (diagnostic, tier, num_agents): how many training seeds reached the reliability bar and when
    (median, min and max of `first_reliable_step` over the seeds that did; missing where none did)."""
    lines = table.drop_duplicates(["seed", "diagnostic", "num_agents"])
    rows = []
    for (diagnostic, tier, agents), group in lines.groupby(["diagnostic", "tier", "num_agents"], sort=False):
        steps = group["first_reliable_step"].dropna().astype(int)
        rows.append(
            (
                diagnostic,
                tier,
                agents,
                group["seed"].nunique(),
                len(steps),
                float(steps.median()) if len(steps) else np.nan,
                int(steps.min()) if len(steps) else pd.NA,
                int(steps.max()) if len(steps) else pd.NA,
            )
        )
    result = pd.DataFrame(rows, columns=list(FIRST_PASS_COLUMNS))
    return result.astype({"first_step_min": "Int64", "first_step_max": "Int64"})


def seed_scorecard(table: pd.DataFrame, reliable_rate: float = RELIABLE_RATE) -> pd.DataFrame:
    """Per training seed at its final checkpoint, normal tier (`SCORECARD_COLUMNS`): the documented
    diagnostics passed at 1 agent (rate >= the bar) of those played, whether `chorus_pair` at 2 agents and
    every `LEARNING_TARGETS` cell pass, whether the stretch (`STRETCH_ONE_AGENT`) is met, the targets
    missed (`name@agents`, `;`-joined), the fewest episodes of any final cell (the targets ask for
    `TARGET_EPISODES`: a caller shows or refuses fewer), `final_drops` (normal cells that pass at the seed's
    previous evaluated step and fail at the final one: a policy still moving loses skills late; 0 where
    only the final step was evaluated), and the pass rate pooled over every normal cell (Wilson). A target
    cell the table lacks counts as missed; a seed without normal-tier rows at its final checkpoint is an
    error (its scorecard would be empty, not failed)."""
    from cogames_lib.diagnostics import DIAGNOSTICS

    documented = {name for name, record in DIAGNOSTICS.items() if record.documented}
    check_reliable_rate(reliable_rate)
    every = final_checkpoints(table)
    final = every[every["tier"].astype(str) == "normal"]
    lacking = sorted(set(every["seed"]) - set(final["seed"]))
    if lacking:
        raise ParameterError(f"emergence table: seeds {lacking} have no normal-tier rows at their final step")
    final = final.assign(ok=passes_bar(final["successes"], final["n"], reliable_rate))
    drops = _final_drops(table[table["tier"].astype(str) == "normal"], reliable_rate)
    pooled = pooled_rates(final, ["seed"]).set_index("seed")
    rows = []
    for seed, group in final.groupby("seed", sort=True):
        reliable = group[group["ok"]]
        passed = set(zip(reliable["diagnostic"], reliable["num_agents"].astype(int), strict=True))
        one = group[(group["num_agents"] == 1) & group["diagnostic"].isin(documented)]
        missing = [f"{short_name(d)}@{k}" for d, k in LEARNING_TARGETS if (d, k) not in passed]
        count = int(one["ok"].sum())
        rates = pooled.loc[seed]
        rows.append(
            (
                seed,
                int(group["step"].iloc[0]),
                count,
                len(one),
                CHORUS_TARGET in passed,
                not missing,
                count >= STRETCH_ONE_AGENT,
                ";".join(missing),
                int(group["n"].min()),
                int(drops.get(seed, 0)),
                *(rates[column] for column in RATE_COLUMNS),
            )
        )
    return pd.DataFrame(rows, columns=list(SCORECARD_COLUMNS)).astype({"n": int, "successes": int})


def _final_drops(table: pd.DataFrame, reliable_rate: float) -> pd.Series:
    """Per seed: cells passing at its second-to-last evaluated step and failing at its last."""
    steps = table.groupby("seed")["step"].unique().map(sorted)
    previous = table["seed"].map(steps.map(lambda s: s[-2] if len(s) > 1 else -1))
    last = table["step"] == table.groupby("seed")["step"].transform("max")
    ok = passes_bar(table["successes"], table["n"], reliable_rate)
    keys = ["seed", "diagnostic", "num_agents"]
    before = table.loc[table["step"] == previous, keys].assign(before=ok[table["step"] == previous])
    after = table.loc[last, keys].assign(after=ok[last])
    both = before.merge(after, on=keys)
    return (both["before"] & ~both["after"]).groupby(both["seed"]).sum()
