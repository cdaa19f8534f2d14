"""Walking experiment roots and parsing their tasks, in one process or many (`collect_runs`).

The walk is part of the parallel work: each chunk of candidate folders is scanned once
(`scan_folder`); tasks of the current layout are parsed and combined right there, the logs of
per-run folders and flat files are read there and combined here (a task's repetitions may sit in
folders of different chunks). Every result carries its (root index, path parts) key and sorting by
it gives the order of a sorted depth-first walk, so the output is identical for any number of workers.

Cycle safety: every folder is scanned once by its real path; a symlinked folder leading to a folder
already scanned (a loop, or the same experiment twice) is listed as skipped. Which path scans a folder
is decided in walk order (level by level, each in key order), whatever process scanned what: a chunk
may scan its folders' plain leaf subfolders ahead (`_process`), and such a result is dropped when the
walk finds the folder reached before. After the walk, logs that are byte-identical copies across
tasks are marked stale (`stale.py`) and their runs recombined.

With a pool, this process is one of the processes: it keeps a share of each large level (or of a level
of many experiment folders, scanned a level ahead) and merges the workers' chunks as they come; a
worker's chunk comes back marshalled (`chunk.py`).
Workers: `None` means automatic: this process alone for small trees, and all cores once more than
`AUTO_PARALLEL_LOGS` logs have been seen with work left (process start-up costs more than it saves
below that).
"""

from __future__ import annotations

import operator
import os
from collections.abc import Iterable, Mapping
from typing import Any

from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft.chunk import (
    CHUNK_PRELOAD,
    Candidate,
    child_candidates,
    chunk_jobs,
    even_chunks,
    gc_paused,
    log_count,
    process_chunk,
    shrinking_chunks,
    unpack_chunk,
)
from cogames_lib.mindcraft.discovery import SkippedFolder, TaskUnit, as_path_list
from cogames_lib.mindcraft.files import DEFAULT_MAX_LOG_BYTES, display_text
from cogames_lib.mindcraft.runs import build_run
from cogames_lib.mindcraft.stale import find_identical_copies, mark_stale, may_have_copies
from cogames_lib.parallel import FanOut

AUTO_PARALLEL_LOGS = 2000
CHUNK_SIZE = 200
# With a pool, this process scans HERE_SHARE / processes of a large level itself and the workers get
# WORKER_CHUNKS chunks each of the rest (shrinking). Measured on 20,000 logs in one experiment level
# (results then pickled), 2 processes, best of 5 at load ~0.9, (share, chunks) -> s: (0.8, 2) 0.44, (1.0, 2) 0.38, (1.0, 4) 0.36, (1.1, 4) 0.38, (1.2, 4) 0.40,
# (1.1, 6) 0.40. More chunks make the last result (which nothing overlaps) smaller, but each costs a
# round trip; this process's extra work (unpickling, merging) mostly overlaps the workers' last chunk.
HERE_SHARE = 1.0
WORKER_CHUNKS = 4
# A level of at least this many folders per process, but no more than a chunk (experiment folders),
# is shared out with each chunk scanning one level ahead; this process's share is smaller there, as it
# also merges the level below and reads the workers' results. Measured on the benchmark tree (182
# experiments, 10,000 task folders, 2 processes, best of 8, both cores free), share -> s: 0.8 0.344,
# 0.85 0.329, 0.9 0.311-0.313, 1.0 0.321-0.323, 1.1 0.342, 1.2 0.363; 6 worker chunks as 4.
EXPAND_MIN_FOLDERS = 16
EXPAND_HERE_SHARE = 0.9

Key = tuple[int, tuple[str, ...]]
Found = tuple[
    Key, int, str, TaskUnit | None, Any
]  # (key, position in its folder, "run" | "partial", unit of a partial, payload)


def _merge(
    chunk: list[Candidate],
    output: list[tuple[Any, ...]],
    found: list[Found],
    skipped: list[tuple[Key, SkippedFolder]],
    walked: dict[str, str],
    following: list[Candidate],
) -> None:
    """Add what a chunk's folders held to `found` and `skipped`; their subfolders, in key order, are
    each walked once: a folder whose real path was reached before is skipped, one scanned ahead
    (`_process`) is merged now, any other goes to `following` (the walk's next level)."""
    for candidate, (units, subfolders, scan_skipped, s3_marker, ahead) in zip(chunk, output, strict=True):
        key = (candidate[0], candidate[1])
        for number, (kind, unit, payload) in enumerate(units):
            found.append((key, number, kind, unit, payload))
        if scan_skipped:
            skipped.extend((key, item) for item in scan_skipped)
        if not subfolders:
            continue
        for index, child in enumerate(child_candidates(candidate, subfolders, s3_marker)):
            real = child[5]
            if real in walked:
                reason = f"same folder as {display_text(walked[real])} (analysed once)"
                skipped.append(((child[0], child[1]), SkippedFolder(child[2], reason)))
                continue
            walked[real] = child[2]
            result = None if ahead is None else ahead[index]
            if result is None:
                following.append(child)
                continue
            # a leaf scanned ahead (most task folders with a pool): merged here, nothing goes further
            child_key = (child[0], child[1])
            for number, (kind, unit, payload) in enumerate(result[0]):
                found.append((child_key, number, kind, unit, payload))
            if result[2]:
                skipped.extend((child_key, item) for item in result[2])


