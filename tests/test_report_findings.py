"""The index's findings and provenance boxes: computed from tables and output folders, every number with its
n and interval, reuse of earlier results always said (with when)."""

from __future__ import annotations

import dataclasses
import itertools
import json

import pandas as pd
import pytest

from cogames_lib import outdir
from cogames_lib.errors import ParameterError
from cogames_lib.report.findings import (
    Finding,
    diagnostics_findings,
    findings_for,
    mindcraft_findings,
    probe_findings,
)
from cogames_lib.report.provenance import (
    data_source,
    provenance_for,
    provenance_html,
    results_lines,
    seeds_text,
)
from tests.test_plots import make_episodes, make_intention, make_multistep


def test_diagnostics_findings_give_each_policys_rate_and_the_best_policys_weakest_cell():
    heatmap, matrix = diagnostics_findings(make_episodes())
    # scripted passes 8 of 9 episodes (radial with 2 agents fails seed 2); noop none
    assert "scripted 0.89 [0.57, 0.98] (n = 9)" in heatmap.text
    assert "noop 0.00 [0.00, 0.30] (n = 9)" in heatmap.text
    assert heatmap.text.index("noop") < heatmap.text.index("scripted 0.89")  # the table's own policy order
    # the hand-checked Wilson interval of 2 of 3 (as in the heatmap's cell)
    assert "weakest on radial with 2 agents: 0.67 [0.21, 0.94] (n = 3)" in heatmap.text
    assert heatmap.figure == "pass_rate_heatmap.png" and matrix.figure == "capability_matrix.png"
    assert matrix.text.startswith("No ablation in this sweep")


def _ablation_episodes(seeds: int) -> pd.DataFrame:
    rows = []
    for policy, diagnostic, seed in itertools.product(
        ["scripted", "scripted:-chorus"], ["diagnostic_chorus_pair", "diagnostic_radial"], range(seeds)
    ):
        success = policy == "scripted" or diagnostic == "diagnostic_radial"
        rows.append(dict(policy=policy, diagnostic=diagnostic, num_agents=2, seed=seed, success=success))
    return pd.DataFrame(rows)


def test_an_ablation_finding_names_the_drop_and_whether_the_intervals_separate_it():
    _, clear = diagnostics_findings(_ablation_episodes(seeds=20))
    assert "Switching off chorus (scripted:-chorus) lowers the pass rate on 1 of 2 diagnostics" in clear.text
    assert "intervals apart on 1 of them" in clear.text
    assert (
        "chorus_pair: scripted 1.00 [0.84, 1.00] (n = 20), scripted:-chorus 0.00 [0.00, 0.16] (n = 20)"
        in clear.text
    )
    _, unclear = diagnostics_findings(_ablation_episodes(seeds=2))
    assert "the intervals overlap on all of them: more seeds are needed" in unclear.text


def _runs(per_model: dict[str, int], size: int = 20) -> pd.DataFrame:
    rows = []
    for model, successes in per_model.items():
        for index in range(size):
            success = index < successes
            rows.append(
                dict(
                    model_name=model,
                    task_type=["cooking", "techtree"][index % 2],
                    success_for_rate=success,
                    overall_completion_status="SUCCESS" if success else "FAILED_SCORE_ZERO",
                )
            )
    return pd.DataFrame(rows)


def test_mindcraft_findings_status_by_task_type_and_models_compared():
    status, models = mindcraft_findings(_runs({"model-a": 19, "model-b": 1}))
    # cooking: 10 of model-a's 19 successes (even indices) and model-b's one: 11 of 20
    assert "cooking 0.55 [0.34, 0.74] (n = 20)" in status.text and status.figure == "status_breakdown.png"
    assert "FAILED_SCORE_ZERO (20 of 40 task folders)" in status.text
    assert "model-a 0.95 [0.76, 0.99] (n = 20); model-b 0.05 [0.01, 0.24] (n = 20)" in models.text
    assert "model-a is clearly ahead of model-b" in models.text
    _, close = mindcraft_findings(_runs({"model-a": 11, "model-b": 9}))
    assert "this sample does not separate the models" in close.text
    assert len(mindcraft_findings(_runs({"only": 5}))) == 1  # one model: nothing to compare


def test_probe_findings_carry_a_bootstrap_interval_over_seeds_or_say_there_is_none():
    intention, behaviour = probe_findings(make_intention(), make_multistep())
    assert (
        intention.text.startswith("At the last probe (epoch 100)")
        and "all_can_hunt: no_partner" in intention.text
    )
    assert "(n = 2 seeds each, bootstrap 95% over seeds)" in intention.text
    assert behaviour.figure == "multistep_results.png"
    one_seed = make_intention().query("seed == 0").assign(weight_facing_stag=0.2, weight_facing_hare=0.2)
    (flat,) = probe_findings(one_seed, pd.DataFrame())
    assert "n = 1 seed each: no interval" in flat.text and "[" not in flat.text
    assert "no_partner 0.50, AgentKindA 0.50 (no difference between partners)" in flat.text


def test_findings_for_reads_the_notebook_folder_and_drops_missing_figures(tmp_path):
    make_episodes().to_parquet(tmp_path / "episodes.parquet")
    (tmp_path / "pass_rate_heatmap.png").write_bytes(b"png")
    heatmap, matrix = findings_for("diagnostics_sweep", tmp_path)
    assert heatmap.figure == "pass_rate_heatmap.png" and matrix.figure is None  # no capability_matrix.png
    assert findings_for("a_notebook_without_findings", tmp_path) == []
    assert findings_for("mindcraft_outcomes", tmp_path) == []  # its table is not there
    assert isinstance(heatmap, Finding)


