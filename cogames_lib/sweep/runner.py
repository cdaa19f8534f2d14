"""Run a sweep's episodes in chunks: in this process, on a local process pool, or on a Dask cluster.

A chunk is a few episodes of one policy: one task per chunk amortises scheduling and pickling, and the
parent writes one parquet part per chunk (never one per episode). Workers only compute and return rows,
so Dask workers on other machines need no shared file system. Every episode's seed is fixed by its cell
before any work is scheduled, so the rows do not depend on the backend, the worker count or the chunking.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from concurrent.futures import as_completed
from dataclasses import dataclass
from typing import Any

from cogames_lib.errors import ParameterError
from cogames_lib.parallel import process_pool
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
            chunk.policy_spec, task.diagnostic, task.num_agents, task.episode_seed, chunk.record_traces
        )
        result["seed"] = task.seed
        results.append(result)
    return results


Results = Iterator[tuple[Chunk, list[dict[str, Any]]]]


def _run_inline(chunks: list[Chunk]) -> Results:
    for chunk in chunks:
        yield chunk, run_chunk(chunk)


def _run_process_pool(chunks: list[Chunk], workers: int) -> Results:
    """Start the pool and submit every chunk now (before any progress bar thread exists)."""
    executor = process_pool(min(workers, len(chunks)), preload=WORKER_PRELOAD)
    futures = {executor.submit(run_chunk, chunk): chunk for chunk in chunks}

    def results() -> Results:
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            executor.shutdown(wait=True, cancel_futures=True)

    return results()


def _run_dask(chunks: list[Chunk], workers: int, scheduler: Any) -> Results:
    from distributed import Client, LocalCluster
    from distributed import as_completed as dask_as_completed

    cluster = None
    if scheduler is None:  # a private cluster on this machine, e.g. to try the backend out
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        )
        client, owned = Client(cluster), True
    elif isinstance(scheduler, str):
        try:
            client, owned = Client(scheduler), True
        except (OSError, ValueError) as error:  # unreachable, not a scheduler, or not an address at all
            raise ParameterError(
                f"scheduler: cannot connect to the Dask scheduler {scheduler!r} ({error})"
            ) from None
    else:  # an existing distributed.Client: the caller owns it
        client, owned = scheduler, False
    try:
        futures = {client.submit(run_chunk, chunk, pure=False): chunk for chunk in chunks}
        try:
            for future in dask_as_completed(list(futures)):
                yield futures[future], future.result()
        finally:
            client.cancel(list(futures))
    finally:
        if owned:
            client.close()
        if cluster is not None:
            cluster.close()


def execute(chunks: list[Chunk], backend: str, workers: int, scheduler: Any) -> Results:
    """(chunk, results) pairs in completion order. workers == 1 on the local backend runs in this process."""
    if not chunks:
        return _run_inline(chunks)  # an empty generator: nothing to start
    if backend == "dask":
        return _run_dask(chunks, workers, scheduler)
    if workers == 1:
        return _run_inline(chunks)
    return _run_process_pool(chunks, workers)
