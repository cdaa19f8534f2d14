"""`cogames-lib bench`: lists and runs benchmark scripts, failures exit 1, unknown names exit 2."""

from __future__ import annotations

from cogames_lib.cli import bench, main


def test_list_names_the_report_benchmark(capsys):
    assert main(["bench", "--list"]) == 0
    listing = capsys.readouterr().out
    assert "report_speed" in listing and "wall time of `cogames-lib report --profile quick`" in listing


def test_runs_named_scripts_and_reports_failures(tmp_path, monkeypatch, capfd):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "fast.py").write_text(
        '"""Fast: prints a table."""\nprint("case  value")\nprint("a     1")\n'
    )
    (tmp_path / "benchmarks" / "broken.py").write_text('"""Broken."""\nraise SystemExit(3)\n')
    monkeypatch.setattr(bench, "BENCHMARKS_DIR", tmp_path / "benchmarks")
    assert main(["bench", "fast"]) == 0
    assert "== fast ==\ncase  value\na     1" in capfd.readouterr().out
    assert main(["bench"]) == 1  # all of them: broken fails
    captured = capfd.readouterr()
    assert "== broken ==" in captured.out and "benchmark(s) failed: broken" in captured.err


def test_unknown_benchmark_is_a_usage_error(capsys):
    assert main(["bench", "engine_sped"]) == 2
    assert "unknown benchmark 'engine_sped'; did you mean 'engine_speed'" in capsys.readouterr().err
