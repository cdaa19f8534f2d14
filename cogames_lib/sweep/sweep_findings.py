"""The diagnostics sweep's findings: every number the report shows about a sweep, computed here once.

`sweep_findings(tables)` reads the `episodes` table (unit of analysis: episodes; pass rates with Wilson 95%
intervals) and returns `Finding` records, the headline first: the best policy's pass rate, the other
policies', where the best is weakest, each ablation's drop against its full policy and, when asked, a
suite-level comparison of two policies (`sweep.compare`: stratified bootstrap over cells). The notebook
writes them to `summary.json` and the report only renders them. Figure names are the constants below; the
notebook saves its figures under the same names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import pandas as pd

from cogames_lib.finding import UNIT_CELLS, UNIT_EPISODES, Finding, interval_text
from cogames_lib.sweep.compare import PolicyComparison, compare_policies

CAPABILITY = "diagnostics"
PASS_RATE_FIGURE = "pass_rate_heatmap"
CAPABILITY_FIGURE = "capability_matrix"
PROFILE_FIGURE = "performance_profile"
WILSON = "Wilson score interval, 95%"


def _png(name: str) -> str:
    return f"{name}.png"


def _short(diagnostic: object) -> str:
    return str(diagnostic).removeprefix("diagnostic_")


def _policy_order(episodes: pd.DataFrame) -> list[str]:
    present = set(episodes["policy"].astype(str))
    if isinstance(episodes["policy"].dtype, pd.CategoricalDtype):
        return [str(p) for p in episodes["policy"].cat.categories if str(p) in present]
    return list(dict.fromkeys(episodes["policy"].astype(str)))


def _rate(row: pd.Series) -> tuple[float, float, float, int]:
    return float(row["rate"]), float(row["ci_low"]), float(row["ci_high"]), int(row["n"])


def _rate_finding(key: str, text: str, row: pd.Series, figure: str | None = None) -> Finding:
    rate, low, high, n = _rate(row)
    return Finding(CAPABILITY, key, text, rate, low, high, n, UNIT_EPISODES, WILSON, figure, "episodes")


def _rate_words(row: pd.Series) -> str:
    return interval_text(*_rate(row), unit=UNIT_EPISODES)


def comparison_findings(comparison: PolicyComparison, figure: str | None = None) -> list[Finding]:
    """The suite-level difference in pass rate and the probability of improvement of one comparison."""
    from cogames_lib.stats import StratifiedComparison

    result = comparison.result
    assert isinstance(result, StratifiedComparison)
    first, second, cells = comparison.first, comparison.second, result.cells
    method = f"{result.method}; {result.n_resamples} resamples, {result.confidence:.0%}"
    left_out = (
        f" ({comparison.unmatched_cells} cells only one side played are left out)"
        if comparison.unmatched_cells
        else ""
    )
    difference = Finding(
        CAPABILITY,
        f"suite_difference[{first} - {second}]",
        f"Averaged over the {cells} (diagnostic, agent count) cells both played{left_out}, {first}'s pass rate "
        f"minus {second}'s is {interval_text(*result.difference, n=cells, unit=UNIT_CELLS)}.",
        *result.difference,
        cells,
        UNIT_CELLS,
        method,
        figure,
        "episodes",
    )
    improvement = Finding(
        CAPABILITY,
        f"probability_of_improvement[{first} > {second}]",
        f"Probability of improvement: on an episode of a random cell, {first} does better than {second} with "
        f"probability {interval_text(*result.improvement, n=cells, unit=UNIT_CELLS)} (ties count half; 0.5 "
        "is no difference).",
        *result.improvement,
        cells,
        UNIT_CELLS,
        method,
        None,
        "episodes",
    )
    return [difference, improvement]


def _ablation_findings(episodes: pd.DataFrame, policies: Sequence[str]) -> list[Finding]:
    from cogames_lib.stats import rate_table

    found: list[Finding] = []
    for ablation in (p for p in policies if ":-" in p and p.split(":-")[0] in policies):
        base, skill = ablation.split(":-")
        comparison = compare_policies(episodes, base, ablation)
        cells = comparison.cells.assign(drop=comparison.cells["rate_first"] - comparison.cells["rate_second"])
        worst = cells.sort_values(["drop", "diagnostic"], ascending=[False, True]).iloc[0]
        difference = comparison_findings(comparison, None if found else _png(CAPABILITY_FIGURE))[0]
        if worst["drop"] <= 0:
            where = "it lowers no cell's pass rate: none of these diagnostics needs that skill"
        else:
            part = episodes[
                (episodes["diagnostic"].astype(str) == worst["diagnostic"])
                & (episodes["num_agents"].astype(int) == int(worst["num_agents"]))
            ]
            rates = rate_table(part.assign(policy=part["policy"].astype(str)), "policy", "success")
            rates = rates.set_index("policy")
            where = (
                f"the largest drop is on {_short(worst['diagnostic'])} with {int(worst['num_agents'])} agent(s): "
                f"{base} {_rate_words(rates.loc[base])}, {ablation} {_rate_words(rates.loc[ablation])}"
            )
        found.append(
            replace(
                difference,
                key=f"ablation_drop[{ablation}]",
                text=f"Switching off {skill} ({ablation}) lowers the pass rate by "
                f"{difference.number_text()} averaged over cells ({base} minus {ablation}); {where}.",
            )
        )
    return found


def sweep_findings(tables: Mapping[str, pd.DataFrame], compare: Sequence[str] | None = None) -> list[Finding]:
    """The findings of a sweep (`tables["episodes"]`), the headline first: with `compare` (two policies of
    the table) their suite-level comparison (`sweep.compare`, drawn as the performance profile figure),
    else the best policy's pass rate."""
    from cogames_lib.stats import rate_table

    episodes = tables["episodes"]
    if episodes.empty:
        return [Finding(CAPABILITY, "episodes", "The sweep holds no episodes.", 0, unit=UNIT_EPISODES)]
    frame = episodes.assign(
        policy=episodes["policy"].astype(str), diagnostic=episodes["diagnostic"].astype(str)
    )
    order = _policy_order(episodes)
    rates = rate_table(frame, "policy", "success").set_index("policy").reindex(order)
    best = str(rates["rate"].idxmax())
    findings = [
        _rate_finding(
            f"pass_rate[{best}]",
            f"{best}, the best of {len(order)} policies, passes {_rate_words(rates.loc[best])} over every "
            "diagnostic and agent count.",
            rates.loc[best],
            _png(PASS_RATE_FIGURE),
        )
    ]
    findings += [
        _rate_finding(
            f"pass_rate[{policy}]", f"{policy} passes {_rate_words(rates.loc[policy])}.", rates.loc[policy]
        )
        for policy in order
        if policy != best
    ]
    cells = rate_table(frame[frame["policy"] == best], ["diagnostic", "num_agents"], "success")
    weakest = cells.sort_values(["rate", "n", "diagnostic"], ascending=[True, False, True]).iloc[0]
    if weakest["rate"] < 1.0:
        agents = int(weakest["num_agents"])
        findings.append(
            _rate_finding(
                f"weakest_cell[{best}]",
                f"{best} is weakest on {_short(weakest['diagnostic'])} with {agents} agent(s): "
                f"{_rate_words(weakest)}.",
                weakest,
            )
        )
    if "tier" in frame.columns and frame["tier"].astype(str).nunique() > 1:
        tiers = rate_table(frame.assign(tier=frame["tier"].astype(str)), ["policy", "tier"], "success")
        tiers = tiers.sort_values("policy", key=lambda column: column.map(order.index), kind="stable")
        for row in tiers.itertuples(index=False):
            findings.append(
                _rate_finding(
                    f"pass_rate[{row.policy}/{row.tier}]",
                    f"{row.policy} passes {_rate_words(pd.Series(row._asdict()))} on the {row.tier} tier.",
                    pd.Series(row._asdict()),
                )
            )
    findings += _ablation_findings(frame, order)
    if compare:  # the suite-level comparison leads: one sentence, one interval, one small figure
        first, second = compare
        findings = (
            comparison_findings(compare_policies(frame, first, second), _png(PROFILE_FIGURE)) + findings
        )
    status = frame["status"].astype(str)
    for key, label, count in (
        ("timed_out", "ran out of steps (TIMED_OUT)", int((status == "TIMED_OUT").sum())),
        ("run_errors", "crashed (RUN_ERROR)", int((status == "RUN_ERROR").sum())),
    ):
        findings.append(
            Finding(
                CAPABILITY,
                key,
                f"{count} of {len(frame)} episodes {label}.",
                count,
                n=len(frame),
                unit=UNIT_EPISODES,
                method="count",
                source="episodes",
            )
        )
    return findings
