"""`run_sweep`: the evaluation grid (policies x diagnostics x agent counts x seeds) -> the `episodes` table.

Resume rule: an episode is done when a part in `out_dir/episodes/` holds its key (policy, diagnostic,
num_agents, seed index, episode seed); a re-run with `resume=True` (the default) runs only the others, so a
killed sweep loses at most its in-flight chunks and duplicates nothing. Because the key holds the derived
seed, sweeps with other grids or sweep seeds may share a folder; only a folder written by another library
version (or by another job) is refused. The directory is trusted: after changing a policy's code, use a new
`out_dir` or `overwrite=True` (which deletes the earlier results first).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib import __version__, io, outdir
from cogames_lib.outcomes import STATUS_ORDER
from cogames_lib.parallel import FanOut
from cogames_lib.sweep import instances, store
from cogames_lib.sweep.runner import (
    WORKER_PRELOAD,
    Chunk,
    EpisodeTask,
    describe_chunk,
    make_chunks,
    run_chunk,
)
from cogames_lib.sweep.seeds import episode_seed
from cogames_lib.sweep.traces import chunk_traces
from cogames_lib.sweep.validate import SweepPlan, validate_sweep_parameters

logger = logging.getLogger("cogames_lib.sweep")


def plan_grid(plan: SweepPlan) -> tuple[list[tuple[Any, EpisodeTask]], list[tuple[str, str, int]]]:
    """Every (policy spec, episode task) of the grid in grid order, and the skipped cells.

    A cell whose agent count its diagnostic does not allow is skipped, not an error: a grid such as
    "all diagnostics x 1, 2, 4 agents" always contains some.
    """
    from cogames_lib.diagnostics import REGISTRY, get_diagnostic

    tasks: list[tuple[Any, EpisodeTask]] = []
    skipped: list[tuple[str, str, int]] = []
    for spec, policy in zip(plan.policies, plan.policy_names, strict=True):
        for diagnostic in plan.diagnostics:
            record = plan.records.get(diagnostic) or get_diagnostic(diagnostic)
            custom = None if diagnostic in REGISTRY else record
            allowed = {int(c) for c in record.allowed_agent_counts}
            for num_agents in plan.agent_counts:
                if num_agents not in allowed:
                    skipped.append((policy, diagnostic, num_agents))
                    continue
                for seed in plan.seeds:
                    derived = episode_seed(plan.sweep_seed, policy, diagnostic, num_agents, seed)
                    tasks.append((spec, EpisodeTask(diagnostic, num_agents, seed, derived, custom)))
    return tasks, skipped


def _parameters(plan: SweepPlan, record_traces: bool) -> dict[str, Any]:
    return {
        "sweep_id": plan.sweep_id,
        "sweep_seed": plan.sweep_seed,
        "policies": list(plan.policy_names),
        "diagnostics": list(plan.diagnostics),
        # A custom variant is named after its map file; its map's source and size say which file it was.
        "variant_maps": {
            name: f"{record.grid_map.source} ({record.grid_map.height}x{record.grid_map.width})"
            for name, record in plan.records.items()
            if record.grid_map is not None
        },
        "agent_counts": list(plan.agent_counts),
        "seeds": list(plan.seeds),
        "record_traces": record_traces,
        "library_version": __version__,
    }


def _write_chunk(plan: SweepPlan, chunk: Chunk, results: list[dict[str, Any]]) -> list[list[Any]]:
    """Write one chunk's episodes (and traces); return its hard instances (`instances.instance_rows`)."""
    rows = [{**result, "sweep_id": plan.sweep_id} for result in results]
    keys = [tuple(row[column] for column in store.EPISODE_KEY) for row in rows]
    name = store.part_name(keys)
    traces = chunk_traces(results, [row["seed"] for row in rows]) if chunk.record_traces else None
    store.write_chunk(plan.out_dir, name, store.episode_frame(rows), traces)
    return instances.instance_rows(results, [row["seed"] for row in rows])


def order_episodes(
    frame: pd.DataFrame,
    policy_order: list[str],
    diagnostic_order: list[str],
    tiers: dict[str, str] | None = None,
) -> pd.DataFrame:
    """Fixed category orders (policies as given, diagnostics as in the registry, tiers as in store.EPISODE_TIERS,
    statuses as in outcomes.STATUS_ORDER) and rows sorted by them, then agent count and seed. `tiers`
    (diagnostic -> tier) fills the tier column, e.g. for parts written before it existed."""
    frame = frame.copy()
    if tiers is not None:
        frame["tier"] = frame["diagnostic"].astype(str).map(tiers)
    frame["tier"] = pd.Categorical(
        frame["tier"].astype(str), categories=list(store.EPISODE_TIERS), ordered=True
    )
    frame["policy"] = pd.Categorical(frame["policy"].astype(str), categories=policy_order, ordered=True)
    frame["diagnostic"] = pd.Categorical(
        frame["diagnostic"].astype(str), categories=diagnostic_order, ordered=True
    )
    frame["status"] = pd.Categorical(frame["status"].astype(str), categories=list(STATUS_ORDER), ordered=True)
    frame = frame.sort_values(["policy", "diagnostic", "num_agents", "seed"], kind="stable")
    return frame.reset_index(drop=True)[list(store.EPISODE_COLUMNS)]


