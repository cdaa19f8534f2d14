"""Benchmark: `aggregate_results` (the public entry point, DataFrame included) against the old
`evaluation_script` loop, same tree, same run, on two SYNTHETIC trees:

    python benchmarks/mindcraft_parse.py [--tree small realistic] [--workers 1 2] [--repeats 5]

- `small`: 10,000 task folders (every real task id of cogames_lib/data/mindcraft_sample/tasks once per experiment),
  ~20,000 short logs (20-45 turns, ~2.7 KB), mostly 2 agents: the walk and the per-log overhead dominate;
- `realistic`: 300 tasks of 2-5 agents whose logs are whole LLM conversations (`make_conversation_log`:
  20-300 KB, log-uniform, indented as Mindcraft writes them, a little non-ASCII): JSON decoding dominates.

Each tree is written once under benchmarks/out/ (git-ignored, seeded) and reused. One untimed pass warms
the page cache; each configuration is then timed `--repeats` times, rounds interleaved so load drift on
the shared machine hits all alike, and the best run is reported with its CPU seconds (this process plus
joined pool workers). A configuration's result is freed after its clock stops. The load average is
printed before and after.

Configurations:
- `old loop`: a faithful reimplementation of Mindcraft's `tasks/evaluation_script.py` check loop
  (kolbytn/mindcraft@2818330d: per experiment folder, glob the task folders, glob `*.json` in each,
  `json.load` each file, walk the turns for a system turn containing "Task ended with score : ",
  substring-test for 1 and 0, else parse the number after the last colon; best score per folder);
- `floor`: only reading and `json.loads` of every log (no walk, no classification);
- `aggregate_results, N processes`: the whole public call (walk, read, classify every log, combine per
  task, stale checks, the pandas frame) with `workers=N`.
The speed-up columns are the old loop's wall time (and CPU seconds) divided by each configuration's.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cogames_lib.mindcraft import aggregate_results, load_task_definitions  # noqa: E402
from cogames_lib.mindcraft.files import read_regular_file  # noqa: E402
from cogames_lib.mindcraft.tasks import task_type_of  # noqa: E402
from tools.mindcraft_sample.logs import (  # noqa: E402
    AGENT_NAMES,
    BASE_TASK_START_MS,
    make_agent_log,
    make_conversation_log,
)

TASK_FILES = sorted((ROOT / "cogames_lib" / "data" / "mindcraft_sample" / "tasks").glob("*.json"))
TREES = {"small": 10_000, "realistic": 300}  # task folders
TREE_NAMES = {"small": "mindcraft_tree_v2_10000_seed{}", "realistic": "mindcraft_tree_realistic_300_seed{}"}
LOG_KB = (20, 300)  # realistic tree: log sizes, log-uniform


def _verdict(task_type: str | None, rng: random.Random) -> tuple[Any, ...] | None:
    draw = rng.random()
    if task_type == "construction":
        return ("score", rng.choice((100, 57.14285714285714, 0)))
    return ("score", 1) if draw < 0.5 else ("score", 0) if draw < 0.9 else None


def generate_tree(root: Path, kind: str, folder_count: int, seed: int) -> None:
    """`folder_count` task folders of the `kind` of tree (module docstring); the agents of a run start
    within 3 s of each other, one of them logs the verdict."""
    definitions = load_task_definitions(TASK_FILES)
    task_ids = sorted(definitions)
    rng = random.Random(seed)
    staging = root.with_name(root.name + ".partial")
    clock = BASE_TASK_START_MS
    for index in range(folder_count):
        experiment = staging / f"bench_model_{index // len(task_ids):04d}_03-20_09-15"
        task_id = task_ids[index % len(task_ids)]
        folder = experiment / task_id
        folder.mkdir(parents=True)
        if kind == "small":
            agents = rng.choices((1, 2, 3), weights=(1, 8, 1))[0]
        else:
            agents = rng.randint(2, 5)
            size = math.exp(rng.uniform(math.log(LOG_KB[0]), math.log(LOG_KB[1]))) * 1000
        scorer = rng.randrange(agents)
        verdict = _verdict(task_type_of(task_id, definitions[task_id]), rng)
        clock += rng.randint(60_000, 360_000)
        for agent in range(agents):
            name, partner = f"{AGENT_NAMES[agent]}_0", f"{AGENT_NAMES[(agent + 1) % agents]}_0"
            mine = verdict if agent == scorer else None
            if kind == "small":
                turns = rng.randint(20, 45)
                data = make_agent_log(
                    name, "Jill_0", "bread", rng, mine, turns, task_start_ms=clock + rng.randrange(3000)
                )
            else:
                log_size = int(size * rng.uniform(0.8, 1.2))
                data = make_conversation_log(
                    name, partner, "bread", rng, mine, log_size, clock + rng.randrange(3000)
                )
            (folder / f"{name}_0.json").write_bytes(data)
    for experiment in staging.iterdir():
        (experiment / "results.txt").write_text(f"{{'model': '{experiment.name}'}}")
    staging.rename(root)


# --- the old loop, reimplemented from its documented behaviour ----------------------------------------


def old_log_score(path: str) -> float | None:
    try:
        with open(path) as handle:
            data = json.load(handle)
        if "turns" in data:
            for turn in data["turns"]:
                content = turn.get("content")
                if (
                    turn.get("role") == "system"
                    and isinstance(content, str)
                    and "Task ended with score : " in content
                ):
                    if "Task ended with score : 1" in content:
                        return 1
                    if "Task ended with score : 0" in content:
                        return 0
                    return float(content.split(":")[-1].strip())
        return None
    except Exception:  # the old loop printed and went on
        return None


def old_folder_score(folder: str) -> float | None:
    files = glob.glob(os.path.join(folder, "*.json"))
    if not files:
        return None
    best = 0.0
    for path in files:
        score = old_log_score(path)
        if score is not None:
            best = max(score, best)
    return best


def old_loop(tree: Path) -> int:
    total = 0
    for experiment in sorted(glob.glob(os.path.join(tree, "*"))):
        for folder in [f for f in glob.glob(os.path.join(experiment, "*")) if os.path.isdir(f)]:
            if old_folder_score(folder) is not None:
                total += 1
    return total


# --- timing -------------------------------------------------------------------------------------------


def cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def best_times(
    configurations: dict[str, Callable[[], object]], repeats: int
) -> dict[str, tuple[float, float]]:
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in configurations}
    for _ in range(repeats):
        for name, function in configurations.items():
            cpu_start, start = cpu_seconds(), time.perf_counter()
            result = function()
            times[name].append((time.perf_counter() - start, cpu_seconds() - cpu_start))
            del result  # freed after the clock stops, as a caller keeps what it asked for
    return {name: min(values) for name, values in times.items()}


def load_text() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def run_tree(kind: str, args: argparse.Namespace) -> None:
    tree = args.dir / TREE_NAMES[kind].format(args.seed)
    if not tree.exists():
        start = time.perf_counter()
        generate_tree(tree, kind, TREES[kind], args.seed)
        print(f"generated {tree} in {time.perf_counter() - start:.1f} s")
    definitions = load_task_definitions(TASK_FILES)
    log_paths = sorted(glob.glob(os.path.join(tree, "*", "*", "*.json")))
    size = sum(os.path.getsize(path) for path in log_paths)
    task_count = len(aggregate_results(tree, definitions))  # warms the page cache and the imports
    old_count = old_loop(tree)
    print(
        f"\n{kind} tree: {task_count} tasks ({old_count} scored by the old loop), {len(log_paths)} logs, ",
        end="",
    )
    print(f"{size / 1e6:.1f} MB ({size / len(log_paths) / 1e3:.1f} KB a log)")
    print(
        f"cpu count: {os.cpu_count()}; best of {args.repeats}; load average before (1/5/15 min): {load_text()}\n"
    )
    configurations: dict[str, Callable[[], object]] = {
        "old loop": lambda: old_loop(tree),
        "floor": lambda: [json.loads(read_regular_file(path)) for path in log_paths],
        **{
            f"aggregate {workers}": (lambda w=workers: aggregate_results(tree, definitions, workers=w))
            for workers in args.workers
        },
    }
    best = best_times(configurations, args.repeats)
    old_wall, old_cpu = best["old loop"]
    labels = {
        "old loop": ("old evaluation_script loop", 1),
        "floor": ("floor: read + json.loads only", 1),
        **{
            f"aggregate {w}": ("aggregate_results (walk, classify, combine, stale, DataFrame)", w)
            for w in args.workers
        },
    }
    print("| configuration | processes | wall s | logs/s | MB/s | vs old loop | CPU s | vs old loop, CPU |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, (label, processes) in labels.items():
        wall, cpu = best[name]
        print(
            f"| {label} | {processes} | {wall:.2f} | {len(log_paths) / wall:,.0f} | {size / wall / 1e6:.1f} "
            f"| {old_wall / wall:.2f}x | {cpu:.2f} | {old_cpu / cpu:.2f}x |"
        )
    print(f"\nload average after the run (1/5/15 min): {load_text()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", nargs="+", choices=sorted(TREES), default=["small", "realistic"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=ROOT / "benchmarks" / "out")
    args = parser.parse_args()
    for kind in args.tree:
        run_tree(kind, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
