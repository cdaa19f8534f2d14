"""Traces written by a sweep: stored per chunk, loaded and filtered as a tidy table."""

from __future__ import annotations

import pandas as pd
import pytest

from cogames_lib.errors import ParameterError
from cogames_lib.sweep import load_traces, run_sweep
from tests.test_sweep_fakes import FakeSpec


def test_sweep_traces_load_filtered_by_status_and_key(tmp_path):
    episodes = run_sweep(
        [FakeSpec("wander")],
        ["chest_deposit_near"],
        [1],
        6,
        tmp_path,
        workers=2,
        record_traces=True,
        progress=False,
    )
    assert set(episodes["status"].astype(str)) == {"SUCCESS", "TIMED_OUT"}
    traces = load_traces(tmp_path)
    per_episode = traces.groupby("seed")["step"].max()
    assert per_episode.to_dict() == dict(zip(episodes["seed"], episodes["steps"], strict=True))
    failed = load_traces(tmp_path, status="TIMED_OUT")
    assert set(failed["seed"]) == set(episodes.loc[episodes["status"] == "TIMED_OUT", "seed"])
    one = load_traces(
        tmp_path, diagnostic="diagnostic_chest_deposit_near", seed=int(episodes["seed"].iloc[0])
    )
    assert one["seed"].nunique() == 1 and list(one["step"]) == sorted(one["step"])
    assert {"row", "col", "vibe", "action", "action_success", "event"} <= set(traces.columns)
    short = load_traces(tmp_path, diagnostic="chest_deposit_near", seed=int(episodes["seed"].iloc[0]))
    assert short.equals(one)  # the short name selects the same rows, as in every other API
    with pytest.raises(ParameterError, match="status 'FAILED' is not one of SUCCESS"):
        load_traces(tmp_path, status="FAILED")


def test_load_traces_without_traces_is_a_clear_error(tmp_path):
    run_sweep([FakeSpec("wander")], ["chest_deposit_near"], [1], 1, tmp_path, progress=False)
    with pytest.raises(ParameterError, match="record_traces=True"):
        load_traces(tmp_path)


def test_episode_seed_tells_apart_two_sweep_seeds_in_one_directory(tmp_path):
    first = run_sweep(
        [FakeSpec("wander")], ["chest_deposit_near"], [1], 1, tmp_path, record_traces=True, progress=False
    )
    second = run_sweep(
        [FakeSpec("wander")],
        ["chest_deposit_near"],
        [1],
        1,
        tmp_path,
        record_traces=True,
        sweep_seed=5,
        progress=False,
    )
    both = load_traces(tmp_path, seed=0)
    assert set(both["episode_seed"]) == {int(first["episode_seed"][0]), int(second["episode_seed"][0])}
    one = load_traces(tmp_path, seed=0, episode_seed=int(second["episode_seed"][0]))
    assert one["episode_seed"].nunique() == 1 and one["step"].max() == int(second["steps"][0])


def test_asking_for_traces_reruns_episodes_that_were_resumed_without_them(tmp_path):
    plain = run_sweep([FakeSpec("wander")], ["chest_deposit_near"], [1], 3, tmp_path, progress=False)
    traced = run_sweep(
        [FakeSpec("wander")], ["chest_deposit_near"], [1], 3, tmp_path, record_traces=True, progress=False
    )
    assert traced.attrs["ran"] == 3 and traced.attrs["resumed"] == 0
    assert sorted(load_traces(tmp_path)["seed"].unique()) == [0, 1, 2]
    pd.testing.assert_frame_equal(plain.drop(columns="duration_s"), traced.drop(columns="duration_s"))
    again = run_sweep(
        [FakeSpec("wander")], ["chest_deposit_near"], [1], 3, tmp_path, record_traces=True, progress=False
    )
    assert again.attrs["resumed"] == 3  # now they have traces: nothing runs twice
    from cogames_lib.sweep import store

    on_disk = store.read_parts(store.episodes_dir(tmp_path))
    assert len(on_disk) == 3 and not on_disk.duplicated(list(store.EPISODE_KEY)).any()
