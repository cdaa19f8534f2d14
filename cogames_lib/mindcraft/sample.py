"""A seeded generator of SYNTHETIC Mindcraft experiment trees (for the sample data, tests, benchmark).

The logs are invented; the task ids and definitions are real (read from the task files given). The
tree covers every message variant and edge case of spec/mindcraft_logs.md: current score lines
(0, 1, 100, a fraction, NaN), the `ended in score:` typo, the legacy codes (2, 3, 4, undefined),
a score logged by one agent only, a stale duplicate score, a timeout next to a success, a score line
quoted by a user turn, empty folders (unrun tasks), a truncated log, a non-UTF-8 log, an empty file,
a bare list of turns, a wrong-shape log, 1 to 5 agents, repetitions, an agent-count mismatch, a task
id without a definition, `analysis_results/` and a non-task folder, results.txt with and without a model,
and (`sample_layouts.py`) the S3-download, per-run and flat layouts with a stale copied log.

Regenerate the committed sample (deterministic for a seed):

    cogames-lib mindcraft sample cogames_lib/data/mindcraft_sample/experiments \
        --tasks cogames_lib/data/mindcraft_sample/tasks/*.json --seed 0
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping, Sequence
from typing import Any

from cogames_lib import io
from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft.sample_layouts import (
    LAYOUT_SAMPLE_FOLDERS,
    write_flat,
    write_per_run,
    write_s3_download,
)
from cogames_lib.mindcraft.sample_writer import TreeWriter, write_sample_file
from cogames_lib.mindcraft.tasks import load_task_definitions, task_type_of

# The experiment roots the generator writes; an existing out_dir holding anything else is not replaced.
CURRENT_EXPERIMENT = "claude-3-5-haiku_mixed_tasks_03-20_09-15"
LEGACY_EXPERIMENT = "gpt-4o_techtree_legacy_02-10_11-40"
SOLO_EXPERIMENT = "llama-3-8b_solo_04-02_16-20"
SAMPLE_EXPERIMENTS: frozenset[str] = frozenset(
    {CURRENT_EXPERIMENT, LEGACY_EXPERIMENT, SOLO_EXPERIMENT, *LAYOUT_SAMPLE_FOLDERS}
)


def _ids_by_type(definitions: Mapping[str, Any]) -> dict[str, list[str]]:
    by_type: dict[str, list[str]] = {}
    for task_id in sorted(definitions):
        by_type.setdefault(task_type_of(task_id, definitions[task_id]) or "unknown", []).append(task_id)
    return by_type


def _build(root: str, definitions: Mapping[str, Any], rng: random.Random) -> None:
    by_type = _ids_by_type(definitions)
    cooking = [i for i in by_type.get("cooking", []) if "hells_kitchen" not in i]
    hells = [i for i in by_type.get("cooking", []) if "hells_kitchen" in i]
    techtree2 = [i for i in by_type.get("techtree", []) if "num_agents_3" not in i]
    techtree3 = [i for i in by_type.get("techtree", []) if "num_agents_3" in i]
    construction = by_type.get("construction", [])
    # How many distinct ids of each kind the layout below indexes (the highest index used + 1).
    needed = (
        ("cooking (not hells_kitchen)", cooking, 6),
        ("hells_kitchen cooking", hells, 1),
        ("2-agent techtree", techtree2, 16),
        ("3-agent techtree", techtree3, 11),
        ("construction", construction, 1),
    )
    short = [f"{len(ids)}/{count} {kind}" for kind, ids, count in needed if len(ids) < count]
    if short:
        raise ParameterError(f"task_files: too few tasks: {', '.join(short)} (found/needed)")
    writer = TreeWriter(root, definitions, rng)
    ok, none = "object", None

    current = writer.experiment(CURRENT_EXPERIMENT, "{'model': 'claude-3-5-haiku-latest', 'total': 42}")
    for task_id in cooking[:4]:
        writer.random_folder(current, task_id, repetitions=2)
    for task_id in hells[:3] + techtree2[:12] + techtree3[:8]:
        writer.random_folder(current, task_id, repetitions=1)
    church = construction[0]
    writer.folder(
        current,
        church,
        [[(("score", 57.14285714285714), ok), (none, ok)], [(("score", 100), ok), (none, ok)]],
    )
    # Edge cases, each in its own real task folder.
    writer.folder(current, cooking[4], [])  # an unrun task: empty folder
    writer.folder(current, techtree2[12], [])
    writer.folder(current, techtree2[13], [[(none, "truncated"), (("score", 1), ok)]])
    writer.folder(current, techtree2[14], [[(none, "non_utf8"), (none, "empty")]])  # every log broken
    writer.folder(current, techtree2[15], [[(("stale", 0, 1), ok), (none, ok)]])  # stale duplicate score
    writer.folder(current, techtree3[8], [[(("score", "NaN"), ok), (none, ok), (none, ok)]])
    writer.folder(current, techtree3[9], [[(("typo", 1), ok), (none, "bare_list"), (none, "wrong_shape")]])
    writer.folder(current, techtree3[10], [[(none, "user_quote"), (none, ok), (none, ok)]])
    five = [(none, ok)] * 4 + [(("score", 1), ok)]
    writer.folder(current, cooking[5], [five])  # 5 agents where the definition says 2
    os.makedirs(os.path.join(current, "analysis_results"))
    write_sample_file(os.path.join(current, "analysis_results", "summary.csv"), b"task,success\n")
    os.makedirs(os.path.join(current, "notes"))
    write_sample_file(os.path.join(current, "notes", "readme.txt"), b"operator notes, not a task\n")

    legacy = writer.experiment(LEGACY_EXPERIMENT, "{'model': 'gpt-4o', 'total': 9}")
    success, timeout = ("legacy", "Task successful", 2), ("legacy", "Task timeout reached", 4)
    no_agents, undefined = ("legacy", "No other agents found", 3), ("legacy", "Task successful", "undefined")
    for task_id, verdicts in zip(
        techtree2[:6],
        [
            (success, none),
            (none, timeout),
            (no_agents, none),
            (undefined, none),
            (success, timeout),
            (none, none),
        ],
        strict=True,
    ):
        writer.folder(legacy, task_id, [[(verdicts[0], ok), (verdicts[1], ok)]])

    solo = writer.experiment(SOLO_EXPERIMENT, "this is not a dict {")
    writer.folder(solo, techtree2[0], [[(("score", 1), ok)]])  # 1 agent, definition says 2
    undefined_id = "church_two_agent"  # a real id whose definition is not loaded (unless a task file has it)
    while undefined_id in definitions:
        undefined_id += "_undefined"
    writer.folder(solo, undefined_id, [[(("score", 100), ok), (none, ok)]])
    writer.folder(solo, church, [[(("score", 14.285714285714286), ok), (none, ok)]])

    # The other layouts (sample_layouts.py): S3 download with a stale copied log, per-run, flat.
    write_s3_download(writer, techtree2[13:16])
    write_per_run(writer, cooking[:4] + techtree2[:8])
    write_flat(writer, techtree2[8:12] + techtree3[:4])


def _check_replaceable(target: str) -> None:
    """Refuse to delete anything but an earlier sample tree: overwrite must never cost a user's files."""
    if not os.path.isdir(target):
        raise ParameterError(f"out_dir: {target!r} exists and is not a directory")
    foreign = sorted(set(os.listdir(target)) - SAMPLE_EXPERIMENTS)
    if foreign:
        raise ParameterError(
            f"out_dir: {target!r} holds {foreign[0]!r}, so it is not a sample tree this generator wrote; "
            "remove it yourself or choose another directory"
        )


def generate_sample_tree(
    out_dir: str | os.PathLike[str],
    task_files: Sequence[str | os.PathLike[str]] | Mapping[str, Any],
    seed: int = 0,
    overwrite: bool = False,
) -> str:
    """Write the synthetic sample experiments under `out_dir` (built in a temp dir, then renamed).

    `task_files`: paths or a loaded {task_id: definition} mapping; it needs cooking (incl.
    hells_kitchen), 2- and 3-agent techtree and construction tasks. Returns `out_dir`. `overwrite`
    replaces an existing `out_dir` only when it holds nothing but the sample's experiment folders.
    """
    target = os.path.normpath(os.fspath(out_dir))
    if os.path.lexists(target):
        if not overwrite:
            raise ParameterError(f"out_dir: {target!r} exists (pass overwrite=True to replace it)")
        _check_replaceable(target)
    definitions = task_files if isinstance(task_files, Mapping) else load_task_definitions(task_files)
    with io.staged_dir(target, "out_dir") as staging:
        _build(os.fspath(staging), definitions, random.Random(seed))
    return target