def _pool_size(workers: int | None) -> int:
    return (os.cpu_count() or 1) if workers is None else workers


def _walk(
    fan: FanOut,
    roots: list[str],
    definitions: Mapping[str, Any],
    auto: bool,
    chunk_size: int,
    max_bytes: int,
) -> tuple[list[Found], list[tuple[Key, SkippedFolder]], bool]:
    """(what each folder held, skipped entries with their keys, whether two logs may be copies);
    sort the first two by key for the walk order. `fan` has this process and its workers."""
    pool_size = fan.workers + 1 if fan.backend == "process" else 1
    found: list[Found] = []
    skipped: list[tuple[Key, SkippedFolder]] = []
    # real path -> the path it was walked under. Folders are registered in walk order (a level in
    # key order, after every level above): the first path to reach a real folder scans it.
    walked: dict[str, str] = {}
    pending: list[Candidate] = []  # the level to scan, in key order
    for index, root in enumerate(roots):
        real = os.path.realpath(root)
        path = os.path.normpath(root)
        if real in walked:
            reason = f"same folder as {display_text(walked[real])} (analysed once)"
            skipped.append(((index, ()), SkippedFolder(path, reason)))
        else:
            walked[real] = path
            pending.append((index, (), path, 0, "current", real, (real,)))
    logs_seen = 0
    hash_lists: list[list[int]] = []  # per chunk, the copy hashes of its logs
    if not auto:  # the workers start while this process scans the first levels
        fan.start_workers()
    while pending:
        fresh, pending = pending, []  # merging the level's chunks in order fills the next one
        chunks = even_chunks(fresh, chunk_size)
        position = 0
        while auto and position < len(chunks) and (logs_seen <= AUTO_PARALLEL_LOGS or pool_size == 1):
            count, output, hashes = unpack_chunk(
                process_chunk(chunk_jobs([chunks[position]], definitions, max_bytes, here=1)[0])
            )
            logs_seen += count
            _merge(chunks[position], output, found, skipped, walked, pending)
            hash_lists.append(hashes)
            position += 1
        rest = fresh[position * chunk_size :]
        here = len(chunks) - position  # a level of one chunk is scanned here: a round trip costs more
        expand = False
        if pool_size > 1 and len(rest) > chunk_size:
            # this process keeps its share of the level in chunks (the bar moves); the workers get a
            # few large chunks each: every chunk carries the definitions its folders need and comes
            # back as one message, so fewer chunks cost less on both sides
            split = int(len(rest) * HERE_SHARE / pool_size)
            own, others = rest[:split], rest[split:]
            mine = even_chunks(own, chunk_size)
            theirs = shrinking_chunks(others, (pool_size - 1) * WORKER_CHUNKS, chunk_size)
            chunks[position:] = mine + theirs
            here = len(mine)
        elif pool_size > 1 and len(rest) >= EXPAND_MIN_FOLDERS * pool_size:
            # a small level of many folders (experiments): shared out likewise, each chunk scanning
            # its folders' plain subfolders too (the walk's next level, merged without a scan), so
            # the workers start on it at once instead of waiting while this process scans it all
            split = int(len(rest) * EXPAND_HERE_SHARE / pool_size)
            own, others = rest[:split], rest[split:]
            mine = even_chunks(own, max(1, len(own) // 8))
            theirs = shrinking_chunks(others, (pool_size - 1) * WORKER_CHUNKS, 1)
            chunks[position:] = mine + theirs
            here, expand = len(mine), True
        jobs = chunk_jobs(chunks[position:], definitions, max_bytes, here, expand)
        results = fan.map(process_chunk, jobs, log_count, here=here)
        if here < len(jobs):
            # the workers' share of a level is submitted: let them exit once it is done, overlapping
            # their exit (a few ms) with this process's work. A level shared out is nearly always the
            # last one (task folders, or experiments scanned a level ahead); a deeper one starts a pool.
            fan.release_workers()
        for chunk, result in zip(chunks[position:], results, strict=True):
            count, output, hashes = unpack_chunk(result)
            logs_seen += count
            # merged now: this process's own chunks while the workers still run
            _merge(chunk, output, found, skipped, walked, pending)
            hash_lists.append(hashes)
    return found, skipped, may_have_copies(hash_lists)


def _combine_partials(
    partials: list[tuple[Key, int, TaskUnit, list[dict[str, Any]]]], definitions: Mapping[str, Any]
) -> list[tuple[Key, int, dict[str, Any]]]:
    """Runs of per-run folders and flat files: one per (experiment folder, task id, layout)."""
    groups: dict[tuple[str, str, str], list[tuple[Key, int, TaskUnit, list[dict[str, Any]]]]] = {}
    for item in partials:
        unit = item[2]
        experiment = unit.folder if unit.layout == "flat" else os.path.dirname(unit.folder)
        groups.setdefault((experiment, unit.task_id, unit.layout), []).append(item)
    runs = []
    for (experiment, task_id, layout), items in groups.items():
        outcomes = [outcome for _, _, _, unit_outcomes in items for outcome in unit_outcomes]
        ignored = sorted({name for _, _, unit, _ in items for name in unit.others})
        definition = definitions.get(task_id)
        run = build_run(
            task_id,
            experiment,
            layout,
            outcomes,
            definition,
            ignored_files=ignored,
            unit_key=f"{os.path.realpath(experiment)}{os.sep}{task_id}#{layout}",
        )
        first = min(items, key=lambda item: (item[0], item[1]))
        runs.append((first[0], first[1], run))
    return runs


_walk_order = operator.itemgetter(0, 1)  # (key, position in its folder): the sorted depth-first order


def _rebuild_with_stale(
    run: dict[str, Any], marks: dict[int, str], definitions: Mapping[str, Any]
) -> dict[str, Any]:
    outcomes = [mark_stale(o, marks[i]) if i in marks else o for i, o in enumerate(run["agent_outcomes"])]
    return build_run(
        run["task_id"],
        run["folder_path"],
        run["layout"],
        outcomes,
        definitions.get(run["task_id"]),
        run["model_name"],
        metrics=run["task_definition_metrics"],
        ignored_files=run["ignored_files"],
        unit_key=run["unit_key"],
    )


def collect_runs(
    roots: list[str],
    definitions: Mapping[str, Any],
    workers: int | None = 1,
    progress: bool = False,
    chunk_size: int = CHUNK_SIZE,
    max_bytes: int = DEFAULT_MAX_LOG_BYTES,
) -> tuple[list[dict[str, Any]], list[SkippedFolder]]:
    """(per-run dicts, skipped entries) for roots; identical for any number of workers and chunk size."""
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ParameterError(f"workers: must be >= 1 (or None for automatic), got {workers}")
    if max_bytes < 1:
        raise ParameterError(f"max_bytes: must be >= 1, got {max_bytes}")
    pool_size = _pool_size(workers)
    # this process is one of the `pool_size` processes: it takes its share of every large level while
    # `pool_size - 1` workers take the rest (its own results need no pickling, and it would wait anyway)
    with (
        gc_paused(),
        FanOut(
            workers=max(1, pool_size - 1),
            backend="process" if pool_size > 1 else "serial",
            progress=progress,
            description="agent logs",
            unit="log",
            preload=CHUNK_PRELOAD,
        ) as fan,
    ):
        found, skipped, copies = _walk(fan, roots, definitions, workers is None, chunk_size, max_bytes)
        partials = [
            (key, number, unit, payload)
            for key, number, kind, unit, payload in found
            if kind == "partial" and unit is not None
        ]
        if partials:
            complete = [(key, number, payload) for key, number, kind, _, payload in found if kind == "run"]
            ordered = sorted(complete + _combine_partials(partials, definitions), key=_walk_order)
            runs = [run for _, _, run in ordered]
        else:  # found is in walk order already once sorted by key
            found.sort(key=_walk_order)
            runs = [payload for _, _, _, _, payload in found]
        # the workers sent hashes of the logs' copy keys: without a repeat, no walk over every log here
        marks = find_identical_copies(runs, display_text) if copies else {}
        by_run: dict[int, dict[int, str]] = {}
        for (run_position, outcome_position), reason in marks.items():
            by_run.setdefault(run_position, {})[outcome_position] = reason
        for run_position, run_marks in by_run.items():
            runs[run_position] = _rebuild_with_stale(runs[run_position], run_marks, definitions)
    skipped.sort(key=lambda item: (item[0], item[1].path))
    return runs, [item for _, item in skipped]


def find_task_folders(
    roots: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
) -> tuple[list[str], list[SkippedFolder]]:
    """(folders holding tasks, skipped entries) under roots, walked like `aggregate_results` does."""
    runs, skipped = collect_runs(as_path_list(roots), {}, workers=1)
    return list(dict.fromkeys(run["folder_path"] for run in runs)), skipped
