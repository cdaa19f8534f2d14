"""Each capability's findings (one Finding per number, computed once), the index that only renders them, and
the provenance boxes: every number with its n, unit and interval; reuse of earlier results always said."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math

import pandas as pd
import pytest

from cogames_lib import outdir
from cogames_lib.errors import DataFileError, ParameterError, UnknownNameError
from cogames_lib.finding import Finding
from cogames_lib.mindcraft.mindcraft_findings import mindcraft_findings
from cogames_lib.report.index import NotebookReport, render_index
from cogames_lib.report.notebook_files import write_findings
from cogames_lib.report.provenance import (
    data_source,
    provenance_for,
    provenance_html,
    results_lines,
    seeds_text,
)
from cogames_lib.report.runner import MissingFindings, _findings
from cogames_lib.staghunt.study_findings import staghunt_findings
from cogames_lib.sweep.compare import compare_policies
from cogames_lib.sweep.sweep_findings import sweep_findings
from tests.staghunt_study_helpers import intention_with_effect
from tests.test_plots import make_episodes


def test_sweep_findings_lead_with_the_best_policy_and_carry_wilson_intervals_over_episodes():
    findings = sweep_findings({"episodes": make_episodes()})
    best = findings[0]
    # scripted passes 8 of 9 episodes (radial with 2 agents fails seed 2)
    assert best.key == "pass_rate[scripted]" and best.figure == "pass_rate_heatmap.png"
    assert "0.89 [0.57, 0.98] (n = 9 episodes)" in best.text
    assert (best.n, best.unit, best.method) == (9, "episodes", "Wilson score interval, 95%")
    assert math.isclose(best.estimate, 8 / 9) and best.low < best.estimate < best.high
    by_key = {finding.key: finding for finding in findings}
    assert by_key["pass_rate[noop]"].text == "noop passes 0.00 [0.00, 0.30] (n = 9 episodes)."
    # the hand-checked Wilson interval of 2 of 3
    assert (
        "weakest on radial with 2 agent(s): 0.67 [0.21, 0.94] (n = 3 episodes)"
        in by_key["weakest_cell[scripted]"].text
    )
    assert by_key["run_errors"].estimate == 3 and by_key["timed_out"].estimate == 7
    assert len(by_key) == len(findings)  # keys are unique


def _ablation_episodes(seeds: int) -> pd.DataFrame:
    rows = []
    for policy, diagnostic, seed in itertools.product(
        ["scripted", "scripted:-chorus"], ["diagnostic_chorus_pair", "diagnostic_radial"], range(seeds)
    ):
        success = policy == "scripted" or diagnostic == "diagnostic_radial"
        rows.append(dict(policy=policy, diagnostic=diagnostic, num_agents=2, seed=seed, success=success,
                         status="SUCCESS" if success else "TIMED_OUT"))  # fmt: skip
    return pd.DataFrame(rows)


def test_an_ablation_finding_is_a_stratified_comparison_with_its_largest_drop():
    findings = {f.key: f for f in sweep_findings({"episodes": _ablation_episodes(seeds=20)})}
    drop = findings["ablation_drop[scripted:-chorus]"]
    # chorus_pair drops 1 -> 0, radial stays 1 -> 1: the mean over the two cells is 0.5, exactly, every resample
    assert (drop.estimate, drop.low, drop.high, drop.n, drop.unit) == (0.5, 0.5, 0.5, 2, "cells")
    assert drop.figure == "capability_matrix.png" and "stratified percentile bootstrap" in drop.method
    assert (
        "largest drop is on chorus_pair with 2 agent(s): scripted 1.00 [0.84, 1.00] (n = 20 episodes)"
        in drop.text
    )


def test_compare_policies_over_shared_cells_with_the_probability_of_improvement():
    episodes = make_episodes()
    comparison = compare_policies(episodes, "scripted", "noop", n_resamples=200)
    result = comparison.result
    assert result.cells == 3 and comparison.unmatched_cells == 0
    # per cell scripted - noop: 1, 1, 2/3 -> mean 8/9; with pass/fail scores PoI = 0.5 + half the difference
    assert math.isclose(result.difference[0], 8 / 9) and math.isclose(result.improvement[0], 0.5 + 4 / 9)
    assert result.difference[1] <= result.difference[0] <= result.difference[2] <= 1
    profile = comparison.profile_table()
    assert set(profile["policy"]) == {"scripted", "noop"} and len(profile) == 2 * len(result.thresholds)
    at_zero = profile[(profile["threshold"] == 0.0)].set_index("policy")["fraction"]
    assert at_zero["scripted"] == 1.0 and at_zero["noop"] == 0.0
    (first, improvement) = sweep_findings({"episodes": episodes}, compare=("scripted", "noop"))[:2]
    assert first.key == "suite_difference[scripted - noop]" and first.figure == "performance_profile.png"
    assert improvement.key == "probability_of_improvement[scripted > noop]"
    with pytest.raises(UnknownNameError, match="did you mean 'scripted'"):
        compare_policies(episodes, "scriptd", "noop")
    with pytest.raises(ParameterError, match="share no"):
        compare_policies(episodes[episodes["num_agents"] == 1], "scripted", "noop",
                         second_episodes=episodes[episodes["num_agents"] == 2])  # fmt: skip


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
    frame = pd.DataFrame(rows)
    return frame.astype({"model_name": "string", "task_type": "string", "success_for_rate": "boolean"})


def test_mindcraft_findings_by_task_type_and_model_over_task_folders():
    findings = mindcraft_findings({"runs": _runs({"model-a": 19, "model-b": 1})})
    headline, *_ = findings
    assert headline.key == "success_rate" and headline.figure == "status_breakdown.png"
    assert (headline.estimate, headline.n, headline.unit) == (0.5, 40, "task folders")
    by_key = {finding.key: finding for finding in findings}
    # cooking: 10 of model-a's 19 successes (even indices) and model-b's one: 11 of 20
    assert (
        "cooking tasks: 0.55 [0.34, 0.74] (n = 20 task folders)"
        in by_key["success_rate[task_type=cooking]"].text
    )
    assert "0.95 [0.76, 0.99] (n = 20 task folders)" in by_key["success_rate[model=model-a]"].text
    assert by_key["commonest_failure"].text.endswith("FAILED_SCORE_ZERO (20 of 40 task folders).")
    single = {f.key for f in mindcraft_findings({"runs": _runs({"only": 5})})}
    assert not any(key.startswith("success_rate[model=") for key in single)  # one model: nothing to compare


def test_staghunt_findings_use_seeds_as_the_unit_and_no_interval_from_one_seed():
    intention = intention_with_effect({"not_all_can_hunt": 0.2, "all_can_hunt": 0.0}, seeds=4)
    findings = staghunt_findings({"training": pd.DataFrame(), "probe_intention": intention})
    assert (
        findings[0].key == "learning" and findings[0].estimate is None
    )  # no training table: said, no number
    effect = {f.key: f for f in findings}["partner_effect.not_all_can_hunt.p_stag"]
    assert effect.figure == "partner_effect.png"
    # the noise is shared by both partners of a seed: every seed's paired difference is the effect
    assert (effect.n, effect.unit) == (4, "seeds") and math.isclose(effect.estimate, 0.2)
    assert all(f.unit == "seeds" for f in findings if f.estimate is not None)
    one_seed = staghunt_findings(
        {"training": pd.DataFrame(), "probe_intention": intention[intention["seed"] == 0]}
    )
    assert all(f.n == 1 and "(no interval)" in f.text for f in one_seed if f.estimate is not None)
    with pytest.raises(DataFileError, match="table 'training' is missing"):
        staghunt_findings({})


def test_a_part_whose_findings_name_a_missing_figure_fails_loudly(tmp_path):
    with pytest.raises(MissingFindings, match="wrote no findings"):
        _findings(tmp_path)
    write_findings(tmp_path, [Finding("c", "k", "A number.", 1.0, figure="gone.png")])
    with pytest.raises(MissingFindings, match=r"'k' names gone\.png"):
        _findings(tmp_path)
    (tmp_path / "gone.png").write_bytes(b"png")
    findings, figure = _findings(tmp_path)
    assert findings[0].key == "k" and figure.startswith("data:image/png;base64,")


def test_the_index_renders_one_headline_per_part_and_the_rest_one_click_away():
    findings = (
        Finding(
            "c",
            "a",
            "Headline <b>0.50</b> [0.40, 0.60] (n = 9 episodes).",
            0.5,
            0.4,
            0.6,
            9,
            "episodes",
            "Wilson",
        ),
        Finding("c", "b", "Second finding.", figure="second.png"),
    )
    report = NotebookReport(
        "nb", "Part", "ok", "", 1.0, {}, "nb.html", None, "nb", findings, "data:image/png;base64,AA"
    )
    page = render_index([report], "quick", "d", 2.0, "now", {"python": "3"}, None)
    glance = page.split('<ul class="glance">')[1].split("</ul>")[0]
    assert glance.count("<li>") == 1 and "Headline &lt;b&gt;0.50&lt;/b&gt;" in glance
    assert page.count('<img class="headline"') == 1
    more = page.split("<summary>1 more finding</summary>")[1].split("</details>")[0]
    assert "Second finding." in more and 'href="nb/second.png"' in more


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
    assert "noop, the best of 1 policies, passes 0.00 [0.00, 0.66] (n = 2 episodes)" in index
    assert 'src="data:image/png;base64,' in index
