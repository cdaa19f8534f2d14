"""The sample tree's experiments in the other layouts Mindcraft's tools write (SYNTHETIC logs).

- `s3_download/techtree_s3_03-22_10-00/`: task folders as the S3 analysis scripts download them, with
  the agents' `bots/<agent>/` folder (memory.json, histories/) beside them, and a stale log: the
  memory of the previous task copied into the next task folder, score line included;
- `gpt-4o-mini_per_run_03-25_14-30/`: one folder per repetition, `<task_id>_<run>/<Agent>.json` (the
  agent name without its server suffix);
- `gpt-4o-mini_flat_03-26_08-00/`: every log directly in the experiment folder,
  `<task_id>_<Agent>_<run>.json`.

The per-run and flat experiments share task ids with the current-layout experiment, so the sample
has a paired model comparison (claude-3-5-haiku-latest vs gpt-4o-mini).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from cogames_lib.mindcraft.tasks import task_type_of
from tools.mindcraft_sample.logs import AGENT_NAMES
from tools.mindcraft_sample.writer import random_verdict, write_sample_file

S3_FOLDER = "s3_download"
S3_EXPERIMENT = "techtree_s3_03-22_10-00"
PER_RUN_EXPERIMENT = "gpt-4o-mini_per_run_03-25_14-30"
FLAT_EXPERIMENT = "gpt-4o-mini_flat_03-26_08-00"
LAYOUT_SAMPLE_FOLDERS: frozenset[str] = frozenset({S3_FOLDER, PER_RUN_EXPERIMENT, FLAT_EXPERIMENT})
MINI_RESULTS = "{'model': 'gpt-4o-mini', 'total': 20}"


def _verdict(writer: Any, task_id: str) -> tuple[Any, ...] | None:
    return random_verdict(task_type_of(task_id, writer.definitions.get(task_id)) or "unknown", writer.rng)


def _agents(writer: Any, task_id: str) -> list[str]:
    count = int(writer.definitions.get(task_id, {}).get("agent_count", 2))
    return [f"{AGENT_NAMES[index]}_0" for index in range(count)]


def write_s3_download(writer: Any, techtree: Sequence[str]) -> None:
    """Two task folders and `bots/`; the second folder's Andy log is a byte copy of the first's."""
    experiment = os.path.join(writer.root, S3_FOLDER, S3_EXPERIMENT)
    first, second, third = techtree[:3]
    copied = b""
    for task_id, verdicts in (
        (first, (("score", 1), None)),
        (second, (None, None)),
        (third, (("score", 0), None)),
    ):
        folder = os.path.join(experiment, task_id)
        os.makedirs(folder)
        starts = writer.run_starts(2)
        andy = writer.log("Andy_0", "Jill_0", task_id, verdicts[0], "object", starts[0])
        if task_id == second:  # Andy died before his first save: last task's memory.json was copied
            andy = copied
        copied = andy
        write_sample_file(os.path.join(folder, "Andy_0_0.json"), andy)
        write_sample_file(
            os.path.join(folder, "Jill_0_0.json"),
            writer.log("Jill_0", "Andy_0", task_id, verdicts[1], "object", starts[1]),
        )
    for agent in ("Andy_0", "Jill_0"):
        bots = os.path.join(experiment, "bots", agent)
        os.makedirs(os.path.join(bots, "histories"))
        write_sample_file(os.path.join(bots, "memory.json"), json.dumps({"memory": "", "turns": []}).encode())
        # a history file whose name looks like a current-layout log: only the bots/ rule keeps it out
        write_sample_file(os.path.join(bots, "histories", f"{agent}_1742640000.json"), b"[]")


def write_per_run(writer: Any, task_ids: Sequence[str], repetitions: int = 2) -> None:
    experiment = writer.experiment(PER_RUN_EXPERIMENT, MINI_RESULTS)
    for task_id in task_ids:
        names = _agents(writer, task_id)
        for run in range(repetitions):
            folder = os.path.join(experiment, f"{task_id}_{run}")
            os.makedirs(folder)
            _write_run(writer, task_id, [name.split("_")[0] for name in names], folder, "", ".json")


def write_flat(writer: Any, task_ids: Sequence[str]) -> None:
    experiment = writer.experiment(FLAT_EXPERIMENT, MINI_RESULTS)
    for task_id in task_ids:
        names = _agents(writer, task_id)
        _write_run(writer, task_id, names, experiment, f"{task_id}_", "_0.json")


def _write_run(
    writer: Any, task_id: str, names: Sequence[str], folder: str, prefix: str, suffix: str
) -> None:
    """One run's logs, `folder/<prefix><agent><suffix>`: one agent (drawn) logs the verdict; the agents start
    within seconds of each other."""
    verdict, scorer = _verdict(writer, task_id), writer.rng.randrange(len(names))
    starts = writer.run_starts(len(names))
    for index, name in enumerate(names):
        partner = names[(index + 1) % len(names)]
        data = writer.log(
            name, partner, task_id, verdict if index == scorer else None, "object", starts[index]
        )
        write_sample_file(os.path.join(folder, f"{prefix}{name}{suffix}"), data)