def test_provenance_says_what_was_reused_and_when(tmp_path, monkeypatch):
    sweep = tmp_path / "sweep"
    outdir.prepare_out_dir(sweep, job="sweep", params={"n": 1})
    outdir.record_results(sweep, unit="episodes", computed=5, reused=0)
    assert results_lines(tmp_path) == ("5 episodes computed now (sweep/)",)
    first = outdir.read_manifest(sweep)["created"]
    outdir.prepare_out_dir(sweep, job="sweep", params={"n": 1}, resume=True, same_code=True)
    outdir.record_results(sweep, unit="episodes", computed=2, reused=3)
    (line,) = results_lines(tmp_path)
    when = first.replace("T", " ").replace("Z", " UTC")
    assert line.startswith(f"resumed 3 of 5 episodes computed {when}") and line.endswith(
        "2 computed now (sweep/)"
    )
    assert results_lines(tmp_path / "sweep" / "episodes_missing") == ("everything computed now",)

    box = provenance_for("diagnostics_sweep", {"policies": ["noop"], "seeds": 3, "out_dir": "x"}, tmp_path,
                         "cogames-lib report --profile quick", "abc1234", "2026-01-01 00:00:00 UTC")  # fmt: skip
    rows = dict(box.rows())
    assert (
        rows["seeds"] == "0..2 (3)"
        and rows["code version"] == "abc1234"
        and "out_dir" not in rows["parameters"]
    )
    assert "resumed 3 of 5 episodes" in rows["computed or reused"]
    escaped = provenance_html(dataclasses.replace(box, data_source="<script>x</script>"))
    assert "<script>" not in escaped and "&lt;script&gt;" in escaped


def test_data_sources_and_seeds_in_words():
    assert "SYNTHETIC" in data_source(
        "mindcraft_outcomes", {"experiment_roots": ["/x/data/mindcraft_sample/e"]}
    )
    assert "SYNTHETIC" not in data_source("mindcraft_outcomes", {"experiment_roots": ["/runs/real"]})
    assert "read from" in data_source("probe_tests", {"probe_folder": "/somewhere"})
    assert seeds_text({"seeds": [0, 3]}) == "0, 3" and seeds_text({}).startswith("none")


def test_a_resume_of_results_from_another_code_version_is_refused(tmp_path, monkeypatch):
    outdir.prepare_out_dir(tmp_path / "run", job="sweep", params={})
    manifest = json.loads((tmp_path / "run" / outdir.MANIFEST_FILE).read_text())
    manifest["code_version"] = "0ld0ld0"
    (tmp_path / "run" / outdir.MANIFEST_FILE).write_text(json.dumps(manifest))
    monkeypatch.setattr(outdir, "code_version", lambda root=None: "n3wn3w0")
    with pytest.raises(ParameterError, match="computed by code 0ld0ld0, this is n3wn3w0"):
        outdir.prepare_out_dir(tmp_path / "run", job="sweep", params={}, resume=True, same_code=True)
    # callers that recompute everything anyway (a notebook's own folder) may continue it
    outdir.prepare_out_dir(tmp_path / "run", job="sweep", params={}, resume=True)


@pytest.mark.slow
def test_a_resumed_report_says_on_the_page_and_the_index_what_it_reused_and_when(tmp_path, capsys):
    from cogames_lib.report.profiles import NotebookRun, Profile
    from cogames_lib.report.runner import run_report

    tiny = Profile(
        "tiny",
        "one diagnostic, two seeds",
        300,
        (
            NotebookRun(
                "diagnostics_sweep",
                "Cogs vs Clips diagnostics",
                dict(
                    policies=["noop"],
                    diagnostics=["chest_navigation1"],
                    agent_counts=[1],
                    seeds=2,
                    workers=1,
                    backend="local",
                    scheduler=None,
                    record_traces=False,
                    redundancy_threshold=0.95,
                ),
            ),
        ),
    )
    first = run_report(tiny, tmp_path, progress=False)
    assert first.ok and first.notebooks[0].provenance.results == ("2 episodes computed now (sweep/)",)
    # every output folder records what produced it: the notebook's folder its parameters and code version
    recorded = outdir.read_manifest(tmp_path / "diagnostics_sweep")
    assert recorded["parameters"]["seeds"] == 2 and recorded["code_version"] == outdir.code_version()
    created = outdir.read_manifest(tmp_path / "diagnostics_sweep" / "sweep")["created"]
    second = run_report(tiny, tmp_path, progress=False, resume=True)
    when = created.replace("T", " ").replace("Z", " UTC")
    (line,) = second.notebooks[0].provenance.results
    assert line.startswith(f"resumed 2 of 2 episodes computed {when}") and "0 computed now" in line
    page = (tmp_path / "diagnostics_sweep.html").read_text()
    index = (tmp_path / "index.html").read_text()
    assert (
        f"resumed 2 of 2 episodes computed {when}" in page
        and f"resumed 2 of 2 episodes computed {when}" in index
    )
    assert "Resumed the report started" in index
    # the findings on the index are computed from this run's table, figure inline
    assert "noop 0.00 [0.00, 0.66] (n = 2)" in index and 'src="data:image/png;base64,' in index
