"""Experiment roots -> the columns of the runs table (`collect_columns`): walk, parse, combine, mark copies.

1. A sorted serial walk finds every task and its logs (`discovery.find_task_units`).
2. The tasks are parsed in chunks, here or on `workers` processes (`cogames_lib.parallel.FanOut`, the
   project's one fan-out); each chunk comes back as the table's columns (`rows.run_columns`: no dict per
   run is kept or sent between processes), in task order, so the result never depends on the worker count.
3. Logs that are byte-identical copies across tasks are marked stale and their rows rebuilt (`stale.py`);
   the model of each experiment is read from its `results.txt` once.

Workers: `None` chooses: this process alone for small trees, every core once the walk found more than
`AUTO_PARALLEL_BYTES` of logs (a pool's start and the results' trip back cost more than they save below
that; docs/mindcraft.md has the measurements).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft.discovery import (
    SkippedFolder,
    TaskUnit,
    as_path_list,
    experiment_folder,
    find_task_units,
)
from cogames_lib.mindcraft.files import DEFAULT_MAX_LOG_BYTES, display_text, valid_text
from cogames_lib.mindcraft.rows import ROW_COLUMNS, TASK_ID_COLUMNS, run_columns, run_row
from cogames_lib.mindcraft.runs import build_run, read_model_name, read_unit
from cogames_lib.mindcraft.stale import find_identical_copies, mark_stale
from cogames_lib.mindcraft.tasks import task_definition_metrics
from cogames_lib.parallel import FanOut

AUTO_PARALLEL_BYTES = 64 * 1024 * 1024
CHUNKS_PER_WORKER = 8  # more chunks even out tasks of unequal size; each costs a round trip
SERIAL_CHUNK = 50  # tasks a chunk in one process: its rows die young (as fast as 200 or 1,000, measured)


class RunColumns(NamedTuple):
    """The runs table's columns: `per_run` a value a row; `per_task_id` (`TASK_ID_COLUMNS`) a value per task
    id, `task_index` each row's place in them (a task id recurs in every experiment: typed once)."""

    per_run: dict[str, list[Any]]
    per_task_id: dict[str, list[Any]]
    task_index: list[int]


class ParseJob(NamedTuple):
    """What one worker parses: a chunk of task units, and the definitions and metrics of their task ids."""

    units: list[TaskUnit]
    definitions: Mapping[str, Any]
    metrics: Mapping[str, dict[str, Any]]
    max_bytes: int
    no_score_policy: str


def _run(unit: TaskUnit, outcomes: list[dict[str, Any]], job: ParseJob) -> dict[str, Any]:
    task_id = unit.task_id  # its metrics are shared by every task of that id: nothing mutates them
    definition, metrics = job.definitions.get(task_id), job.metrics[task_id]
    return build_run(
        task_id, unit.folder, unit.layout, outcomes, definition, metrics=metrics, ignored_files=unit.ignored
    )


def parse_units(job: ParseJob) -> dict[str, list[Any]]:
    """The runs-table columns of a chunk of task units, in order (the fan-out's task)."""
    runs = (_run(unit, read_unit(unit, job.max_bytes), job) for unit in job.units)
    return run_columns([run_row(run, job.no_score_policy) for run in runs])  # a run's dict dies young


def _log_bytes(units: list[TaskUnit]) -> int:
    total = 0
    for unit in units:
        for log in unit.logs:
            try:
                total += os.stat(log.path).st_size
            except OSError:
                continue
    return total


def _mark_copies(columns: dict[str, list[Any]], units: list[TaskUnit], job: ParseJob) -> None:
    """Rebuild the rows of tasks holding a log that is a byte-identical copy of another task's log."""
    marks = find_identical_copies(columns["agent_outcomes"], units)
    for row in sorted({row for row, _ in marks}):
        outcomes = [
            mark_stale(outcome, marks[row, position]) if (row, position) in marks else outcome
            for position, outcome in enumerate(columns["agent_outcomes"][row])
        ]
        rebuilt = run_row(_run(units[row], outcomes, job), job.no_score_policy)
        for column, value in zip(ROW_COLUMNS, rebuilt, strict=True):
            columns[column][row] = value


def collect_columns(
    roots: list[str],
    definitions: Mapping[str, Any],
    *,
    model_name: str | None = None,
    no_score_policy: str = "failure",
    workers: int | None = 1,
    progress: bool = False,
    max_bytes: int = DEFAULT_MAX_LOG_BYTES,
) -> tuple[RunColumns, list[SkippedFolder]]:
    """(the runs table's columns, skipped entries) for roots, in walk order; identical for any number of
    workers. `model_name` None reads each experiment's `results.txt`."""
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ParameterError(f"workers: must be >= 1 (or None for automatic), got {workers}")
    if max_bytes < 1:
        raise ParameterError(f"max_bytes: must be >= 1, got {max_bytes}")
    units, skipped = find_task_units(roots)
    if workers is None:
        workers = (os.cpu_count() or 1) if _log_bytes(units) > AUTO_PARALLEL_BYTES else 1
    # a task id recurs in every experiment: its metrics are derived once
    ids = {unit.task_id: definitions.get(unit.task_id) for unit in units}
    metrics = {task_id: task_definition_metrics(task_id, definition) for task_id, definition in ids.items()}
    whole = ParseJob(units, definitions, metrics, max_bytes, no_score_policy)
    size = max(1, -(-len(units) // (CHUNKS_PER_WORKER * workers))) if workers > 1 else SERIAL_CHUNK
    jobs = []
    for start in range(0, len(units), size):
        chunk = units[start : start + size]
        needed = {unit.task_id for unit in chunk}
        jobs.append(
            whole._replace(
                units=chunk,
                definitions={task_id: ids[task_id] for task_id in needed if ids[task_id] is not None},
                metrics={task_id: metrics[task_id] for task_id in needed},
            )
        )
    columns = run_columns([])
    logs = sum(len(unit.logs) for unit in units)
    with FanOut(workers=workers, progress=progress, description="agent logs", unit="log", total=logs) as fan:
        for chunk in fan.map(parse_units, jobs, lambda job, _: sum(len(unit.logs) for unit in job.units)):
            for column, values in chunk.items():
                columns[column] += values
    _mark_copies(columns, units, whole)
    experiments = [experiment_folder(unit.folder, unit.layout) for unit in units]
    models: dict[str, str | None] = {}
    for experiment in dict.fromkeys(experiments):  # results.txt is read once per experiment
        model = model_name if model_name is not None else read_model_name(experiment)
        models[experiment] = None if model is None else valid_text(model)
    names = {experiment: display_text(experiment.rpartition(os.sep)[2]) for experiment in models}
    columns["experiment"] = [names[experiment] for experiment in experiments]
    columns["model_name"] = [models[experiment] for experiment in experiments]
    place = {task_id: index for index, task_id in enumerate(metrics)}
    by_id = {column: [values.get(column) for values in metrics.values()] for column in TASK_ID_COLUMNS}
    return RunColumns(columns, by_id, [place[unit.task_id] for unit in units]), skipped


def find_task_folders(
    roots: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
) -> tuple[list[str], list[SkippedFolder]]:
    """(folders holding tasks, skipped entries) under roots, walked like `aggregate_results` does."""
    units, skipped = find_task_units(as_path_list(roots))
    return list(dict.fromkeys(unit.folder for unit in units)), skipped
