"""The report machinery on tiny fixture notebooks: ok, a failing cell, a cell timeout, escaping, atomicity."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from cogames_lib import outdir
from cogames_lib.cli import main
from cogames_lib.finding import Finding
from cogames_lib.report import profiles as profiles_module
from cogames_lib.report import runner
from cogames_lib.report.execute import execute_notebook
from cogames_lib.report.export import export_html
from cogames_lib.report.index import NotebookReport, render_index
from cogames_lib.report.profiles import NotebookRun, Profile
from cogames_lib.report.runner import notebook_start_order

FIXTURES = Path(__file__).parent / "fixtures" / "notebooks"
FIXTURE_PROFILE = Profile(
    name="fixture",
    description="fixture notebooks",
    cell_timeout_s=30,  # generous: a cell importing matplotlib took 11.6 s at load 12 on 2 cores
    runs=(
        NotebookRun("ok", "Working notebook", {"value": 4}),
        NotebookRun("fail", "Failing notebook", {}),
        NotebookRun("sleep", "Sleeping notebook", {"seconds": 60}, weight=2),  # starts first
    ),
)
EXTERNAL = re.compile(r"""<(?:script|link|img|iframe)[^>]+(?:src|href)=["']?(?:https?:)?//""", re.IGNORECASE)


@pytest.fixture(scope="module")
def fixture_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "fixture"
    outdir.prepare_out_dir(out, job="report", params={"profile": "an earlier one"})
    (out / "index.html").write_text("stale index from an earlier run")
    patched = dict(profiles_module.PROFILES, fixture=FIXTURE_PROFILE)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(profiles_module, "PROFILES", patched)
        # three processes at once: exercises --jobs and keeps the timeout's wait from adding up
        code = main(
            [
                "report",
                "--profile",
                "fixture",
                "--out",
                str(out),
                "--notebooks",
                str(FIXTURES),
                "--no-progress",
                "--jobs",
                "3",
                "--overwrite",
            ]
        )
    return code, out


@pytest.mark.slow
@pytest.mark.xdist_group("workbook_report_fixture")  # the module fixture runs once, on one worker
def test_failed_notebooks_make_the_command_fail_and_are_marked(fixture_report):
    code, out = fixture_report
    assert code == 1
    index = (out / "index.html").read_text()
    assert "stale index" not in index
    assert "2 of 3 FAILED" in index
    # one badge per part, and the failed parts listed again among the findings at the top
    assert index.count(">FAILED</span></h2>") == 1 and index.count(">TIMED OUT</span></h2>") == 1
    assert index.count(">ok</span></h2>") == 1
    glance = index.split('<ul class="glance">')[1].split("</ul>")[0]
    assert "FAILED" in glance and "TIMED OUT" in glance
    assert "ValueError: fixture failure" in index
    assert "cell timed out after 30" in index


@pytest.mark.slow
@pytest.mark.xdist_group("workbook_report_fixture")  # the module fixture runs once, on one worker
def test_pages_exist_and_show_the_errors(fixture_report):
    _, out = fixture_report
    index = (out / "index.html").read_text()
    for name in ("ok", "fail", "sleep"):
        assert (out / f"{name}.html").is_file() and (out / f"{name}.ipynb").is_file()
        assert f'href="{name}.html"' in index
    # the heavier "sleep" started first, yet the index keeps the profile's order
    assert index.index('href="ok.html"') < index.index('href="fail.html"') < index.index('href="sleep.html"')
    failing = (out / "fail.html").read_text()
    assert "fixture failure" in failing and "never reached" not in failing
    sleeping = (out / "sleep.html").read_text()
    assert "CellTimeoutError" in sleeping and "Execution stopped" in sleeping


