"""The report's `index.html`: a summary of findings. At the top one line per capability (its headline); then
per capability the headline sentence with its interval and one small figure, and one click away the other
findings, the provenance box (`provenance.py`) and the parameters; then versions and run time.

The index renders the `Finding` records each notebook wrote to `summary.json` and computes nothing: every
number on it comes from one capability's `*_findings` function.

Everything a notebook or a log produced is escaped before it reaches the page (agent logs contain
arbitrary model output such as `<script>`). The page has inline CSS only and loads nothing, so it opens
offline from `file://`. It is written last, atomically (`cogames_lib.io`).
"""

from __future__ import annotations

import html
import json
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from cogames_lib import io
from cogames_lib.finding import Finding
from cogames_lib.report.provenance import PROVENANCE_CSS, Provenance, provenance_html, value_text
from cogames_lib.report.status import NotebookStatus

VERSION_PACKAGES = (
    "cogames_lib",
    "numpy",
    "pandas",
    "scipy",
    "matplotlib",
    "seaborn",
    "torch",
    "papermill",
    "nbconvert",
    "dask",
)
STATUS_LABELS: dict[str, tuple[str, str]] = {
    NotebookStatus.OK: ("ok", "#2e9e44"),
    NotebookStatus.FAILED: ("FAILED", "#d1342f"),
    NotebookStatus.TIMED_OUT: ("TIMED OUT", "#7b3fa0"),
}


@dataclass(frozen=True)
class NotebookReport:
    """One notebook of a report: what ran, how it ended, where its files are (relative to the index)."""

    notebook: str
    title: str
    status: str
    message: str
    duration_s: float
    parameters: dict[str, Any]
    html_file: str | None
    notebook_file: str | None
    out_dir: str
    # the records the notebook wrote to summary.json, the headline first; rendered, never recomputed
    findings: tuple[Finding, ...] = ()
    headline_figure: str | None = None  # the headline's figure as a data: URI
    provenance: Provenance | None = None

    @property
    def ok(self) -> bool:
        return self.status == NotebookStatus.OK


def collect_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in VERSION_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _format_value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        return json.dumps(value)
    return "—" if value is None else value_text(value)


def _table(rows: Sequence[tuple[Any, Any]], css_class: str) -> str:
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(_format_value(v))}</td></tr>" for k, v in rows)
    return f'<table class="{css_class}">{body}</table>'


def _finding_item(report: NotebookReport, finding: Finding) -> str:
    how = ", ".join(filter(None, (finding.method, finding.unit)))
    figure = f' · <a href="{_e(report.out_dir)}/{_e(finding.figure)}">figure</a>' if finding.figure else ""
    method = f'<span class="method">{_e(how)}</span>' if how else ""
    return f"<li>{_e(finding.text)} {method}{figure}</li>"


def _section(report: NotebookReport) -> str:
    """One capability: its headline sentence and small figure; every other finding, the provenance and the
    parameters one click away."""
    label, colour = STATUS_LABELS.get(report.status, (report.status, "#111111"))
    links = []
    if report.html_file:
        links.append(f'<a href="{_e(report.html_file)}">open the {_e(report.title)} page</a>')
    if report.notebook_file:
        links.append(f'<a href="{_e(report.notebook_file)}">executed notebook (.ipynb)</a>')
    links.append(f'<a href="{_e(report.out_dir)}/">tables and figures</a>')
    parts = [
        f'<section class="notebook" id="{_e(report.notebook)}">',
        f'<h2>{_e(report.title)} <span class="badge" style="background:{colour}">{_e(label)}</span></h2>',
    ]
    if report.message:
        parts.append(f'<pre class="error">{_e(report.message)}</pre>')
    if report.findings:
        headline, *rest = report.findings
        parts.append(f'<p class="headline">{_e(headline.text)}</p>')
        if report.headline_figure:
            parts.append(
                f'<img class="headline" src="{_e(report.headline_figure)}" alt="{_e(headline.text[:120])}">'
            )
        if rest:
            parts.append(
                f"<details><summary>{len(rest)} more finding{'s' if len(rest) != 1 else ''}</summary>"
                f'<ul class="findings">{"".join(_finding_item(report, f) for f in rest)}</ul></details>'
            )
    parts.append(f'<p class="links">{" · ".join(links)} · ran in {report.duration_s:.1f} s</p>')
    if report.provenance is not None:
        parts.append(f"<details><summary>Provenance</summary>{provenance_html(report.provenance)}</details>")
    parts.append(
        "<details><summary>Parameters</summary>"
        + _table(list(report.parameters.items()), "parameters")
        + "</details>"
    )
    parts.append("</section>")
    return "\n".join(parts)


