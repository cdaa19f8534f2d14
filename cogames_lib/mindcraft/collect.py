"""Experiment roots -> per-run dicts (`collect_runs`): walk, parse, combine, mark stale copies.

1. A sorted serial walk finds every task and its logs (`discovery.find_task_units`).
2. The tasks are parsed in chunks, here or on `workers` processes (`cogames_lib.parallel.FanOut`, the
   project's one fan-out); results come back in task order, so they never depend on the worker count.
3. Logs that are byte-identical copies across tasks are marked stale and their runs rebuilt (`stale.py`).

Workers: `None` chooses: this process alone for small trees, every core once the walk found more than
`AUTO_PARALLEL_BYTES` of logs (a pool's start and the results' trip back cost more than they save below
that; docs/mindcraft.md has the measurements).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft.discovery import SkippedFolder, TaskUnit, as_path_list, find_task_units
from cogames_lib.mindcraft.files import DEFAULT_MAX_LOG_BYTES
from cogames_lib.mindcraft.runs import build_run, read_unit
from cogames_lib.mindcraft.stale import find_identical_copies, mark_stale
from cogames_lib.mindcraft.tasks import task_definition_metrics
from cogames_lib.parallel import FanOut

AUTO_PARALLEL_BYTES = 64 * 1024 * 1024
CHUNKS_PER_WORKER = 8  # more chunks even out tasks of unequal size; each costs a round trip


class ParseJob(NamedTuple):
    """What one worker parses: a chunk of task units and the definitions of their task ids."""

    units: list[TaskUnit]
    definitions: Mapping[str, Any]
    max_bytes: int


def parse_units(job: ParseJob) -> list[dict[str, Any]]:
    """The per-run dict of every unit of a job, in order (the fan-out's task)."""
    metrics: dict[str, dict[str, Any]] = {}  # a task id recurs in every experiment: its metrics, once
    runs = []
    for unit in job.units:
        definition = job.definitions.get(unit.task_id)
        if unit.task_id not in metrics:
            metrics[unit.task_id] = task_definition_metrics(unit.task_id, definition)
        outcomes = read_unit(unit, job.max_bytes)
        runs.append(
            build_run(
                unit.task_id,
                unit.folder,
                unit.layout,
                outcomes,
                definition,
                metrics=metrics[unit.task_id],  # shared: nothing mutates it
                ignored_files=unit.ignored,
            )
        )
    return runs


def _jobs(
    units: list[TaskUnit], definitions: Mapping[str, Any], count: int, max_bytes: int
) -> list[ParseJob]:
    size = max(1, -(-len(units) // count))
    jobs = []
    for start in range(0, len(units), size):
        chunk = units[start : start + size]
        needed = {unit.task_id: definitions[unit.task_id] for unit in chunk if unit.task_id in definitions}
        jobs.append(ParseJob(chunk, needed, max_bytes))
    return jobs


def _log_bytes(units: list[TaskUnit]) -> int:
    total = 0
    for unit in units:
        for log in unit.logs:
            try:
                total += os.stat(log.path).st_size
            except OSError:
                continue
    return total


def collect_runs(
    roots: list[str],
    definitions: Mapping[str, Any],
    workers: int | None = 1,
    progress: bool = False,
    max_bytes: int = DEFAULT_MAX_LOG_BYTES,
) -> tuple[list[dict[str, Any]], list[SkippedFolder]]:
    """(per-run dicts, skipped entries) for roots, in walk order; identical for any number of workers."""
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ParameterError(f"workers: must be >= 1 (or None for automatic), got {workers}")
    if max_bytes < 1:
        raise ParameterError(f"max_bytes: must be >= 1, got {max_bytes}")
    units, skipped = find_task_units(roots)
    if workers is None:
        workers = (os.cpu_count() or 1) if _log_bytes(units) > AUTO_PARALLEL_BYTES else 1
    # one process: chunks only move the progress bar; a pool: a few chunks per worker
    count = CHUNKS_PER_WORKER * workers if workers > 1 else max(1, len(units) // 500)
    jobs = _jobs(units, definitions, count, max_bytes)
    runs: list[dict[str, Any]] = []
    with FanOut(
        workers=workers,
        progress=progress,
        description="agent logs",
        unit="log",
        total=sum(len(unit.logs) for unit in units),
    ) as fan:
        for chunk_runs in fan.map(
            parse_units, jobs, lambda job, _: sum(len(unit.logs) for unit in job.units)
        ):
            runs += chunk_runs
    marks = find_identical_copies(runs, [[log.path for log in unit.logs] for unit in units])
    for run_position in sorted({run for run, _ in marks}):
        run = runs[run_position]
        outcomes = [
            mark_stale(outcome, marks[(run_position, position)])
            if (run_position, position) in marks
            else outcome
            for position, outcome in enumerate(run["agent_outcomes"])
        ]
        runs[run_position] = build_run(
            run["task_id"],
            run["folder_path"],
            run["layout"],
            outcomes,
            definitions.get(run["task_id"]),
            metrics=run["task_definition_metrics"],
            ignored_files=run["ignored_files"],
        )
    return runs, skipped


def find_task_folders(
    roots: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
) -> tuple[list[str], list[SkippedFolder]]:
    """(folders holding tasks, skipped entries) under roots, walked like `aggregate_results` does."""
    units, skipped = find_task_units(as_path_list(roots))
    return list(dict.fromkeys(unit.folder for unit in units)), skipped
