"""The three notebooks: committed clean, one parameters cell of commented literals, validation through the
library in the first cell, and a papermill run of each with tiny parameters writing its files."""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from cogames_lib.errors import CogamesLibError
from cogames_lib.report.execute import execute_notebook
from cogames_lib.report.notebook_files import read_findings
from cogames_lib.report.profiles import PROFILES

NOTEBOOKS = Path(__file__).resolve().parents[1] / "cogames_lib" / "notebooks"
NAMES = ("diagnostics_sweep", "mindcraft_outcomes", "probe_tests")


def load(name: str) -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)


def parameters_cell(notebook: nbformat.NotebookNode) -> tuple[int, nbformat.NotebookNode]:
    tagged = [(i, c) for i, c in enumerate(notebook.cells) if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "exactly one cell tagged `parameters`"
    return tagged[0]


def defaults(name: str) -> dict[str, object]:
    _, cell = parameters_cell(load(name))
    values = {}
    for statement in ast.parse(cell.source).body:
        assert isinstance(statement, ast.Assign), f"{name}: only assignments in the parameters cell"
        values[statement.targets[0].id] = ast.literal_eval(statement.value)  # plain literals only
    return values


@pytest.mark.parametrize("name", NAMES)
def test_committed_without_outputs_or_execution_counts(name):
    notebook = load(name)
    nbformat.validate(notebook)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{name} cell {index} has outputs"
            assert cell.execution_count is None, f"{name} cell {index} has an execution count"
    assert notebook.metadata["kernelspec"]["name"] == "python3"
    assert "papermill" not in notebook.metadata


@pytest.mark.parametrize("name", NAMES)
def test_parameters_are_commented_typed_literals(name):
    _, cell = parameters_cell(load(name))
    for line in cell.source.splitlines():
        assert " = " in line and "  # " in line, f"{name}: parameter line without a comment: {line!r}"
        # papermill cannot parse a parameter line with a second '=' (e.g. '>=' in the comment)
        assert line.count("=") == 1, f"{name}: papermill cannot parse {line!r}"
    values = defaults(name)
    assert "out_dir" in values
    profile_names = {
        key
        for profile in PROFILES.values()
        for run in profile.runs
        if run.notebook == name
        for key in run.parameters
    }
    assert profile_names <= set(values), f"{name}: profile parameters the notebook does not declare"


@pytest.mark.parametrize("name", NAMES)
def test_cells_are_thin(name):
    notebook = load(name)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert len(cell.source.splitlines()) <= 12, f"{name}: a code cell longer than 12 lines"
            tree = ast.parse(cell.source)
            assert not [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))], (
                f"{name}: define functions in the library, not in the notebook"
            )


def run_validation_cell(name: str, overrides: dict[str, object], tmp_path: Path) -> dict[str, object]:
    """Execute the notebook's first cell after the parameters cell in-process, as papermill would."""
    notebook = load(name)
    index, _ = parameters_cell(notebook)
    validation = next(c for c in notebook.cells[index + 1 :] if c.cell_type == "code")
    namespace = {**defaults(name), "out_dir": str(tmp_path / "out"), **overrides}
    exec(compile(validation.source, f"{name}:validation", "exec"), namespace)
    return namespace


BAD_PARAMETERS = [
    ("diagnostics_sweep", {"diagnostics": ["diagnostic_chest_nowhere"]}, r"diagnostics: unknown diagnostic"),
    (
        "diagnostics_sweep",
        {"diagnostics": ["diagnostic_chest_navigation1"], "agent_counts": [3]},
        r"agent_counts: no selected diagnostic allows 3 agents",
    ),
    ("diagnostics_sweep", {"seeds": -1}, r"seeds"),
    (
        "diagnostics_sweep",
        {"variant": {"base": "memory", "map": "/no/such/room.map"}},
        r"/no/such/room.map: cannot read map file",
    ),
    ("diagnostics_sweep", {"variant": {"max_steps": 300}}, r"needs its base diagnostic"),
    (
        "diagnostics_sweep",
        {"variant": {"base": "memory", "steps": 3}},
        r"variant: unknown key\(s\) \['steps'\]",
    ),
    ("diagnostics_sweep", {"policies": ["scripted:-flying"]}, r"policies: unknown scripted ablation"),
    (
        "diagnostics_sweep",
        {"redundancy_threshold": 1.5},
        r"redundancy_threshold: must be a number in \(0, 1\]",
    ),
    (
        "mindcraft_outcomes",
        {"experiment_roots": ["/no/such/experiments"]},
        r"roots: '/no/such/experiments' does",
    ),
    (
        "mindcraft_outcomes",
        {"task_files": ["/no/such/tasks.json"]},
        r"task_files: '/no/such/tasks.json' does",
    ),
    ("mindcraft_outcomes", {"no_score_policy": "ignore"}, r"no_score_policy: 'ignore' is not one of"),
    ("probe_tests", {"seeds": [-3]}, r"seeds must be integers >= 0, got -3"),
    ("probe_tests", {"conditions": ["nobody_can_hunt"]}, r"condition: unknown 'nobody_can_hunt'"),
    ("probe_tests", {"probe_folder": "/no/such/probes"}, r"folder '/no/such/probes' does not exist"),
    ("probe_tests", {"max_test_steps": 0}, r"max_test_steps must be >= 1"),
]


