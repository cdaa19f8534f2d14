"""The diagnostics-sweep page's derived tables: failed episodes worth drawing, with their traces (the sweep's
numbers are `sweep.sweep_findings`).

Pure functions (tidy in, tidy out), so the notebook stays one call per cell and the selection rules are
tested here rather than buried in a notebook.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from cogames_lib.tables import EPISODE_DISPLAY_KEY


def failed_episodes(
    episodes: pd.DataFrame, limit: int = 3, last_policies: Iterable[str] = ("noop",)
) -> pd.DataFrame:
    """Up to `limit` failed episodes worth drawing: one per (policy, diagnostic) pair, in table order, with
    policies that never move (`noop`) last, so the pictures show different, informative failures."""
    failed = episodes[~episodes["success"].astype(bool)]
    distinct = failed.drop_duplicates(subset=["policy", "diagnostic"], keep="first")
    late = distinct["policy"].astype(str).isin(set(last_policies))
    ordered = pd.concat([distinct[~late], distinct[late]])
    # episode_seed (a sweep's table has it): a hard-tier map is drawn from it, so its picture needs it
    seed = ["episode_seed"] if "episode_seed" in episodes.columns else []
    return ordered.head(limit)[[*EPISODE_DISPLAY_KEY, *seed, "status", "steps"]].reset_index(drop=True)


def failed_episode_traces(
    episodes: pd.DataFrame, sweep_dir: str | Path, limit: int = 3
) -> list[tuple[str, pd.DataFrame, tuple[tuple[str, ...], ...]]]:
    """(title, trace, map cells) of up to `limit` failed episodes of a sweep run with `record_traces=True`."""
    from cogames_lib.diagnostics import REGISTRY, diagnostic_map
    from cogames_lib.sweep import load_traces

    pictures = []
    for row in failed_episodes(episodes, limit).itertuples(index=False):
        if str(row.diagnostic) not in REGISTRY:  # a custom variant: its map is not known from the name
            continue
        trace = load_traces(
            sweep_dir,
            policy=str(row.policy),
            diagnostic=str(row.diagnostic),
            num_agents=int(row.num_agents),
            seed=int(row.seed),
        )
        title = f"{row.policy} / {row.diagnostic} / {row.num_agents} agent(s) / seed {row.seed}: {row.status}"
        pictures.append(
            (
                title,
                trace,
                diagnostic_map(str(row.diagnostic), int(row.episode_seed), int(row.num_agents)).cells,
            )
        )
    return pictures