def _at_a_glance(reports: Sequence[NotebookReport]) -> str:
    """One line per part at the top: its headline sentence, or how it failed."""
    items = []
    for report in reports:
        link = f'<a href="#{_e(report.notebook)}">{_e(report.title)}</a>'
        if not report.ok:
            status = STATUS_LABELS.get(report.status, (report.status, ""))[0]
            items.append(f'<li>{link}: <span class="error">{_e(status)}</span></li>')
        elif report.findings:
            items.append(f"<li>{link}: {_e(report.findings[0].text)}</li>")
    return f'<ul class="glance">{"".join(items)}</ul>' if items else ""


CSS = (
    """
body { font-family: -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; max-width: 1270px;
       margin: 2em auto; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; } .meta { color: #555; }
.badge { color: white; border-radius: 4px; padding: 0.1em 0.5em; font-size: 0.6em; vertical-align: middle; }
section.notebook { border: 1px solid #ddd; border-radius: 6px; padding: 0.5em 1.2em 1em; margin: 1.2em 0; }
table { border-collapse: collapse; margin: 0.4em 0; } th, td { border-bottom: 1px solid #eee;
        padding: 0.2em 0.8em; text-align: left; vertical-align: top; font-size: 0.92em; }
th { font-weight: 600; } td { font-family: ui-monospace, Menlo, Consolas, monospace; }
pre.error, p.error { color: #a01010; white-space: pre-wrap; }
ul.glance li { margin: 0.35em 0; line-height: 1.4; } .error { color: #a01010; }
p.headline { font-size: 1.05em; line-height: 1.45; margin: 0.6em 0 0.3em; }
img.headline { display: block; max-width: 100%; margin: 0.2em 0 0.6em; }
ul.findings li { margin: 0.3em 0; line-height: 1.4; } .method { color: #666; font-size: 0.85em; }
details { margin: 0.4em 0; } summary { cursor: pointer; color: #1b6ca8; }
"""
    + PROVENANCE_CSS
)


def render_index(
    reports: Sequence[NotebookReport],
    profile_name: str,
    profile_description: str,
    run_time_s: float,
    generated_at: str,
    versions: dict[str, str],
    commit: str | None,
    command: str | None = None,
    reuse_note: str | None = None,
) -> str:
    failed = [r for r in reports if not r.ok]
    overall = (
        f'<span class="badge" style="background:#d1342f">{len(failed)} of {len(reports)} FAILED</span>'
        if failed
        else '<span class="badge" style="background:#2e9e44">all notebooks ok</span>'
    )
    version_rows = list(versions.items()) + ([("git commit", commit)] if commit else [])
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>cogames_lib report ({_e(profile_name)})</title>",
            f"<style>{CSS}</style></head><body>",
            f"<h1>cogames_lib report {overall}</h1>",
            f'<p class="meta">profile <b>{_e(profile_name)}</b> ({_e(profile_description)}) · generated '
            f"{_e(generated_at)} · run time {run_time_s:.1f} s · code {_e(commit or 'unknown')}</p>",
            f'<p class="meta">command <code>{_e(command)}</code></p>' if command else "",
            f'<p class="meta reuse">{_e(reuse_note)}</p>' if reuse_note else "",
            _at_a_glance(reports),
            *(_section(report) for report in reports),
            "<h2>Versions</h2>",
            _table(version_rows, "versions"),
            "</body></html>",
            "",
        ]
    )


def write_index(path: Path, page: str) -> Path:
    return io.write_text(path, page)
