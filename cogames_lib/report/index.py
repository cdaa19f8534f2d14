"""The report's `index.html`: headline numbers, links, parameters, versions and run time.

Everything a notebook or a log produced is escaped before it reaches the page (agent logs contain
arbitrary model output such as `<script>`). The page has inline CSS only and loads nothing, so it opens
offline from `file://`. It is written last, atomically (`cogames_lib.io`).
"""

from __future__ import annotations

import html
import json
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from cogames_lib import io
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
    summary: dict[str, Any] | None = field(default=None)

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
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return "—" if value is None else str(value)


def _table(rows: Sequence[tuple[Any, Any]], css_class: str) -> str:
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(_format_value(v))}</td></tr>" for k, v in rows)
    return f'<table class="{css_class}">{body}</table>'


def _section(report: NotebookReport) -> str:
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
        f'<p class="links">{" · ".join(links)} · ran in {report.duration_s:.1f} s</p>',
    ]
    if report.message:
        parts.append(f'<pre class="error">{_e(report.message)}</pre>')
    if report.summary:
        parts.append("<h3>Headline numbers</h3>" + _table(list(report.summary.items()), "numbers"))
    elif report.ok:
        parts.append('<p class="error">The notebook finished but wrote no summary.json.</p>')
    parts.append(
        "<details><summary>Parameters</summary>"
        + _table(list(report.parameters.items()), "parameters")
        + "</details>"
    )
    parts.append("</section>")
    return "\n".join(parts)


CSS = """
body { font-family: -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; max-width: 1100px;
       margin: 2em auto; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; } .meta { color: #555; }
.badge { color: white; border-radius: 4px; padding: 0.1em 0.5em; font-size: 0.6em; vertical-align: middle; }
section.notebook { border: 1px solid #ddd; border-radius: 6px; padding: 0.5em 1.2em 1em; margin: 1.2em 0; }
table { border-collapse: collapse; margin: 0.4em 0; } th, td { border-bottom: 1px solid #eee;
        padding: 0.2em 0.8em; text-align: left; vertical-align: top; font-size: 0.92em; }
th { font-weight: 600; } td { font-family: ui-monospace, Menlo, Consolas, monospace; }
pre.error, p.error { color: #a01010; white-space: pre-wrap; }
"""


def render_index(
    reports: Sequence[NotebookReport],
    profile_name: str,
    profile_description: str,
    run_time_s: float,
    generated_at: str,
    versions: dict[str, str],
    commit: str | None,
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
            f"{_e(generated_at)} · run time {run_time_s:.1f} s</p>",
            *(_section(report) for report in reports),
            "<h2>Versions</h2>",
            _table(version_rows, "versions"),
            "</body></html>",
            "",
        ]
    )


def write_index(path: Path, page: str) -> Path:
    return io.write_text(path, page)
