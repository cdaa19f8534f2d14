"""Finding task logs under experiment roots, in every layout Mindcraft's tools have written (`find_task_units`).

Layouts (`LAYOUTS`, the `layout` column; docs/mindcraft.md says where each comes from):

- `current`: `<experiment>/<task_id>/<Agent>_<server>_<run>.json`;
- `s3_download`: the same, below a folder that also holds the agents' `bots/` folder (what the S3
  upload and download scripts leave); `bots/` (memory.json, histories/) is no task and is skipped;
- `per_run`: `<experiment>/<task_id>_<run>/<Agent>.json` (one folder per repetition; the agent name
  with or without its server suffix: `Andy.json` or `Andy_0.json`);
- `flat`: `<experiment>/<task_id>_<Agent>_<run>.json` (every log directly in the experiment folder; the
  agent name with or without its server suffix).

A root may mix them. The walk is serial and sorted: each folder is scanned once (`scan_folder`), level
by level, and is a task (it holds current-layout logs, or is an empty unrun task folder), a repetition
of a task (per-run logs), holds flat logs (one task per task id in the names; walked further too), or
is walked further. The repetitions of a per-run or flat task are then gathered into one `TaskUnit`.
Listed in the `skipped` table with the reason, never silently dropped: `analysis_results/`, `bots/`,
`histories/`, a folder of unrelated files, an empty experiment folder (named `<name>_MM-DD_HH-MM`, as
Mindcraft names them) or empty root, a folder inside a task folder, a directory named like a log, every
file whose name is no agent log (besides `results.txt`), FIFOs, sockets, devices, symlinks that may not
be followed (`files.py`), a folder reached twice (symlinks: a cycle, or the same experiment twice; the
path met first in walk order is analysed). Hidden files (`.gitkeep`, `.DS_Store`) are ignored.

Nothing is ever written; listings are sorted, so the order never depends on the file system.
"""

from __future__ import annotations

import operator
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import msgspec
from msgspec.structs import replace

from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft.files import display_text, kind_of_mode, resolve_symlink
from cogames_lib.mindcraft.logs import AGENT_LOG_NAME

LAYOUTS: tuple[str, ...] = ("current", "s3_download", "per_run", "flat")
PER_RUN_LOG_NAME = re.compile(r"^(?P<agent>[A-Za-z]+_\d+|[A-Z][A-Za-z]*)\.json$")
PER_RUN_FOLDER_NAME = re.compile(r"^(?P<task>.+)_(?P<run>\d+)$")
# Agent names start with a capital (Andy, Jill, ...); task ids are lower case, so the first
# `_<Capital>` ends the task id. The server suffix is optional.
FLAT_LOG_NAME = re.compile(r"^(?P<task>.+?)_(?P<agent>[A-Z][A-Za-z]*(?:_\d+)?)_(?P<run>\d+)\.json$")
# evaluation_script names experiment folders `<exp_name>_<%m-%d_%H-%M>`
EXPERIMENT_FOLDER_NAME = re.compile(r"_\d{2}-\d{2}_\d{2}-\d{2}$")
NON_TASK_FOLDER_NAMES: dict[str, str] = {
    "analysis_results": "analysis_results is not a task folder (the old scripts wrote it)",
    "__pycache__": "__pycache__ is not a task folder",
    "bots": "bots/ holds the agents' memory and histories (copied by the S3 upload), not a task",
    "histories": "histories/ holds an agent's full conversation histories, not a task",
}
S3_MARKER_FOLDER = "bots"
RESULTS_FILE = "results.txt"  # the experiment's results (its `model`); read, never listed
NOT_A_LOG = "not an agent-log file name"
NO_SCORE_POLICIES: tuple[str, ...] = ("failure", "exclude")
MAX_WALK_DEPTH = 5


@dataclass(frozen=True)
class SkippedFolder:
    """Something under a root that was not analysed: `kind` is "folder" or "file"."""

    path: str
    reason: str
    kind: str = "folder"


# The walk's records are structs the garbage collector does not track (no cycle: strings, numbers, tuples):
# as named tuples, 60,000 of them on 20,000 logs cost a full collection a call (docs/mindcraft.md, "Speed").
class LogFile(msgspec.Struct, frozen=True, order=True, gc=False):
    """One agent log to read; the fields in the order the logs of a unit are sorted (by run, then agent)."""

    run: int
    agent: str
    file_name: str
    path: str  # where to read it (a followed symlink's target)