@pytest.mark.parametrize("name,overrides,message", BAD_PARAMETERS)
def test_first_cell_rejects_bad_parameters_with_one_line(name, overrides, message, tmp_path, monkeypatch):
    monkeypatch.chdir(NOTEBOOKS)  # the defaults are relative to the notebooks folder, as in JupyterLab
    with pytest.raises(CogamesLibError, match=message) as caught:
        run_validation_cell(name, overrides, tmp_path)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("name", NAMES)
def test_defaults_pass_validation(name, tmp_path, monkeypatch):
    monkeypatch.chdir(NOTEBOOKS)
    namespace = run_validation_cell(name, {}, tmp_path)
    assert Path(namespace["out"]).is_dir()


def papermill(name: str, tmp_path: Path, parameters: dict[str, object]) -> Path:
    out = tmp_path / name
    result = execute_notebook(
        NOTEBOOKS / f"{name}.ipynb",
        tmp_path / f"{name}.ipynb",
        {**parameters, "out_dir": str(out)},
        cell_timeout_s=300,
        cwd=NOTEBOOKS,
    )
    assert result.ok, result.message
    assert bare_outputs(tmp_path / f"{name}.ipynb") == []
    return out


def bare_outputs(path: Path) -> list[str]:
    """What a page must not show: a traceback, or a value shown as its bare repr (an `execute_result` with
    only text/plain, such as `PosixPath(...)`, `None` or a dict): every shown value is a table or a figure."""
    executed = nbformat.read(path, as_version=4)
    return [
        f"cell {number}: {output.get('output_type')} {str(output.get('data', {}).get('text/plain', ''))[:60]}"
        for number, cell in enumerate(executed.cells)
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
        or (output.get("output_type") == "execute_result" and set(output.get("data", {})) == {"text/plain"})
    ]


def test_bare_outputs_sees_a_repr_and_a_traceback_but_not_a_table(tmp_path):
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [
        nbformat.v4.new_output("execute_result", data={"text/plain": "PosixPath('/tmp/x')"}),
        nbformat.v4.new_output("execute_result", data={"text/plain": "a", "text/html": "<table></table>"}),
        nbformat.v4.new_output("error", ename="ValueError", evalue="x", traceback=["ValueError: x"]),
    ]
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [cell]
    nbformat.write(notebook, tmp_path / "n.ipynb")
    assert [line.split(":")[1].split()[0] for line in bare_outputs(tmp_path / "n.ipynb")] == [
        "execute_result",
        "error",
    ]


@pytest.mark.slow
def test_diagnostics_sweep_notebook_writes_its_tables(tmp_path):
    out = papermill(
        "diagnostics_sweep",
        tmp_path,
        dict(
            policies=["scripted", "noop"],
            diagnostics=["diagnostic_chest_deposit_near", "diagnostic_assemble_seeded_near"],
            agent_counts=[1],
            seeds=2,
            workers=1,
        ),
    )
    episodes = pd.read_parquet(out / "episodes.parquet")
    assert len(episodes) == 2 * 2 * 2 and set(episodes["policy"].astype(str)) == {"scripted", "noop"}
    assert not episodes.loc[episodes["policy"] == "noop", "success"].any()
    assert len(pd.read_csv(out / "pass_rates.csv")) == 4
    assert len(pd.read_parquet(out / "redundancy.parquet")) == 1  # one pair of diagnostics
    for figure in (
        "pass_rate_heatmap",
        "outcome_rates",
        "capability_matrix",
        "redundancy_heatmap",
        "failed_episode_0",
    ):
        assert (out / f"{figure}.png").stat().st_size > 1000
    findings = {f.key: f for f in read_findings(out)}
    # the first two policies are compared over the suite by default, and that comparison leads
    assert next(iter(findings)) == "suite_difference[scripted - noop]"
    assert findings["pass_rate[noop]"].estimate == 0.0 and findings["pass_rate[noop]"].n == 4
    assert (out / "performance_profile.png").is_file() and len(pd.read_csv(out / "comparison_cells.csv")) == 2


