"""Evaluation sweeps over Cogs vs Clips diagnostics: policies x diagnostics x agent counts x seeds.

`run_sweep` runs the grid (in this process, on a local process pool or on a Dask cluster) into durable,
resumable parquet parts and returns the `episodes` table; `run_episode` plays one episode; `summarise`
derives pass rates with Wilson intervals; `load_traces` / `trace_table` give tidy per-step traces.
"""

from __future__ import annotations

from cogames_lib.sweep.episode import run_episode
from cogames_lib.sweep.run import load_episodes, plan_grid, run_sweep
from cogames_lib.sweep.seeds import agent_seed, episode_seed, stable_hash
from cogames_lib.sweep.store import EPISODE_COLUMNS
from cogames_lib.sweep.summary import against_ceiling, pass_rate_grid, summarise
from cogames_lib.sweep.traces import load_traces, trace_table
from cogames_lib.sweep.validate import SweepPlan, validate_sweep_parameters

__all__ = [
    "EPISODE_COLUMNS",
    "SweepPlan",
    "against_ceiling",
    "agent_seed",
    "episode_seed",
    "load_episodes",
    "load_traces",
    "pass_rate_grid",
    "plan_grid",
    "run_episode",
    "run_sweep",
    "stable_hash",
    "summarise",
    "trace_table",
    "validate_sweep_parameters",
]
