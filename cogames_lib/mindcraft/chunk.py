"""One chunk of the Mindcraft walk, as a worker process runs it (`process_chunk`), and how a level is cut
into chunks (`even_chunks`, `shrinking_chunks`, `chunk_jobs`). A chunk: scan each candidate
folder once, read and classify its logs, combine its current-layout tasks. `collect.py` walks and merges.
"""

from __future__ import annotations

import gc
import marshal
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from cogames_lib.mindcraft.discovery import scan_folder
from cogames_lib.mindcraft.runs import build_run, read_unit
from cogames_lib.mindcraft.stale import copy_hashes
from cogames_lib.mindcraft.tasks import task_definition_metrics

CHUNK_PRELOAD = ["cogames_lib.mindcraft.chunk"]  # what a forkserver imports once for the workers

# A folder to look at: (root index, path parts below the root, path, depth, layout hint for tasks in
# it, real path, real directories whose files symlinks may point at)
Candidate = tuple[int, tuple[str, ...], str, int, str, str, tuple[str, ...]]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: parsing builds only acyclic dicts and lists, and with
    tens of thousands of them alive each automatic full collection re-walks them all (10-30% of
    the parse time, measured). Reference counting still frees everything as usual.

    On resuming, the objects made meanwhile go straight to the oldest generation (freeze, then
    unfreeze: nothing stays frozen, nothing leaks), so the young collections that would follow do not
    walk all of them twice more; a full collection still sees them, and any cycle, later."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


# task id -> (its definition, its metrics): a task id recurs in every experiment, its metrics need
# computing once per process (checked against the definition, which a later job may change)
_METRICS_CACHE: dict[str, tuple[Any, dict[str, Any]]] = {}
_METRICS_CACHE_LIMIT = 100_000


def cached_metrics(task_id: str, definition: Any) -> dict[str, Any]:
    cached = _METRICS_CACHE.get(task_id)
    if cached is not None and (cached[0] is definition or cached[0] == definition):
        return cached[1]
    if len(_METRICS_CACHE) > _METRICS_CACHE_LIMIT:
        _METRICS_CACHE.clear()
    metrics = task_definition_metrics(task_id, definition)
    _METRICS_CACHE[task_id] = (definition, metrics)
    return metrics


ChunkOutput = tuple[int, list[tuple[Any, ...]], list[int]]
# (chunk, definitions its folders need, max bytes, pid of the process that merges the results,
# whether to scan the plain subfolders of each folder too)
ChunkJob = tuple[list[Candidate], Mapping[str, Any], int, int, bool]


def child_candidates(
    candidate: Candidate, subfolders: tuple[tuple[str, str | None], ...], s3_marker: bool
) -> list[Candidate]:
    """The candidates for the subfolders a scan of `candidate` found, in their (sorted) order."""
    root_index, parts, path, depth, _, real, allowed = candidate
    hint = "s3_download" if s3_marker else "current"
    prefix, real_prefix = path + os.sep, real + os.sep
    same = prefix == real_prefix  # no symlink on the way: one string for both, pickled once
    children: list[Candidate] = []
    for name, link_real in subfolders:
        if link_real is None:
            child_path = prefix + name
            real_path = child_path if same else real_prefix + name
            children.append((root_index, (*parts, name), child_path, depth + 1, hint, real_path, allowed))
        else:
            children.append(
                (root_index, (*parts, name), prefix + name, depth + 1, hint, link_real, (*allowed, link_real))
            )
    return children


def even_chunks(items: list[Any], size: int) -> list[list[Any]]:
    """`items` in chunks of `size` (the last may be smaller)."""
    return [items[start : start + size] for start in range(0, len(items), size)]


