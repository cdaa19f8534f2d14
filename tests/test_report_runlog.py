"""Report pages keep stderr (progress bars, warnings) out of the body, in one collapsed run log."""

from __future__ import annotations

import nbformat
import pandas as pd

from cogames_lib.report.export import export_html
from cogames_lib.report.runlog import final_line_states, move_stderr_to_run_log


def _notebook() -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell("work()")
    cell.outputs = [
        nbformat.v4.new_output(
            "stream", name="stderr", text="train:  10%|#   | 1/10\rtrain: 100%|####| 10/10\n"
        ),
        nbformat.v4.new_output("stream", name="stdout", text="10 runs done\n"),
        nbformat.v4.new_output("stream", name="stderr", text="UserWarning: <b>careful</b>\n"),
    ]
    failed = nbformat.v4.new_code_cell("boom()")
    failed.outputs = [
        nbformat.v4.new_output("error", ename="ValueError", evalue="bad", traceback=["ValueError: bad"])
    ]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Page"), cell, failed])


def test_a_progress_bar_keeps_only_its_final_state():
    assert final_line_states("a 10%\ra 100%\nnext\n") == "a 100%\nnext\n"


def test_stderr_moves_to_one_escaped_run_log_and_errors_stay_in_place():
    notebook = _notebook()
    assert move_stderr_to_run_log(notebook) == 1  # one cell printed to stderr
    work, failed, log = notebook.cells[1], notebook.cells[2], notebook.cells[-1]
    assert [o["name"] for o in work.outputs] == ["stdout"]
    assert failed.outputs[0]["output_type"] == "error"  # a failed page still shows why, where it failed
    assert log.source.startswith(
        '<details class="cogames-run-log"><summary>Run log (progress and warnings of 1 cell)'
    )
    assert "train: 100%|####| 10/10" in log.source and "1/10" not in log.source
    assert "\n" not in log.source  # one line, so markdown keeps the block as HTML
    assert "&lt;b&gt;careful&lt;/b&gt;" in log.source and "<b>" not in log.source


def test_a_notebook_without_stderr_gets_no_run_log():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Page")])
    assert move_stderr_to_run_log(notebook) == 0 and len(notebook.cells) == 1


def test_exported_page_has_no_stderr_box_and_a_collapsed_run_log(tmp_path):
    source = tmp_path / "page.ipynb"
    nbformat.write(_notebook(), source)
    page = export_html(source, tmp_path / "page.html", "Page").read_text()
    assert "output_stderr" not in page
    assert '<details class="cogames-run-log">' in page and "10 runs done" in page


def test_findings_read_as_sentences_with_their_method_not_as_a_dict():
    from cogames_lib.finding import Finding
    from cogames_lib.report.display import findings_table

    table = findings_table(
        [
            Finding(
                "c",
                "rate",
                "scripted passes 0.97 [0.90, 0.99] (n = 40 episodes).",
                0.97,
                method="Wilson",
                unit="episodes",
            ),
            Finding("c", "note", "No number here."),
        ]
    )
    frame = table.data  # a pandas Styler: no row numbers on the page
    assert list(frame["finding"])[1] == "No number here."
    assert list(frame["method"]) == ["Wilson, episodes", "—"]  # nothing missing reads as NaN
    page = table.to_html()
    assert "NaN" not in page and ">0<" not in page  # no index column


def test_page_tables_hide_row_numbers_round_and_say_when_empty():
    from cogames_lib.report.display import page_table

    page = page_table(pd.DataFrame({"rate": [0.4324324, float("nan")], "n": [37, 0]})).to_html()
    assert "0.432" in page and "0.4324324" not in page and "NaN" not in page and "—" in page
    assert 'class="row_heading' not in page
    note = page_table(pd.DataFrame(columns=["a"]), empty="no redundant pair")
    assert note._repr_html_() == "<p>no redundant pair</p>"
