"""`ProcessWorldBatch` against `WorldBatch`: identical arrays and finished episodes at every step for any
number of workers, and clean shutdown (close, `with`, a worker that raises or dies)."""

from __future__ import annotations

import itertools
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from cogames_lib.cvc import rules
from cogames_lib.cvc.batch import SLOT_ARRAYS, FinishedEpisode, WorldBatch, WorldSpec
from cogames_lib.cvc.batch_processes import ProcessWorldBatch, make_world_batch, world_blocks
from cogames_lib.diagnostics import DIAGNOSTICS
from cogames_lib.errors import MapError, ParameterError, TaskError
from cogames_lib.learn.curriculum import Curriculum

MIXED = [
    "chest_deposit_near",
    "charge_up",
    "chorus_pair",
    "chest_navigation1",
    "assemble_seeded_near",
    "extract_missing_oxygen",
]
COUNTS = [1, 2, 4, 1, 2, 1, 4, 1]
SHORT_BUDGETS = (9, 14, 23)  # steps; short so that every world ends and restarts several times


def spec_of(name: str, count: int) -> WorldSpec:
    record = DIAGNOSTICS[f"diagnostic_{name}"]
    return WorldSpec(
        record.name, record.episode_map(0, count), count, record.max_steps, record.env_config(count)
    )


def short_curriculum(run_seed: int) -> Curriculum:
    """The trainer's curriculum over `MIXED` with short budgets (its draws depend on what it recorded)."""
    curriculum = Curriculum(MIXED, COUNTS, run_seed)
    for count, specs in curriculum.specs.items():
        curriculum.specs[count] = [
            replace(spec, max_steps=SHORT_BUDGETS[i % len(SHORT_BUDGETS)]) for i, spec in enumerate(specs)
        ]
    return curriculum


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging forever."""

    def expire(*_: object) -> None:
        raise TimeoutError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def play(batch: WorldBatch | ProcessWorldBatch, curriculum: Curriculum, steps: int) -> Iterator[tuple]:
    """Random actions (the same for every batch); each step's finished episodes and a copy of every array."""
    rng = np.random.default_rng(7)
    batch.reset()
    yield [], {name: getattr(batch, name).copy() for name in SLOT_ARRAYS}, list(batch.specs)
    for _ in range(steps):
        finished = batch.step(rng.integers(0, len(rules.ACTIONS), batch.num_slots))
        for episode in finished:  # as the trainer does: the next draws depend on these outcomes
            curriculum.record(episode.key, episode.num_agents, episode.success)
        yield finished, {name: getattr(batch, name).copy() for name in SLOT_ARRAYS}, list(batch.specs)


@pytest.mark.parametrize("workers", [2, 3])
def test_workers_give_the_same_arrays_and_episodes_as_one_process(workers: int) -> None:
    reference_curriculum, curriculum = short_curriculum(3), short_curriculum(3)
    reference = WorldBatch(COUNTS, reference_curriculum.next_episode)
    ended: list[FinishedEpisode] = []
    with deadline(120), ProcessWorldBatch(COUNTS, curriculum.next_episode, workers) as batch:
        assert batch.num_slots == reference.num_slots
        assert batch.first_slot.tolist() == reference.first_slot.tolist()
        assert batch.slot_world.tolist() == reference.slot_world.tolist()
        pairs = zip(play(reference, reference_curriculum, 120), play(batch, curriculum, 120), strict=True)
        for step, (expected, got) in enumerate(pairs):
            assert got[0] == expected[0], f"step {step}: finished episodes differ"
            for name in SLOT_ARRAYS:
                np.testing.assert_array_equal(got[1][name], expected[1][name], err_msg=f"step {step}: {name}")
            assert got[2] == expected[2], f"step {step}: specs differ"
            ended += got[0]
    # the comparison went through many auto-resets, of every world and of several diagnostics
    assert {episode.world for episode in ended} == set(range(len(COUNTS)))
    assert min(sum(e.world == w for e in ended) for w in range(len(COUNTS))) >= 5
    assert {"diagnostic_chorus_pair", "diagnostic_charge_up", "diagnostic_chest_deposit_near"} <= {
        e.key for e in ended
    }
    assert reference_curriculum.success == curriculum.success