class TaskUnit(msgspec.Struct, frozen=True, gc=False):
    """The logs of one task: a task folder, or every repetition of a per-run or flat task."""

    layout: str
    task_id: str
    folder: str  # the task folder; the experiment folder for `per_run` and `flat`
    logs: tuple[LogFile, ...]
    ignored: tuple[str, ...] = ()  # file names beside the logs that are no agent log


def experiment_folder(folder: str, layout: str) -> str:
    """The experiment folder of a task's logs: the task folder's parent; the folder itself for per_run and
    flat, whose units name the experiment folder."""
    return folder if layout in ("per_run", "flat") else folder.rpartition(os.sep)[0]


class FolderScan(msgspec.Struct, frozen=True, gc=False):
    """One `os.scandir` of a folder, decided: tasks found, folders to walk, things skipped."""

    units: tuple[TaskUnit, ...] = ()
    subfolders: tuple[tuple[str, str | None], ...] = ()  # (name, real path when reached by a symlink)
    skipped: tuple[SkippedFolder, ...] = ()
    s3_marker: bool = False  # a `bots/` folder sits here: the task folders below came from S3


class Folder(msgspec.Struct, frozen=True, gc=False):
    """A folder the walk will scan."""

    # orders the walk: the root's index, then the names below it, each after a NUL (which sorts before any
    # character a name can hold, so these strings sort as the tuples of names would, only faster)
    key: str
    path: str
    depth: int
    layout_hint: str  # the layout of tasks found in it: current, or s3_download below a bots/ folder
    real: str
    allowed: tuple[str, ...]  # real directories symlinked logs may point into