@pytest.mark.slow
@pytest.mark.xdist_group("workbook_report_fixture")  # the module fixture runs once, on one worker
def test_headline_numbers_parameters_and_versions_in_index(fixture_report):
    _, out = fixture_report
    index = (out / "index.html").read_text()
    assert "The fixture drew a line up to 4." in index  # its finding, after the parameter override
    assert "&lt;b&gt;not bold&lt;/b&gt;" in index and "<b>not bold</b>" not in index
    assert "Parameters" in index and "<th>seconds</th><td>60</td>" in index
    for package in ("python", "cogames_lib", "papermill", "nbconvert"):
        assert f"<th>{package}</th>" in index
    assert re.search(r"run time \d+\.\d s", index)
    assert (out / "ok" / "summary.json").is_file() and (out / "ok" / "line.png").is_file()


@pytest.mark.slow
@pytest.mark.xdist_group("workbook_report_fixture")  # the module fixture runs once, on one worker
def test_pages_are_offline_escaped_and_code_hidden(fixture_report):
    _, out = fixture_report
    page = (out / "ok.html").read_text()
    assert not EXTERNAL.search(page), "a page loads something from the network"
    assert "<script>alert(" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # printed log line, escaped
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in page  # DataFrame cell, escaped
    assert 'src="data:image/png;base64,' in page  # the figure is embedded
    assert "write_findings(" not in page  # code cells are hidden
    assert not EXTERNAL.search((out / "index.html").read_text())


@pytest.mark.slow
@pytest.mark.xdist_group("workbook_report_fixture")  # the module fixture runs once, on one worker
def test_index_is_written_last(fixture_report):
    _, out = fixture_report
    index_time = (out / "index.html").stat().st_mtime
    assert all(index_time >= path.stat().st_mtime for path in out.glob("*.html"))
    assert not list(out.glob(".*.tmp")) and not list(out.glob(".*.running.ipynb"))


def test_render_index_escapes_everything_from_notebooks():
    report = NotebookReport(
        notebook="nb<1>",
        title="<script>t</script>",
        status="failed",
        message="<script>alert('m')</script>",
        duration_s=1.0,
        parameters={"p": "<img src=x onerror=alert(1)>"},
        html_file="nb.html",
        notebook_file=None,
        out_dir="nb",
        findings=(Finding("c", "<k>", "<v>"), Finding("c", "k2", "<v2>", figure="<f>.png")),
    )
    page = render_index([report], "quick", "<desc>", 2.0, "now", {"python": "3"}, None)
    assert "<script>" not in page and "<img" not in page and "<desc>" not in page
    assert "<v>" not in page and "<v2>" not in page and "<f>" not in page
    assert "&lt;script&gt;alert(&#x27;m&#x27;)&lt;/script&gt;" in page


def test_bad_parameter_fails_with_one_line(tmp_path):
    result = execute_notebook(
        FIXTURES / "bad_param.ipynb", tmp_path / "bad.ipynb", {"seeds": -2}, cwd=FIXTURES
    )
    assert result.status == "failed"
    assert re.fullmatch(r"cell \d+: ParameterError: seeds: must be >= 0, got -2", result.message)
    executed = nbformat.read(tmp_path / "bad.ipynb", as_version=4)
    errors = [o for c in executed.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert [e["traceback"] for e in errors] == [["ParameterError: seeds: must be >= 0, got -2"]]


@pytest.mark.parametrize(
    ("failures", "error", "calls", "status"),
    [
        (1, "Kernel died before replying to kernel_info", 2, "ok"),  # a port taken at start: started again
        (5, "Kernel died before replying to kernel_info", 3, "failed"),  # not forever
        (1, "something else", 1, "failed"),  # a kernel that ran cells is never started again
    ],
)
def test_a_kernel_that_never_started_is_started_again(tmp_path, monkeypatch, failures, error, calls, status):
    import papermill

    seen = []

    def execute(input_path, output_path, **_):
        seen.append(output_path)
        if len(seen) <= failures:
            raise RuntimeError(error)
        Path(output_path).write_bytes(Path(input_path).read_bytes())

    monkeypatch.setattr(papermill, "execute_notebook", execute)
    result = execute_notebook(FIXTURES / "bad_param.ipynb", tmp_path / "nb.ipynb", {}, cwd=FIXTURES)
    assert (len(seen), result.status) == (calls, status)
    assert result.status == "ok" or result.message == f"RuntimeError: {error}"


def test_export_keeps_only_the_final_state_of_progress_bars(tmp_path):
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("run()")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stderr", text=f"\rsweep: {i}/3 episodes") for i in range(4)
    ]
    notebook.cells = [cell]
    nbformat.write(notebook, tmp_path / "bars.ipynb")
    page = export_html(tmp_path / "bars.ipynb", tmp_path / "bars.html", "Bars").read_text()
    assert "sweep: 3/3 episodes" in page and "sweep: 1/3 episodes" not in page


