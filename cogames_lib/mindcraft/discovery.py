"""Finding task folders under experiment roots, and checking analysis parameters up front.

A path given by the user is either a task folder (it holds agent logs) or a directory to walk. While
walking, a sub-directory is:

- skipped and listed when it is `analysis_results/` (the old scripts wrote it into the tree) or
  when it holds files but none of them is an agent log;
- a task folder when it holds agent logs, or is empty (an experiment creates one folder per task
  before anything runs, so an unrun task is an empty folder and must count in the denominator);
  hidden files (`.gitkeep`, `.DS_Store`) are ignored, so a folder holding only those is empty;
- walked further when it holds directories but no agent log (an experiment root with its
  `results.txt`, or `experiments/` holding several experiments).

Nothing is ever written; the walk is sorted, so the order never depends on the file system.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft.logs import AGENT_LOG_NAME

NON_TASK_FOLDER_NAMES: frozenset[str] = frozenset({"analysis_results", "__pycache__"})
NO_SCORE_POLICIES: tuple[str, ...] = ("failure", "exclude")
MAX_WALK_DEPTH = 4


@dataclass(frozen=True)
class SkippedFolder:
    path: str
    reason: str


def as_path_list(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    if isinstance(paths, str | os.PathLike):
        return [os.fspath(paths)]
    return [os.fspath(path) for path in paths]


class FolderListing(NamedTuple):  # a NamedTuple: built once per folder, in the hot loop
    """One `os.scandir` of a folder, sorted; `logs` holds (file name, agent name, run index)."""

    kind: str  # "logs" | "empty" | "walk" | "skip"
    logs: tuple[tuple[str, str, int], ...] = ()
    others: tuple[str, ...] = ()
    subfolders: tuple[str, ...] = ()
    reason: str = ""


def list_folder(path: str) -> FolderListing:
    """Scan a folder once; the only directory read a task folder ever gets."""
    logs: list[tuple[int, str, str]] = []
    others: list[str] = []
    subfolders: list[str] = []
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                name = entry.name
                if name[0] == ".":  # .gitkeep, .DS_Store: never evidence either way
                    continue
                if entry.is_dir(follow_symlinks=False):
                    subfolders.append(name)
                    continue
                match = AGENT_LOG_NAME.match(name)
                if match is None:
                    others.append(name)
                else:
                    logs.append((int(match.group("run")), match.group("agent"), name))
    except OSError as error:
        return FolderListing("skip", reason=f"unreadable ({error.strerror or error})")
    logs.sort()
    others.sort()
    subfolders.sort()
    log_entries = tuple((name, agent, run) for run, agent, name in logs)
    if logs:
        return FolderListing("logs", log_entries, tuple(others), tuple(subfolders))
    if subfolders:  # an experiment root: task folders plus results.txt and friends
        return FolderListing("walk", (), tuple(others), tuple(subfolders))
    if others:
        return FolderListing("skip", (), tuple(others), reason="no agent-log files")
    return FolderListing("empty")


def decide_folder(path: str, depth: int) -> tuple[str, FolderListing | str]:
    """("task", listing) | ("walk", listing) | ("skip", reason) for a folder `depth` levels below a root.

    An empty directory is an unrun task below a root, but a root with nothing in it is no task.
    """
    name = os.path.basename(path)
    if name in NON_TASK_FOLDER_NAMES:
        return "skip", f"{name} is not a task folder"
    listing = list_folder(path)
    if listing.kind == "logs" or (listing.kind == "empty" and depth > 0):
        return "task", listing
    if listing.kind == "empty":
        return "skip", "empty root: no task folders"
    if listing.kind == "walk":
        if depth >= MAX_WALK_DEPTH:
            return "skip", f"deeper than {MAX_WALK_DEPTH} levels below a root"
        return "walk", listing
    return "skip", listing.reason


def find_task_folders(
    roots: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
) -> tuple[list[str], list[SkippedFolder]]:
    """(task folders, skipped folders) under the given roots or task folders; duplicates removed."""
    found: list[str] = []
    skipped: list[SkippedFolder] = []
    seen: set[str] = set()

    def visit(path: str, real: str, depth: int) -> None:
        action, payload = decide_folder(path, depth)
        if action == "task":
            if real not in seen:
                seen.add(real)
                found.append(path)
        elif action == "walk":
            assert isinstance(payload, FolderListing)
            for name in payload.subfolders:
                visit(os.path.join(path, name), os.path.join(real, name), depth + 1)
        else:
            skipped.append(SkippedFolder(path, str(payload)))

    for root in as_path_list(roots):
        visit(os.path.normpath(root), os.path.realpath(root), 0)
    return found, skipped


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
        if not os.path.isfile(task_file):
            raise ParameterError(f"task_files: {task_file!r} does not exist or is not a file")
    if no_score_policy not in NO_SCORE_POLICIES:
        raise ParameterError(
            f"no_score_policy: {no_score_policy!r} is not one of {', '.join(NO_SCORE_POLICIES)}"
        )
