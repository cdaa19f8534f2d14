"""validate_sweep_parameters: every bad parameter is a one-line ParameterError naming it."""

from __future__ import annotations

import pytest

from cogames_lib.diagnostics import DIAGNOSTICS, HARD_DIAGNOSTICS, REGISTRY
from cogames_lib.errors import ParameterError
from cogames_lib.sweep import validate_sweep_parameters
from tests.test_sweep_fakes import FakeSpec

GOOD = {
    "policies": [FakeSpec("wander")],
    "diagnostics": "all",
    "agent_counts": [1, 2, 4],
    "seeds": 10,
    "workers": 2,
    "backend": "local",
    "scheduler": None,
}


def validate(tmp_path, **changes):
    return validate_sweep_parameters(**{**GOOD, "out_dir": tmp_path / "out", **changes})


def test_good_parameters_are_normalised(tmp_path):
    plan = validate(tmp_path)
    assert plan.diagnostics == tuple(REGISTRY)  # "all": both tiers
    assert validate(tmp_path, diagnostics="normal").diagnostics == tuple(DIAGNOSTICS)
    assert validate(tmp_path, diagnostics="hard").diagnostics == tuple(HARD_DIAGNOSTICS)
    assert plan.seeds == tuple(range(10)) and plan.agent_counts == (1, 2, 4)
    named = validate(
        tmp_path, diagnostics=["memory", "diagnostic_chest_deposit_near"], agent_counts=[1], seeds=[3, 0]
    )
    assert named.diagnostics == ("diagnostic_chest_deposit_near", "diagnostic_memory")  # registry order
    assert named.seeds == (3, 0)
    assert validate(tmp_path).sweep_id == validate(tmp_path).sweep_id != validate(tmp_path, seeds=9).sweep_id


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"diagnostics": ["diagnostic_chest_navigaton1"]},
            r"diagnostics: unknown diagnostic .*did you mean .*chest_navigation1",
        ),
        ({"diagnostics": []}, "diagnostics: empty"),
        ({"seeds": -1}, "seeds: the number of seeds must be >= 1"),
        ({"seeds": [0, -2]}, "seeds: seed indices must be integers >= 0"),
        ({"seeds": [1, 1]}, "seeds: duplicate"),
        ({"workers": 0}, "workers: must be an integer >= 1"),
        ({"workers": 1.5}, "workers: must be an integer >= 1"),
        ({"backend": "ray"}, "backend: must be one of local, dask"),
        ({"scheduler": "tcp://10.0.0.1:8786"}, "scheduler: only used with backend='dask'"),
        ({"agent_counts": [0]}, "agent_counts: agent counts must be integers >= 1"),
        (
            {"agent_counts": [5]},
            r"agent_counts: no selected diagnostic allows 5 agents \(allowed: \[1, 2, 3, 4\]\)",
        ),
        (
            {"diagnostics": ["memory"], "agent_counts": [2]},
            "agent_counts: no selected diagnostic allows 2 agents",
        ),
        ({"policies": []}, "policies: empty"),
        ({"policies": [FakeSpec("a"), FakeSpec("a")]}, "policies: duplicate policy name"),
        ({"policies": [42]}, "policies: 42 is neither a policy name nor a PolicySpec"),
        ({"policies": ["scripted:-nonsense"]}, "policies: unknown scripted ablation '-nonsense'"),
        ({"policies": ["no_such_module:Policy"]}, "policies: .*no_such_module"),
        ({"sweep_seed": -3}, "sweep_seed: must be an integer >= 0"),
    ],
)
def test_bad_parameters_raise_one_line_parameter_errors(tmp_path, changes, message):
    with pytest.raises(ParameterError, match=message) as caught:
        validate(tmp_path, **changes)
    assert "\n" not in str(caught.value)


def test_an_out_dir_that_is_a_file_is_rejected(tmp_path):
    path = tmp_path / "a_file"
    path.write_text("not a directory")
    with pytest.raises(ParameterError, match=r"out_dir: .* exists and is not a directory"):
        validate_sweep_parameters(**GOOD, out_dir=path)


def test_an_out_dir_that_cannot_be_created_is_a_one_line_error_before_any_episode(tmp_path):
    from cogames_lib.sweep import run_sweep

    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    with pytest.raises(ParameterError, match=r"out_dir: cannot write to .*a_file.*sub"):
        run_sweep([FakeSpec("wander")], ["chest_deposit_near"], [1], 1, a_file / "sub", progress=False)
    assert a_file.read_text() == "x"
