"""Finding task logs under experiment roots, in every layout Mindcraft's tools have written.

Layouts (`LAYOUTS`, the `layout` column; docs/mindcraft.md says where each comes from):

- `current`: `<experiment>/<task_id>/<Agent>_<server>_<run>.json`;
- `s3_download`: the same, below a folder that also holds the agents' `bots/` folder (what the S3
  upload and download scripts leave); `bots/` (memory.json, histories/) is no task and is skipped;
- `per_run`: `<experiment>/<task_id>_<run>/<Agent>.json` (one folder per repetition);
- `flat`: `<experiment>/<task_id>_<Agent>_<run>.json` (every log directly in the experiment folder).

A root may mix them. While walking, a folder is a task (it holds current-layout logs, or is an empty
unrun task folder), a repetition of a task (per-run logs), holds flat logs (one task per task id in the
names, and it is walked further too), or is walked further; anything else is skipped and listed with
the reason: `analysis_results/`, `bots/`, a folder of unrelated files, an empty experiment folder
(named `<name>_MM-DD_HH-MM`, as Mindcraft names them) or empty root, a directory named like a log,
FIFOs, sockets, devices, symlinks that may not be followed (`files.py`), cycles of symlinked folders.

Nothing is ever written; listings are sorted, so the order never depends on the file system.
"""

from __future__ import annotations

import operator
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft.files import resolve_symlink
from cogames_lib.mindcraft.logs import AGENT_LOG_NAME

LAYOUTS: tuple[str, ...] = ("current", "s3_download", "per_run", "flat")
PER_RUN_LOG_NAME = re.compile(r"^(?P<agent>[A-Za-z]+_\d+)\.json$")
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
match_current = AGENT_LOG_NAME.match
_RUN_THEN_AGENT = operator.itemgetter(2, 1, 0)  # LogEntry order in a folder: run, agent, file name
NO_SCORE_POLICIES: tuple[str, ...] = ("failure", "exclude")
MAX_WALK_DEPTH = 5


@dataclass(frozen=True)
class SkippedFolder:
    """Something under a root that was not analysed: `kind` is "folder" or "file"."""

    path: str
    reason: str
    kind: str = "folder"


