"""Benchmark: our Mindcraft parser against the old `evaluation_script` loop, same tree, same run.

    python benchmarks/mindcraft_parse.py [--folders 10000] [--workers 1 2] [--repeats 5]

The tree is SYNTHETIC (seeded, real task ids from cogames_lib/data/mindcraft_sample/tasks; default 10,000 task
folders, ~20,000 logs), written once under benchmarks/out/ (git-ignored) and reused. One untimed pass
warms the page cache; each configuration is then timed `--repeats` times, rounds interleaved so load
drift on the shared machine hits all alike, and the best run is reported with its CPU seconds (this
process plus joined pool workers). Each configuration's result is freed after its clock stops (a caller
keeps what it asked for; freeing 10,000 per-run dicts took ~8 ms, the old loop's count nothing). The load average is printed before and after.

Configurations:
- `old loop`: a faithful reimplementation of Mindcraft's `tasks/evaluation_script.py` check loop
  (kolbytn/mindcraft@2818330d: per experiment folder, glob the task folders, glob `*.json` in each,
  `json.load` each file, walk the turns for a system turn containing "Task ended with score : ",
  substring-test for 1 and 0, else parse the number after the last colon; best score per folder);
- `floor`: only reading and `json.loads` of every log (no walk, no classification);
- `ours, N processes`: `collect_runs` (walk, read, classify every log, combine per task, stale checks);
- `aggregate_results`: the whole call including the pandas frame.
The speed-up columns are the old loop's wall time (and CPU seconds) divided by each configuration's, both
from this run: on a loaded machine the wall times move with the other jobs, the CPU seconds much less.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cogames_lib.mindcraft import aggregate_results, load_task_definitions  # noqa: E402
from cogames_lib.mindcraft.collect import collect_runs  # noqa: E402
from cogames_lib.mindcraft.files import read_regular_file  # noqa: E402
from cogames_lib.mindcraft.sample_logs import AGENT_NAMES, BASE_TASK_START_MS, make_agent_log  # noqa: E402
from cogames_lib.mindcraft.tasks import task_type_of  # noqa: E402

TASK_FILES = sorted((ROOT / "cogames_lib" / "data" / "mindcraft_sample" / "tasks").glob("*.json"))


def generate_tree(root: Path, folder_count: int, seed: int) -> None:
    """`folder_count` task folders (every real task id once per experiment); mostly 2 agents, some 1 or 3;
    20-45 turns a log; the agents of a run start within 3 s of each other."""
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
        task_type = task_type_of(task_id, definitions[task_id])
        agents = rng.choices((1, 2, 3), weights=(1, 8, 1))[0]
        scorer = rng.randrange(agents)
        draw = rng.random()
        if task_type == "construction":
            verdict = ("score", rng.choice((100, 57.14285714285714, 0)))
        else:
            verdict = ("score", 1) if draw < 0.5 else ("score", 0) if draw < 0.9 else None
        clock += rng.randint(60_000, 360_000)
        for agent in range(agents):
            name = f"{AGENT_NAMES[agent]}_0"
            data = make_agent_log(
                name,
                "Jill_0",
                "bread",
                rng,
                verdict if agent == scorer else None,
                rng.randint(20, 45),
                task_start_ms=clock + rng.randrange(3000),
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


def best_times(configurations: dict[str, object], repeats: int) -> dict[str, tuple[float, float]]:
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in configurations}
    for _ in range(repeats):
        for name, function in configurations.items():
            cpu_start, start = cpu_seconds(), time.perf_counter()
            result = function()  # type: ignore[operator]
            times[name].append((time.perf_counter() - start, cpu_seconds() - cpu_start))
            del result  # freed after the clock stops, as a caller keeps what it asked for
    return {name: min(values) for name, values in times.items()}


def load_text() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=ROOT / "benchmarks" / "out")
    args = parser.parse_args()

    tree = args.dir / f"mindcraft_tree_v2_{args.folders}_seed{args.seed}"
    if not tree.exists():
        start = time.perf_counter()
        generate_tree(tree, args.folders, args.seed)
        print(f"generated {tree} in {time.perf_counter() - start:.1f} s")
    definitions = load_task_definitions(TASK_FILES)
    log_paths = sorted(glob.glob(os.path.join(tree, "*", "*", "*.json")))
    size = sum(os.path.getsize(path) for path in log_paths)
    # warm the page cache and the imports; the result is not kept: a pool's fork, and its workers' exit,
    # cost more the more memory this process holds (~20 ms more for 10,000 runs held)
    task_count = len(collect_runs([str(tree)], definitions)[0])
    old_count = old_loop(tree)
    print(
        f"tree: {task_count} tasks ({old_count} scored by the old loop), {len(log_paths)} logs, {size / 1e6:.1f} MB"
    )
    print(
        f"cpu count: {os.cpu_count()}; best of {args.repeats}; load average before (1/5/15 min): {load_text()}\n"
    )
    configurations: dict[str, object] = {
        "old loop": lambda: old_loop(tree),
        "floor": lambda: [json.loads(read_regular_file(path)) for path in log_paths],
        **{
            f"ours {workers}": (lambda w=workers: collect_runs([str(tree)], definitions, workers=w))
            for workers in args.workers
        },
        "aggregate": lambda: aggregate_results(tree, definitions),
    }
    best = best_times(configurations, args.repeats)
    old_wall, old_cpu = best["old loop"]
    labels = {
        "old loop": ("old evaluation_script loop", 1),
        "floor": ("floor: read + json.loads only", 1),
        **{f"ours {w}": ("ours: collect_runs (walk + classify + combine + stale)", w) for w in args.workers},
        "aggregate": ("ours: aggregate_results (+ DataFrame)", 1),
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
