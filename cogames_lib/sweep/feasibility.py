"""Is a diagnostic passable within its budget? The oracle's lower bound and its achieved steps per episode.

`feasibility_table(diagnostics, agent_counts, seeds)` returns one row per (diagnostic, agent count, seed):

    diagnostic, tier, num_agents, seed  the episode (seed = the env seed)
    max_steps                           the diagnostic's step budget
    bound                               the oracle's lower bound on steps (oracle_bound.py); no policy,
                                        however clever, passes in fewer
    bound_share                         bound / max_steps
    certified                           bound_share <= 0.8 (the hard tier's acceptance rule)
    draw                                hard tier: the draw of the map generator that was certified; else 0
    search_steps                        hard tier: the steps certification grants an agent that must first
                                        find its targets (the view tour, then the bound; `hard_maps.
                                        search_time`); 0 where nothing needs finding or outside the hard tier
    need_share                          max(bound, search_steps) / max_steps: the share of the budget a
                                        searcher needs by the certificate's own account (>= bound_share)
    oracle_success, oracle_steps        what the oracle (a full-knowledge planner) achieved: a ceiling
                                        that is close to, but not always at, the bound
A failure of a policy on a row with a small bound_share is the policy's fault, not the budget's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from cogames_lib import seeding
from cogames_lib.diagnostics.hard_maps import CERTIFY_SHARE, certified_map
from cogames_lib.diagnostics.oracle_bound import lower_bound

FEASIBILITY_COLUMNS = (
    "diagnostic",
    "tier",
    "num_agents",
    "seed",
    "max_steps",
    "bound",
    "bound_share",
    "certified",
    "draw",
    "search_steps",
    "need_share",
    "oracle_success",
    "oracle_steps",
)


def episode_bound(diagnostic: Any, num_agents: int, seed: int) -> tuple[int, int]:
    """(lower bound, certified draw) of one episode of a record or name (draw 0 outside the hard tier)."""
    bound, draw, _ = _episode_evidence(diagnostic, num_agents, seed)
    return bound, draw


def _episode_evidence(diagnostic: Any, num_agents: int, seed: int) -> tuple[int, int, int]:
    """(lower bound, certified draw, search steps) of one episode; draw and search 0 outside the hard tier."""
    from cogames_lib.diagnostics import check_agent_count, get_diagnostic

    record = get_diagnostic(diagnostic)
    check_agent_count(record, num_agents)
    if record.hard is not None:
        certificate = certified_map(record, seed, num_agents)
        return certificate.bound, certificate.draw, certificate.search_steps
    return lower_bound(record, record.episode_map(seed, num_agents), num_agents, seed), 0, 0


def feasibility_table(
    diagnostics: Any = "all",
    agent_counts: Sequence[int] = (1, 2, 4),
    seeds: int | Sequence[int] = 3,
    play_oracle: bool = True,
    progress: bool = False,
) -> pd.DataFrame:
    """Bound vs budget (and the oracle's achieved steps) for every allowed (diagnostic, agent count, seed).

    `diagnostics`: a tier ("all", "normal", "hard"), names or records; `seeds`: a count (0..k-1) or env
    seeds; agent counts a diagnostic does not allow are skipped. Columns: `FEASIBILITY_COLUMNS`.
    """
    from cogames_lib.diagnostics import resolve_diagnostics
    from cogames_lib.sweep import run_episode

    records = resolve_diagnostics(diagnostics)
    seed_list = seeding.seed_list(seeds, "feasibility_table(seeds=...)")
    cells = [
        (record, count, seed)
        for record in records
        for count in agent_counts
        if count in record.allowed_agent_counts
        for seed in seed_list
    ]
    if progress:
        from tqdm.auto import tqdm

        cells = tqdm(cells, desc="feasibility", unit="episode")
    rows = []
    for record, count, seed in cells:
        bound, draw, search = _episode_evidence(record, count, seed)
        result = run_episode("oracle", record, count, seed) if play_oracle else None
        rows.append(
            (
                record.name,
                record.tier,
                count,
                seed,
                record.max_steps,
                bound,
                bound / record.max_steps,
                bound <= CERTIFY_SHARE * record.max_steps,
                draw,
                search,
                max(bound, search) / record.max_steps,
                None if result is None else bool(result["success"]),
                None if result is None else int(result["steps"]),
            )
        )
    return pd.DataFrame(rows, columns=list(FEASIBILITY_COLUMNS))


def feasibility_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per (diagnostic, num_agents): budget, worst bound and share, oracle pass rate and worst steps."""
    grouped = table.groupby(["diagnostic", "tier", "num_agents"], sort=False, observed=True)
    return grouped.agg(
        max_steps=("max_steps", "first"),
        bound_max=("bound", "max"),
        share_max=("bound_share", "max"),
        certified=("certified", "all"),
        oracle_pass=("oracle_success", "mean"),
        oracle_steps_max=("oracle_steps", "max"),
        seeds=("seed", "count"),
    ).reset_index()


def summary_markdown(summary: pd.DataFrame, digits: int = 2) -> str:
    """A Markdown table of `feasibility_summary` (diagnostic names without the `diagnostic_` prefix)."""

    def text(value: Any) -> str:
        if isinstance(value, float):
            return "" if pd.isna(value) else f"{value:.{digits}f}"
        return str(value).removeprefix("diagnostic_")

    header = list(summary.columns)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(text(v) for v in row) + " |" for row in summary.itertuples(index=False)]
    return "\n".join(lines)
