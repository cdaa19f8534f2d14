"""Capability emergence: every checkpoint of a training run through the diagnostics, as one tidy table.

A checkpoint is a (training seed, training step, policy spec) triple; `find_checkpoints(run_dir)` reads them
from a run's layout (`RUN_DIR/seed_<seed>/checkpoint_<step:010d>.pt`, played as `learned:<path>`), and any
other policy spec can stand in for one (the tests use scripted ablations). `run_emergence` plays every
checkpoint on every diagnostic and agent count through the one evaluation sweep (`cogames_lib.sweep`:
resumable, local or Dask) and returns the `emergence` table (`cogames_lib.tables.EMERGENCE`).

Evaluation episodes: in the sweep a checkpoint is named `seed_<seed>/step_<step:010d>`, so its episode seeds
derive from (sweep seed, that name, diagnostic, agent count, seed index) and never from where the run lies on
disk: the same run evaluated anywhere plays the same episodes, and a moved run resumes. The training
episodes are drawn from another seed space (the trainer's), so evaluation seeds are held out.

Reliability: a checkpoint passes a diagnostic at an agent count reliably when its pass rate on the
evaluation episodes is at least `RELIABLE_RATE` (0.8, the issue's bar); `first_reliable_step` is the first
checkpoint step of a training seed that reaches it (later checkpoints may fall back below it: the heatmap
shows them). Episodes that ended in RUN_ERROR say nothing about the agent and are left out of n.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib import io, outdir
from cogames_lib.errors import ParameterError
from cogames_lib.tables import EMERGENCE

RELIABLE_RATE = 0.8
# The sweep seed of every emergence evaluation (the sweep's default 0 is what users' own sweeps use).
EVALUATION_SWEEP_SEED = 19
TABLE_STEM = "emergence"  # emergence.parquet and emergence.csv in the output folder
SWEEP_FOLDER = "sweep"  # the evaluation sweep's own folder inside the output folder


@dataclass(frozen=True)
class Checkpoint:
    """One checkpoint of a training run: training `seed`, training `step`, and the `policy` that plays it
    (a policy name such as `learned:<path>`, or a PolicySpec)."""

    seed: int
    step: int
    policy: Any

    @property
    def label(self) -> str:
        """The checkpoint's name in the evaluation sweep (its `policy` column)."""
        return f"seed_{self.seed}/step_{self.step:010d}"


def find_checkpoints(run_dir: str | Path) -> list[Checkpoint]:
    """Every checkpoint of a run folder (`learn.runs.run_checkpoints`: the layout is defined there), by
    training seed then step, each played as `learned:<path>`."""
    from cogames_lib.learn.runs import run_checkpoints

    return [Checkpoint(seed, step, f"learned:{path}") for seed, step, path in run_checkpoints(run_dir)]


def run_identity(run_dir: str | Path) -> dict[str, Any]:
    """What names a training run in an emergence folder's manifest: its folder name and, when it has a
    `run.json`, the command that trained it (a folder of another run's evaluation is then refused)."""
    from cogames_lib.learn.runs import RUN_FILE

    root = Path(run_dir).expanduser()
    recorded = io.read_json_object(root / RUN_FILE) if (root / RUN_FILE).is_file() else None
    identity: dict[str, Any] = {"name": root.resolve().name}
    if recorded and "command" in recorded:
        identity["command"] = recorded["command"]
    return identity


