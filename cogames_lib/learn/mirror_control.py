"""The mirror control of the learned agents: their final checkpoints on the normal tier's maps and on the
maps' mirror images (`diagnostics.mirrors`), beside the scripted baseline (which must pass the mirrors: the
mirrored maps are solvable) and random play (the floor). A policy that navigates keeps its rate in a
mirror; one that memorised its routes on the fixed maps loses it.

`mirror_episodes` runs the grid through the ordinary sweep (resumable, local or Dask) and `mirror_table`
tallies its episodes: one row per (policy, training seed, diagnostic, agent count, map), Wilson 95%.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib.diagnostics.mirrors import MIRRORS
from cogames_lib.paths import DATA_DIR
from cogames_lib.stats import rate_table

SHIPPED = "shipped"
MAP_ORDER: tuple[str, ...] = (SHIPPED, *MIRRORS)  # the figure's columns
POLICY_ORDER: tuple[str, ...] = ("learned", "scripted", "random")  # the figure's panels
COMMITTED_TABLE = DATA_DIR / "cvc_learned" / "mirror_control.csv"  # the reference run's, repository only
MIRROR_COLUMNS = (
    "policy",
    "training_seed",
    "diagnostic",
    "num_agents",
    "map",
    "n",
    "successes",
    "rate",
    "ci_low",
    "ci_high",
)
_MIRROR_NAME = re.compile(r"^(?P<base>[^@]+)@.*_mirror_(?P<kind>[a-z_]+)$")
_TRAINING_SEED = re.compile(r"seed_(\d+)")


def mirror_episodes(
    policies: Sequence[str],
    diagnostics: Sequence[str],
    agent_counts: Sequence[int],
    episodes: int,
    out_dir: str | Path,
    sweep_seed: int,
    **sweep_options: Any,
) -> pd.DataFrame:
    """Every policy on every diagnostic's shipped map and its three mirrors (`run_sweep`'s episodes)."""
    from cogames_lib.diagnostics.mirrors import mirror_control
    from cogames_lib.diagnostics.registry import get_diagnostic
    from cogames_lib.sweep import run_sweep

    records = [get_diagnostic(name) for name in diagnostics]
    grid = [*records, *mirror_control(records)]
    return run_sweep(
        list(policies), grid, list(agent_counts), episodes, out_dir, sweep_seed=sweep_seed, **sweep_options
    )


def committed_mirror_table() -> pd.DataFrame | None:
    """The reference run's mirror control (`tools/learned_mirror_control.py`); None outside a clone."""
    return pd.read_csv(COMMITTED_TABLE) if COMMITTED_TABLE.is_file() else None


def mirror_table(episodes: pd.DataFrame) -> pd.DataFrame:
    """Successes per (policy, training seed, diagnostic, agent count, map) of a `mirror_episodes` table.
    `policy` is `learned` for every checkpoint (its training seed read from the path, `seed_<k>`) and the
    policy's name otherwise (training seed -1); `map` is `shipped` or the mirror's kind."""
    names = episodes["diagnostic"].astype(str)
    parsed = names.str.extract(_MIRROR_NAME)
    learned = episodes["policy"].astype(str).str.startswith("learned:")
    seeds = episodes["policy"].astype(str).str.extract(_TRAINING_SEED)[0]
    frame = pd.DataFrame(
        {
            "policy": episodes["policy"].astype(str).where(~learned, "learned"),
            "training_seed": pd.to_numeric(seeds.where(learned), errors="coerce").fillna(-1).astype(int),
            "diagnostic": parsed["base"].fillna(names),
            "num_agents": episodes["num_agents"].astype(int),
            "map": parsed["kind"].fillna(SHIPPED),
            "success": episodes["success"].astype(bool),
        }
    )
    keys = ["policy", "training_seed", "diagnostic", "num_agents", "map"]
    return rate_table(frame, keys, "success")[list(MIRROR_COLUMNS)]
