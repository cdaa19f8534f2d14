"""Report profiles as data: which notebooks run, with which parameters, under which cell timeout.

`quick` is the README's main command: small enough to finish in about a minute on a 2-core laptop
(a subset of diagnostics and seeds, a short probe training run, the synthetic Mindcraft sample tree).
`full` uses the documents' settings (10 seeds, 1/2/4 agents, probes every 100 epochs over thousands).
Both probe pages show the committed reference study (`data/staghunt_reference/`) next to their own run.
Paths are `ProjectPath`s, relative to the package's shipped files (`paths.shipped()`), resolved when the
report runs; `out_dir` is filled in per notebook by the runner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogames_lib.errors import UnknownNameError, close_matches_message
from cogames_lib.paths import shipped
from cogames_lib.policies import ablation_specs


@dataclass(frozen=True)
class ProjectPath:
    """A path relative to the package's shipped files (kept relative in the table, absolute at run time)."""

    relative: str

    def resolve(self, root: Path | None = None) -> str:
        return str(((shipped() if root is None else root) / self.relative).resolve())


@dataclass(frozen=True)
class NotebookRun:
    notebook: str  # file stem under notebooks/
    title: str
    parameters: dict[str, Any] = field(default_factory=dict)
    # Relative run time: with jobs > 1 the heaviest notebooks start first and the light ones fill the cores
    # they leave (the index keeps the profile's order). Only the start order depends on it, never a result.
    weight: int = 1


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    cell_timeout_s: float | None  # None: no limit (the full profile may run for hours)
    runs: tuple[NotebookRun, ...]
    # Notebooks run at once (separate kernels). Overlapping one notebook's kernel start, imports and
    # single-threaded drawing with another's sweep is what keeps the quick profile under a minute on 2 cores.
    jobs: int = 1


MINDCRAFT_SAMPLE = ProjectPath("data/mindcraft_sample/experiments")
MINDCRAFT_TASKS = ProjectPath("data/mindcraft_sample/tasks")  # a folder: every *.json in it
# Both profiles analyse the synthetic sample tree (it is small; a real tree is a notebook parameter).
MINDCRAFT_SAMPLE_RUN = NotebookRun(
    "mindcraft_outcomes",
    "Mindcraft agent-log outcomes",
    dict(
        experiment_roots=[MINDCRAFT_SAMPLE],
        task_files=[MINDCRAFT_TASKS],
        model_name=None,
        no_score_policy="failure",
        workers=1,
    ),
)


# The quick profile's hard tier: one diagnostic per family whose hard maps differ in kind (a maze, an open-room
# search, out-of-view memory, extraction, unclipping, a radial gathering, a team assembly). Every hard map is
# generated and certified per episode (about 50 ms of CPU each), so all 23 would double the quick sweep.
QUICK_HARD = (
    "chest_navigation3_hard",
    "chest_deposit_search_hard",
    "memory_hard",
    "extract_missing_silicon_hard",
    "unclip_craft_hard",
    "radial_hard",
    "multi_station_hard",
)


def _sweep_run(**parameters: Any) -> NotebookRun:
    """The diagnostics notebook with the parameters both profiles share, overridden by `parameters`."""
    defaults = dict(
        diagnostics="all",
        workers=2,
        backend="local",
        scheduler=None,
        record_traces=True,
        redundancy_threshold=0.95,
        compare=["scripted", "random"],  # the suite-level comparison the index leads with
    )
    return NotebookRun("diagnostics_sweep", "Cogs vs Clips diagnostics", {**defaults, **parameters}, weight=3)


# Both profiles show the committed reference run's emergence (data/cvc_learned/, labelled as such on the page);
# evaluating a run's checkpoints now is the notebook's `run_dir` parameter.
LEARNED_REFERENCE_RUN = NotebookRun(
    "learned_agents", "Learned agents: capability emergence", dict(emergence_source=None, run_dir=None)
)


def _probe_run(**parameters: Any) -> NotebookRun:
    """The probe notebook with the parameters both profiles share, overridden by `parameters`."""
    defaults = dict(conditions=["all_can_hunt", "not_all_can_hunt"], max_test_steps=15, probe_folder=None)
    return NotebookRun("probe_tests", "Stag-hunt probe tests", {**defaults, **parameters}, weight=2)


PROFILES: dict[str, Profile] = {
    "quick": Profile(
        name="quick",
        description="small sweep, short probe training, synthetic Mindcraft sample (about a minute)",
        cell_timeout_s=600,
        jobs=2,
        runs=(
            _sweep_run(
                policies=["scripted", "scripted:-chorus", "random", "noop"],
                diagnostics=["normal", *QUICK_HARD],
                agent_counts=[1, 2],
                seeds=2,
            ),
            MINDCRAFT_SAMPLE_RUN,
            LEARNED_REFERENCE_RUN,
            # a smoke run beside the committed reference study; no checkpoints (nothing reads them here)
            _probe_run(epochs=20, probe_every=10, seeds=[0], workers=1, checkpoints="none"),
        ),
    ),
    "full": Profile(
        name="full",
        description="the documents' settings: every diagnostic, 10 seeds, 1/2/4 agents, 3000-epoch probes",
        cell_timeout_s=None,
        runs=(
            _sweep_run(
                policies=["scripted", *ablation_specs(), "random", "noop"], agent_counts=[1, 2, 4], seeds=10
            ),
            MINDCRAFT_SAMPLE_RUN,
            LEARNED_REFERENCE_RUN,
            _probe_run(epochs=3000, probe_every=100, seeds=[0, 1, 2], workers=2, checkpoints="last"),
        ),
    ),
}


def get_profile(name: str) -> Profile:
    if name not in PROFILES:
        raise UnknownNameError(close_matches_message("report profile", name, sorted(PROFILES)))
    return PROFILES[name]


def resolve_parameters(parameters: dict[str, Any], root: Path | None = None) -> dict[str, Any]:
    """Replace every `ProjectPath` (alone or in a list) by an absolute path string."""

    def resolve(value: Any) -> Any:
        if isinstance(value, ProjectPath):
            return value.resolve(root)
        if isinstance(value, list):
            return [resolve(item) for item in value]
        return value

    return {name: resolve(value) for name, value in parameters.items()}
