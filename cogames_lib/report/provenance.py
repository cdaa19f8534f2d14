"""Where a report page's numbers come from: data source, command, parameters, seeds, code version, date, and
what was computed now versus reused from an earlier run (with when).

The facts come from the run itself (the runner's parameters and clock) and from the output folders: every
folder a sweep or a training wrote holds a `manifest.json` whose `results` and `resumed_from` say how many
results were reused and when they were computed (`cogames_lib.outdir.record_results`). Nothing here is typed in
by hand, so a page can never claim fresh results it did not compute.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cogames_lib import outdir
from cogames_lib.paths import PROJECT_ROOT

PROVENANCE_TITLE = "Provenance"


@dataclass(frozen=True)
class Provenance:
    """One page's provenance; every field is text ready to show (escaped when rendered)."""

    data_source: str
    command: str
    parameters: str
    seeds: str
    code_version: str
    date: str
    results: tuple[str, ...]  # "computed now" or one line per reused folder

    def rows(self) -> list[tuple[str, str]]:
        return [
            ("data", self.data_source),
            ("command", self.command),
            ("parameters", self.parameters),
            ("seeds", self.seeds),
            ("code version", self.code_version),
            ("date", self.date),
            ("computed or reused", "; ".join(self.results)),
        ]


def _project_relative(path: Any) -> str:
    """A path as the reader knows it: relative to the project when inside it."""
    text = str(path)
    try:
        return str(Path(text).resolve().relative_to(PROJECT_ROOT))
    except ValueError:
        return text


def _names(values: Any) -> str:
    if isinstance(values, (list, tuple)):
        return ", ".join(str(value) for value in values)
    return str(values)


def _sample_note(paths: Sequence[Any]) -> str:
    return (
        " (SYNTHETIC sample written by a seeded script: not results about any model)"
        if any("mindcraft_sample" in str(path) for path in paths)
        else ""
    )


def data_source(notebook: str, parameters: Mapping[str, Any]) -> str:
    """What the numbers of a notebook were computed from, in words."""
    if notebook == "diagnostics_sweep":
        return (
            f"Cogs vs Clips diagnostic episodes played by this run: policies {_names(parameters.get('policies'))}; "
            f"diagnostics {_names(parameters.get('diagnostics'))}; agent counts {_names(parameters.get('agent_counts'))}"
        )
    if notebook == "mindcraft_outcomes":
        roots = list(parameters.get("experiment_roots") or [])
        return "Mindcraft agent logs under " + ", ".join(map(_project_relative, roots)) + _sample_note(roots)
    if notebook == "probe_tests":
        folder = parameters.get("probe_folder")
        if folder:
            return f"probe results read from {_project_relative(folder)} (not recomputed)"
        return (
            f"stag-hunt DQN runs trained by this run: conditions {_names(parameters.get('conditions'))}, "
            f"{parameters.get('epochs')} epochs, probes every {parameters.get('probe_every')} epochs"
        )
    if notebook == "learned_agents":
        if parameters.get("run_dir"):
            return f"checkpoints of the training run {_project_relative(parameters['run_dir'])}, evaluated by this run"
        if parameters.get("emergence_source"):
            return f"the emergence table {_project_relative(parameters['emergence_source'])} (not recomputed)"
        return "the COMMITTED reference run's emergence table, data/cvc_learned/ (not recomputed)"
    return f"notebook {notebook} with the parameters below"


def seeds_text(parameters: Mapping[str, Any]) -> str:
    """The seeds a run used: `seeds` as a count (0..n-1) or a list, and a sweep seed when one is set."""
    seeds = parameters.get("seeds")
    if seeds is None:
        return "none (no randomness in this computation)"
    text = f"0..{seeds - 1} ({seeds})" if isinstance(seeds, int) else _names(seeds)
    return text + (f"; sweep seed {parameters['sweep_seed']}" if "sweep_seed" in parameters else "")


def value_text(value: Any) -> str:
    """A parameter value in words, never a Python repr: lists joined by commas, paths inside the project
    relative to it, None as "none"."""
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(value_text(item) for item in value) or "(empty)"
    if isinstance(value, str) and value.startswith("/"):
        return _project_relative(value)
    return str(value)


def parameters_text(parameters: Mapping[str, Any]) -> str:
    return "; ".join(
        f"{name}: {value_text(value)}" for name, value in parameters.items() if name != "out_dir"
    )


def results_lines(folder: str | Path) -> tuple[str, ...]:
    """What the run under `folder` computed and reused: one line per sub-folder whose manifest records
    results (a sweep, a training), or "everything computed now" when no folder reused anything."""
    root = Path(folder)
    lines = []
    for manifest_path in sorted(root.rglob(outdir.MANIFEST_FILE)):
        manifest = outdir.read_manifest(manifest_path.parent) or {}
        summary = outdir.reuse_summary(manifest)
        if summary:
            where = manifest_path.parent.relative_to(root).as_posix()
            lines.append(f"{summary} ({where or '.'}/)")
    if not lines:
        return ("everything computed now",)
    return tuple(lines)


def provenance_for(
    notebook: str,
    parameters: Mapping[str, Any],
    folder: str | Path,
    command: str,
    code: str | None,
    date: str,
) -> Provenance:
    return Provenance(
        data_source=data_source(notebook, parameters),
        command=command,
        parameters=parameters_text(parameters),
        seeds=seeds_text(parameters),
        code_version=code or "unknown (not a git checkout)",
        date=date,
        results=results_lines(folder),
    )


def provenance_html(provenance: Provenance) -> str:
    """The provenance box: one escaped table, in one physical line (it is also used inside a markdown cell,
    where a blank line would end the HTML block)."""
    rows = "".join(
        f"<tr><th>{html.escape(name)}</th><td>{html.escape(value)}</td></tr>"
        for name, value in provenance.rows()
    )
    return (
        f'<div class="cogames-provenance"><b>{PROVENANCE_TITLE}</b>'
        f'<table class="provenance">{rows}</table></div>'
    )


PROVENANCE_CSS = """
.cogames-provenance { border: 1px solid #cfd8e3; background: #f5f8fb; border-radius: 6px;
  padding: 0.4em 0.8em; margin: 0.8em 0; font-family: sans-serif; font-size: 0.9em; }
.cogames-provenance table { border-collapse: collapse; margin: 0.3em 0 0; }
.cogames-provenance th { text-align: left; padding: 0.1em 1em 0.1em 0; vertical-align: top; white-space: nowrap; }
.cogames-provenance td { padding: 0.1em 0; overflow-wrap: anywhere; font-family: ui-monospace, Menlo, monospace; }
"""
