"""Where does each policy break? Pass rate by difficulty bin of the hard tier.

`difficulty_table(episodes, instances, share=...)` joins a sweep's `episodes` table with its hard instances
(`instances.instances_frame(out_dir)`) and returns one row per (policy, share bin). Two measures of an
instance's difficulty (`SHARES`): `bound_share`, the oracle's full-knowledge lower bound / budget, and
`need_share`, max(bound, the steps certification grants an agent that must first find its targets) / budget,
the measure that counts the search a real agent cannot skip.

    policy, share_bin            the policy and the bin of the share ("0.2-0.4": 0.2 < share <= 0.4)
    n, successes, rate           episodes in the bin, passed, passed / n
    ci_low, ci_high              Wilson 95% interval (`stats.rate_table`)

A pure function: no plotting, no I/O. `difficulty_markdown` writes it as a bins x policies table.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pandas as pd

from cogames_lib.errors import ParameterError
from cogames_lib.finding import interval_text
from cogames_lib.stats import rate_table
from cogames_lib.sweep.instances import INSTANCE_KEY

SHARE_BINS: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
SHARES = {  # share column -> what it measures (axis and table labels)
    "bound_share": "oracle lower bound / step budget",
    "need_share": "searcher's certified need / step budget",
}
DIFFICULTY_COLUMNS = ("policy", "share_bin", "n", "successes", "rate", "ci_low", "ci_high")
_JOIN = [c for c in INSTANCE_KEY if c != "episode_seed"]


def bin_labels(bins: Sequence[float] = SHARE_BINS) -> list[str]:
    return [f"{low:.1f}-{high:.1f}" for low, high in itertools.pairwise(bins)]


def share_bins(shares: pd.Series, bins: Sequence[float] = SHARE_BINS) -> pd.Series:
    """Each share's bin label ((low, high]; a share of exactly the first edge falls in the first bin)."""
    return pd.cut(shares, list(bins), labels=bin_labels(bins), include_lowest=True)


def difficulty_table(
    episodes: pd.DataFrame,
    instances: pd.DataFrame,
    bins: Sequence[float] = SHARE_BINS,
    policies: Sequence[str] | None = None,
    share: str = "bound_share",
) -> pd.DataFrame:
    """Pass rate per (policy, `share` bin) over the hard episodes of `episodes` (see the module
    docstring). `policies` keeps and orders those policies (default: all, in the episodes' order)."""
    if share not in SHARES:
        raise ParameterError(f"difficulty_table: share={share!r} is not one of {sorted(SHARES)}")
    missing = [c for c in (*_JOIN, "success") if c not in episodes.columns]
    missing += [f"instances.{c}" for c in (*_JOIN, share) if c not in instances.columns]
    if missing:
        raise ParameterError(f"difficulty_table: missing column(s) {missing}")
    left = episodes[[*_JOIN, "success"]].astype({"policy": str, "diagnostic": str})
    right = instances[[*_JOIN, share]].astype({"policy": str, "diagnostic": str})
    joined = left.merge(right, on=_JOIN, how="inner")
    order = list(policies) if policies is not None else list(dict.fromkeys(left["policy"]))
    joined = joined[joined["policy"].isin(order)].copy()
    joined["policy"] = pd.Categorical(joined["policy"], categories=order, ordered=True)
    joined["share_bin"] = share_bins(joined[share], bins)
    if joined.empty:
        return pd.DataFrame(columns=list(DIFFICULTY_COLUMNS))
    table = rate_table(joined, ["policy", "share_bin"], "success")
    table["policy"] = table["policy"].astype(str)
    table["share_bin"] = table["share_bin"].astype(str)
    return table[list(DIFFICULTY_COLUMNS)]


def difficulty_markdown(table: pd.DataFrame, digits: int = 2, share: str = "bound_share") -> str:
    """`difficulty_table` as Markdown: one row per bin, one column per policy, "rate [low, high] (n = k)";
    `share` names the table's measure in the header."""
    policies = list(dict.fromkeys(table["policy"]))
    labels = list(dict.fromkeys(table["share_bin"]))
    cells = {(r.share_bin, r.policy): r for r in table.itertuples(index=False)}
    header = SHARES.get(share, share)
    lines = [f"| {header} | " + " | ".join(policies) + " |", "|---|" + "---|" * len(policies)]
    for label in sorted(labels):
        row = []
        for policy in policies:
            found = cells.get((label, policy))
            row.append(
                ""
                if found is None
                else interval_text(found.rate, found.ci_low, found.ci_high, int(found.n), digits=digits)
            )
        lines.append(f"| {label} | " + " | ".join(row) + " |")
    return "\n".join(lines)