@pytest.mark.slow
def test_mindcraft_notebook_writes_its_tables(tmp_path):
    out = papermill("mindcraft_outcomes", tmp_path, {})  # the sample tree is already tiny
    runs = pd.read_parquet(out / "mindcraft_runs.parquet")
    agents = pd.read_csv(out / "mindcraft_agents.csv")
    findings = {f.key: f for f in read_findings(out)}
    assert findings["task_folders"].estimate == len(runs) and len(agents)
    assert findings["success_rate"].n == int(runs["success_for_rate"].notna().sum())
    errors = pd.read_csv(out / "error_folders.csv")
    assert "LOG_FILE_ERROR" in set(errors["completion_status"]) and "SKIPPED" in set(
        errors["completion_status"]
    )
    assert (out / "status_breakdown.png").is_file() and (out / "by_task_type.csv").is_file()


@pytest.mark.slow
def test_probe_notebook_trains_then_reanalyses_its_folder(tmp_path):
    out = papermill(
        "probe_tests",
        tmp_path,
        dict(conditions=["all_can_hunt"], epochs=4, probe_every=2, seeds=[0], checkpoints="none",
             reference_study=str(tmp_path / "no_reference_here")),
    )  # fmt: skip
    intention = pd.read_csv(out / "probe_intention.csv")
    multistep = pd.read_csv(out / "probe_multistep.csv")
    assert list(intention.columns[:12]) == [
        "epoch",
        "agent_id",
        "map_name",
        "partner_kind",
        "version",
        "q_val_forward",
        "q_val_backward",
        "q_val_step_left",
        "q_val_step_right",
        "q_val_attack",
        "weight_facing_stag",
        "weight_facing_hare",
    ]
    assert list(multistep.columns[:6]) == [
        "epoch",
        "agent_id",
        "partner_kind",
        "first_attack_target",
        "result",
        "turn_of_first_attack",
    ]
    assert sorted(intention["epoch"].unique()) == [0, 2, 4] or sorted(intention["epoch"].unique()) == [2, 4]
    findings = read_findings(out)
    # no reference study: only the smoke run's findings, each labelled, and it says it cannot show learning
    assert findings and all(
        f.text.startswith("Live smoke run: 4 epochs, 1 seed per condition. ") for f in findings
    )
    assert any("too short to learn (epsilon still 1.00" in f.text for f in findings)
    assert all(f.n == 1 for f in findings if f.estimate is not None)  # one seed: no interval anywhere
    assert (out / "smoke_learning_curves.png").is_file() and (out / "smoke_partner_effect.png").is_file()
    assert not list((out / "runs").rglob("*.pt"))  # checkpoints="none"
    again = papermill("probe_tests", tmp_path / "again", dict(probe_folder=str(out / "runs")))
    assert pd.read_csv(again / "probe_intention.csv").shape == intention.shape
    assert (again / "intention_weights.png").is_file() and (again / "training_curves.png").is_file()


@pytest.mark.slow
def test_probe_notebook_shows_the_reference_study_labelled(tmp_path):
    from tests.staghunt_study_helpers import tiny_trained_study

    study = tiny_trained_study(tmp_path / "study", epochs=4)
    out = papermill(
        "probe_tests", tmp_path / "page", dict(conditions=["all_can_hunt"], epochs=2, probe_every=2, seeds=[0],
                                               reference_study=str(study)),
    )  # fmt: skip
    findings = {f.key: f for f in read_findings(out)}
    assert next(iter(findings)).startswith("reference ")  # the reference study leads, then the smoke run
    reference = findings["reference learning.all_can_hunt.stags_per_episode"]
    assert (
        reference.text.startswith("Reference study: 4 epochs, 2 seeds per condition")
        and "2026-11-25" in reference.text
    )
    assert reference.n == 2 and reference.unit == "seeds"
    for name in ("learning_curves", "intention_by_partner", "behaviour_by_partner", "partner_effect"):
        assert (out / f"reference_{name}.png").is_file()


@pytest.mark.slow
def test_diagnostics_notebook_on_a_dask_cluster_gives_the_local_rows(tmp_path):
    from dask.distributed import LocalCluster

    from cogames_lib.sweep import run_sweep

    grid = dict(
        policies=["scripted", "random"],
        diagnostics=["diagnostic_chest_deposit_near"],
        agent_counts=[1],
        seeds=3,
    )
    with LocalCluster(
        n_workers=1, threads_per_worker=2, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        out = papermill(
            "diagnostics_sweep",
            tmp_path,
            dict(grid, backend="dask", scheduler=cluster.scheduler_address, workers=2, record_traces=False),
        )
    remote = pd.read_parquet(out / "episodes.parquet")
    local = run_sweep(
        grid["policies"],
        grid["diagnostics"],
        grid["agent_counts"],
        grid["seeds"],
        tmp_path / "local",
        workers=1,
        progress=False,
    )
    columns = ["policy", "diagnostic", "num_agents", "seed", "status", "success", "reward", "steps"]
    pd.testing.assert_frame_equal(
        remote[columns].astype(str).reset_index(drop=True), local[columns].astype(str).reset_index(drop=True)
    )
