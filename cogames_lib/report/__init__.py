"""Reports: papermill runs of the notebooks, offline HTML pages, and an index written last.

`run_report(profile, out_dir)` is what `cogames-lib report` calls; the notebooks themselves call the small
helpers of `notebook_setup` (one-line parameter errors, parameter checks, the out folder), `notebook_files`
(atomic table writes; the findings as `summary.json`), `display` (tables, findings and figures on the page)
and `*_views`. The index renders the `Finding` records the notebooks wrote and computes nothing itself.
Names are imported lazily so that a notebook importing the helpers does not pay for papermill/nbconvert.
"""

from __future__ import annotations

from typing import Any

from cogames_lib import lazy

_EXPORTS = {
    "ExecutionResult": "cogames_lib.report.execute",
    "execute_notebook": "cogames_lib.report.execute",
    "export_html": "cogames_lib.report.export",
    "PROFILES": "cogames_lib.report.profiles",
    "NotebookRun": "cogames_lib.report.profiles",
    "Profile": "cogames_lib.report.profiles",
    "ProjectPath": "cogames_lib.report.profiles",
    "get_profile": "cogames_lib.report.profiles",
    "ReportResult": "cogames_lib.report.runner",
    "NotebookStatus": "cogames_lib.report.status",
    "run_report": "cogames_lib.report.runner",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    return lazy.load(__name__, _EXPORTS, name)
