"""The mirror control of the learned agents: their final checkpoints on the normal tier's maps and on the
maps' mirror images and quarter turns (`diagnostics.mirrors`), beside the scripted baseline (which must pass the mirrors: the
mirrored maps are solvable) and random play (the floor). A policy that navigates keeps its rate in a
mirror; one that memorised its routes on the fixed maps loses it.

`mirror_episodes` runs the grid through the ordinary sweep (resumable, local or Dask) and `mirror_table`
tallies its episodes: one row per (policy, training seed, diagnostic, agent count, map), Wilson 95%.
`map_group_summary` pools a table's cells into three map groups (the shipped maps, their `MIRRORS`, their
`TRANSPOSES`): the learned checkpoints with a Student-t interval over training seeds (the seed is the unit:
episodes of one seed are not independent draws of "a trained agent"), baselines with a Wilson interval over
episodes. A run trained on the shipped maps and their mirrors (`PPOConfig.map_symmetries`) never saw a
transpose, so its `transposes` row is the held-out test.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib.diagnostics.mirrors import MIRRORS, SYMMETRIES, TRANSPOSES
from cogames_lib.errors import ParameterError
from cogames_lib.paths import DATA_DIR
from cogames_lib.stats import rate_table, t_interval, wilson_interval

SHIPPED = "shipped"
POLICY_ORDER: tuple[str, ...] = ("learned", "scripted", "random")  # the figure's panels
MAP_GROUPS: dict[str, str] = {SHIPPED: SHIPPED, **dict.fromkeys(MIRRORS, "mirrors")} | dict.fromkeys(
    TRANSPOSES, "transposes"
)
GROUP_ORDER: tuple[str, ...] = (SHIPPED, "mirrors", "transposes")  # the figure's columns
GROUP_COLUMNS = (
    "policy",
    "group",
    "seeds",
    "n",
    "successes",
    "rate",
    "per_seed",
    "ci_low",
    "ci_high",
    "interval",
)
COMMITTED_TABLE = DATA_DIR / "cvc_learned" / "mirror_control.csv"  # the reference run's, repository only
# The committed runs' controls side by side (repository only): the previous reference (data/cvc_learned_6m/,
# 9 tasks, 6M agent-steps), and the run trained on its maps' mirrors with its command
# (data/cvc_learned_mirrored/) at that run's length and at its own end
COMMITTED_RUN_CONTROLS: dict[str, Path] = {
    "shipped maps, 6M (previous reference)": DATA_DIR / "cvc_learned_6m" / "mirror_control.csv",
    "+ mirrors, 6M": DATA_DIR / "cvc_learned_mirrored" / "mirror_control_6m.csv",
    "+ mirrors, 8M": DATA_DIR / "cvc_learned_mirrored" / "mirror_control.csv",
}
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
    kinds: Sequence[str] = tuple(SYMMETRIES),
    **sweep_options: Any,
) -> pd.DataFrame:
    """Every policy on every diagnostic's shipped map and its symmetries `kinds` (`run_sweep`'s episodes)."""
    from cogames_lib.diagnostics.mirrors import mirror_control
    from cogames_lib.diagnostics.registry import get_diagnostic
    from cogames_lib.sweep import run_sweep

    records = [get_diagnostic(name) for name in diagnostics]
    grid = [*records, *mirror_control(records, kinds)]
    return run_sweep(
        list(policies), grid, list(agent_counts), episodes, out_dir, sweep_seed=sweep_seed, **sweep_options
    )


def committed_mirror_table() -> pd.DataFrame | None:
    """The reference run's mirror control (`tools/learned_mirror_control.py`); None outside a clone."""
    return pd.read_csv(COMMITTED_TABLE) if COMMITTED_TABLE.is_file() else None


def committed_run_controls() -> dict[str, pd.DataFrame] | None:
    """The committed runs' mirror controls by label (`COMMITTED_RUN_CONTROLS`); None outside a clone."""
    if not all(path.is_file() for path in COMMITTED_RUN_CONTROLS.values()):
        return None
    return {label: pd.read_csv(path) for label, path in COMMITTED_RUN_CONTROLS.items()}


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


def by_map_group(table: pd.DataFrame) -> pd.DataFrame:
    """`table` with each map replaced by its group (`MAP_GROUPS`): the heatmap then pools a group's maps."""
    unknown = sorted(set(table["map"].astype(str)) - set(MAP_GROUPS))
    if unknown:
        raise ParameterError(f"mirror control: unknown map kinds {unknown}")
    return table.assign(map=table["map"].astype(str).map(MAP_GROUPS))


def map_group_seed_rates(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (policy, training seed, map group) of a `mirror_table`: n and successes pooled over its
    diagnostics, agent counts and maps, and their rate (a baseline's one "seed" is -1)."""
    frame = by_map_group(table).rename(columns={"map": "group"})
    pooled = frame.groupby(["policy", "training_seed", "group"], sort=False)[["n", "successes"]].sum()
    pooled = pooled.reset_index()
    return pooled.assign(rate=pooled["successes"] / pooled["n"])


def map_group_summary(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (policy, map group) of a `mirror_table`: successes of n pooled over its diagnostics, agent
    counts and maps; `per_seed` the learned seeds' own rates ("0.07 / 0.12"); `rate` and the interval are the
    mean of those with a Student-t 95% interval over seeds for `learned`, the pooled rate with a Wilson 95%
    interval for a baseline (`interval` says which)."""
    rows = []
    for (policy, group), part in map_group_seed_rates(table).groupby(["policy", "group"], sort=False):
        n, successes = int(part["n"].sum()), int(part["successes"].sum())
        if policy == "learned":
            rate, low, high = t_interval(part["rate"].to_numpy(), bounds=(0.0, 1.0))
            per_seed, interval = " / ".join(f"{value:.2f}" for value in part["rate"]), "t over seeds"
        else:
            rate = successes / n
            low, high = wilson_interval(successes, n)
            per_seed, interval = "", "Wilson"
        rows.append((policy, group, len(part), n, successes, rate, per_seed, low, high, interval))
    summary = pd.DataFrame(rows, columns=list(GROUP_COLUMNS))
    order = {name: index for index, name in enumerate((*POLICY_ORDER, *GROUP_ORDER))}
    return summary.sort_values(
        ["policy", "group"], key=lambda column: column.map(lambda v: order.get(v, len(order)))
    ).reset_index(drop=True)


def runs_by_map_group(tables: Mapping[str, pd.DataFrame]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Several runs' mirror controls side by side, keyed by a label ("trained on the shipped maps"):
    (`map_group_summary` rows, `map_group_seed_rates` rows), each with a `run` column first. Baselines are
    taken from the first run only (every run's control plays them on the same episodes)."""
    summaries, seeds = [], []
    for index, (label, table) in enumerate(tables.items()):
        part = table if index == 0 else table[table["policy"] == "learned"]
        summaries.append(map_group_summary(part).assign(run=label))
        seeds.append(map_group_seed_rates(part).assign(run=label))
    first = ["run"]
    summary, seed_rates = pd.concat(summaries, ignore_index=True), pd.concat(seeds, ignore_index=True)
    return (
        summary[first + [c for c in summary.columns if c != "run"]],
        seed_rates[first + [c for c in seed_rates.columns if c != "run"]],
    )