def as_path_list(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    if isinstance(paths, str | os.PathLike):
        return [os.fspath(paths)]
    return [os.fspath(path) for path in paths]


# One log to read: (file name, agent name, run index, path to read)
LogEntry = tuple[str, str, int, str]


class TaskUnit(NamedTuple):
    """The logs of one task found in one folder (for `per_run`, of one repetition)."""

    layout: str
    task_id: str
    folder: str  # the folder the logs are in
    logs: tuple[LogEntry, ...]
    others: tuple[str, ...] = ()


class FolderScan(NamedTuple):
    """One `os.scandir` of a folder, decided: tasks found, folders to walk, things skipped."""

    units: tuple[TaskUnit, ...] = ()
    subfolders: tuple[tuple[str, str | None], ...] = ()  # (name, real path when reached by a symlink)
    skipped: tuple[SkippedFolder, ...] = ()
    s3_marker: bool = False  # a `bots/` folder sits here: the task folders below came from S3


def _looks_like_log(name: str) -> bool:
    # every log pattern ends in `.json`: folder names (tens of thousands at the experiment level) are
    # told apart by one string test instead of three regexes
    return name.endswith(".json") and bool(
        AGENT_LOG_NAME.match(name) or PER_RUN_LOG_NAME.match(name) or FLAT_LOG_NAME.match(name)
    )


def _non_regular(entry: os.DirEntry[str]) -> str:
    try:
        from cogames_lib.mindcraft.files import kind_of_mode

        return kind_of_mode(entry.stat(follow_symlinks=False).st_mode)
    except OSError as error:
        return f"unreadable ({error.strerror or error})"


def scan_folder(path: str, depth: int, layout_hint: str, allowed: tuple[str, ...]) -> FolderScan:
    """Scan one folder `depth` levels below a root and decide what it holds (module docstring)."""
    name = path.rpartition(os.sep)[2]
    if name in NON_TASK_FOLDER_NAMES and depth > 0:
        return FolderScan(skipped=(SkippedFolder(path, NON_TASK_FOLDER_NAMES[name]),))
    current: list[tuple[str, str, int, str]] = []  # (file name, agent, run, path to read)
    per_run: list[tuple[str, str, str]] = []
    flat: list[tuple[str, int, str, str, str]] = []
    others: list[str] = []
    subfolders: list[tuple[str, str | None]] = []
    skipped: list[SkippedFolder] = []
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                entry_name = entry.name
                if entry_name[0] == ".":  # .gitkeep, .DS_Store: never evidence either way
                    continue
                read_path = entry.path
                # regular files first: nearly every entry is one, and d_type answers without a stat
                if entry.is_file(follow_symlinks=False):
                    match = match_current(entry_name)
                    if match is not None:  # the common case, in as few calls as possible
                        agent, run = match.groups()
                        current.append((entry_name, agent, int(run), read_path))
                        continue
                elif entry.is_dir(follow_symlinks=False):
                    if _looks_like_log(entry_name):
                        skipped.append(SkippedFolder(read_path, "a directory named like a log"))
                    else:
                        subfolders.append((entry_name, None))
                    continue
                elif entry.is_symlink():
                    if entry.is_dir():
                        real, reason = resolve_symlink(read_path, allowed, want_dir=True)
                        if real is None:
                            skipped.append(SkippedFolder(read_path, reason))
                        else:
                            subfolders.append((entry_name, real))
                        continue
                    if not _looks_like_log(entry_name):
                        others.append(entry_name)  # never read: its name says it is no log
                        continue
                    real, reason = resolve_symlink(read_path, allowed, want_dir=False)
                    if real is None:
                        skipped.append(SkippedFolder(read_path, reason, "file"))
                        continue
                    read_path = real
                else:
                    skipped.append(SkippedFolder(read_path, f"{_non_regular(entry)}, not read", "file"))
                    continue
                if match := AGENT_LOG_NAME.match(entry_name):
                    current.append((entry_name, match.group("agent"), int(match.group("run")), read_path))
                elif match := PER_RUN_LOG_NAME.match(entry_name):
                    per_run.append((match.group("agent"), entry_name, read_path))
                elif match := FLAT_LOG_NAME.match(entry_name):
                    flat.append(
                        (
                            match.group("task"),
                            int(match.group("run")),
                            match.group("agent"),
                            entry_name,
                            read_path,
                        )
                    )
                else:
                    others.append(entry_name)
    except OSError as error:
        return FolderScan(skipped=(SkippedFolder(path, f"unreadable ({error.strerror or error})"),))
    if current and not (others or per_run or flat or subfolders or skipped):  # a plain task folder
        current.sort(key=_RUN_THEN_AGENT)
        return FolderScan((TaskUnit(layout_hint, name, path, tuple(current)),))
    others.sort()
    subfolders.sort()
    skipped.sort(key=lambda item: item.path)
    s3_marker = any(sub == S3_MARKER_FOLDER for sub, _ in subfolders)
    units: list[TaskUnit] = []
    if current:
        current.sort(key=_RUN_THEN_AGENT)
        extra = sorted(others + [item[1] for item in per_run] + [item[3] for item in flat])
        units.append(TaskUnit(layout_hint, name, path, tuple(current), tuple(extra)))
        # a task folder is a leaf: folders inside it are listed, not walked
        skipped.extend(
            SkippedFolder(os.path.join(path, sub), "a folder inside a task folder") for sub, _ in subfolders
        )
        return FolderScan(tuple(units), (), tuple(skipped), s3_marker)
    run_folder = PER_RUN_FOLDER_NAME.match(name)
    if per_run and run_folder is not None:
        run = int(run_folder.group("run"))
        logs = tuple((file, agent, run, read) for agent, file, read in sorted(per_run))
        units.append(TaskUnit("per_run", run_folder.group("task"), path, logs, tuple(others)))
        return FolderScan(tuple(units), (), tuple(skipped), s3_marker)
    if flat:
        by_task: dict[str, list[LogEntry]] = {}
        for task_id, run, agent, file, read in sorted(flat, key=lambda item: (item[0], item[1], item[2])):
            by_task.setdefault(task_id, []).append((file, agent, run, read))
        units.extend(TaskUnit("flat", task_id, path, tuple(logs)) for task_id, logs in by_task.items())
    if subfolders and depth >= MAX_WALK_DEPTH:
        skipped.append(SkippedFolder(path, f"deeper than {MAX_WALK_DEPTH} levels below a root"))
        subfolders = []
    if units or subfolders:
        return FolderScan(tuple(units), tuple(subfolders), tuple(skipped), s3_marker)
    if others or per_run:
        reason = "no agent-log files" if not per_run else "per-run logs in a folder not named <task_id>_<run>"
        return FolderScan(skipped=(*skipped, SkippedFolder(path, reason)))
    if skipped:  # only hostile entries: nothing here is a task
        return FolderScan(skipped=(*skipped, SkippedFolder(path, "no readable agent-log files")))
    if depth == 0:
        return FolderScan(skipped=(SkippedFolder(path, "empty root: no task folders"),))
    if EXPERIMENT_FOLDER_NAME.search(name):
        return FolderScan(skipped=(SkippedFolder(path, "empty experiment folder: no task folders"),))
    # an experiment creates one folder per task before anything runs: an unrun task is an empty folder
    return FolderScan((TaskUnit(layout_hint, name, path, ()),))


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