def test_export_of_an_unexecuted_notebook_is_offline(tmp_path):
    page = export_html(FIXTURES / "ok.ipynb", tmp_path / "ok.html", "Title").read_text()
    assert not EXTERNAL.search(page) and "<title>Title</title>" in page


def test_no_index_when_writing_it_fails(tmp_path, monkeypatch):
    out = tmp_path / "r"
    outdir.prepare_out_dir(out, job="report", params={"profile": "one", "notebooks": str(FIXTURES.resolve())})
    (out / "index.html").write_text("stale")
    quick_ok = Profile("one", "one notebook", 30, (NotebookRun("bad_param", "Bad", {"seeds": 1}),))

    def broken(path, page):
        raise OSError("disk full")

    monkeypatch.setattr(runner, "write_index", broken)
    with pytest.raises(OSError, match="disk full"):
        runner.run_report(quick_ok, out, notebooks_dir=FIXTURES, progress=False, resume=True)
    assert not (out / "index.html").exists()  # never a stale or half index


def test_cli_user_mistakes_exit_2(tmp_path, capsys):
    assert main(["report", "--profile", "quik", "--out", str(tmp_path / "x")]) == 2
    assert "unknown report profile 'quik'; did you mean 'quick'" in capsys.readouterr().err
    assert main(["report", "--notebooks", str(tmp_path), "--out", str(tmp_path / "y")]) == 2
    assert "has no diagnostics_sweep.ipynb" in capsys.readouterr().err
    assert main(["report", "--jobs", "0", "--out", str(tmp_path / "z")]) == 2


def test_cli_unwritable_or_impossible_out_is_one_line_exit_2(tmp_path, capsys):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    assert main(["report", "--out", str(a_file)]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err
    # a folder below a file can never be created: one line naming --out, no traceback, nothing run
    assert main(["report", "--out", str(a_file / "sub"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cogames-lib: error: out: cannot write to") and err.count("\n") == 1
    assert main(["report", "--cell-timeout", "-1", "--out", str(tmp_path / "t")]) == 2
    assert "cell_timeout: must be a positive number" in capsys.readouterr().err


def test_heaviest_notebooks_start_first_ties_in_profile_order():
    runs = [
        NotebookRun("a", "A"),
        NotebookRun("b", "B", weight=3),
        NotebookRun("c", "C"),
        NotebookRun("d", "D", weight=2),
    ]
    assert notebook_start_order(runs) == [1, 3, 0, 2]


def test_quick_profile_sweeps_every_normal_diagnostic_and_its_hard_subset():
    from cogames_lib.diagnostics import DIAGNOSTICS
    from cogames_lib.sweep.validate import normalise_diagnostics

    (sweep,) = [run for run in profiles_module.PROFILES["quick"].runs if run.notebook == "diagnostics_sweep"]
    names, _ = normalise_diagnostics(sweep.parameters["diagnostics"])
    hard = [name for name in names if name not in DIAGNOSTICS]
    assert set(DIAGNOSTICS) < set(names) and len(hard) == len(profiles_module.QUICK_HARD) >= 5