def shrinking_chunks(items: list[Any], count: int, minimum: int) -> list[list[Any]]:
    """`items` in up to `count` chunks of sizes falling as count, count - 1, ..., 1 (none but the
    last below `minimum`): a pool's last results come back small, so little is left to send, read and merge
    once the workers are done."""
    total_weight = count * (count + 1) // 2
    chunks, start = [], 0
    for weight in range(count, 0, -1):
        if start >= len(items):
            break
        size = max(minimum, -(-len(items) * weight // total_weight))
        chunks.append(items[start : start + size])
        start += size
    if start < len(items):
        chunks.append(items[start:])
    return chunks


def _folder_name(candidate: Candidate) -> str:
    """A candidate folder's name (a task folder's task id): its last path part, or a root's basename."""
    return candidate[1][-1] if candidate[1] else os.path.basename(candidate[2])


def chunk_jobs(
    chunks: list[list[Candidate]],
    definitions: Mapping[str, Any],
    max_bytes: int,
    here: int = 0,
    expand: bool = False,
) -> list[Any]:
    """A `ChunkJob` per chunk: the first `here` chunks run in this process and share `definitions`;
    a worker's chunk carries only those its folder names need (all of them when it `expand`s: its
    subfolders' names are not known yet)."""
    pid = os.getpid()
    return [
        (
            chunk,
            definitions
            if index < here or expand or not definitions
            else {name: definitions[name] for c in chunk if (name := _folder_name(c)) in definitions},
            max_bytes,
            pid,
            expand,
        )
        for index, chunk in enumerate(chunks)
    ]


def process_chunk(job: ChunkJob) -> ChunkOutput | tuple[int, bytes]:
    """Scan each candidate of a job; parse what it holds. Returns (logs read, one result per
    candidate, `copy_hashes` of its logs for the stale check); in a worker process, (logs read,
    the other two marshalled: `unpack_chunk` restores them)."""
    output = _process(job)
    if job[3] == os.getpid():
        return output
    # A worker's result crosses a pipe: marshal writes and reads these plain dicts, lists and
    # tuples 2-3x faster than pickle, and the result item is then one bytes object, so the pool's
    # result thread in the merging process only copies it (unpickling a chunk there took the
    # GIL from the merging thread for ~15 ms). A SkippedFolder or a partial's TaskUnit is no plain
    # value: such a chunk goes as objects (pickled).
    try:
        return output[0], marshal.dumps(output[1:])
    except ValueError:
        return output


def unpack_chunk(result: ChunkOutput | tuple[int, bytes]) -> ChunkOutput:
    if len(result) == 2:
        output, hashes = marshal.loads(result[1])
        return result[0], output, hashes
    return result


def _process(job: ChunkJob) -> ChunkOutput:
    """One result per candidate: (units, subfolders, skipped, s3 marker, ahead). With `expand`,
    `ahead` holds, per subfolder, its own result when it is a plain folder (not reached by a
    symlink) with no subfolders of its own (a task folder), scanned here one level ahead of the
    walk, else None (the walk scans it in its turn); without `expand`, `ahead` is None."""
    with gc_paused():
        chunk, definitions, max_bytes, _, expand = job
        results: list[tuple[Any, ...]] = []
        hashes: list[int] = []
        logs_read = 0
        for candidate in chunk:
            count, result = _scan(candidate, definitions, max_bytes, hashes)
            logs_read += count
            if expand and result[1]:
                ahead: list[Any] = []
                kids = child_candidates(candidate, result[1], result[3])
                for (_, link_real), child in zip(result[1], kids, strict=True):
                    if link_real is not None:  # a symlinked folder is left to the walk's cycle checks
                        ahead.append(None)
                        continue
                    child_hashes: list[int] = []
                    count, child_result = _scan(child, definitions, max_bytes, child_hashes)
                    if child_result[1]:  # not a leaf: its subfolders are the walk's next level
                        ahead.append(None)
                        continue
                    logs_read += count
                    hashes += child_hashes
                    ahead.append(child_result)
                result = (*result[:4], ahead)
            results.append(result)
        return logs_read, results, hashes


def _scan(
    candidate: Candidate, definitions: Mapping[str, Any], max_bytes: int, hashes: list[int]
) -> tuple[int, tuple[Any, ...]]:
    """(logs read, (units, subfolders, skipped, s3 marker, None)) of one folder; adds the copy hashes
    of its logs to `hashes`."""
    path, depth, hint, real, allowed = candidate[2:]
    scan = scan_folder(path, depth, hint, allowed)
    units: list[tuple[str, Any, Any]] = []
    logs_read = 0
    for unit in scan.units:
        outcomes = read_unit(unit, max_bytes)
        logs_read += len(outcomes)
        if unit.layout in ("per_run", "flat"):  # combined in the parent, with its sibling folders
            units.append(("partial", unit._replace(logs=()), outcomes))
            hashes += copy_hashes(outcomes)  # a superset: the parent may mark some stale
            continue
        definition = definitions.get(unit.task_id)
        run = build_run(
            unit.task_id,
            path,
            unit.layout,
            outcomes,
            definition,
            metrics=cached_metrics(unit.task_id, definition),  # shared: nothing mutates it
            ignored_files=unit.others,
            unit_key=real,
        )
        units.append(("run", None, run))  # the unit is not needed back: smaller results
        hashes += copy_hashes(run["agent_outcomes"])
    return logs_read, (units, scan.subfolders, scan.skipped, scan.s3_marker, None)


def log_count(job: Any, output: ChunkOutput) -> int:
    """Logs read in a chunk (the progress bar counts logs; the automatic pool starts on them)."""
    return output[0]
