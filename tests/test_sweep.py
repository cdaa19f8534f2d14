"""run_sweep: the episodes table, worker-count independence, skipped cells, orders, errors, resume, summary."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogames_lib.diagnostics import DIAGNOSTICS
from cogames_lib.errors import ParameterError
from cogames_lib.outcomes import STATUS_ORDER
from cogames_lib.stats import wilson_interval
from cogames_lib.sweep import EPISODE_COLUMNS, episode_seed, load_episodes, run_sweep, store, summarise
from tests.test_sweep_fakes import FakeSpec

DIAGNOSTICS_SMALL = ["chest_deposit_near", "assemble_seeded_near", "chorus_pair"]
POLICIES = [FakeSpec("wander"), FakeSpec("boom", "raise")]


def comparable(table: pd.DataFrame) -> pd.DataFrame:
    """Everything but the wall-clock column, which no two runs share."""
    return table.drop(columns=["duration_s"])


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("reference")
    return run_sweep(POLICIES, DIAGNOSTICS_SMALL, [1, 2], 3, out, workers=1, progress=False)


def test_the_table_has_the_contract_columns_and_one_row_per_episode(reference):
    assert list(reference.columns) == list(EPISODE_COLUMNS)
    # chest_deposit_near allows 1, assemble_seeded_near 1 and 2, chorus_pair 2: 4 cells x 3 seeds x 2 policies
    assert len(reference) == 4 * 3 * 2
    assert not reference.duplicated(["policy", "diagnostic", "num_agents", "seed"]).any()
    assert reference["sweep_id"].nunique() == 1


def test_episode_seeds_follow_the_cell_rule(reference):
    for row in reference.itertuples():
        expected = episode_seed(0, str(row.policy), str(row.diagnostic), row.num_agents, row.seed)
        assert row.episode_seed == expected


def test_disallowed_cells_are_skipped_and_reported(reference):
    skipped = {tuple(cell) for cell in reference.attrs["skipped_cells"]}
    assert skipped == {
        ("wander", "diagnostic_chest_deposit_near", 2),
        ("wander", "diagnostic_chorus_pair", 1),
        ("boom", "diagnostic_chest_deposit_near", 2),
        ("boom", "diagnostic_chorus_pair", 1),
    }
    assert reference.attrs["skipped_count"] == 4


def test_categorical_columns_keep_the_fixed_orders(tmp_path):
    table = run_sweep(
        [FakeSpec("zeta"), FakeSpec("alpha")],
        ["chorus_pair", "chest_deposit_near"],
        [1, 2],
        1,
        tmp_path,
        progress=False,
    )
    assert list(table["policy"].cat.categories) == ["zeta", "alpha"]  # as given, not alphabetical
    registry = [
        name for name in DIAGNOSTICS if name in {"diagnostic_chorus_pair", "diagnostic_chest_deposit_near"}
    ]
    assert list(table["diagnostic"].cat.categories) == registry
    assert list(table["status"].cat.categories) == list(STATUS_ORDER)
    assert list(table["policy"].astype(str)) == ["zeta", "zeta", "alpha", "alpha"]


def test_a_raising_policy_gives_run_error_rows_and_the_sweep_goes_on(reference):
    boom = reference[reference["policy"] == "boom"]
    assert (boom["status"] == "RUN_ERROR").all()
    assert (boom["error"] == "RuntimeError: policy exploded on purpose").all()
    wander = reference[reference["policy"] == "wander"]
    assert wander["status"].isin(["SUCCESS", "TIMED_OUT"]).all() and (wander["error"] == "").all()


def test_the_table_is_identical_for_one_or_two_workers_and_any_chunking(reference, tmp_path):
    two = run_sweep(POLICIES, DIAGNOSTICS_SMALL, [1, 2], 3, tmp_path / "two", workers=2, progress=False)
    pd.testing.assert_frame_equal(comparable(two), comparable(reference))
    tiny = run_sweep(
        POLICIES, DIAGNOSTICS_SMALL, [1, 2], 3, tmp_path / "tiny", workers=2, chunk_size=1, progress=False
    )
    pd.testing.assert_frame_equal(comparable(tiny), comparable(reference))


def test_a_rerun_resumes_everything_and_overwrite_recomputes(reference, tmp_path):
    first = run_sweep(POLICIES, DIAGNOSTICS_SMALL, [1, 2], 3, tmp_path, progress=False)
    again = run_sweep(POLICIES, DIAGNOSTICS_SMALL, [1, 2], 3, tmp_path, progress=False)
    assert again.attrs["ran"] == 0 and again.attrs["resumed"] == len(first)
    pd.testing.assert_frame_equal(again, first)
    with pytest.raises(ParameterError, match="holds an earlier sweep run"):  # neither resume nor overwrite
        run_sweep(POLICIES, DIAGNOSTICS_SMALL, [1, 2], 3, tmp_path, resume=False, progress=False)
    fresh = run_sweep(POLICIES, DIAGNOSTICS_SMALL, [1, 2], 3, tmp_path, overwrite=True, progress=False)
    assert fresh.attrs["ran"] == len(first)
    assert len(store.read_parts(store.episodes_dir(tmp_path))) == len(first)  # old parts were removed
    pd.testing.assert_frame_equal(comparable(fresh), comparable(reference))


def test_a_grown_grid_only_runs_the_new_cells(reference, tmp_path):
    run_sweep(POLICIES, DIAGNOSTICS_SMALL, [1, 2], 2, tmp_path, progress=False)
    grown = run_sweep(POLICIES, DIAGNOSTICS_SMALL, [1, 2], 3, tmp_path, progress=False)
    assert grown.attrs["ran"] == 8 and grown.attrs["resumed"] == 16
    pd.testing.assert_frame_equal(comparable(grown), comparable(reference))
    on_disk = store.read_parts(store.episodes_dir(tmp_path))
    assert not on_disk.duplicated(list(store.EPISODE_KEY)).any()


def test_a_different_sweep_seed_is_not_taken_for_done(tmp_path):
    first = run_sweep([FakeSpec("wander")], ["chest_deposit_near"], [1], 2, tmp_path, progress=False)
    other = run_sweep(
        [FakeSpec("wander")], ["chest_deposit_near"], [1], 2, tmp_path, sweep_seed=1, progress=False
    )
    assert other.attrs["ran"] == 2
    assert set(other["episode_seed"]).isdisjoint(first["episode_seed"])
    assert other["sweep_id"].iloc[0] != first["sweep_id"].iloc[0]


def test_files_on_disk_are_complete_and_the_final_table_loads(reference, tmp_path):
    table = run_sweep(POLICIES, DIAGNOSTICS_SMALL, [1, 2], 3, tmp_path, progress=False)
    assert not list(tmp_path.rglob("*.tmp"))
    assert (tmp_path / "manifest.json").is_file()
    pd.testing.assert_frame_equal(load_episodes(tmp_path), table)


def test_prepare_removes_temporary_files_and_orphan_trace_parts(tmp_path):
    store.prepare(tmp_path)
    stale = store.episodes_dir(tmp_path) / ".part-0.parquet.123.tmp"
    stale.write_bytes(b"half a parquet file")
    orphan = store.traces_dir(tmp_path) / "part-00000000000000ab.parquet"
    orphan.write_bytes(b"traces whose episodes never landed")
    kept_name = "part-00000000000000cd.parquet"
    store.write_chunk(tmp_path, kept_name, store.episode_frame([]), pd.DataFrame({"step": [0]}))
    store.prepare(tmp_path)
    assert not stale.exists() and not orphan.exists()
    assert (store.traces_dir(tmp_path) / kept_name).exists()


def test_summarise_counts_and_wilson_intervals(reference):
    summary = summarise(reference)
    assert list(summary.columns[:3]) == ["policy", "diagnostic", "num_agents"]
    assert summary["n"].sum() == len(reference)
    for row in summary.itertuples():
        cell = reference[
            (reference["policy"] == row.policy)
            & (reference["diagnostic"] == row.diagnostic)
            & (reference["num_agents"] == row.num_agents)
        ]
        assert row.n == len(cell) and row.successes == int(cell["success"].sum())
        assert (row.ci_low, row.ci_high) == pytest.approx(wilson_interval(row.successes, row.n))
        assert row.run_errors == int((cell["status"] == "RUN_ERROR").sum())
        assert row.timed_out == int((cell["status"] == "TIMED_OUT").sum())
    assert list(summary["policy"].astype(str).unique()) == ["wander", "boom"]


def test_progress_bar_and_skip_log_line(tmp_path, capsys, caplog):
    caplog.set_level("INFO", logger="cogames_lib.sweep")
    run_sweep([FakeSpec("wander")], ["chest_deposit_near", "chorus_pair"], [1, 2], 2, tmp_path, progress=True)
    err = capsys.readouterr().err
    assert "sweep: 100%" in err and "4/4" in err and "episode/s" in err
    assert "skipped 2 cells whose diagnostic does not allow the agent count" in caplog.text
    assert "diagnostic_chest_deposit_near x2" in caplog.text


@given(
    policies=st.lists(st.integers(1, 12), min_size=1, max_size=4),
    workers=st.integers(1, 4),
    chunk_size=st.one_of(st.none(), st.integers(1, 7)),
)
@settings(max_examples=60, deadline=None)
def test_chunks_cover_every_task_once_in_order_with_one_policy_each(policies, workers, chunk_size):
    from cogames_lib.sweep.runner import MAX_CHUNK_SIZE, EpisodeTask, make_chunks

    todo = [
        (spec, EpisodeTask("d", 1, seed, seed))
        for spec in [FakeSpec(f"p{index}") for index in range(len(policies))]
        for seed in range(policies[int(spec.name[1:])])
    ]
    chunks = make_chunks(todo, workers, False, chunk_size)
    flattened = [(chunk.policy_spec, task) for chunk in chunks for task in chunk.tasks]
    assert flattened == todo
    limit = chunk_size or MAX_CHUNK_SIZE
    assert all(1 <= len(chunk.tasks) <= limit for chunk in chunks)
