"""Benchmark: parse a generated Mindcraft experiment tree (default 10,000 task folders, ~20,000 logs).

    .venv/bin/python benchmarks/mindcraft_parse.py [--folders 10000] [--workers 1 2] [--repeats 5]

The tree is SYNTHETIC (seeded, real task ids from data/mindcraft_sample/tasks), written once under
benchmarks/out/ (git-ignored) and reused. One untimed pass warms the page cache; each configuration
is then timed `--repeats` times, rounds interleaved, and the best run is reported (the machine is
shared; the load average is printed). CPU seconds (this process plus its joined pool workers) are
printed too: on a loaded machine they show the work done, wall time shows what a user waits. Stages:
`floor` = only reading, decoding and json.loads of every log (no walk, no classification): the
ceiling any parser that validates JSON can reach here; `parse` = walk the tree, read and classify
every log, combine per folder (what scales with processes);
`aggregate` = the whole `aggregate_results` call including the pandas frame.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cogames_lib.mindcraft import aggregate_results, find_task_folders, load_task_definitions  # noqa: E402
from cogames_lib.mindcraft.collect import collect_runs  # noqa: E402
from cogames_lib.mindcraft.logs import read_bytes  # noqa: E402
from cogames_lib.mindcraft.sample import AGENT_NAMES, make_agent_log  # noqa: E402
from cogames_lib.mindcraft.tasks import task_type_of  # noqa: E402

TASK_FILES = sorted((ROOT / "data" / "mindcraft_sample" / "tasks").glob("*.json"))


def generate_tree(root: Path, folder_count: int, seed: int) -> None:
    """`folder_count` task folders (every real task id once per experiment); mostly 2 agents, some 1 or 3;
    20-45 turns a log."""
    definitions = load_task_definitions(TASK_FILES)
    task_ids = sorted(definitions)
    rng = random.Random(seed)
    staging = root.with_name(root.name + ".partial")
    for index in range(folder_count):
        experiment = staging / f"bench_model_{index // len(task_ids):04d}_03-20_09-15"
        task_id = task_ids[index % len(task_ids)]
        folder = experiment / task_id
        folder.mkdir(parents=True)
        task_type = task_type_of(task_id, definitions[task_id])
        agents = rng.choices((1, 2, 3), weights=(1, 8, 1))[0]
        scorer = rng.randrange(agents)
        draw = rng.random()
        if task_type == "construction":
            verdict = ("score", rng.choice((100, 57.14285714285714, 0)))
        else:
            verdict = ("score", 1) if draw < 0.5 else ("score", 0) if draw < 0.9 else None
        for agent in range(agents):
            name = f"{AGENT_NAMES[agent]}_0"
            data = make_agent_log(
                name, "Jill_0", "bread", rng, verdict if agent == scorer else None, rng.randint(20, 45)
            )
            (folder / f"{name}_0.json").write_bytes(data)
    for experiment in staging.iterdir():
        (experiment / "results.txt").write_text(f"{{'model': '{experiment.name}'}}")
    staging.rename(root)


def tree_size(folders: list[str]) -> tuple[int, int]:
    logs = size = 0
    for folder in folders:
        for entry in os.scandir(folder):  # task folders hold only agent logs here
            logs += 1
            size += entry.stat().st_size
    return logs, size


def row(
    stage: str, workers: int, timing: tuple[float, float], logs: int, size: int, baseline: float | None
) -> None:
    wall, cpu = timing
    ratio = f"{baseline / wall:.2f}x" if baseline is not None else ""
    print(
        f"| {stage} | {workers} | {wall:.2f} | {logs / wall:,.0f} | {size / wall / 1e6:.1f} | {ratio} "
        f"| {cpu:.2f} | {logs / cpu:,.0f} |"
    )


def cpu_seconds() -> float:
    """CPU time of this process plus its joined children (the pool's workers, once shut down)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def best_times(configurations: dict[str, object], repeats: int) -> dict[str, tuple[float, float]]:
    """(best wall time, CPU time of that run) per configuration; rounds interleave configurations so
    load drift on the shared machine hits all of them alike."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in configurations}
    for _ in range(repeats):
        for name, function in configurations.items():
            cpu_start, start = cpu_seconds(), time.perf_counter()
            function()  # type: ignore[operator]
            times[name].append((time.perf_counter() - start, cpu_seconds() - cpu_start))
    return {name: min(values) for name, values in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, os.cpu_count() or 1])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=ROOT / "benchmarks" / "out")
    args = parser.parse_args()

    tree = args.dir / f"mindcraft_tree_{args.folders}_seed{args.seed}"
    if not tree.exists():
        start = time.perf_counter()
        generate_tree(tree, args.folders, args.seed)
        print(f"generated {tree} in {time.perf_counter() - start:.1f} s")
    folders, _ = find_task_folders(tree)
    logs, size = tree_size(folders)
    definitions = load_task_definitions(TASK_FILES)
    log_paths = [entry.path for folder in folders for entry in os.scandir(folder)]
    collect_runs([str(tree)], definitions)  # warm the page cache and the imports
    print(
        f"tree: {len(folders)} task folders, {logs} logs, {size / 1e6:.1f} MB ({size / logs / 1e3:.1f} KB a log)"
    )
    print(f"cpu count: {os.cpu_count()}; best of {args.repeats}\n")
    print("| stage | processes | wall s | logs/s | MB/s | speed-up | CPU s | logs per CPU-s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    configurations: dict[str, object] = {
        "floor": lambda: [json.loads(read_bytes(path).decode("utf-8")) for path in log_paths],
        **{
            f"parse {workers}": (lambda w=workers: collect_runs([str(tree)], definitions, workers=w))
            for workers in args.workers
        },
        "aggregate": lambda: aggregate_results(tree, definitions),
    }
    best = best_times(configurations, args.repeats)
    row("floor: read + decode + json.loads only", 1, best["floor"], logs, size, None)
    baseline = best[f"parse {args.workers[0]}"][0]
    for workers in args.workers:
        row("parse (walk + classify + combine)", workers, best[f"parse {workers}"], logs, size, baseline)
    row("aggregate_results (parse + DataFrame)", 1, best["aggregate"], logs, size, None)
    load = os.getloadavg()
    print(f"\nload average after the run (1/5/15 min): {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
