"""How hard was each hard-tier episode? Its bound / budget share, recorded in the sweep's manifest.

Every hard episode plays on a map generated for its own episode seed (`diagnostics.hard_maps`), so its
difficulty is a property of the episode: the oracle's lower bound on steps over the step budget, and the
steps certification grants an agent that must first find its targets. `run_episode` returns both with the
result (the map and its certificate are cached where the episode ran);
`run_sweep` collects them into `manifest.json` under `hard_instances`, one row per hard episode:

    policy, diagnostic, num_agents, seed       the episode key (seed = the sweep's seed index)
    episode_seed                               the env seed the map was drawn from
    bound, max_steps, bound_share              the certified lower bound, the budget, bound / max_steps
    search_steps, need_share                   the searcher's granted steps (`hard_maps.search_time`; 0 where
                                               nothing needs finding), max(bound, search_steps) / max_steps

`instances_frame(out_dir)` reads them back as a DataFrame; `difficulty.difficulty_table` joins them with the
episodes table.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib import outdir
from cogames_lib.io import write_json

INSTANCE_COLUMNS = (
    "policy",
    "diagnostic",
    "num_agents",
    "seed",
    "episode_seed",
    "bound",
    "max_steps",
    "bound_share",
    "search_steps",
    "need_share",
)
INSTANCE_KEY = ("policy", "diagnostic", "num_agents", "seed", "episode_seed")
MANIFEST_KEY = "hard_instances"


def instance_rows(results: Iterable[Mapping[str, Any]], seeds: Iterable[int]) -> list[list[Any]]:
    """One row (INSTANCE_COLUMNS order) per hard result that carries a bound; `seeds`: the seed indices."""
    rows = []
    for result, seed in zip(results, seeds, strict=True):
        bound = result.get("bound")
        if bound is None:
            continue
        budget = int(result["max_steps"])
        search = int(result.get("search_steps") or 0)
        rows.append(
            [
                str(result["policy"]),
                str(result["diagnostic"]),
                int(result["num_agents"]),
                int(seed),
                int(result["episode_seed"]),
                int(bound),
                budget,
                round(int(bound) / budget, 4),
                search,
                round(max(int(bound), search) / budget, 4),
            ]
        )
    return rows


def record_instances(out_dir: str | os.PathLike[str], rows: list[list[Any]]) -> None:
    """Add `rows` to the manifest's `hard_instances` (a row already there with the same key is replaced)."""
    if not rows:
        return
    folder = Path(out_dir)
    manifest = outdir.read_manifest(folder) or {}
    width = len(INSTANCE_KEY)
    merged = {tuple(row[:width]): row for row in _current_rows(manifest)}
    merged.update({tuple(row[:width]): row for row in rows})
    manifest[MANIFEST_KEY] = {"columns": list(INSTANCE_COLUMNS), "rows": sorted(merged.values())}
    write_json(folder / outdir.MANIFEST_FILE, manifest)


def missing_rows(episodes: pd.DataFrame, known: pd.DataFrame) -> list[list[Any]]:
    """Rows for the hard episodes of `episodes` that `known` lacks (a resumed sweep rewrites its manifest,
    and an episode run elsewhere brings no share), computed here from the cached or redrawn map."""
    from cogames_lib.diagnostics import get_diagnostic
    from cogames_lib.sweep.episode import hard_evidence

    have = {tuple(row) for row in known[list(INSTANCE_KEY)].itertuples(index=False)}
    hard = episodes[episodes["tier"].astype(str) == "hard"]
    results, seeds = [], []
    for episode in hard.itertuples(index=False):
        key = (
            str(episode.policy),
            str(episode.diagnostic),
            int(episode.num_agents),
            int(episode.seed),
            int(episode.episode_seed),
        )
        if key in have:
            continue
        record = get_diagnostic(key[1])
        bound, search = hard_evidence(record, key[2], key[4]) or (None, None)
        results.append(
            {
                "policy": key[0],
                "diagnostic": key[1],
                "num_agents": key[2],
                "episode_seed": key[4],
                "max_steps": record.max_steps,
                "bound": bound,
                "search_steps": search,
            }
        )
        seeds.append(key[3])
    return instance_rows(results, seeds)


def instances_frame(out_dir: str | os.PathLike[str]) -> pd.DataFrame:
    """The manifest's hard instances as a DataFrame (INSTANCE_COLUMNS; empty when the sweep had none)."""
    return pd.DataFrame(_current_rows(outdir.read_manifest(out_dir) or {}), columns=list(INSTANCE_COLUMNS))


def _current_rows(manifest: Mapping[str, Any]) -> list[list[Any]]:
    """The manifest's instance rows when they have today's columns; none otherwise (a sweep written before
    the search columns: a resumed run recomputes its rows from the cached or redrawn maps)."""
    recorded = manifest.get(MANIFEST_KEY) or {}
    if recorded.get("columns") != list(INSTANCE_COLUMNS):
        return []
    return list(recorded.get("rows", []))
