"""Episode traces as tidy tables: one row per (episode, step, agent).

Columns: the episode key (policy, diagnostic, num_agents, seed, episode_seed) when loaded from a sweep,
then step (0 = the spawn positions after reset), agent (index), row, col (map coordinates, 0-based, the
same as the map file's rows and columns), vibe (the vibe shown after the step), action (the action the
policy chose at that step; "" at step 0), action_success (whether the engine accepted it; missing when the
agent never got its turn because the episode ended earlier in that step) and event (what the engine
reported, e.g. "deposited 1 heart"; "" when nothing). Drawing a trajectory over the map is then a
filter and a line plot of (col, row) per agent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib.errors import ParameterError
from cogames_lib.outcomes import STATUS_ORDER
from cogames_lib.sweep.episode import TRACE_COLUMNS
from cogames_lib.sweep.store import EPISODE_KEY, episodes_dir, read_parts, traces_dir
from cogames_lib.tables import TRACES

_TRACE_DTYPES = {column: TRACES.dtypes[column] for column in TRACE_COLUMNS}


def trace_table(result: dict[str, Any]) -> pd.DataFrame:
    """The tidy trace of one `run_episode(..., record_trace=True)` result."""
    if "trace" not in result:
        raise ParameterError("trace_table: this episode result has no trace; run it with record_trace=True")
    return pd.DataFrame(result["trace"], columns=list(TRACE_COLUMNS)).astype(_TRACE_DTYPES)


def chunk_traces(results: list[dict[str, Any]], seeds: list[int]) -> pd.DataFrame:
    """The traces of a chunk's episodes stacked, each row tagged with its episode key (one frame built from
    the joined columns: a frame per episode cost more than the episodes of a fast policy)."""
    columns: dict[str, list] = {column: [] for column in (*EPISODE_KEY, *TRACE_COLUMNS)}
    for result, seed in zip(results, seeds, strict=True):
        if "trace" not in result:
            raise ParameterError(
                "chunk_traces: an episode result has no trace; run it with record_trace=True"
            )
        trace = result["trace"]
        rows = len(trace["step"])
        key = (result["policy"], result["diagnostic"], result["num_agents"], seed, result["episode_seed"])
        for column, value in zip(EPISODE_KEY, key, strict=True):
            columns[column].extend([value] * rows)
        for column in TRACE_COLUMNS:
            columns[column].extend(trace[column])
    stacked = pd.DataFrame(columns).astype(_TRACE_DTYPES)
    return stacked.astype({"policy": "str", "diagnostic": "str", "num_agents": "int64", "seed": "int64"})


def load_traces(
    out_dir: str | Path,
    policy: str | None = None,
    diagnostic: Any = None,
    num_agents: int | None = None,
    seed: int | None = None,
    status: str | None = None,
    episode_seed: int | None = None,
) -> pd.DataFrame:
    """Traces stored by a sweep run with `record_traces=True`, filtered by any of the keyword arguments.

    `status` (e.g. "TIMED_OUT") keeps the traces of episodes with that status, for "show me a failed
    episode"; `episode_seed` tells apart sweeps with different sweep seeds in one directory. Rows are
    ordered by episode key, step and agent.
    """
    if diagnostic is not None:  # "memory" means "diagnostic_memory" here too, as everywhere else
        from cogames_lib.diagnostics import Diagnostic, get_diagnostic

        if isinstance(diagnostic, Diagnostic):
            diagnostic = diagnostic.name
        elif "@" not in diagnostic:  # a custom variant (`<base>@<map>`) is not in the registry: kept as given
            diagnostic = get_diagnostic(diagnostic).name
    if status is not None and status not in STATUS_ORDER:
        raise ParameterError(f"load_traces: status {status!r} is not one of {', '.join(STATUS_ORDER)}")
    out_path = Path(out_dir)
    directory = traces_dir(out_path)
    if not directory.is_dir() or not any(directory.glob("part-*.parquet")):
        raise ParameterError(
            f"load_traces: no traces in {str(out_path)!r}; run the sweep with record_traces=True"
        )
    traces = read_parts(directory)
    filters = {
        "policy": policy,
        "diagnostic": diagnostic,
        "num_agents": num_agents,
        "seed": seed,
        "episode_seed": episode_seed,
    }
    for column, value in filters.items():
        if value is not None:
            traces = traces[traces[column] == value]
    if status is not None:
        episodes = read_parts(episodes_dir(out_path), columns=[*EPISODE_KEY, "status"])
        keys = episodes.loc[episodes["status"] == status, list(EPISODE_KEY)]
        traces = traces.merge(keys, on=list(EPISODE_KEY), how="inner")
    traces = traces.sort_values([*EPISODE_KEY, "step", "agent"], kind="stable")
    return traces.reset_index(drop=True).astype(_TRACE_DTYPES)