def select_checkpoints(
    checkpoints: Sequence[Checkpoint],
    per_seed: int | None = None,
    seeds: Iterable[int] | None = None,
    every: int | None = None,
    steps: Iterable[int] | None = None,
) -> list[Checkpoint]:
    """At most `per_seed` checkpoints of each training seed, evenly spaced over its steps, the first and the
    last always among them; or (`every`) every k-th checkpoint of each seed from the first, and its last
    (a run stopped by a time limit ends off the schedule); or the checkpoints at `steps`, and each seed's
    last; none of the three: all. `seeds` keeps only those training seeds."""
    for name, value in (("per_seed", per_seed), ("every", every)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise ParameterError(f"{name}: must be an integer >= 1 or None, got {value!r}")
    if sum(option is not None for option in (per_seed, every, steps)) > 1:
        raise ParameterError("select_checkpoints: give one of per_seed, every and steps, not two")
    kept_steps = None if steps is None else {int(step) for step in steps}
    wanted = None if seeds is None else {int(s) for s in seeds}
    by_seed: dict[int, list[Checkpoint]] = {}
    for checkpoint in sorted(checkpoints, key=lambda c: (c.seed, c.step)):
        if wanted is None or checkpoint.seed in wanted:
            by_seed.setdefault(checkpoint.seed, []).append(checkpoint)
    if wanted is not None and wanted - set(by_seed):
        raise ParameterError(f"seeds: no checkpoints of training seed(s) {sorted(wanted - set(by_seed))}")
    chosen: list[Checkpoint] = []
    for line in by_seed.values():
        if kept_steps is not None:
            indices = sorted({i for i, c in enumerate(line) if c.step in kept_steps} | {len(line) - 1})
        elif every is not None:
            indices = sorted({*range(0, len(line), every), len(line) - 1})
        elif per_seed is None or len(line) <= per_seed:
            indices = list(range(len(line)))
        elif per_seed == 1:
            indices = [len(line) - 1]
        else:
            indices = sorted({round(i * (len(line) - 1) / (per_seed - 1)) for i in range(per_seed)})
        chosen.extend(line[i] for i in indices)
    return chosen


def _checked(checkpoints: Sequence[Checkpoint]) -> dict[str, Checkpoint]:
    if not checkpoints:
        raise ParameterError("checkpoints: empty; give at least one checkpoint")
    by_label: dict[str, Checkpoint] = {}
    for checkpoint in checkpoints:
        if not isinstance(checkpoint, Checkpoint):
            raise ParameterError(f"checkpoints: {checkpoint!r} is not a Checkpoint")
        if checkpoint.label in by_label:
            raise ParameterError(f"checkpoints: training seed {checkpoint.seed} step {checkpoint.step} twice")
        by_label[checkpoint.label] = checkpoint
    return by_label


def _named_spec(checkpoint: Checkpoint) -> Any:
    """The checkpoint's policy as a PolicySpec named by its label (what it plays is unchanged)."""
    from dataclasses import replace

    from cogames_lib.policies import resolve_policy

    try:
        spec = resolve_policy(checkpoint.policy)
    except Exception as error:
        raise ParameterError(f"checkpoint seed {checkpoint.seed} step {checkpoint.step}: {error}") from None
    return replace(spec, name=checkpoint.label)


def _check_count(name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ParameterError(f"{name}: must be an integer >= 1, got {value!r}")
    return value


def final_of_each_seed(checkpoints: Sequence[Checkpoint]) -> list[Checkpoint]:
    """The last checkpoint (largest step) of every training seed."""
    last: dict[int, Checkpoint] = {}
    for checkpoint in checkpoints:
        if checkpoint.seed not in last or checkpoint.step > last[checkpoint.seed].step:
            last[checkpoint.seed] = checkpoint
    return [last[seed] for seed in sorted(last)]


def run_emergence(
    checkpoints: Sequence[Checkpoint],
    out_dir: str | Path,
    diagnostics: Any = "normal",
    agent_counts: Sequence[int] = (1, 2, 4),
    episodes: int = 10,
    workers: int = 1,
    backend: str = "local",
    scheduler: Any = None,
    resume: bool = True,
    overwrite: bool = False,
    progress: bool = True,
    sweep_seed: int = EVALUATION_SWEEP_SEED,
    run: Mapping[str, Any] | None = None,
    chunk_size: int | None = None,
    final_episodes: int | None = None,
    final_diagnostics: Any = None,
) -> pd.DataFrame:
    """Play every checkpoint on every diagnostic x agent count (`episodes` evaluation episodes per cell)
    and return the `emergence` table (also written to `out_dir/emergence.parquet` and `.csv`).

    The last checkpoint of each training seed may play more: `final_episodes` per cell (its first `episodes`
    are the ones every checkpoint plays, so nothing is played twice) and the extra `final_diagnostics` (e.g.
    "hard": how far the final agent falls on the hard tier).
    `out_dir` holds the evaluation sweep in `sweep/` (resumable: a re-run plays only the episodes not on
    disk, so checkpoints written since the last call are added and nothing is played twice). `run`
    identifies the training run (e.g. its run.json's command and seeds): a folder that holds another run's
    evaluation is refused unless `overwrite`. `df.attrs` carries `run_errors`, `ran` and `resumed`.
    """
    from cogames_lib.sweep import run_sweep
    from cogames_lib.sweep.validate import normalise_diagnostics

    by_label = _checked(checkpoints)
    _check_count("episodes", episodes)
    if final_episodes is not None:
        _check_count("final_episodes", final_episodes)
    finals = final_of_each_seed(list(by_label.values()))
    names, _ = normalise_diagnostics(diagnostics)
    final_names = names
    if final_diagnostics is not None:
        extra, _ = normalise_diagnostics(final_diagnostics)
        final_names = tuple(dict.fromkeys([*names, *extra]))
    final_count = max(episodes, final_episodes or episodes)
    more_for_finals = final_count > episodes or final_names != names
    specs = {label: _named_spec(checkpoint) for label, checkpoint in by_label.items()}
    folder = outdir.prepare_out_dir(
        out_dir,
        job="emergence",
        params={"run": dict(run or {}), "sweep_seed": sweep_seed},
        resume=resume,
        overwrite=overwrite,
        name="out_dir",
    )
    common = dict(
        workers=workers,
        backend=backend,
        scheduler=scheduler,
        resume=True,
        progress=progress,
        sweep_seed=sweep_seed,
        chunk_size=chunk_size,
    )
    final_labels = {checkpoint.label for checkpoint in finals} if more_for_finals else set()
    parts, ran, resumed = [], 0, 0
    sweeps = [([s for label, s in specs.items() if label not in final_labels], names, episodes)]
    if final_labels:
        sweeps.append(([specs[label] for label in final_labels], final_names, final_count))
    for chosen, diagnostic_names, count in sweeps:
        if not chosen:
            continue
        played = run_sweep(
            chosen, list(diagnostic_names), agent_counts, count, folder / SWEEP_FOLDER, **common
        )
        parts.append(played.assign(policy=played["policy"].astype(str)))
        ran, resumed = ran + int(played.attrs.get("ran", 0)), resumed + int(played.attrs.get("resumed", 0))
    episodes_table = pd.concat(parts, ignore_index=True)
    table = emergence_table(episodes_table, list(by_label.values()))
    io.write_parquet(folder / f"{TABLE_STEM}.parquet", table)
    io.write_csv(folder / f"{TABLE_STEM}.csv", table)
    outdir.record_results(folder, unit="episodes", computed=ran, reused=resumed)
    table.attrs.update(
        run_errors=int((episodes_table["status"].astype(str) == "RUN_ERROR").sum()), ran=ran, resumed=resumed
    )
    return table


def emergence_table(
    episodes: pd.DataFrame, checkpoints: Sequence[Checkpoint], reliable_rate: float = RELIABLE_RATE
) -> pd.DataFrame:
    """The `episodes` table of an emergence sweep -> the `emergence` table (pure).

    Rows of policies that are no checkpoint's label are an error (the folder mixes other sweeps in);
    RUN_ERROR episodes are left out of n. Rows: training seed, step, diagnostic (catalogue order), agent count.
    """
    by_label = _checked(checkpoints)
    labels = episodes["policy"].astype(str)
    unknown = sorted(set(labels) - set(by_label))
    if unknown:
        raise ParameterError(f"emergence: episodes of {unknown[:3]} match no checkpoint")
    usable = episodes[episodes["status"].astype(str) != "RUN_ERROR"]
    label = usable["policy"].astype(str)
    frame = pd.DataFrame(
        {
            "seed": label.map(lambda name: by_label[name].seed),
            "step": label.map(lambda name: by_label[name].step),
            "diagnostic": usable["diagnostic"].astype(str),
            "tier": usable["tier"].astype(str),
            "num_agents": usable["num_agents"].astype(int),
            "success": usable["success"].astype(bool).astype(int),
        }
    )
    keys = ["seed", "step", "diagnostic", "tier", "num_agents"]
    grouped = frame.groupby(keys, sort=False).agg(n=("success", "size"), successes=("success", "sum"))
    table = grouped.reset_index()
    table["first_reliable_step"] = pd.NA
    table = EMERGENCE.frame(table.to_dict("records"))
    return with_first_reliable_step(_sorted(table, episodes["diagnostic"]), reliable_rate)


def _sorted(table: pd.DataFrame, diagnostic_column: pd.Series) -> pd.DataFrame:
    order = diagnostic_order(diagnostic_column)
    position = {name: index for index, name in enumerate(order)}
    table = table.assign(_order=table["diagnostic"].map(position))
    table = table.sort_values(["seed", "step", "_order", "num_agents"], kind="stable")
    return table.drop(columns="_order").reset_index(drop=True)


def diagnostic_order(column: pd.Series) -> list[str]:
    """The diagnostics of a column in catalogue order (category order where the column has one), then
    names the catalogue does not know, sorted."""
    present = set(column.astype(str))
    if isinstance(column.dtype, pd.CategoricalDtype):
        known = [str(name) for name in column.cat.categories if str(name) in present]
    else:
        from cogames_lib.diagnostics import REGISTRY

        known = [name for name in REGISTRY if name in present]
    return known + sorted(present - set(known))


def short_name(diagnostic: object) -> str:
    """A diagnostic's name without the `diagnostic_` prefix, as tables and sentences print it."""
    return str(diagnostic).removeprefix("diagnostic_")


def passes_bar(successes: Any, n: Any, reliable_rate: float = RELIABLE_RATE) -> Any:
    """Whether successes / n reaches the bar (scalars or aligned columns; a tolerance for float rounding of
    rate x n, so 8 of 10 passes 0.8). The one reliability test of the learned-agent tables."""
    return successes >= reliable_rate * n - 1e-9


def check_reliable_rate(reliable_rate: float) -> float:
    """The bar as given, or a one-line error outside (0, 1]."""
    if not 0 < reliable_rate <= 1:
        raise ParameterError(f"reliable_rate: must be in (0, 1], got {reliable_rate!r}")
    return reliable_rate


def with_first_reliable_step(table: pd.DataFrame, reliable_rate: float = RELIABLE_RATE) -> pd.DataFrame:
    """`table` with `first_reliable_step` (re)computed: per (seed, diagnostic, num_agents), the first step
    whose rate successes / n reaches `reliable_rate` (missing where none does)."""
    check_reliable_rate(reliable_rate)
    EMERGENCE.validate(table, "emergence table", EMERGENCE.pick("seed", "step", "diagnostic", "num_agents"))
    reached = table[(table["n"] > 0) & passes_bar(table["successes"], table["n"], reliable_rate)]
    first = reached.groupby(["seed", "diagnostic", "num_agents"])["step"].min()
    keys = pd.MultiIndex.from_frame(table[["seed", "diagnostic", "num_agents"]])
    result = table.copy()
    result["first_reliable_step"] = pd.array(first.reindex(keys).to_numpy(), dtype="Int64")
    return result


def load_emergence(path: str | Path) -> pd.DataFrame:
    """An emergence table from a file (.parquet or .csv) or an emergence output folder, checked."""
    source = Path(path).expanduser()
    if source.is_dir():
        candidates = [source / f"{TABLE_STEM}.parquet", source / f"{TABLE_STEM}.csv"]
        source = next((c for c in candidates if c.is_file()), candidates[0])
    if not source.is_file():
        raise ParameterError(f"emergence table: {str(source)!r} does not exist; run `learn emergence` first")
    frame = pd.read_parquet(source) if source.suffix == ".parquet" else pd.read_csv(source)
    EMERGENCE.validate(frame, source)
    frame = frame.astype({c: d for c, d in EMERGENCE.dtypes.items() if c in frame.columns})
    return frame[list(EMERGENCE.columns)]
