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

    cogames-lib mindcraft sample data/mindcraft_sample/experiments \
        --tasks data/mindcraft_sample/tasks/*.json --seed 0
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

from cogames_lib.errors import ParameterError
from cogames_lib.mindcraft.sample_layouts import (
    LAYOUT_SAMPLE_FOLDERS,
    write_flat,
    write_per_run,
    write_s3_download,
)
from cogames_lib.mindcraft.tasks import load_task_definitions, task_type_of

AGENT_NAMES: tuple[str, ...] = ("Andy", "Jill", "Bob", "Sally", "Mike")
CHAT_LINES: tuple[str, ...] = (
    "Hey {other}, I have {item} in my inventory. What do you have?",
    "I can give you what you need, coming over now.",
    '!givePlayer("{other}", "{item}", 1)',
    '!collectBlocks("{item}", 1)',
    '!craftRecipe("{item}", 1)',
    '!goToPlayer("{other}", 3)',
    "Thanks! I will craft it at the table.",
    "!inventory",
)
SYSTEM_LINES: tuple[str, ...] = (
    "Code output:\nYou have reached {other}.",
    "Code output:\nSuccessfully crafted {item}, you now have 1 {item}.",
    "Code output:\nCollected 1 {item}.",
)
BASE_TASK_START_MS = 1_742_300_000_000
# The experiment roots the generator writes; an existing out_dir holding anything else is not replaced.
CURRENT_EXPERIMENT = "claude-3-5-haiku_mixed_tasks_03-20_09-15"
LEGACY_EXPERIMENT = "gpt-4o_techtree_legacy_02-10_11-40"
SOLO_EXPERIMENT = "llama-3-8b_solo_04-02_16-20"
SAMPLE_EXPERIMENTS: frozenset[str] = frozenset(
    {CURRENT_EXPERIMENT, LEGACY_EXPERIMENT, SOLO_EXPERIMENT, *LAYOUT_SAMPLE_FOLDERS}
)


def js_number(value: float | str) -> str:
    """A number as JavaScript prints it (`1`, `57.14285714285714`, `NaN`)."""
    if isinstance(value, str):
        return value
    return str(int(value)) if float(value).is_integer() else repr(float(value))


# Verdict kind -> the turns it writes, as (role, template); templates take the verdict's arguments.
VERDICT_TURNS: dict[str, tuple[tuple[str, str], ...]] = {
    "score": (("system", "Task ended with score : {0}"),),
    "typo": (("system", "Task ended in score: {0}"),),
    "legacy": (("system", "{0} ended with code : {1}"),),
    "stale": (
        ("system", "Task ended with score : {0}"),
        ("user", "Jill_0: wait, let me try once more"),
        ("system", "Task ended with score : {1}"),
    ),
}


def verdict_turns(verdict: tuple[Any, ...] | None) -> list[dict[str, str]]:
    """Turns for one verdict spec: ("score", n), ("typo", n), ("legacy", phrase, code), ("stale", a, b)."""
    if verdict is None:
        return []
    if verdict[0] not in VERDICT_TURNS:
        raise ParameterError(f"verdict: unknown kind {verdict[0]!r} (known: {', '.join(VERDICT_TURNS)})")
    arguments = [js_number(value) for value in verdict[1:]]
    return [
        {"role": role, "content": template.format(*arguments)} for role, template in VERDICT_TURNS[verdict[0]]
    ]


def make_agent_log(
    agent: str,
    partner: str,
    item: str,
    rng: random.Random,
    verdict: tuple[Any, ...] | None,
    turn_count: int,
    shape: str = "object",
    task_start_ms: int | None = None,
) -> bytes:
    """The bytes of one synthetic agent log; `shape` is object, bare_list, wrong_shape, truncated,
    non_utf8, empty or user_quote (a user turn quoting a score line, no real verdict).

    `task_start_ms`: the log's `taskStart`; agents of one run start within seconds of each other, so
    callers writing a run pass close values (`TreeWriter.run_starts`). None draws one at random."""
    if shape == "empty":
        return b""
    turns: list[dict[str, str]] = [
        {"role": "system", "content": f"Respond with hello world and your name {agent}"}
    ]
    for _ in range(turn_count):
        role = rng.choice(("user", "assistant", "assistant", "system"))
        lines = SYSTEM_LINES if role == "system" else CHAT_LINES
        text = rng.choice(lines).format(other=partner, item=item)
        turns.append({"role": role, "content": f"{partner}: {text}" if role == "user" else text})
    if shape == "user_quote":
        turns.append({"role": "user", "content": f"{partner}: the log said Task ended with score : 1 for me"})
    turns.extend(verdict_turns(verdict))
    if shape == "bare_list":
        return json.dumps(turns).encode()
    document: Any = {
        "memory": f"I am {agent}. Working with {partner} on {item}.",
        "turns": turns,
        "self_prompting_state": 0,
        "self_prompt": None,
        "taskStart": task_start_ms
        if task_start_ms is not None
        else BASE_TASK_START_MS + rng.randrange(10**8),
        "last_sender": partner,
    }
    if shape == "wrong_shape":
        document = {"memory": document["memory"], "history": turns}
    data = json.dumps(document, ensure_ascii=False).encode()
    if shape == "truncated":
        return data[: len(data) * 2 // 3]
    if shape == "non_utf8":
        return data.replace(b"Working with", "Travaillé avec".encode("latin-1"), 1)
    return data


def _item_of(definition: Mapping[str, Any]) -> str:
    target = definition.get("target")
    if isinstance(target, str):
        return target
    if isinstance(target, dict | list) and target:
        return str(next(iter(target)))
    return "oak_planks"


def _ids_by_type(definitions: Mapping[str, Any]) -> dict[str, list[str]]:
    by_type: dict[str, list[str]] = {}
    for task_id in sorted(definitions):
        by_type.setdefault(task_type_of(task_id, definitions[task_id]) or "unknown", []).append(task_id)
    return by_type


def _random_verdict(task_type: str, rng: random.Random) -> tuple[Any, ...] | None:
    draw = rng.random()
    if task_type == "construction":
        return ("score", rng.choice((100, 57.14285714285714, 14.285714285714286, 0)))
    if draw < 0.45:
        return ("score", 1)
    if draw < 0.9:
        return ("score", 0)
    return None


def write_sample_file(path: str, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)


class TreeWriter:
    """Writes folders of an experiment; every random choice comes from one seeded generator."""

    def __init__(self, root: str, definitions: Mapping[str, Any], rng: random.Random) -> None:
        self.root, self.definitions, self.rng = root, definitions, rng
        self.clock_ms = BASE_TASK_START_MS  # runs follow each other, as on one Minecraft server

    def run_starts(self, agents: int) -> list[int]:
        """`taskStart` of each agent of the next run: within 3 s of each other (agents connect one by
        one); the next run starts 1-6 minutes later."""
        start = self.clock_ms
        self.clock_ms += self.rng.randint(60_000, 360_000)
        return [start + self.rng.randrange(3000) for _ in range(agents)]

    def log(self, agent: str, partner: str, task_id: str, verdict: Any, shape: str, start: int) -> bytes:
        item = _item_of(self.definitions.get(task_id, {}))
        return make_agent_log(agent, partner, item, self.rng, verdict, self.rng.randint(4, 9), shape, start)

    def experiment(self, name: str, results: str | None) -> str:
        path = os.path.join(self.root, name)
        os.makedirs(path)
        if results is not None:
            write_sample_file(os.path.join(path, "results.txt"), results.encode())
        return path

    def folder(
        self,
        experiment: str,
        task_id: str,
        runs: Sequence[Sequence[tuple[tuple[Any, ...] | None, str]]],
    ) -> None:
        """`runs[r][a]` = (verdict, shape) of agent a in repetition r; no runs = an empty folder."""
        folder = os.path.join(experiment, task_id)
        os.makedirs(folder)
        if not runs:  # git drops empty directories; the parser ignores hidden files
            write_sample_file(os.path.join(folder, ".gitkeep"), b"")
        for run_index, agents in enumerate(runs):
            names = [f"{AGENT_NAMES[index]}_0" for index in range(len(agents))]
            starts = self.run_starts(len(agents))
            for index, (verdict, shape) in enumerate(agents):
                partner = names[(index + 1) % len(names)] if len(names) > 1 else "Jill_0"
                data = self.log(names[index], partner, task_id, verdict, shape, starts[index])
                write_sample_file(os.path.join(folder, f"{names[index]}_{run_index}.json"), data)

    def random_folder(
        self, experiment: str, task_id: str, repetitions: int, agents: int | None = None
    ) -> None:
        definition = self.definitions.get(task_id, {})
        task_type = task_type_of(task_id, definition) or "unknown"
        count = agents or int(definition.get("agent_count", 2))
        runs = []
        for _ in range(repetitions):
            verdict = _random_verdict(task_type, self.rng)
            scorer = self.rng.randrange(count)  # usually only the first agent to finish logs the score
            runs.append([(verdict if index == scorer else None, "object") for index in range(count)])
        self.folder(experiment, task_id, runs)


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
    undefined = "church_two_agent"  # a real id whose definition is not loaded (unless a task file has it)
    while undefined in definitions:
        undefined += "_undefined"
    writer.folder(solo, undefined, [[(("score", 100), ok), (none, ok)]])
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
    parent = os.path.dirname(os.path.abspath(target))
    try:
        os.makedirs(parent, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".mindcraft_sample_", dir=parent)
    except OSError as error:
        raise ParameterError(f"out_dir: cannot write under {parent!r} ({error.strerror or error})") from None
    try:
        _build(staging, definitions, random.Random(seed))
        if os.path.exists(target):
            shutil.rmtree(target)
        os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target
