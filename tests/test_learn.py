"""The learned baseline: training (tiny), checkpoints as `learned:` policies, determinism, error paths."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from cogames_lib.cvc import rules
from cogames_lib.cvc.batch import WorldBatch, WorldSpec
from cogames_lib.cvc.observation import GRID_CHANNELS
from cogames_lib.diagnostics import DIAGNOSTICS, get_diagnostic, make_env
from cogames_lib.errors import DataFileError, ParameterError, PolicyLoadError, TrainingError, UnknownNameError
from cogames_lib.learn.curriculum import (
    NO_SHAPING,
    SUCCESS_MEMORY,
    TRAINING_SEED_BASE,
    Curriculum,
    Shaper,
    ShapingConfig,
)
from cogames_lib.learn.ppo import PPOConfig, SeedTrainer, checkpoint_steps, sample_actions, train_seed
from cogames_lib.learn.runs import RUN_FILE, run_checkpoints, train_run
from cogames_lib.policies import resolve_policy
from cogames_lib.policies.learned import (
    GRID_FEATURES,
    GRID_LOOKUP,
    NO_PREVIOUS_ACTION,
    FrameStack,
    NetworkConfig,
    NumpyNetwork,
    grid_features,
    self_features,
)
from cogames_lib.policies.learned_network import LearnedNetwork
from cogames_lib.seeding import SEED_BITS
from cogames_lib.sweep.episode import run_episode
from cogames_lib.sweep.seeds import episode_seed

TINY = PPOConfig(total_steps=20_000, worlds=(8, 2, 1), rollout_steps=32, epochs=2, minibatches=2)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("run")
    train_run(TINY, [0, 1], run_dir, checkpoints=2, command="test")
    return run_dir


def test_a_20k_step_run_writes_run_json_and_checkpoints(tiny_run: Path) -> None:
    record = json.loads((tiny_run / RUN_FILE).read_text())
    assert record["seeds"] == [0, 1] and record["command"] == "test"
    assert record["config"]["shaping"] == ShapingConfig().to_dict()
    assert {"torch", "numpy", "python"} <= set(record["libraries"])
    assert record["total_steps"] == sum(run["steps"] for run in record["runs"]) >= 40_000
    listed = run_checkpoints(tiny_run)
    assert [(seed, step) for seed, step, _ in listed][:3] == [
        (
            0,
            0,
        ),
        (0, 10240),
        (0, 20480),
    ][:3]
    assert {seed for seed, _, _ in listed} == {0, 1}
    for seed, step, path in listed:
        assert path == tiny_run / f"seed_{seed}" / f"checkpoint_{step:010d}.pt"
        assert path.stat().st_size < 2_000_000
        payload = torch.load(path, weights_only=True)
        assert payload["step"] == step and payload["seed"] == seed
    for run in record["runs"]:
        assert (tiny_run / run["final_checkpoint"]).is_file()


def test_seeds_dealt_to_worker_processes_train_the_same_checkpoints(tiny_run: Path, tmp_path: Path) -> None:
    """`workers=2` trains seed 0 and seed 1 in two processes: the same checkpoints, bit for bit, and the same
    logs as the one-process run beside it; run.json lists the seeds in the order given."""
    record = train_run(TINY, [0, 1], tmp_path, checkpoints=2, command="test", workers=2)
    assert record["workers"] == 2 and [run["seed"] for run in record["runs"]] == [0, 1]
    assert json.loads((tmp_path / RUN_FILE).read_text())["total_steps"] == record["total_steps"]
    one_process = json.loads((tiny_run / RUN_FILE).read_text())
    assert record["total_steps"] == one_process["total_steps"]
    for ours, theirs in zip(record["runs"], one_process["runs"], strict=True):
        assert ours["checkpoint_steps"] == theirs["checkpoint_steps"]
        strip = [{k: v for k, v in e.items() if k != "seconds"} for e in ours["log"]]
        assert strip == [{k: v for k, v in e.items() if k != "seconds"} for e in theirs["log"]]
    listed = run_checkpoints(tmp_path)
    assert [(s, step) for s, step, _ in listed] == [(s, step) for s, step, _ in run_checkpoints(tiny_run)]
    for (_, _, path), (_, _, reference) in zip(listed, run_checkpoints(tiny_run), strict=True):
        ours_state = torch.load(path, weights_only=True)["state_dict"]
        theirs_state = torch.load(reference, weights_only=True)["state_dict"]
        assert all(torch.equal(ours_state[k], theirs_state[k]) for k in theirs_state), path.name
    with pytest.raises(ParameterError, match="time_limit_s"):
        train_run(TINY, [0, 1], tmp_path / "limited", workers=2, time_limit_s=60.0)
    assert not (tmp_path / "limited").exists() and not list(tmp_path.glob("progress_*"))
    for seeds in ([], [3, 3]):
        with pytest.raises(ParameterError, match="seeds"):
            train_run(TINY, seeds, tmp_path / "seeds", workers=2)
    with pytest.raises(ParameterError, match="workers"):
        train_run(TINY, [0], tmp_path / "none", workers=0)
    with pytest.raises(ParameterError, match="after '@'"):  # refused before any process starts
        train_run(replace(TINY, curriculum=("chorus_pair@1",)), [0, 1], tmp_path / "bad", workers=2)
    assert not (tmp_path / "bad").exists()


def test_checkpoint_steps_are_evenly_spaced() -> None:
    assert checkpoint_steps(100, 4) == [0, 25, 50, 75, 100]


def test_learned_policy_round_trip_through_the_episode_runner(tiny_run: Path) -> None:
    _, _, final = run_checkpoints(tiny_run)[-1]
    spec = resolve_policy(f"learned:{final}")
    assert spec.name == f"learned:{final}"
    first = run_episode(spec.name, "chest_deposit_near", 1, seed=5)
    again = run_episode(spec, "chest_deposit_near", 1, seed=5)
    assert first["status"] in ("SUCCESS", "TIMED_OUT") and first["error"] == ""
    assert first["steps"] == again["steps"] and first["success"] == again["success"]
    greedy = run_episode(f"learned:{final}#greedy", "chorus_pair", 2, seed=5)
    assert greedy["policy"] == f"learned:{final}#greedy" and greedy["error"] == ""


def test_numpy_forward_equals_the_torch_network() -> None:
    torch.manual_seed(0)
    config = NetworkConfig(frames=2, hidden=16)
    network = LearnedNetwork(config)
    env = make_env("radial", 4, seed=3)
    observations, _ = env.reset(seed=3)
    grids = np.stack([o["grid"] for o in observations.values()])
    selves = np.stack([o["self"] for o in observations.values()])
    stack = FrameStack(4, 2)
    stack.push(grids)
    frames = stack.push(grids[::-1])
    rows, offsets = grid_features(frames)
    self_rows = self_features(selves, np.array([NO_PREVIOUS_ACTION, 0, 3, 17]))
    with torch.no_grad():
        logits, _ = network(torch.from_numpy(rows), torch.from_numpy(offsets), torch.from_numpy(self_rows))
    numpy_network = NumpyNetwork(config, network.state_dict())
    for i in range(4):
        end = offsets[i + 1] if i < 3 else len(rows)
        expected = logits[i].numpy()
        np.testing.assert_allclose(
            numpy_network.logits(rows[offsets[i] : end], self_rows[i]), expected, atol=1e-5
        )


def _reference_grid_features(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The numpy formulation the compiled `grid_features` replaced (vectorized, obviously in order)."""
    samples = frames.shape[0]
    flat = frames.reshape(-1)
    where = np.flatnonzero(flat)
    sample, within = np.divmod(where, flat.size // max(samples, 1))
    frame, within = np.divmod(within, len(GRID_CHANNELS) * 121)
    channel, cell = np.divmod(within, 121)
    base = GRID_LOOKUP[channel, flat[where]]
    rows = np.where(base < 0, base + (1 << 20), base + cell) + frame * GRID_FEATURES
    offsets = np.zeros(samples, np.int64)
    np.cumsum(np.bincount(sample, minlength=samples)[:-1], out=offsets[1:])
    return rows, offsets


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_grid_features_equal_the_numpy_reference_row_for_row(depth: int) -> None:
    """Real observations of a collecting batch (every channel and value the engine writes), stacked."""
    config = PPOConfig(worlds=(6, 3, 2))
    counts = config.agent_counts()
    batch = WorldBatch(counts, Curriculum(config.curriculum, counts, 0).next_episode)
    batch.reset()
    stack, rng = FrameStack(batch.num_slots, depth), np.random.default_rng(depth)
    for _ in range(60):
        frames = stack.push(batch.grids, batch.done)
        rows, offsets = grid_features(frames)
        expected_rows, expected_offsets = _reference_grid_features(frames)
        np.testing.assert_array_equal(rows, expected_rows)
        np.testing.assert_array_equal(offsets, expected_offsets)
        batch.step(rng.integers(0, len(rules.ACTIONS), batch.num_slots))
    empty_rows, empty_offsets = grid_features(np.zeros((2, depth, len(GRID_CHANNELS), 11, 11), np.uint8))
    assert empty_rows.size == 0 and empty_offsets.tolist() == [0, 0]


def test_self_features_equal_the_numpy_expressions_for_every_value() -> None:
    """The compiled rows against the numpy code they replaced, over every uint8 of every self field."""
    from cogames_lib.cvc.observation import SELF_FIELDS, SELF_INDEX
    from cogames_lib.policies import learned

    rng = np.random.default_rng(0)
    selves = rng.integers(0, 256, (2000, len(SELF_FIELDS))).astype(np.uint8)
    selves[:256] = np.arange(256, dtype=np.uint8)[:, None]
    previous = rng.integers(0, NO_PREVIOUS_ACTION + 1, len(selves))
    wide = selves.astype(np.int64)
    items = learned.NUM_ITEMS
    expected = np.concatenate(
        [
            np.minimum(wide[:, :items], learned.ITEM_BUCKETS - 1) + np.arange(items) * learned.ITEM_BUCKETS,
            learned._ENERGY_BASE
            + np.minimum(wide[:, [SELF_INDEX["energy"]]] // 16, learned.ENERGY_BUCKETS - 1),
            learned._VIBE_BASE + wide[:, [SELF_INDEX["vibe"]]],
            learned._SUCCESS_BASE + np.minimum(wide[:, [SELF_INDEX["last_action_succeeded"]]], 1),
            learned._ACTION_BASE + previous[:, None],
        ],
        axis=1,
    )
    np.testing.assert_array_equal(self_features(selves, previous), expected)
    assert self_features(selves[:0], previous[:0]).shape == (0, learned.SELF_ROWS_PER_SAMPLE)


def test_grid_features_on_random_sparse_frames_of_every_layout() -> None:
    """Values in the bytes after the last whole word, samples with no value at the start, middle and end,
    zero samples, and frames that are not C-contiguous: the compiled word scan against the reference."""
    rng = np.random.default_rng(11)
    channels = len(GRID_CHANNELS)
    for case in range(300):
        samples, depth = int(rng.integers(0, 9)), int(rng.integers(1, 4))
        frames = np.zeros((samples, depth, channels, 11, 11), np.uint8)
        mask = rng.random(frames.shape) < rng.choice([0.0, 0.002, 0.03])
        frames[mask] = rng.integers(1, 3, int(mask.sum()))
        if samples:
            frames[rng.integers(0, samples), ...] = 0  # an empty sample
            frames.reshape(-1)[-1] = 1  # the very last byte: past the last whole word when size % 8 != 0
        layouts = [frames, frames[::-1], np.asfortranarray(frames)]
        if samples > 1:
            layouts.append(frames[::2])
        for layout in layouts:
            rows, offsets = grid_features(layout)
            expected_rows, expected_offsets = _reference_grid_features(np.ascontiguousarray(layout))
            np.testing.assert_array_equal(rows, expected_rows, err_msg=str(case))
            np.testing.assert_array_equal(offsets, expected_offsets, err_msg=str(case))
    with pytest.raises(ValueError, match="uint8"):
        grid_features(np.zeros((1, 1, channels, 11, 11), np.int64))


def test_self_features_refuse_a_previous_action_count_that_does_not_match() -> None:
    from cogames_lib.cvc.observation import SELF_FIELDS

    with pytest.raises(ValueError, match="one previous action per sample"):
        self_features(np.zeros((4, len(SELF_FIELDS)), np.uint8), np.zeros(2, np.int64))


def test_grid_features_name_each_non_zero_value_once() -> None:
    env = make_env("chest_deposit_near", 1, seed=0)
    observations, _ = env.reset(seed=0)
    grid = observations["agent_0"]["grid"]
    rows, offsets = grid_features(FrameStack(1, 1).push(grid[None]))
    assert offsets.tolist() == [0] and len(rows) == np.count_nonzero(grid)
    assert rows.min() >= 0 and rows.max() < NetworkConfig().grid_features


def test_same_seed_same_numbers_other_seed_other_numbers() -> None:
    config = replace(TINY, total_steps=1_000)
    states = []
    for seed in (4, 4, 5):
        saved: dict[int, dict] = {}
        train_seed(config, seed, on_checkpoint=lambda step, state, saved=saved: saved.update({step: state}))
        states.append(saved[max(saved)])
    for name in states[0]:
        assert torch.equal(states[0][name], states[1][name]), name
    assert not all(torch.equal(states[0][name], states[2][name]) for name in states[0])


def test_collection_workers_do_not_change_the_numbers() -> None:
    """The same log (losses, training-episode successes) and weights with the worlds stepped in this process
    and in 2 worker processes, across auto-resets (the short diagnostics end within the run); the gated
    novelty reads each world's task from either batch."""
    results = []
    for workers in (1, 2):
        config = replace(TINY, total_steps=4_000, collect_workers=workers)  # the gated novelty by default
        saved: dict[int, dict] = {}
        result = train_seed(
            config, 6, on_checkpoint=lambda step, state, saved=saved: saved.update({step: state})
        )
        results.append(
            ([{k: v for k, v in e.items() if k != "seconds"} for e in result.log], saved[max(saved)])
        )
    (log_one, state_one), (log_two, state_two) = results
    assert log_one == log_two
    assert sum(int(n.split("/")[1]) for e in log_one for n in e["train_success"].values()) >= 5
    for name in state_one:
        assert torch.equal(state_one[name], state_two[name]), name
    with pytest.raises(ParameterError, match="collect_workers"):
        replace(TINY, collect_workers=12)


@pytest.mark.parametrize("workers", [1, 2])
def test_the_gate_reads_the_task_each_step_belongs_to(workers: int) -> None:
    """In a rollout the gate scales each slot's novelty by 1 - the success rate of the episode that step
    belongs to: read before the step's auto-resets (a finished world's next task has another rate) and the
    same through the in-process and the multi-process batch."""
    tasks = ("chest_deposit_near", "assemble_seeded_near")  # budgets 250 and 50: worlds restart mid-rollout
    config = replace(TINY, worlds=(8, 0, 0), rollout_steps=120, curriculum=tasks, collect_workers=workers)
    trainer = SeedTrainer(config, 5)
    try:
        trainer.curriculum.success[("diagnostic_chest_deposit_near", 1)] = 0.9
        trainer.curriculum.success[("diagnostic_assemble_seeded_near", 1)] = 0.5  # each end moves it
        expected: list[list[float]] = []
        seen: list[list[float]] = []
        step, rewards = trainer.batch.step, trainer.shaper.rewards

        def spied_step(actions: np.ndarray) -> list:
            rates = trainer.curriculum.success
            expected.append([1.0 - rates[(spec.key, 1)] for spec in trainer.batch.specs])
            return step(actions)

        def spied_rewards(batch: object, steps: int, unsolved: np.ndarray | None = None) -> np.ndarray:
            assert unsolved is not None
            seen.append(unsolved.tolist())
            return rewards(batch, steps, unsolved)  # type: ignore[arg-type]

        trainer.batch.step = spied_step  # type: ignore[method-assign]
        trainer.shaper.rewards = spied_rewards  # type: ignore[method-assign]
        trainer.update()
    finally:
        trainer.close()
    assert len(seen) == 120
    np.testing.assert_allclose(np.array(seen), np.array(expected), rtol=1e-6)
    assert len({tuple(np.round(row, 6)) for row in seen}) > 2  # both tasks, rates that change as episodes end


def test_the_train_command_takes_collect_workers(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from cogames_lib.cli import main

    arguments = [
        "learn",
        "train",
        "--steps",
        "500",
        "--worlds",
        "4",
        "2",
        "1",
        "--checkpoints",
        "1",
        "--quiet",
    ]
    assert (
        main([*arguments, "--out", str(tmp_path / "run"), "--collect-workers", "2", "--assembly", "0.5",
              "--no-novelty-gate", "--novelty-until", "1500000"]) == 0
    )  # fmt: skip
    config = json.loads((tmp_path / "run" / RUN_FILE).read_text())["config"]
    assert config["collect_workers"] == 2 and config["lr_anneal"] == 0.0
    annealed = ShapingConfig(assembly=0.5, novelty_gate=False, novelty_until=1_500_000)
    assert config["shaping"] == annealed.to_dict() != ShapingConfig(assembly=0.5).to_dict()
    assert main([*arguments, "--out", str(tmp_path / "gated"), "--novelty-until", "2000000"]) == 0
    gated = json.loads((tmp_path / "gated" / RUN_FILE).read_text())["config"]["shaping"]
    assert gated == ShapingConfig(novelty_until=2_000_000).to_dict() and gated["novelty_gate"] is True
    assert main([*arguments, "--out", str(tmp_path / "no"), "--no-shaping", "--novelty-gate"]) == 0
    assert json.loads((tmp_path / "no" / RUN_FILE).read_text())["config"]["shaping"]["novelty_gate"] is True
    assert main([*arguments, "--out", str(tmp_path / "anneal"), "--lr-anneal", "0.25"]) == 0
    assert json.loads((tmp_path / "anneal" / RUN_FILE).read_text())["config"]["lr_anneal"] == 0.25
    assert main([*arguments, "--out", str(tmp_path / "bad"), "--collect-workers", "8"]) == 2
    assert "collect_workers: at most one per world (7), got 8" in capsys.readouterr().err
    assert main([*arguments, "--out", str(tmp_path / "bad"), "--assembly", "-1"]) == 2
    assert "shaping: assembly must be >= 0, got -1.0" in capsys.readouterr().err
    assert main([*arguments, "--out", str(tmp_path / "bad"), "--lr-anneal", "2"]) == 2
    assert "lr_anneal: a fraction of the run in [0, 1], got 2.0" in capsys.readouterr().err


def test_training_seeds_never_overlap_evaluation_seeds() -> None:
    curriculum = Curriculum(["chest_deposit_near", "chorus_pair"], [1, 2], run_seed=0)
    training = {curriculum.next_episode(world)[1] for world in (0, 1) for _ in range(50)}
    assert len(training) == 100 and min(training) >= TRAINING_SEED_BASE
    evaluation = episode_seed(0, "random", "diagnostic_chest_deposit_near", 1, 0)
    assert evaluation < 2**SEED_BITS <= TRAINING_SEED_BASE
    spec, _ = curriculum.next_episode(1)
    assert spec.key == "diagnostic_chorus_pair"  # the only one of the two that allows 2 agents


def _shaping_batch(positions: list[int], items: np.ndarray, done: list[bool]) -> WorldBatch:
    """A two-world batch of one agent each whose arrays the test sets by hand."""
    batch = WorldBatch([1, 1], lambda world: (_spec("chest_deposit_near"), world))
    batch.reset()
    batch.positions[:] = positions
    batch.items[:] = items
    batch.done[:] = done
    return batch


def _spec(name: str, agents: int = 1) -> WorldSpec:
    record = get_diagnostic(name)
    return WorldSpec(
        record.name, record.episode_map(0, agents), agents, record.max_steps, record.env_config(agents)
    )


def test_shaping_is_switchable_and_counts_new_cells_and_items() -> None:
    no_items = np.zeros((2, 6), np.int64)
    batch = _shaping_batch([5, 6], no_items + 1, [False, False])
    batch.selves[:, :6] = 0
    off = Shaper(NO_SHAPING, 0.99, batch)
    assert off.rewards(batch, 0).tolist() == [0.0, 0.0]
    batch.items[:] = 0
    annealed = ShapingConfig(novelty=0.5, novelty_until=100, novelty_gate=False, pickup=0.25, assembly=0.0)
    shaper = Shaper(annealed, 0.99, batch)
    batch.items[0, 1] = 3
    assert shaper.rewards(batch, 0).tolist() == [0.75, 0.5]
    batch.positions[:] = [5, 7]
    batch.done[:] = [False, True]
    assert shaper.rewards(batch, 50).tolist() == [0.0, 0.25]  # cell 5 seen, items not higher; novelty halved
    batch.done[:] = False
    assert shaper.rewards(batch, 50).tolist() == [0.0, 0.25]
    batch.selves[1, 2] = 4  # slot 1's next episode starts holding 4 of item 2: its high mark, not a pickup
    batch.done[:] = [False, True]
    shaper.rewards(batch, 100)
    batch.done[:] = False
    batch.items[1] = batch.selves[1, :6]
    assert shaper.rewards(batch, 100).tolist() == [0.0, 0.0]
    batch.items[1, 2] = 5
    assert shaper.rewards(batch, 100).tolist() == [0.0, 0.25]


def test_gated_novelty_follows_each_task_s_unsolved_rate_not_the_step_count() -> None:
    """--novelty-gate: each slot's bonus is scaled by 1 - its task's success, and grows (not anneals) with steps."""
    curriculum = Curriculum(["chest_deposit_near", "chorus_pair"], [1, 2], run_seed=0)
    specs = [curriculum.next_episode(world)[0] for world in (0, 1)]
    for _ in range(40):
        curriculum.record("diagnostic_chest_deposit_near", 1, True)
    unsolved = curriculum.unsolved(specs, np.array([0, 1, 1]))
    solved = 1.0 - (1.0 - SUCCESS_MEMORY) ** 40
    assert unsolved == pytest.approx([1.0 - solved, 1.0, 1.0])
    batch = _shaping_batch([5, 6], np.zeros((2, 6), np.int64), [False, False])
    gated = ShapingConfig(novelty=0.5, novelty_until=100, novelty_gate=True, pickup=0.0, assembly=0.0)
    shaper = Shaper(gated, 0.99, batch)
    assert shaper.rewards(batch, 0, np.array([0.25, 1.0], np.float32)).tolist() == [0.125, 0.5]
    batch.positions[:] = [6, 9]  # cell 6 is new to slot 0; cell 9 to slot 1
    assert shaper.rewards(batch, 50, np.array([1.0, 0.0], np.float32)).tolist() == [0.75, 0.0]
    batch.positions[:] = [8, 10]
    assert shaper.rewards(batch, 10_000, np.array([1.0, 0.5], np.float32)).tolist() == [1.0, 0.5]  # grown 2x
    assert gated.novelty_at(10**9) == 2 * gated.novelty == 2 * replace(gated, novelty_until=0).novelty_at(5)
    batch.positions[:] = [7, 8]
    with pytest.raises(ParameterError, match="novelty_gate needs"):
        shaper.rewards(batch, 10_000)


def test_assembly_potential_rewards_each_step_of_the_heart_chain_once() -> None:
    """Showing heart_a with the recipe, beside the assembler, assembling, turning to a deposit vibe: each
    step pays gamma * phi(s') - phi(s); undoing a step pays it back; an episode's end returns the rest."""
    from cogames_lib.cvc.observation import CHANNEL, SELF_INDEX, VIEW_RADIUS
    from cogames_lib.cvc.rules import HEART, ITEM_INDEX, VIBE_INDEX

    batch = _shaping_batch([0, 0], np.zeros((2, 6), np.int64), [False, False])
    batch.selves[:] = 0
    batch.grids[:, CHANNEL["assembler"]] = 0
    batch.selves[:, ITEM_INDEX["carbon"]] = 2
    shaper = Shaper(ShapingConfig(novelty=0.0, pickup=0.0, assembly=1.0), 0.5, batch)
    vibe = SELF_INDEX["vibe"]

    def step(done: bool = False) -> float:
        batch.done[:] = done
        return round(float(shaper.rewards(batch, 0)[0]), 6)

    assert step() == 0.0
    batch.selves[0, vibe] = VIBE_INDEX["heart_a"]
    assert step() == 0.05  # 0.5 * 0.1 - 0
    batch.grids[0, CHANNEL["assembler"], VIEW_RADIUS - 1, VIEW_RADIUS] = 1
    assert step() == 0.1 - 0.1  # 0.5 * 0.2 - 0.1
    batch.selves[0, ITEM_INDEX["carbon"]] = 0
    batch.selves[0, HEART] = 1
    assert step() == round(0.5 * 0.3 - 0.2, 6)
    assert step(done=False) == round(0.5 * 0.3 - 0.3, 6)
    batch.selves[0, vibe] = VIBE_INDEX["default"]
    assert step() == round(0.5 * 0.5 - 0.3, 6)
    batch.selves[0, HEART] = 0  # the next episode starts showing heart_a with the recipe beside the assembler
    batch.selves[0, ITEM_INDEX["carbon"]] = 2
    batch.selves[0, vibe] = VIBE_INDEX["heart_a"]
    assert step(done=True) == -0.5  # the episode ended: phi(s') = 0, the potential held is given back
    assert step() == round(0.5 * 0.2 - 0.2, 6)  # phi(s) is now the new episode's start (0.2), not 0
    assert float(shaper.rewards(batch, 0)[1]) == 0.0  # the other world never moved along the chain


def test_beside_means_one_of_the_four_cells_next_to_the_agent() -> None:
    from cogames_lib.cvc.observation import CHANNEL, SELF_INDEX, VIEW_RADIUS
    from cogames_lib.cvc.rules import ITEM_INDEX, VIBE_INDEX
    from cogames_lib.learn.curriculum import assembly_potential

    batch = _shaping_batch([0, 0], np.zeros((2, 6), np.int64), [False, False])
    batch.selves[:] = 0
    batch.selves[:, ITEM_INDEX["oxygen"]] = 1
    batch.selves[:, SELF_INDEX["vibe"]] = VIBE_INDEX["heart_a"]
    r = VIEW_RADIUS
    for (row, col), beside in {(r - 1, r): True, (r + 1, r): True, (r, r - 1): True, (r, r + 1): True,
                               (r - 1, r - 1): False, (r - 2, r): False}.items():  # fmt: skip
        batch.grids[:, CHANNEL["assembler"]] = 0
        batch.grids[0, CHANNEL["assembler"], row, col] = 1
        assert assembly_potential(batch).tolist() == pytest.approx([0.2 if beside else 0.1, 0.1]), (row, col)


def test_a_partner_gains_when_the_heart_is_assembled_from_its_resources() -> None:
    from cogames_lib.cvc.rules import HEART, ITEM_INDEX

    batch = WorldBatch([2], lambda world: (_spec("chorus_pair", 2), 0))
    batch.reset()
    batch.selves[:] = 0
    batch.selves[1, ITEM_INDEX["silicon"]] = 3
    shaper = Shaper(ShapingConfig(novelty=0.0, pickup=0.0, assembly=1.0), 1.0, batch)
    batch.selves[1, ITEM_INDEX["silicon"]] = 0
    batch.selves[0, HEART] = 1
    partner = float(shaper.rewards(batch, 0)[1])
    assert partner == pytest.approx(0.3)  # the world holds a heart; agent 1 holds none itself


def test_missing_and_foreign_checkpoints_give_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(PolicyLoadError, match="not found"):
        resolve_policy(f"learned:{tmp_path / 'missing.pt'}")
    text = tmp_path / "notes.pt"
    text.write_text("hello")
    with pytest.raises(DataFileError, match="not a readable learned-policy checkpoint") as caught:
        resolve_policy(f"learned:{text}")
    assert "\n" not in str(caught.value)
    other = tmp_path / "other.pt"
    torch.save({"population": []}, other)
    with pytest.raises(DataFileError, match="not a learned-policy checkpoint"):
        resolve_policy(f"learned:{other}")
    with pytest.raises(UnknownNameError, match="checkpoint path"):
        resolve_policy("learned:")


def test_every_curriculum_diagnostic_is_normal_tier() -> None:
    assert PPOConfig().curriculum == tuple(DIAGNOSTICS)


def test_the_policy_stacks_frames_like_the_trainer(tmp_path: Path) -> None:
    """Over an episode the policy's rows equal the trainer's `grid_features` of its `FrameStack`."""
    from cogames_lib.policies.learned import LearnedPolicy, checkpoint_payload

    config = NetworkConfig(frames=3, hidden=8)
    path = tmp_path / "three.pt"
    torch.save(checkpoint_payload(config, LearnedNetwork(config).state_dict(), step=0, seed=0), path)
    policy = LearnedPolicy(str(path))
    policy.reset(0, 1, 0)
    env = make_env("chest_deposit_search", 1, seed=1)
    observations, _ = env.reset(seed=1)
    stack = FrameStack(1, 3)
    seen = []
    original = policy.network.logits
    policy.network.logits = lambda rows, self_rows: (seen.append(np.sort(rows)), original(rows, self_rows))[1]  # type: ignore[method-assign]
    for _ in range(5):
        action = policy.act(observations["agent_0"])
        expected, _ = grid_features(stack.push(observations["agent_0"]["grid"][None]))
        np.testing.assert_array_equal(seen[-1], np.sort(expected))
        observations, *_ = env.step({"agent_0": action})


def test_a_time_limited_run_is_a_prefix_of_the_planned_run(tmp_path: Path) -> None:
    """Constant learning rate, shaping by steps done and the run's own history: the checkpoint after one rollout of a two-rollout
    run equals the final checkpoint of a one-rollout run; a zero time limit stops at step 0 for every seed."""
    one_rollout = replace(TINY, total_steps=1)
    size = sum(n * w for n, w in zip((1, 2, 4), TINY.worlds, strict=True)) * TINY.rollout_steps
    short = train_run(one_rollout, [3], tmp_path / "short", checkpoints=1)
    long = train_run(replace(TINY, total_steps=2 * size), [3], tmp_path / "long", checkpoints=2)
    assert short["runs"][0]["steps"] == size and long["runs"][0]["checkpoint_steps"] == [0, size, 2 * size]
    first = torch.load(tmp_path / "short" / short["runs"][0]["final_checkpoint"], weights_only=True)
    middle = torch.load(tmp_path / "long" / "seed_3" / f"checkpoint_{size:010d}.pt", weights_only=True)
    for name, value in first["state_dict"].items():
        assert torch.equal(value, middle["state_dict"][name]), name
    with pytest.raises(ParameterError, match=r"time_limit_s .* with lr_anneal"):
        train_run(replace(TINY, lr_anneal=0.2), [0], tmp_path / "annealed", time_limit_s=60.0)
    assert not (tmp_path / "annealed").exists()
    stopped = train_run(TINY, [0, 1], tmp_path / "stopped", checkpoints=4, time_limit_s=0.0)
    assert stopped["stopped_by_time_limit"] and [run["steps"] for run in stopped["runs"]] == [0, 0]
    assert [seed for seed, _, _ in run_checkpoints(tmp_path / "stopped")] == [0, 1]


def test_run_sweep_accepts_a_learned_policy(tiny_run: Path, tmp_path: Path) -> None:
    from cogames_lib.sweep import run_sweep

    _, _, final = run_checkpoints(tiny_run)[-1]
    table = run_sweep(
        [f"learned:{final}"], ["chest_deposit_near"], [1], 2, tmp_path / "sweep", progress=False
    )
    assert table["policy"].tolist() == [f"learned:{final}"] * 2
    assert set(table["status"]) <= {"SUCCESS", "TIMED_OUT"}


def test_a_progress_entry_holds_plain_numbers() -> None:
    from cogames_lib.learn.ppo import _log_entry

    entry = _log_entry(3, 640, 1.25, np.array([0.5, 0.25, 4.0, 2.0]), [("diagnostic_memory", 1, True)])
    assert entry["policy_loss"] == 0.25 and entry["entropy"] == 2.0
    assert "np." not in repr(entry)  # the progress line prints the entry
    assert entry["train_success"] == {"memory@1": "1/1"}


def test_curriculum_gives_unsolved_tasks_equal_shares_of_steps_not_episodes() -> None:
    """assemble_seeded_near (budget 50) is drawn about 5x as often as chest_deposit_near (250) while both
    are unsolved; once one is solved it is drawn a quarter as often as before."""
    curriculum = Curriculum(["chest_deposit_near", "assemble_seeded_near"], [1], run_seed=3)
    draws = [curriculum.next_episode(0)[0].key for _ in range(3000)]
    short = draws.count("diagnostic_assemble_seeded_near") / draws.count("diagnostic_chest_deposit_near")
    assert 4.0 < short < 6.3
    for _ in range(200):
        curriculum.record("diagnostic_assemble_seeded_near", 1, True)
    draws = [curriculum.next_episode(0)[0].key for _ in range(3000)]
    solved = draws.count("diagnostic_assemble_seeded_near") / draws.count("diagnostic_chest_deposit_near")
    assert 1.0 < solved < 1.6  # 5 * 0.25 = 1.25


def test_solved_drop_sets_how_often_a_solved_task_is_still_drawn() -> None:
    """With solved_drop 0.5 a solved task is drawn half as often as while unsolved (5 * 0.5 = 2.5 times
    chest_deposit_near here); out-of-range values are one-line errors in the config and the curriculum."""
    curriculum = Curriculum(["chest_deposit_near", "assemble_seeded_near"], [1], run_seed=3, solved_drop=0.5)
    for _ in range(200):
        curriculum.record("diagnostic_assemble_seeded_near", 1, True)
    draws = [curriculum.next_episode(0)[0].key for _ in range(3000)]
    solved = draws.count("diagnostic_assemble_seeded_near") / draws.count("diagnostic_chest_deposit_near")
    assert 2.1 < solved < 2.9
    for bad in (1.0, -0.1):
        with pytest.raises(ParameterError, match="solved_drop"):
            PPOConfig(solved_drop=bad)
        with pytest.raises(ParameterError, match="solved_drop"):
            Curriculum(["chest_deposit_near"], [1], run_seed=3, solved_drop=bad)
    assert PPOConfig().to_dict()["solved_drop"] == 0.75


def test_lr_anneal_lowers_the_rate_over_the_last_fraction_and_leaves_the_updates_before_it_alone() -> None:
    """CleanRL's linear schedule over the last `lr_anneal` of the planned updates. Of 4 updates with 0.5 the
    first 3 run at the full rate (weights equal to a constant run's after each: applied one update early,
    the third would differ) and the last at half (applied one update late, the fourth would not differ)."""
    planned = replace(TINY, total_steps=4 * TINY.rollout_size())
    assert planned.planned_updates() == 4
    rate = planned.learning_rate
    half = replace(planned, lr_anneal=0.5)
    assert [half.learning_rate_at(u) for u in range(4)] == [rate, rate, rate, rate / 2]
    whole = replace(planned, lr_anneal=1.0)
    assert [whole.learning_rate_at(u) for u in range(4)] == [rate, rate * 3 / 4, rate / 2, rate / 4]
    assert [planned.learning_rate_at(u) for u in range(4)] == [rate] * 4
    assert half.learning_rate_at(4) == half.learning_rate_at(9) == 0.0  # past the plan: never negative
    tenth = replace(
        TINY, total_steps=30 * TINY.rollout_size(), lr_anneal=0.1
    )  # a window of 3.0000000000000004
    assert [tenth.learning_rate_at(u) for u in (26, 27)] == [rate, rate]
    assert tenth.learning_rate_at(29) == pytest.approx(rate / 3)

    constant, annealed = SeedTrainer(planned, 5), SeedTrainer(half, 5)
    try:
        for update in range(1, 5):
            constant.update()
            annealed.update()
            same = [torch.equal(v, annealed.state_dict()[k]) for k, v in constant.state_dict().items()]
            assert all(same) if update < 4 else not all(same), update
        assert annealed.optimizer.param_groups[0]["lr"] == rate / 2
        assert constant.optimizer.param_groups[0]["lr"] == rate
    finally:
        constant.close()
        annealed.close()
    for bad in (-0.1, 1.5):
        with pytest.raises(ParameterError, match="lr_anneal"):
            PPOConfig(lr_anneal=bad)
    assert PPOConfig().to_dict()["lr_anneal"] == 0.0


def test_map_symmetries_draw_each_mirror_per_episode_and_leave_runs_without_them_unchanged() -> None:
    names, counts = ["chest_navigation1", "chorus_pair"], [1, 2]
    plain = Curriculum(names, counts, run_seed=5)
    empty = Curriculum(names, counts, run_seed=5, symmetries=())
    assert [plain.next_episode(w % 2) for w in range(40)] == [empty.next_episode(w % 2) for w in range(40)]
    mirrored_curriculum = Curriculum(names, counts, run_seed=5, symmetries=("left_right", "rotate_cw"))
    drawn = [mirrored_curriculum.next_episode(1)[0] for _ in range(300)]
    assert {spec.key for spec in drawn} == {"diagnostic_chorus_pair"}  # the task is kept, only the map varies
    names_drawn = {spec.grid_map.name for spec in drawn}
    base = get_diagnostic("chorus_pair").episode_map(0, 2)
    assert names_drawn == {base.name, f"{base.name}_mirror_left_right", f"{base.name}_mirror_rotate_cw"}
    turned = next(spec for spec in drawn if spec.grid_map.name.endswith("rotate_cw"))
    assert (turned.grid_map.height, turned.grid_map.width) == (base.width, base.height)
    # success is the task's, whichever map it was played on
    mirrored_curriculum.record("diagnostic_chorus_pair", 2, True)
    assert mirrored_curriculum.success[("diagnostic_chorus_pair", 2)] > 0
    with pytest.raises(ParameterError, match=r"map_symmetries: unknown kind\(s\) \['diagonal'\]"):
        PPOConfig(map_symmetries=("left_right", "diagonal"))
    with pytest.raises(ParameterError, match="map_symmetries: each kind at most once"):
        PPOConfig(map_symmetries=("both", "both"))
    with pytest.raises(ParameterError, match="map_symmetries: each kind at most once"):
        Curriculum(names, counts, run_seed=5, symmetries=("both", "both"))
    # the order the kinds are given in does not change the run
    one = Curriculum(names, counts, run_seed=5, symmetries=("rotate_cw", "left_right"))
    other = Curriculum(names, counts, run_seed=5, symmetries=("left_right", "rotate_cw"))
    assert [one.next_episode(1) for _ in range(30)] == [other.next_episode(1) for _ in range(30)]


def test_a_run_trained_on_mirrors_records_them_and_plays_the_mirrored_maps(tmp_path: Path) -> None:
    config = PPOConfig(
        total_steps=2_000,
        worlds=(4, 1, 0),
        rollout_steps=16,
        curriculum=("chest_navigation1", "chorus_pair"),
        map_symmetries=("top_bottom", "transpose"),
    )
    train_run(config, [0], tmp_path / "run", 1, "cpu", "test", False, None)
    record = json.loads((tmp_path / "run" / RUN_FILE).read_text(encoding="utf-8"))
    assert record["config"]["map_symmetries"] == ["top_bottom", "transpose"]
    weights = []
    for workers in (1, 2):  # in process and fanned out: every world plays the map its spec names
        trainer = SeedTrainer(replace(config, collect_workers=workers), seed=0)
        batch = trainer.batch
        inner = getattr(batch, "batch", batch)  # a fanned-out batch's worlds are in its workers
        played: dict[int, set[str]] = {world: set() for world in range(len(config.agent_counts()))}
        for _ in range(12):
            trainer.update()
            for world, spec in enumerate(batch.specs):
                played[world].add(spec.grid_map.name)
                if workers == 1:
                    assert inner.worlds[world].grid_map.name == spec.grid_map.name
        names = set().union(*played.values())
        assert any(name.endswith("_mirror_transpose") for name in names)
        assert any(name.endswith("_mirror_top_bottom") for name in names)
        assert max(len(maps) for maps in played.values()) > 1  # one world plays several maps over time
        weights.append([parameter.detach().clone() for parameter in trainer.network.parameters()])
        batch.close()
    assert all(torch.equal(a, b) for a, b in zip(*weights, strict=True))  # the fan-out plays the same maps


def test_rollout_sampler_draws_each_action_at_its_probability() -> None:
    probabilities = np.array([0.5, 0.0, 0.2, 0.3], np.float32)
    with np.errstate(divide="ignore"):
        rows = np.log(np.tile(probabilities, (40_000, 1)))  # log(0) = -inf: that action is never drawn
    drawn = sample_actions(rows, np.random.default_rng(1))
    frequencies = np.bincount(drawn, minlength=4) / len(drawn)
    assert frequencies[1] == 0
    np.testing.assert_allclose(frequencies, probabilities, atol=0.01)  # 4 standard errors at 40,000 draws
    assert np.array_equal(drawn, sample_actions(rows, np.random.default_rng(1)))
    assert not np.array_equal(drawn, sample_actions(rows, np.random.default_rng(2)))


def test_rollout_sampler_refuses_non_finite_probabilities() -> None:
    rows = np.zeros((3, 18), np.float32)
    rows[1, 4] = np.nan
    with pytest.raises(TrainingError, match="training diverged"):
        sample_actions(rows, np.random.default_rng(0))


def test_minibatch_bags_gather_each_chosen_samples_rows_in_order() -> None:
    from cogames_lib.learn.ppo import _gather_bags

    counts = np.array([3, 0, 2, 4], np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    rows = np.arange(100, 100 + counts.sum(), dtype=np.int64)  # sample 0: 100-102, 2: 103-104, 3: 105-108
    gathered, offsets = _gather_bags(rows, starts, counts, np.array([3, 1, 0, 2], np.int64))
    assert gathered.tolist() == [105, 106, 107, 108, 100, 101, 102, 103, 104]
    assert offsets.tolist() == [0, 4, 4, 7]


def test_a_seed_trains_the_same_alone_or_beside_other_seeds(tiny_run: Path, tmp_path: Path) -> None:
    """A run of several seeds may be split over processes (one command per group of seeds): each seed's
    weights do not depend on which seeds train beside it."""
    train_run(TINY, [1], tmp_path, checkpoints=2, command="test")
    for (_, step, beside), (_, alone_step, alone) in zip(
        [c for c in run_checkpoints(tiny_run) if c[0] == 1], run_checkpoints(tmp_path), strict=True
    ):
        assert step == alone_step
        weights = torch.load(beside, weights_only=True)["state_dict"]
        for name, tensor in torch.load(alone, weights_only=True)["state_dict"].items():
            assert torch.equal(tensor, weights[name]), (step, name)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_training_runs_and_its_checkpoint_plays_on_the_cpu(tmp_path: Path) -> None:
    """`--device cuda` just works: two runs of one seed agree up to float rounding (the table gradient
    falls back to torch's `EmbeddingBag`, whose CUDA backward adds atomically), the weights stay finite,
    and the checkpoint, saved from the GPU, plays through the CPU episode runner."""
    runs = []
    for name in ("a", "b"):
        train_run(TINY, [0], tmp_path / name, checkpoints=1, command="test", device="cuda")
        runs.append(torch.load(run_checkpoints(tmp_path / name)[-1][2], weights_only=True))
    for key, value in runs[0]["state_dict"].items():
        assert value.device.type == "cpu" and torch.isfinite(value).all(), key
        assert torch.allclose(value, runs[1]["state_dict"][key], atol=1e-3, rtol=1e-3), key
    final = run_checkpoints(tmp_path / "a")[-1][2]
    episode = run_episode(f"learned:{final}", "chest_deposit_near", 1, seed=5)
    assert episode["error"] == "" and episode["status"] in ("SUCCESS", "TIMED_OUT")


def test_a_curriculum_entry_can_name_the_agent_counts_it_trains_at(tmp_path: Path) -> None:
    """`name@1` keeps a task out of the 2- and 4-agent worlds; the other entries are drawn as before."""
    curriculum = Curriculum(
        ["extract_missing_carbon@1", "chorus_pair", "assemble_seeded_near@1,2"], [1, 2], 0
    )
    assert curriculum.names == (
        "diagnostic_extract_missing_carbon@1",
        "diagnostic_chorus_pair",
        "diagnostic_assemble_seeded_near@1,2",
    )
    assert [s.key for s in curriculum.specs[1]] == [
        "diagnostic_extract_missing_carbon",
        "diagnostic_assemble_seeded_near",
    ]
    assert [s.key for s in curriculum.specs[2]] == [
        "diagnostic_chorus_pair",
        "diagnostic_assemble_seeded_near",
    ]
    with pytest.raises(ParameterError, match="no diagnostic"):
        Curriculum(["extract_missing_carbon@1", "chorus_pair"], [1, 2, 4], 0)  # nothing left for 4 agents
    for bad in ("chorus_pair@1", "chest_deposit_near@3", "charge_up@x", "charge_up@"):
        with pytest.raises(ParameterError, match=r"after '@'"):
            Curriculum([bad], [1], 0)
    with pytest.raises(UnknownNameError):
        Curriculum(["no_such_task@1"], [1], 0)
    with pytest.raises(ParameterError, match="more than once"):
        Curriculum(["extract_missing_carbon", "extract_missing_carbon@1"], [1], 0)
    with pytest.raises(ParameterError, match="hard-tier"):
        Curriculum(["chest_deposit_near_hard"], [1], 0)
    plain = Curriculum(["extract_missing_carbon", "chorus_pair"], [1, 2], 0)
    assert [s.key for s in plain.specs[2]] == ["diagnostic_extract_missing_carbon", "diagnostic_chorus_pair"]
