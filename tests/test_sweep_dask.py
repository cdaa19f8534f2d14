"""The Dask backend on a LocalCluster (127.0.0.1) gives the same rows as the local backend."""

from __future__ import annotations

import pandas as pd
import pytest

from cogames_lib.sweep import run_sweep
from tests.test_sweep_fakes import FakeSpec

POLICIES = [FakeSpec("wander"), FakeSpec("boom", "raise")]
DIAGNOSTICS = ["chest_deposit_near", "assemble_seeded_near"]


@pytest.mark.slow
def test_dask_backend_by_address_and_by_client_matches_local(tmp_path):
    distributed = pytest.importorskip("distributed")
    local = run_sweep(POLICIES, DIAGNOSTICS, [1, 2], 3, tmp_path / "local", workers=1, progress=False)
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        by_address = run_sweep(
            POLICIES,
            DIAGNOSTICS,
            [1, 2],
            3,
            tmp_path / "address",
            workers=2,
            backend="dask",
            scheduler=cluster.scheduler_address,
            progress=False,
        )
        by_client = run_sweep(
            POLICIES,
            DIAGNOSTICS,
            [1, 2],
            3,
            tmp_path / "client",
            backend="dask",
            scheduler=client,
            progress=False,
        )
        assert client.status == "running"  # a client the caller passed in is left open
    expected = local.drop(columns="duration_s")
    pd.testing.assert_frame_equal(by_address.drop(columns="duration_s"), expected)
    pd.testing.assert_frame_equal(by_client.drop(columns="duration_s"), expected)
    assert (by_address["status"].astype(str) == "RUN_ERROR").sum() == len(by_address) // 2


def test_an_unreachable_scheduler_is_a_one_line_parameter_error(tmp_path):
    dask = pytest.importorskip("dask")
    from cogames_lib.errors import ParameterError

    with (
        dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        pytest.raises(
            ParameterError, match=r"scheduler: cannot connect to the Dask scheduler 'tcp://127.0.0.1:9'"
        ),
    ):
        run_sweep(
            ["noop"],
            ["memory"],
            [1],
            1,
            tmp_path,
            backend="dask",
            scheduler="tcp://127.0.0.1:9",
            progress=False,
        )
    assert not list((tmp_path / "episodes").glob("part-*"))


def test_a_scheduler_that_is_not_an_address_is_a_one_line_parameter_error(tmp_path):
    pytest.importorskip("distributed")
    from cogames_lib.errors import ParameterError

    with pytest.raises(ParameterError, match="scheduler: cannot connect to the Dask scheduler 'not a url'"):
        run_sweep(
            POLICIES[:1],
            DIAGNOSTICS[:1],
            [1],
            1,
            tmp_path,
            backend="dask",
            scheduler="not a url",
            progress=False,
        )