def as_path_list(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    if isinstance(paths, str | os.PathLike):
        return [os.fspath(paths)]
    return [os.fspath(path) for path in paths]


def _looks_like_log(name: str) -> bool:
    return name.endswith(".json") and any(
        pattern.match(name) for pattern in (AGENT_LOG_NAME, PER_RUN_LOG_NAME, FLAT_LOG_NAME)
    )


def _entry_kind(entry: os.DirEntry[str]) -> str:
    try:
        return kind_of_mode(entry.stat(follow_symlinks=False).st_mode)
    except OSError as error:
        return f"unreadable ({error.strerror or error})"


_path_of = operator.attrgetter("path")
_FIRST = operator.itemgetter(0)  # the walk key (a stable sort keeps a folder's units in their order)


def _by_run(logs: list[LogFile]) -> tuple[LogFile, ...]:
    return tuple(sorted(logs))


def scan_folder(
    path: str, depth: int, layout_hint: str = "current", allowed: tuple[str, ...] = ()
) -> FolderScan:
    """Scan one folder `depth` levels below a root and decide what it holds (module docstring)."""
    name = path.rpartition(os.sep)[2]
    if name in NON_TASK_FOLDER_NAMES and depth > 0:
        return FolderScan(skipped=(SkippedFolder(path, NON_TASK_FOLDER_NAMES[name]),))
    current: list[LogFile] = []
    rest = []  # every entry but a plain current-layout log (.gitkeep, .DS_Store: never evidence)
    try:
        with os.scandir(path) as entries:
            for entry in entries:  # d_type answers is_file: no stat
                if entry.is_file(follow_symlinks=False) and (match := AGENT_LOG_NAME.match(entry.name)):
                    current.append(LogFile(int(match[2]), match[1], entry.name, entry.path))
                elif not entry.name.startswith("."):
                    rest.append(entry)
        if current and not rest:  # a plain task folder
            return FolderScan((TaskUnit(layout_hint, name, path, _by_run(current)),))
        per_run: list[LogFile] = []
        flat: dict[str, list[LogFile]] = {}
        others: list[str] = []
        subfolders: list[tuple[str, str | None]] = []
        skipped: list[SkippedFolder] = []
        for entry in rest:
            entry_name, read_path = entry.name, entry.path
            if entry.is_dir(follow_symlinks=False):
                if _looks_like_log(entry_name):
                    skipped.append(SkippedFolder(read_path, "a directory named like a log"))
                else:
                    subfolders.append((entry_name, None))
                continue
            if entry.is_symlink():
                want_dir = entry.is_dir()
                if not want_dir and not _looks_like_log(entry_name):
                    others.append(entry_name)  # never followed: its name says it is no log
                    continue
                real, reason = resolve_symlink(read_path, allowed, want_dir)
                if real is None:
                    skipped.append(SkippedFolder(read_path, reason, "folder" if want_dir else "file"))
                elif want_dir:
                    subfolders.append((entry_name, real))
                if real is None or want_dir:
                    continue
                read_path = real
            elif not entry.is_file(follow_symlinks=False):
                skipped.append(SkippedFolder(read_path, f"{_entry_kind(entry)}, not read", "file"))
                continue
            if match := AGENT_LOG_NAME.match(entry_name):  # a symlinked log
                current.append(LogFile(int(match[2]), match[1], entry_name, read_path))
            elif match := PER_RUN_LOG_NAME.match(entry_name):
                per_run.append(LogFile(0, match[1], entry_name, read_path))
            elif match := FLAT_LOG_NAME.match(entry_name):
                flat.setdefault(match["task"], []).append(
                    LogFile(int(match["run"]), match["agent"], entry_name, read_path)
                )
            else:
                others.append(entry_name)
    except OSError as error:
        return FolderScan(skipped=(SkippedFolder(path, f"unreadable ({error.strerror or error})"),))
    subfolders.sort()
    s3_marker = any(sub == S3_MARKER_FOLDER for sub, _ in subfolders)
    run_folder = PER_RUN_FOLDER_NAME.match(name)
    flat_logs = [log for logs in flat.values() for log in logs]
    unit: TaskUnit | None = None
    if current:  # a task folder
        unit, beside = TaskUnit(layout_hint, name, path, _by_run(current)), per_run + flat_logs
    elif per_run and run_folder is not None:  # one repetition of a task
        logs = _by_run([replace(log, run=int(run_folder["run"])) for log in per_run])
        unit, beside = TaskUnit("per_run", run_folder["task"], path, logs), flat_logs
    if unit is not None:  # a leaf: folders inside it are listed, not walked
        unit = replace(unit, ignored=tuple(sorted(others + [log.file_name for log in beside])))
        skipped += [
            SkippedFolder(os.path.join(path, sub), "a folder inside a task folder") for sub, _ in subfolders
        ]
        skipped += [_file(path, log.file_name, "named like a log of another layout") for log in beside]
        skipped += [_file(path, other, NOT_A_LOG) for other in others if other != RESULTS_FILE]
        return FolderScan((unit,), (), tuple(sorted(skipped, key=_path_of)), s3_marker)
    units = [TaskUnit("flat", task_id, path, _by_run(logs)) for task_id, logs in sorted(flat.items())]
    if not units and not subfolders:
        return _nothing_to_analyse(path, name, depth, layout_hint, bool(others or per_run), skipped)
    if subfolders and depth >= MAX_WALK_DEPTH:
        skipped.append(SkippedFolder(path, f"deeper than {MAX_WALK_DEPTH} levels below a root"))
        subfolders = []
    skipped += [
        _file(path, log.file_name, "a per-run log in a folder not named <task_id>_<run>") for log in per_run
    ]
    skipped += [_file(path, other, NOT_A_LOG) for other in others if other != RESULTS_FILE]
    return FolderScan(tuple(units), tuple(subfolders), tuple(sorted(skipped, key=_path_of)), s3_marker)


def _file(folder: str, name: str, reason: str) -> SkippedFolder:
    return SkippedFolder(os.path.join(folder, name), reason, "file")


def _nothing_to_analyse(
    path: str, name: str, depth: int, layout_hint: str, files: bool, skipped: list[SkippedFolder]
) -> FolderScan:
    """A folder with no task and no folder to walk: skipped with the reason, or an unrun task."""
    if files:
        reason = "no agent-log files (per-run logs need a folder named <task_id>_<run>)"
    elif skipped:  # only hostile entries: nothing here is a task
        reason = "no readable agent-log files"
    elif depth == 0:
        reason = "empty root: no task folders"
    elif EXPERIMENT_FOLDER_NAME.search(name):
        reason = "empty experiment folder: no task folders"
    else:  # an experiment creates one folder per task before anything runs: an unrun task is an empty folder
        return FolderScan((TaskUnit(layout_hint, name, path, ()),))
    return FolderScan(skipped=(*sorted(skipped, key=_path_of), SkippedFolder(path, reason)))


def _enter(
    folder: Folder, walked: dict[str, str], level: list[Folder], skipped: list[tuple[Folder, SkippedFolder]]
) -> None:
    """Walk `folder` unless its real path was walked before (a symlink cycle, or a folder reached twice)."""
    if folder.real in walked:
        reason = f"same folder as {display_text(walked[folder.real])} (analysed once)"
        skipped.append((folder, SkippedFolder(folder.path, reason)))
    else:
        walked[folder.real] = folder.path
        level.append(folder)


def find_task_units(roots: Sequence[str]) -> tuple[list[TaskUnit], list[SkippedFolder]]:
    """(task units, skipped entries) under `roots`, both in the order of a sorted depth-first walk.

    Folders are scanned level by level, each level in walk order, so the path that reaches a real folder
    first (the shallower one, then the first in walk order) is the one analysed.
    """
    walked: dict[str, str] = {}  # real path -> the path it is walked under
    found: list[tuple[str, TaskUnit]] = []  # (walk key of its folder, unit)
    skipped: list[tuple[Folder, SkippedFolder]] = []
    level: list[Folder] = []
    for index, root in enumerate(roots):
        real = os.path.realpath(root)
        top = Folder(f"{index:09d}", os.path.normpath(root), 0, "current", real, (real,))
        _enter(top, walked, level, skipped)
    while level:
        following: list[Folder] = []
        for folder in level:
            scan = scan_folder(folder.path, folder.depth, folder.layout_hint, folder.allowed)
            found += [(folder.key, unit) for unit in scan.units]
            skipped += [(folder, item) for item in scan.skipped]
            hint = "s3_download" if scan.s3_marker else "current"
            for name, link in scan.subfolders:
                child = Folder(
                    folder.key + "\0" + name,
                    folder.path + os.sep + name,
                    folder.depth + 1,
                    hint,
                    link or folder.real + os.sep + name,
                    folder.allowed if link is None else (*folder.allowed, link),
                )
                _enter(child, walked, following, skipped)
        level = following
    found.sort(key=_FIRST)
    skipped.sort(key=lambda item: (item[0].key, item[1].path))
    return _gather_repetitions([unit for _, unit in found]), [item for _, item in skipped]


def _gather_repetitions(units: list[TaskUnit]) -> list[TaskUnit]:
    """One unit per per-run or flat task (experiment folder, task id), at the place of its first part."""
    gathered: list[TaskUnit] = []
    place: dict[tuple[str, str, str], int] = {}
    for unit in units:
        if unit.layout not in ("per_run", "flat"):
            gathered.append(unit)
            continue
        experiment = unit.folder if unit.layout == "flat" else os.path.dirname(unit.folder)
        key = (experiment, unit.task_id, unit.layout)
        if key not in place:
            place[key] = len(gathered)
            gathered.append(replace(unit, folder=experiment))
            continue
        first = gathered[place[key]]
        ignored = tuple(sorted({*first.ignored, *unit.ignored}))
        gathered[place[key]] = replace(first, logs=_by_run([*first.logs, *unit.logs]), ignored=ignored)
    return gathered


def validate_analysis_parameters(
    roots: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    task_files: Sequence[str | os.PathLike[str]] | None = None,
    no_score_policy: str = "failure",
) -> None:
    """Raise a one-line `ParameterError` for a missing root / task file or an unknown policy."""
    root_list = as_path_list(roots)
    if not root_list:
        raise ParameterError("roots: give at least one experiment root or task folder")
    for root in root_list:
        if not os.path.isdir(root):
            raise ParameterError(f"roots: {root!r} does not exist or is not a directory")
    for task_file in as_path_list(task_files or []):
        if not os.path.exists(task_file):
            raise ParameterError(f"task_files: {task_file!r} does not exist")
    if no_score_policy not in NO_SCORE_POLICIES:
        raise ParameterError(
            f"no_score_policy: {no_score_policy!r} is not one of {', '.join(NO_SCORE_POLICIES)}"
        )
