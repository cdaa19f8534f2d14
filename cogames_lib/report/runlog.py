"""Move what a notebook printed to stderr (progress bars, warnings, library logs) out of the page body
into one collapsed "Run log" section at the end of the page.

A reader of a report wants the findings, not pink boxes of progress bars between the figures; the log is
still there, one click away, for whoever needs to know what ran. Error outputs (a failed cell's
traceback) stay where they happened: a failed page must show why it failed.
"""

from __future__ import annotations

import html
from typing import Any

RUN_LOG_TITLE = "Run log"


def final_line_states(text: str) -> str:
    """Each line as a terminal would leave it: a progress bar redraws itself after '\\r', so only the part
    after the last '\\r' of a line remains."""
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))


def move_stderr_to_run_log(notebook: Any) -> int:
    """Strip every stderr stream output from `notebook` (an nbformat v4 node, changed in place) and append
    one markdown cell holding them, escaped, in a collapsed <details> block labelled by cell. Returns the
    number of cells whose stderr moved (0: the page is unchanged and gets no run log)."""
    import nbformat

    entries: list[str] = []
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        stderr = [o for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stderr"]
        # a progress bar arrives as many small outputs: join them before keeping each line's final state
        text = final_line_states("".join(o.get("text", "") for o in stderr)).strip("\n")
        if text.strip():
            entries.append(f"[cell {number}]\n{text}")
        cell["outputs"] = [o for o in outputs if not any(o is e for e in stderr)]
    if not entries:
        return 0
    # One physical line: markdown ends an HTML block at a blank line and would re-read the rest as text.
    body = html.escape("\n\n".join(entries)).replace("\n", "&#10;")
    notebook.cells.append(
        nbformat.v4.new_markdown_cell(
            f'<details class="cogames-run-log"><summary>{RUN_LOG_TITLE} '
            f"(progress and warnings of {len(entries)} cell{'s' if len(entries) != 1 else ''})</summary>"
            f"<pre>{body}</pre></details>"
        )
    )
    return len(entries)
