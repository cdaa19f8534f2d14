"""`run_report`: execute every notebook of a profile, export each to HTML, then write the index.

Layout of `reports/NAME/`: `<notebook>.ipynb` (executed), `<notebook>.html` (its page), `<notebook>/`
(the tables, figures and summary.json the notebook wrote), and `index.html`, written last. Notebooks run
one after another, or in separate processes with `jobs > 1` (`cogames_lib.parallel`; papermill changes the
process's working directory, so threads would race).

`out_dir` follows `cogames_lib.outdir.prepare_out_dir`: a folder holding an earlier report needs `resume=True`
(same profile and notebooks folder: every notebook runs again in place, and the sweeps inside continue from
the episodes on disk) or `overwrite=True` (delete it first; what `make report` does, so it can run again).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cogames_lib import io, outdir
from cogames_lib.errors import CogamesLibError, ParameterError
from cogames_lib.finding import Finding
from cogames_lib.parallel import fan_out
from cogames_lib.paths import NOTEBOOKS_DIR
from cogames_lib.report.execute import OK, execute_notebook
from cogames_lib.report.export import export_html
from cogames_lib.report.index import NotebookReport, collect_versions, render_index, write_index
from cogames_lib.report.notebook_files import SUMMARY_FILE, read_findings
from cogames_lib.report.profiles import NotebookRun, Profile, get_profile, resolve_parameters
from cogames_lib.report.provenance import provenance_for
from cogames_lib.report.status import NotebookStatus

INDEX_FILE = "index.html"


def _describe(job: _Job) -> str:
    return f"notebook {job.run.notebook}"


@dataclass(frozen=True)
class ReportResult:
    index_path: Path
    notebooks: tuple[NotebookReport, ...]
    run_time_s: float

    @property
    def ok(self) -> bool:
        return all(report.ok for report in self.notebooks)


@dataclass(frozen=True)
class _Job:
    """What one notebook runner process needs (picklable: it crosses a spawn boundary)."""

    run: NotebookRun
    notebooks_dir: str
    out_dir: str
    cell_timeout_s: float | None
    command: str
    code: str | None


def _figure_uri(path: Path) -> str:
    import base64

    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


class MissingFindings(Exception):
    """A notebook that finished but left no findings, or findings naming a figure it did not write."""


def _findings(folder: Path) -> tuple[tuple[Finding, ...], str | None]:
    """The notebook's findings (`summary.json`) and its headline figure as a data URI. A notebook that wrote
    no findings, or names a figure it did not save, fails its part: the index never hides a missing number
    or shows a broken image."""
    findings = read_findings(folder)
    if not findings:
        raise MissingFindings(f"the notebook wrote no findings ({SUMMARY_FILE} is missing or empty)")
    missing = [
        f"{f.key!r} names {f.figure}" for f in findings if f.figure and not (folder / f.figure).is_file()
    ]
    if missing:
        raise MissingFindings(f"figure not written by the notebook: {'; '.join(missing)}")
    headline = findings[0].figure
    return tuple(findings), _figure_uri(folder / headline) if headline else None


def _run_one(job: _Job) -> NotebookReport:
    run, notebooks_dir, out_dir, cell_timeout_s = job.run, job.notebooks_dir, job.out_dir, job.cell_timeout_s
    out = Path(out_dir)
    notebook_out = io.make_dir(out / run.notebook)
    (notebook_out / SUMMARY_FILE).unlink(missing_ok=True)  # a stale summary must not pose as this run's
    parameters = {**resolve_parameters(run.parameters), "out_dir": str(notebook_out.resolve())}
    executed = execute_notebook(
        Path(notebooks_dir) / f"{run.notebook}.ipynb",
        out / f"{run.notebook}.ipynb",
        parameters,
        cell_timeout_s=cell_timeout_s,
        cwd=notebooks_dir,
    )
    status, message = executed.status, executed.message
    _record_parameters(notebook_out, parameters)
    provenance = provenance_for(run.notebook, parameters, notebook_out, job.command, job.code, _now())
    findings: tuple[Finding, ...] = ()
    headline_figure: str | None = None
    if status == OK:
        try:
            findings, headline_figure = _findings(notebook_out)
        except (MissingFindings, CogamesLibError) as error:  # the part failed, loudly, and the index says why
            status, message = NotebookStatus.FAILED, f"findings: {error}"
    html_file: str | None = None
    if executed.notebook_path.exists():
        try:
            export_html(executed.notebook_path, out / f"{run.notebook}.html", run.title, provenance)
            html_file = f"{run.notebook}.html"
        except Exception as error:
            status = NotebookStatus.FAILED
            message = f"{message} | HTML export failed: {type(error).__name__}: {error}".strip(" |")
    return NotebookReport(
        notebook=run.notebook,
        title=run.title,
        status=status,
        message=message,
        duration_s=executed.duration_s,
        parameters=parameters,
        html_file=html_file,
        notebook_file=f"{run.notebook}.ipynb" if executed.notebook_path.exists() else None,
        out_dir=run.notebook,
        findings=findings,
        headline_figure=headline_figure,
        provenance=provenance,
    )


def _record_parameters(folder: Path, parameters: dict) -> None:
    """The notebook's folder manifest records the parameters it ran with (the notebook itself only knows
    its folder), so every output folder of a report says what produced it."""
    manifest = outdir.read_manifest(folder)
    if manifest is not None:
        io.write_json(
            folder / outdir.MANIFEST_FILE,
            {**manifest, "parameters": io.as_json(parameters)},
        )


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _report_reuse_note(out: Path) -> str | None:
    """Said at the top of the index when this report continued an earlier one in the same folder."""
    earlier = (outdir.read_manifest(out) or {}).get("resumed_from")
    if not earlier:
        return None
    code = f" by code {earlier['code_version']}" if earlier.get("code_version") else ""
    return (
        f"Resumed the report started {str(earlier.get('first', '?')).replace('T', ' ').replace('Z', ' UTC')}{code}: "
        "every notebook ran again; what each reused from disk is in its provenance box."
    )


def notebook_start_order(runs: Sequence[NotebookRun]) -> list[int]:
    """Indices of `runs` in the order they start: heaviest `weight` first, ties in profile order, so the
    light notebooks fill the cores the heavy ones leave idle."""
    return sorted(range(len(runs)), key=lambda index: -runs[index].weight)


def run_report(
    profile: str | Profile,
    out_dir: str | os.PathLike[str],
    jobs: int | None = None,
    notebooks_dir: str | os.PathLike[str] | None = None,
    cell_timeout_s: float | None = None,
    progress: bool = True,
    resume: bool = False,
    overwrite: bool = False,
    command: str | None = None,
) -> ReportResult:
    """Run a report profile into `out_dir`; failures are recorded (and shown), never raised.

    `jobs`: notebooks run at the same time (default: the profile's). resume / overwrite: see the module
    docstring. `command`: how the report was asked for, shown in every provenance box (the CLI passes its
    command line; default: this call).
    """
    chosen = get_profile(profile) if isinstance(profile, str) else profile
    jobs = chosen.jobs if jobs is None else jobs
    if jobs < 1:
        raise ParameterError(f"jobs: must be at least 1, got {jobs}")
    source = Path(notebooks_dir) if notebooks_dir is not None else NOTEBOOKS_DIR
    missing = [run.notebook for run in chosen.runs if not (source / f"{run.notebook}.ipynb").is_file()]
    if missing:
        raise ParameterError(
            f"notebooks_dir: {str(source)!r} has no {', '.join(m + '.ipynb' for m in missing)}"
        )
    if cell_timeout_s is not None and not cell_timeout_s > 0:
        raise ParameterError(f"cell_timeout: must be a positive number of seconds, got {cell_timeout_s}")
    # checked before any notebook runs: a folder we cannot write would otherwise surface as a traceback
    # (or as every notebook failing) only after minutes of work
    out = outdir.prepare_out_dir(
        out_dir,
        job="report",
        params={"profile": chosen.name, "notebooks": str(source.resolve())},
        inputs=[source],
        resume=resume,
        overwrite=overwrite,
        same_code=True,  # a resumed report reuses sweeps and trained runs: only those of this code
    )
    if command is None:
        command = f"run_report({chosen.name!r}, {str(out_dir)!r}, resume={resume}, overwrite={overwrite})"
    code = outdir.code_version()
    (out / INDEX_FILE).unlink(missing_ok=True)  # until this run's index exists, there is no report
    timeout = cell_timeout_s if cell_timeout_s is not None else chosen.cell_timeout_s
    started = time.perf_counter()
    start_order = notebook_start_order(chosen.runs)
    started_results = fan_out(
        _run_one,
        [
            _Job(chosen.runs[i], str(source.resolve()), str(out.resolve()), timeout, command, code)
            for i in start_order
        ],
        workers=max(1, min(jobs, len(chosen.runs))),
        start="spawn",  # a clean interpreter per notebook runner: no state from this process
        progress=progress,
        description=f"report {chosen.name}",
        unit="notebook",
        describe=_describe,
    )
    ordered = tuple(result for _, result in sorted(zip(start_order, started_results, strict=True)))
    run_time = time.perf_counter() - started
    page = render_index(
        ordered,
        chosen.name,
        chosen.description,
        run_time,
        datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        collect_versions(),
        code,
        command=command,
        reuse_note=_report_reuse_note(out),
    )
    index_path = write_index(out / INDEX_FILE, page)
    return ReportResult(index_path, ordered, run_time)
