"""A sweep's episodes in chunks: the tasks `cogames_lib.parallel.FanOut` runs in this process, on a local
process pool, or on a Dask cluster.

A chunk is a few episodes of one policy: one task per chunk amortises scheduling and pickling, and the
parent writes one parquet part per chunk (never one per episode). Workers only compute and return rows,
so Dask workers on other machines need no shared file system. Every episode's seed is fixed by its cell
before any work is scheduled, so the rows do not depend on the backend, the worker count or the chunking.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from cogames_lib.parallel import shorten
from cogames_lib.sweep.episode import run_episode

MAX_CHUNK_SIZE = 10  # one cell of the default 10 seeds; small enough that the last chunk ends soon
CHUNKS_PER_WORKER = 8  # enough chunks that a slow one at the end does not leave workers idle for long
# Modules a fresh worker process imports once (forkserver preload) instead of once per worker.
WORKER_PRELOAD = ["cogames_lib.sweep.runner", "cogames_lib.diagnostics", "cogames_lib.policies"]


@dataclass(frozen=True)
class EpisodeTask:
    diagnostic: str
    num_agents: int
    seed: int  # the seed index within the cell
    episode_seed: int
    record: Any = None  # a custom variant's record (workers cannot look it up by name); None if registered


@dataclass(frozen=True)
class Chunk:
    policy_spec: Any
    tasks: tuple[EpisodeTask, ...]
    record_traces: bool


def chunk_size_for(episodes: int, workers: int) -> int:
    return max(1, min(MAX_CHUNK_SIZE, math.ceil(episodes / (workers * CHUNKS_PER_WORKER))))


def make_chunks(
    todo: list[tuple[Any, EpisodeTask]], workers: int, record_traces: bool, chunk_size: int | None
) -> list[Chunk]:
    """Consecutive episodes of the same policy, at most `chunk_size` per chunk, in grid order."""
    size = chunk_size or chunk_size_for(len(todo), workers)
    chunks: list[Chunk] = []
    current: list[EpisodeTask] = []
    current_spec: Any = None
    for spec, task in todo:
        if current and (spec is not current_spec or len(current) >= size):
            chunks.append(Chunk(current_spec, tuple(current), record_traces))
            current = []
        current_spec = spec
        current.append(task)
    if current:
        chunks.append(Chunk(current_spec, tuple(current), record_traces))
    return chunks


def run_chunk(chunk: Chunk) -> list[dict[str, Any]]:
    """The results of a chunk's episodes (the worker-side function of every backend)."""
    results = []
    for task in chunk.tasks:
        result = run_episode(
            chunk.policy_spec,
            task.record or task.diagnostic,
            task.num_agents,
            task.episode_seed,
            chunk.record_traces,
        )
        result["seed"] = task.seed
        results.append(result)
    return results


def describe_chunk(chunk: Chunk) -> str:
    """A chunk as a crash report names it: the policy and its episodes."""
    name = getattr(chunk.policy_spec, "name", chunk.policy_spec)
    episodes = ", ".join(f"{task.diagnostic} x{task.num_agents} seed {task.seed}" for task in chunk.tasks)
    return shorten(f"policy {name}: {episodes}")