def test_blocks_are_contiguous_balanced_and_refuse_too_many_workers() -> None:
    counts = [1] * 48 + [2] * 12 + [4] * 6
    blocks = world_blocks(counts, 2)
    assert blocks[0][0] == 0 and blocks[-1][1] == len(counts)
    assert all(a[1] == b[0] and a[0] < a[1] for a, b in itertools.pairwise(blocks))
    weights = [sum(c + 3 for c in counts[first:end]) for first, end in blocks]
    assert max(weights) - min(weights) <= 7  # one world's weight at most
    assert world_blocks([4, 1, 1], 3) == [(0, 1), (1, 2), (2, 3)]
    with pytest.raises(ParameterError, match="at most one per world"):
        world_blocks([1, 1], 3)
    with pytest.raises(ParameterError, match="workers must be an integer"):
        world_blocks([1, 1], 0)


def shared_files() -> set[str]:
    return set(os.listdir("/dev/shm")) if Path("/dev/shm").is_dir() else set()


def test_close_and_with_stop_every_worker_and_leave_no_shared_memory() -> None:
    spec = spec_of("chest_deposit_near", 1)
    before = shared_files()
    with deadline(60):
        batch = ProcessWorldBatch([1, 1, 1], lambda world: (spec, world), 2)
        processes = list(batch._processes)
        assert len(processes) == 1  # this process steps the first block
        batch.reset()
        batch.step(np.zeros(3, np.int64))
        batch.close()
        batch.close()  # twice is fine
        assert all(not p.is_alive() and p.exitcode == 0 for p in processes)
        with pytest.raises(ParameterError, match="closed"):
            batch.step(np.zeros(3, np.int64))
        with ProcessWorldBatch([1, 1], lambda world: (spec, world), 2) as batch:
            processes = list(batch._processes)
            batch.reset()
        assert all(not p.is_alive() for p in processes)
    assert shared_files() <= before
    assert isinstance(make_world_batch([1], lambda world: (spec, 0)), WorldBatch)


def test_a_killed_worker_is_a_one_line_error_not_a_hang() -> None:
    spec = spec_of("chest_deposit_near", 1)
    with deadline(60), ProcessWorldBatch([1, 1, 1], lambda world: (spec, world), 2) as batch:
        batch.reset()
        os.kill(batch._processes[0].pid, signal.SIGKILL)  # worker 1: the first started process
        with pytest.raises(
            TaskError, match=r"collection worker 1 \(worlds 2-2\) died \(killed by signal SIGKILL"
        ):
            batch.step(np.zeros(3, np.int64))
        assert batch.closed and not any(p.is_alive() for p in batch._processes)


def test_worker_errors_reach_the_caller_as_in_one_process() -> None:
    """A library error raised in a worker process comes back as itself; any other exception as a
    `TaskError` naming the worker, with the worker's traceback. (World 1 is the second block's: a process.)"""
    spec = spec_of("chorus_pair", 2)
    one_spawn = replace(
        spec, key="one_spawn", grid_map=replace(spec.grid_map, spawns=spec.grid_map.spawns[:1])
    )
    for make in (lambda f: WorldBatch([2, 2], f), lambda f: ProcessWorldBatch([2, 2], f, 2)):
        batch = make(lambda world: (one_spawn if world == 1 else spec, 0))
        with deadline(60), pytest.raises(MapError, match="too few spawns"):
            batch.reset()
        batch.close()
    cells = tuple(
        tuple("bogus" if name == "assembler" else name for name in row) for row in spec.grid_map.cells
    )
    broken = replace(spec, key="broken", grid_map=replace(spec.grid_map, cells=cells))
    with (
        deadline(60),
        ProcessWorldBatch([2, 2], lambda world: (broken if world == 1 else spec, 0), 2) as batch,
    ):
        with pytest.raises(TaskError, match=r"collection worker 1 \(worlds 1-1\) failed: KeyError") as caught:
            batch.reset()
        assert "Traceback" in caught.value.traceback_text and batch.closed
    with ProcessWorldBatch([2, 2], lambda world: (spec_of("chest_deposit_near", 1), 0), 2) as batch:
        with pytest.raises(ParameterError, match="world 0 has 2 agent"):
            batch.reset()
        with pytest.raises(ParameterError, match="closed"):
            batch.reset()