def _collect(plan: SweepPlan, tasks: list[tuple[Any, EpisodeTask]]) -> pd.DataFrame:
    """The requested episodes from disk (a directory may hold more, from other sweeps)."""
    on_disk = store.read_parts(store.episodes_dir(plan.out_dir))
    wanted = pd.DataFrame(
        [(str(spec.name), t.diagnostic, t.num_agents, t.seed, t.episode_seed) for spec, t in tasks],
        columns=list(store.EPISODE_KEY),
    ).astype({"policy": "str", "diagnostic": "str"})
    frame = on_disk.merge(wanted, on=list(store.EPISODE_KEY), how="inner")
    frame = frame.drop_duplicates(subset=list(store.EPISODE_KEY), keep="first")
    frame["sweep_id"] = plan.sweep_id
    tiers = {name: record.tier for name, record in plan.records.items()}
    return order_episodes(frame, list(plan.policy_names), list(plan.diagnostics), tiers)


def run_sweep(
    policies: Any,
    diagnostics: Any,
    agent_counts: Any,
    seeds: Any,
    out_dir: str | Path,
    workers: int = 1,
    backend: str = "local",
    scheduler: Any = None,
    resume: bool = True,
    overwrite: bool = False,
    progress: bool = True,
    record_traces: bool = False,
    sweep_seed: int = 0,
    chunk_size: int | None = None,
) -> pd.DataFrame:
    """Run every (policy, diagnostic, agent count, seed) episode not already on disk; return the table.

    policies: names ("noop", "random", "scripted", "oracle", "scripted:-chorus", "pkg.module:Class") or
    PolicySpecs. diagnostics: a tier ("all" = normal and hard, "normal", "hard"), names, or `Diagnostic`
    records such as custom variants (`get_diagnostic("memory").variant(map="my.map")`). agent_counts: ints. seeds: a number n (indices 0..n-1) or seed indices.
    resume: continue a sweep folder (the default; see the module docstring); overwrite: delete it first.
    Returns the `episodes` table of the requested grid (see store.EPISODE_COLUMNS); `df.attrs` holds
    `skipped_cells` (policy, diagnostic, num_agents of every cell the diagnostic does not allow),
    `skipped_count`, `ran` (episodes run by this call), `resumed` (episodes found on disk) and `reuse` (that
    in words, with when the resumed episodes were computed: `outdir.reuse_summary`). The manifest records
    every hard episode's bound / budget share (`instances.instances_frame(out_dir)`).
    """
    plan = validate_sweep_parameters(
        policies, diagnostics, agent_counts, seeds, workers, backend, scheduler, out_dir, sweep_seed
    )
    tasks, skipped = plan_grid(plan)
    if skipped:
        shown = ", ".join(f"{d} x{n}" for _, d, n in skipped[:5]) + (" ..." if len(skipped) > 5 else "")
        logger.info(
            "skipped %d cells whose diagnostic does not allow the agent count: %s", len(skipped), shown
        )
    new_folder, existed = outdir.is_new_out_dir(plan.out_dir), plan.out_dir.exists()
    outdir.prepare_out_dir(
        plan.out_dir,
        job="sweep",
        params=_parameters(plan, record_traces),
        resume=resume,
        overwrite=overwrite,
        compare=("library_version",),
        name="out_dir",
        same_code=True,  # episodes of older code never pose as this code's
    )
    try:
        store.prepare(plan.out_dir, record_traces)
        done = store.done_keys(plan.out_dir)
        todo = [
            (spec, task)
            for spec, task in tasks
            if (str(spec.name), task.diagnostic, task.num_agents, task.seed, task.episode_seed) not in done
        ]
        chunks = make_chunks(todo, plan.workers, record_traces, chunk_size)
        with FanOut(
            workers=min(plan.workers, max(1, len(chunks))),
            backend="dask" if plan.backend == "dask" else "local",
            scheduler=plan.scheduler,
            progress=progress,
            description="sweep",
            unit="episode",
            total=len(tasks),
            initial=len(tasks) - len(todo),
            preload=WORKER_PRELOAD,
            describe=describe_chunk,
        ) as fan:
            finished = fan.map(run_chunk, chunks, advance=lambda chunk, results: len(results))
            for chunk, results in zip(chunks, finished, strict=True):
                # after each chunk, so a killed sweep keeps the shares of every episode it kept
                instances.record_instances(plan.out_dir, _write_chunk(plan, chunk, results))
    except BaseException:
        # a run that wrote no episode (e.g. a wrong scheduler address) leaves no folder behind
        if new_folder and not _any_episode(plan.out_dir):
            outdir.discard_out_dir(plan.out_dir, existed)
        raise
    table = _collect(plan, tasks)
    instances.record_instances(
        plan.out_dir, instances.missing_rows(table, instances.instances_frame(plan.out_dir))
    )
    io.write_parquet(plan.out_dir / store.TABLE, table)
    outdir.record_results(plan.out_dir, unit="episodes", computed=len(todo), reused=len(tasks) - len(todo))
    table.attrs.update(
        reuse=outdir.reuse_summary(outdir.read_manifest(plan.out_dir) or {}),
        skipped_cells=[list(cell) for cell in skipped],
        skipped_count=len(skipped),
        ran=len(todo),
        resumed=len(tasks) - len(todo),
        sweep_id=plan.sweep_id,
    )
    return table


def _any_episode(out_dir: Path) -> bool:
    try:
        return bool(store.done_keys(out_dir))
    except Exception:  # an unreadable folder: keep whatever is there
        return True


def load_episodes(out_dir: str | Path) -> pd.DataFrame:
    """The `episodes` table of the last sweep run into `out_dir` (from its `episodes.parquet`)."""
    path = Path(out_dir) / store.TABLE
    if not path.is_file():
        from cogames_lib.errors import ParameterError

        raise ParameterError(f"load_episodes: {str(path)!r} does not exist; run the sweep first")
    return pd.read_parquet(path)
