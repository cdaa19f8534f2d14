"""Writing a SYNTHETIC experiment tree folder by folder; every random choice comes from one seeded generator."""

from __future__ import annotations

import os
import random
from collections.abc import Mapping, Sequence
from typing import Any

from cogames_lib import io
from cogames_lib.mindcraft.tasks import task_type_of
from tools.mindcraft_sample.logs import AGENT_NAMES, BASE_TASK_START_MS, make_agent_log


def _item_of(definition: Mapping[str, Any]) -> str:
    target = definition.get("target")
    if isinstance(target, str):
        return target
    if isinstance(target, dict | list) and target:
        return str(next(iter(target)))
    return "oak_planks"


def random_verdict(task_type: str, rng: random.Random) -> tuple[Any, ...] | None:
    draw = rng.random()
    if task_type == "construction":
        return ("score", rng.choice((100, 57.14285714285714, 14.285714285714286, 0)))
    if draw < 0.45:
        return ("score", 1)
    if draw < 0.9:
        return ("score", 0)
    return None


def write_sample_file(path: str, data: bytes) -> None:
    io.write_bytes(path, data)


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
            verdict = random_verdict(task_type, self.rng)
            scorer = self.rng.randrange(count)  # usually only the first agent to finish logs the score
            runs.append([(verdict if index == scorer else None, "object") for index in range(count)])
        self.folder(experiment, task_id, runs)
