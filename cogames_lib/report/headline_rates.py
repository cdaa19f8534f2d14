"""How a rate is written in a notebook's headline (`summary.json`): the rate, its Wilson interval and n."""

from __future__ import annotations

from typing import Any

import pandas as pd


def rate_headline(prefix: str, table: pd.DataFrame, key: str | None) -> dict[str, Any]:
    """`prefix[<key value>]` -> "rate [ci_low, ci_high] n=N" per row of a `stats.rate_table` (one entry
    named `prefix` when `key` is None): every rate in a headline carries its Wilson interval and n."""
    headline: dict[str, Any] = {}
    for row in table.itertuples(index=False):
        label = f"{prefix}[{getattr(row, key)}]" if key else prefix
        headline[label] = f"{row.rate:.3f} [{row.ci_low:.3f}, {row.ci_high:.3f}] n={row.n}"
    return headline
