"""The compiled shaping terms against the numpy expressions they replaced, bit for bit, on random states.

The reference below is the numpy code of `Shaper.rewards` and `assembly_potential` before they were compiled
(27 Nov 2026): training results depend on every bit of the bonus, so the kernels must keep its precision."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from cogames_lib.cvc import rules
from cogames_lib.cvc.batch import slot_layout
from cogames_lib.cvc.observation import CHANNEL, GRID_CHANNELS, SELF_FIELDS, SELF_INDEX, VIEW_SIZE
from cogames_lib.learn.curriculum import (
    ASSEMBLY_POTENTIAL,
    BESIDE_ASSEMBLER,
    Shaper,
    ShapingConfig,
    assembly_potential,
)

_RECIPE = [rules.ITEM_INDEX[resource] for resource in rules.RESOURCES]
_DEPOSITS = np.isin(
    np.arange(len(rules.VIBES)), [rules.VIBE_INDEX[v] for v in rules.HEART_CHEST_DEPOSIT_VIBES]
)


def _reference_potential(batch: SimpleNamespace) -> np.ndarray:
    selves = batch.selves
    vibe = selves[:, SELF_INDEX["vibe"]]
    showing = (vibe == rules.VIBE_INDEX["heart_a"]) & selves[:, _RECIPE].any(axis=1)
    beside = showing & batch.grids[BESIDE_ASSEMBLER].any(axis=1)
    hearts = selves[:, rules.HEART]
    world_heart = np.maximum.reduceat(hearts, batch.first_slot)[batch.slot_world] > 0
    ready = (hearts > 0) & _DEPOSITS[vibe]
    weights = ASSEMBLY_POTENTIAL
    return (
        weights["heart_a_with_recipe"] * showing
        + weights["heart_a_beside_assembler"] * beside
        + weights["world_holds_heart"] * world_heart
        + weights["holds_heart_deposit_vibe"] * ready
    ).astype(np.float32)


class _ReferenceShaper:
    def __init__(self, config: ShapingConfig, gamma: float, batch: SimpleNamespace, cells: int) -> None:
        self.config, self.gamma = config, gamma
        self.visited = np.zeros((batch.num_slots, cells), np.bool_)
        self.item_high = batch.selves[:, : len(rules.ITEMS)].astype(np.int64)
        self.potential = _reference_potential(batch)

    def rewards(self, batch: SimpleNamespace, steps_done: int, unsolved: np.ndarray | None) -> np.ndarray:
        done = batch.done
        bonus = np.zeros(batch.num_slots, np.float32)
        novelty = self.config.novelty_at(steps_done)
        if novelty > 0:
            scale = unsolved if self.config.novelty_gate else np.ones(batch.num_slots, np.float32)
            for slot, position in enumerate(batch.positions):
                if not self.visited[slot, position]:
                    self.visited[slot, position] = True
                    bonus[slot] += np.float32(novelty) * scale[slot]
        if self.config.pickup > 0:
            bonus += self.config.pickup * (batch.items > self.item_high).sum(axis=1)
            np.maximum(self.item_high, batch.items, out=self.item_high)
        if self.config.assembly > 0:
            now = _reference_potential(batch)
            bonus += self.config.assembly * (self.gamma * np.where(done, 0.0, now) - self.potential)
            self.potential = now
        ended = np.flatnonzero(done)
        self.visited[ended] = False
        self.item_high[ended] = batch.selves[ended, : len(rules.ITEMS)]
        return bonus


def _random_state(batch: SimpleNamespace, rng: np.random.Generator, cells: int) -> None:
    """Every field the shaping reads, drawn so that each term's cases occur often."""
    slots = batch.num_slots
    batch.selves[:] = rng.integers(0, 3, (slots, len(SELF_FIELDS)))
    batch.selves[:, SELF_INDEX["vibe"]] = rng.choice(
        [rules.VIBE_INDEX["heart_a"], rules.VIBE_INDEX["default"], rules.VIBE_INDEX["heart_b"], 3], slots
    )
    batch.grids[:] = 0
    batch.grids[:, CHANNEL["assembler"]] = rng.random((slots, VIEW_SIZE, VIEW_SIZE)) < 0.05
    batch.items[:] = rng.integers(0, 4, (slots, len(rules.ITEMS)))
    batch.positions[:] = rng.integers(0, cells, slots)
    batch.done[:] = rng.random(slots) < 0.1


_CONFIGS = {
    "every term": ShapingConfig(novelty=0.0137, novelty_until=5_000, pickup=0.0513, assembly=0.731),
    "no pickups": ShapingConfig(novelty=0.0137, novelty_until=5_000, pickup=0.0, assembly=0.731),
    "no potential": ShapingConfig(novelty=0.0137, novelty_until=5_000, pickup=0.0513, assembly=0.0),
    "annealed novelty": ShapingConfig(novelty=0.02, novelty_until=5_000, novelty_gate=False, pickup=0.05),
}


@pytest.mark.parametrize("gamma", [0.99, 0.5, 0.9137])
@pytest.mark.parametrize("name", list(_CONFIGS))
def test_compiled_shaping_equals_the_numpy_expressions_bit_for_bit(gamma: float, name: str) -> None:
    """Each term on and off; positions that grow past the table, so the compiled side widens its own."""
    counts, first_slot, slot_world = slot_layout([1, 2, 4, 1, 2])
    slots, cells = int(sum(counts)), 60
    batch = SimpleNamespace(
        num_slots=slots,
        first_slot=first_slot,
        slot_world=slot_world,
        selves=np.zeros((slots, len(SELF_FIELDS)), np.uint8),
        grids=np.zeros((slots, len(GRID_CHANNELS), VIEW_SIZE, VIEW_SIZE), np.uint8),
        items=np.zeros((slots, len(rules.ITEMS)), np.int64),
        positions=np.zeros(slots, np.int64),
        done=np.zeros(slots, np.bool_),
    )
    rng = np.random.default_rng([int(gamma * 1000), len(name)])
    _random_state(batch, rng, 5)
    config = _CONFIGS[name]
    shaper = Shaper(config, gamma, batch)
    reference = _ReferenceShaper(config, gamma, batch, cells)
    assert np.array_equal(assembly_potential(batch), _reference_potential(batch))
    for step in range(300):
        _random_state(batch, rng, min(cells, 5 + step // 4))  # the cells in use grow: the table widens
        unsolved = rng.random(slots).astype(np.float32) if config.novelty_gate else None
        expected = reference.rewards(batch, step * 25, unsolved)
        got = shaper.rewards(batch, step * 25, unsolved)
        assert got.dtype == np.float32 and np.array_equal(got, expected), step
        assert np.array_equal(shaper.potential, reference.potential)
        assert np.array_equal(shaper.item_high, reference.item_high)
        width = min(shaper.visited.shape[1], cells)
        assert np.array_equal(shaper.visited[:, :width], reference.visited[:, :width])
        assert not shaper.visited[:, width:].any() and not reference.visited[:, width:].any()
