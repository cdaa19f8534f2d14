"""Walking experiment roots and parsing their task folders, in one process or many.

The walk itself is part of the parallel work: each chunk of candidate folders is scanned once
(`decide_folder`), task folders are parsed right away (`extract_result` with that listing), and
folders to walk further come back as new candidates. Every result carries its (root index, path
parts) key, and sorting by it gives exactly the order of a sorted depth-first walk, so the output is
identical for any number of workers and any chunk size.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, cast

from cogames_lib.mindcraft.discovery import FolderListing, SkippedFolder, decide_folder
from cogames_lib.mindcraft.runs import extract_result
from cogames_lib.mindcraft.tasks import task_definition_metrics
from cogames_lib.parallel import FanOut

# Imported once in a forkserver (when this process already runs threads, e.g. in Jupyter).
WORKER_PRELOAD = ["cogames_lib.mindcraft.collect"]

# A folder to look at: (root index, path parts below the root, path, depth). Sorting by the first
# two gives exactly the order of a sorted depth-first walk, whatever the number of workers.
Candidate = tuple[int, tuple[str, ...], str, int]


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: parsing builds only acyclic dicts and lists, and with
    tens of thousands of them alive each automatic full collection re-walks them all (10-30% of
    the parse time, measured). Reference counting still frees everything as usual."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


Decided = list[tuple[tuple[int, tuple[str, ...]], str, Any]]


def _process_chunk(job: tuple[list[Candidate], Mapping[str, Any]]) -> Decided:
    """Decide and (for task folders) parse each candidate of a (chunk, definitions) job: one directory
    scan per folder."""
    with _gc_paused():
        return _process_chunk_unpaused(*job)


def _task_count(job: Any, output: Decided) -> int:
    return sum(1 for _, action, _ in output if action == "task")


def _process_chunk_unpaused(
    chunk: list[Candidate], definitions: Mapping[str, Any]
) -> list[tuple[tuple[int, tuple[str, ...]], str, Any]]:
    results: list[tuple[tuple[int, tuple[str, ...]], str, Any]] = []
    metrics_by_task: dict[str, dict[str, Any]] = {}
    for root_index, parts, path, depth in chunk:
        action, payload = decide_folder(path, depth)
        key = (root_index, parts)
        if action == "task":
            task_id = os.path.basename(path)
            definition = definitions.get(task_id)
            if task_id not in metrics_by_task:
                metrics_by_task[task_id] = task_definition_metrics(task_id, definition)
            run = extract_result(
                path,
                definition,
                None,
                read_results_file=False,
                listing=cast(FolderListing, payload),
                metrics=dict(metrics_by_task[task_id]),
            )
            results.append((key, "task", run))
        elif action == "walk":
            results.append((key, "walk", cast(FolderListing, payload).subfolders))
        else:
            results.append((key, "skip", payload))
    return results


def _chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[start : start + size] for start in range(0, len(items), size)]


def collect_runs(
    roots: list[str],
    definitions: Mapping[str, Any],
    workers: int = 1,
    progress: bool = False,
    chunk_size: int = 200,
) -> tuple[list[dict[str, Any]], list[SkippedFolder]]:
    """(per-run dicts, skipped folders) for roots, walking and parsing in chunks over `workers`
    processes; the result is identical for any number of workers (sorted walk order, deduplicated)."""
    real_roots = [os.path.realpath(root) for root in roots]
    pending: list[Candidate] = [(index, (), os.path.normpath(root), 0) for index, root in enumerate(roots)]
    decided: Decided = []
    with (
        FanOut(
            workers=workers,
            progress=progress,
            description="task folders",
            unit="folder",
            preload=WORKER_PRELOAD,
        ) as fan,
        _gc_paused(),
    ):
        while pending:
            jobs = [
                (
                    chunk,
                    {
                        name: definitions[name]
                        for _, _, path, _ in chunk
                        if (name := os.path.basename(path)) in definitions
                    },
                )
                for chunk in _chunks(pending, chunk_size)
            ]
            next_pending: list[Candidate] = []
            for (chunk, _), output in zip(jobs, fan.map(_process_chunk, jobs, _task_count), strict=True):
                for (key, action, payload), candidate in zip(output, chunk, strict=True):
                    decided.append((key, action, payload))
                    if action == "walk":
                        root_index, parts, path, depth = candidate
                        next_pending.extend(
                            (root_index, (*parts, name), os.path.join(path, name), depth + 1)
                            for name in payload
                        )
            pending = next_pending
    decided.sort(key=lambda item: item[0])
    runs: list[dict[str, Any]] = []
    skipped: list[SkippedFolder] = []
    seen: set[str] = set()
    for (root_index, parts), action, payload in decided:
        if action == "task":
            real = os.path.join(real_roots[root_index], *parts)
            if real not in seen:
                seen.add(real)
                runs.append(payload)
        elif action == "skip":
            path = os.path.join(os.path.normpath(roots[root_index]), *parts)
            skipped.append(SkippedFolder(path, payload))
    return runs, skipped
