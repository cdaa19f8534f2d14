"""What a training run plays: the multi-task curriculum, training episode seeds, and training-only shaping.

Curriculum: every world has a fixed agent count (1, 2 or 4); at each reset it draws one of the
curriculum's diagnostics that allows its count, with weight `(1 - 0.75 * recent success rate) / budget`
(a task it already solves is drawn a quarter as often as one it does not; an unsolved task never drops out;
dividing by the step budget gives unsolved tasks equal shares of agent-steps rather than of episodes: an
unsolved episode runs to its budget, so by episodes `assemble_seeded_near` (50 steps) got a fifth of the
experience of a 250-step task and was not learned in a 15-task trial, "Recipe trials" in docs/cvc_learned.md).

Seeds: evaluation episode seeds (`cogames_lib.sweep.seeds.episode_seed`) are hashes below 2**31; training
episode seeds are `2**31 + hash("train", run seed, world, episode)`, so the two sets are disjoint by
construction. Only the normal tier is trained on (its maps are fixed; the seed draws spawns and turn order).

Map symmetries (`symmetries`, off by default): each training episode plays its diagnostic's map or, drawn
uniformly with it, one of the named symmetries (`diagnostics.mirrors.SYMMETRIES`: mirrors, quarter turns).
On fixed maps PPO memorises routes (the mirror control, docs/cvc_learned.md); drawing the map's mirror images
asks for navigation instead, and the symmetries left out of training stay a held-out test. The success rate
that weights the draw is the task's, over all of its maps.

Shaping (training only; `cogames_lib.sweep` never sees it; `ShapingConfig(novelty=0, pickup=0)` switches
it off):
- team success: the engine rewards the agent that deposits the heart; training gives that reward to every
  agent of the world (a chorus partner's part in the success is rewarded too);
- novelty: `novelty` per cell an agent enters for the first time in its episode. Without `novelty_gate` it
  is annealed linearly to 0 at `novelty_until` agent-steps of training (by steps, not by the run's length: a
  shorter run is a prefix; the earlier default, with `novelty_until` 1.5M). A quick trial's 0.02 per cell
  outbid the deposit in `chest_deposit_near` (about 100 new cells = 2.0 > 1.0); 0.005 caps a typical
  episode's novelty well below the success reward. With `novelty_gate` (the default) the bonus is not
  annealed by steps but scaled, per slot, by `1 - recent success` of the task its world plays
  (`Curriculum.unsolved`), and grows linearly from `novelty` to `NOVELTY_GATE_GROWTH` times it at
  `novelty_until`: exploration stays on where a task is not solved yet, for as long as it is not, goes away
  where it is (a solved deposit is no longer outbid), and pulls harder where nothing has been found (in
  trials a constant 0.01 from the start taught the far chests and the charger but stopped the assembler
  being learned in an open room, where wandering earns more novelty than the heart chain pays; 0.005
  taught the assembler but not every far chest: docs/cvc_learned.md, "Recipe trials");
- pickup: `pickup` each time an agent holds more of an item than ever before in its episode (an
  extraction, a withdrawal, an assembled heart or decoder); seeded items count as already held;
- assembly: potential-based shaping (Ng, Harada and Russell 1999: `F = gamma * phi(s') - phi(s)`, which
  leaves the optimal policies unchanged) scaled by `assembly`, with `phi` the sum of the steps of the
  heart's chain an agent has reached (`ASSEMBLY_POTENTIAL`): it shows `heart_a` while holding part of the
  recipe (0.1), does so beside an assembler (0.1 more, read from its own view), its world holds a heart
  (0.3, every agent of the world: a chorus partner whose resources went into the heart gains too), and it
  holds a heart with a vibe that deposits (0.2). The chain is four exact actions long before the first
  reward and random play assembles about one heart per 14,000 agent-steps (`assemble_seeded_near`), so PPO
  alone never found it; with the potential it is learned in about 120k agent-steps (docs/cvc_learned.md,
  "Recipe trials"). At an episode's end `phi(s')` is 0, so the potential held is given back there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from types import MappingProxyType

import numpy as np
from numba import njit

from cogames_lib.cvc import rules
from cogames_lib.cvc.batch import SlotArrays, WorldSpec
from cogames_lib.cvc.observation import CHANNEL, SELF_INDEX, VIEW_RADIUS
from cogames_lib.diagnostics import DIAGNOSTICS, Diagnostic, get_diagnostic
from cogames_lib.diagnostics.mirrors import mirrored_map, symmetry_kinds
from cogames_lib.errors import ParameterError
from cogames_lib.seeding import SEED_BITS, stable_hash

TRAINING_SEED_BASE = 2**SEED_BITS
AGENT_COUNTS: tuple[int, ...] = (1, 2, 4)
SOLVED_WEIGHT_DROP = 0.75  # the default of `PPOConfig.solved_drop`
SUCCESS_MEMORY = 0.05  # the recent success rate is an exponential average over finished episodes
# The gated novelty bonus grows to this multiple of `novelty` (module docstring, "novelty"): tasks that a
# small bonus lets PPO solve are solved first; where nothing is found the pull to explore grows.
NOVELTY_GATE_GROWTH = 2.0


def training_seed(run_seed: int, world: int, episode: int) -> int:
    """A training episode seed: at least 2**31, so never an evaluation seed."""
    return TRAINING_SEED_BASE + stable_hash("train", int(run_seed), int(world), int(episode))


def default_curriculum() -> tuple[str, ...]:
    """Every normal-tier diagnostic (documented and new)."""
    return tuple(DIAGNOSTICS)


def check_solved_drop(value: float) -> float:
    """`solved_drop` in [0, 1): below 1 a solved task keeps a share of the draw."""
    if not 0.0 <= value < 1.0:
        raise ParameterError(f"solved_drop: must be in [0, 1) (a solved task keeps a share), got {value}")
    return float(value)


def curriculum_entry(entry: str) -> tuple[Diagnostic, tuple[int, ...] | None]:
    """A curriculum entry, `name` or `name@N[,N...]`: (its diagnostic, the agent counts it is trained at, or
    None for every count it allows). `extract_missing_carbon@1` trains the task with one agent only, so
    the worlds of 2 and 4 agents are left to the tasks named for them."""
    name, at, counts_text = entry.partition("@")
    diagnostic = get_diagnostic(name)
    if diagnostic.tier != "normal":
        raise ParameterError(
            f"curriculum: {entry!r} is a {diagnostic.tier}-tier diagnostic; training uses the normal tier"
        )
    if not at:
        return diagnostic, None
    try:
        counts = tuple(sorted({int(text) for text in counts_text.split(",")}))
    except ValueError:
        counts = ()
    allowed = [count for count in AGENT_COUNTS if count in diagnostic.allowed_agent_counts]
    if not counts or not set(counts) <= set(allowed):
        raise ParameterError(
            f"curriculum: {entry!r}: after '@' give agent counts among {allowed} (comma-separated)"
        )
    return diagnostic, counts


def entry_name(entry: str) -> str:
    """`entry` with the diagnostic's full name (`chorus_pair@2` -> `diagnostic_chorus_pair@2`)."""
    return _entry_text(*curriculum_entry(entry))


def _entry_text(diagnostic: Diagnostic, counts: tuple[int, ...] | None) -> str:
    return diagnostic.name if counts is None else f"{diagnostic.name}@{','.join(map(str, counts))}"


@dataclass(frozen=True)
class ShapingConfig:
    novelty: float = 0.005
    novelty_until: int = 3_000_000
    novelty_gate: bool = True
    pickup: float = 0.05
    assembly: float = 1.0

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not value >= 0:  # also refuses NaN
                raise ParameterError(f"shaping: {name} must be >= 0, got {value}")

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    def novelty_at(self, steps_done: int) -> float:
        """The novelty bonus after `steps_done` agent-steps of training: linear to 0 at `novelty_until`, or,
        gated, linear from `novelty` up to `NOVELTY_GATE_GROWTH` times it at `novelty_until` (the gate then
        scales it per task by `Curriculum.unsolved`)."""
        if self.novelty_until <= 0:
            return self.novelty if self.novelty_gate else 0.0
        progress = min(1.0, steps_done / self.novelty_until)
        if self.novelty_gate:
            return self.novelty * (1.0 + (NOVELTY_GATE_GROWTH - 1.0) * progress)
        return self.novelty * (1.0 - progress)


NO_SHAPING = ShapingConfig(novelty=0.0, novelty_gate=False, pickup=0.0, assembly=0.0)

# The heart's chain, step by step (see the module docstring). `heart_a` and a deposit vibe exclude each other,
# so phi is at most 0.5 (0.3 + 0.2), below the success reward.
ASSEMBLY_POTENTIAL: MappingProxyType[str, float] = MappingProxyType(
    {
        "heart_a_with_recipe": 0.1,
        "heart_a_beside_assembler": 0.1,
        "world_holds_heart": 0.3,
        "holds_heart_deposit_vibe": 0.2,
    }
)
_RECIPE_ITEMS = np.array([rules.ITEM_INDEX[resource] for resource in rules.RESOURCES])
_DEPOSIT_VIBE = np.zeros(len(rules.VIBES), bool)  # vibe index -> whether it deposits a heart
_DEPOSIT_VIBE[[rules.VIBE_INDEX[vibe] for vibe in rules.HEART_CHEST_DEPOSIT_VIBES]] = True
# The assembler channel of the four cells next to the agent (north, south, west, east).
BESIDE_ASSEMBLER = (
    slice(None),
    CHANNEL["assembler"],
    [VIEW_RADIUS - 1, VIEW_RADIUS + 1, VIEW_RADIUS, VIEW_RADIUS],
    [VIEW_RADIUS, VIEW_RADIUS, VIEW_RADIUS - 1, VIEW_RADIUS + 1],
)


# What the compiled phi reads, handed in as arguments: numba's cache watches only this file, so a constant
# taken from `rules` or `observation` as a global would stay frozen in the cached code after they change.
# (heart item, heart_a vibe, the vibe field, the assembler channel)
_PHI_FIELDS = np.array([rules.HEART, rules.VIBE_INDEX["heart_a"], SELF_INDEX["vibe"], CHANNEL["assembler"]])
_BESIDE = np.array(BESIDE_ASSEMBLER[2:]).T.copy()  # (4, 2): the view cells next to the agent
_PHI_WEIGHTS = np.array(  # named, in the order phi sums them
    [
        ASSEMBLY_POTENTIAL[name]
        for name in (
            "heart_a_with_recipe",
            "heart_a_beside_assembler",
            "world_holds_heart",
            "holds_heart_deposit_vibe",
        )
    ]
)


def assembly_potential(batch: SlotArrays) -> np.ndarray:
    """`phi` of every slot's current state (its observation, and whether its world holds a heart)."""
    phi = np.zeros(batch.selves.shape[0], np.float32)
    _assembly_potential(
        batch.selves,
        batch.grids,
        batch.first_slot,
        batch.slot_world,
        _PHI_FIELDS,
        _RECIPE_ITEMS,
        _DEPOSIT_VIBE,
        _BESIDE,
        _PHI_WEIGHTS,
        phi,
    )
    return phi


@njit(cache=True)
def _assembly_potential(
    selves, grids, first_slot, slot_world, fields, recipe, deposits, beside_cells, weights, phi
):
    """Fills `phi` (float32 per slot): the weights of the chain's steps a slot has reached, summed in
    float64 in the order of the numpy sum it replaced (its precision and order, so the same bits)."""
    heart, heart_a, vibe_field, assembler = fields[0], fields[1], fields[2], fields[3]
    slots, worlds = selves.shape[0], first_slot.shape[0]
    world_heart = np.zeros(worlds, np.bool_)
    for slot in range(slots):
        if selves[slot, heart] > 0:
            world_heart[slot_world[slot]] = True
    for slot in range(slots):
        vibe = selves[slot, vibe_field]
        if vibe >= deposits.shape[0]:
            raise ValueError("assembly potential: a vibe index outside the vibe table")
        holds_recipe = False
        for item in recipe:
            holds_recipe |= selves[slot, item] > 0
        showing = vibe == heart_a and holds_recipe
        beside = False
        if showing:
            for k in range(beside_cells.shape[0]):
                beside |= grids[slot, assembler, beside_cells[k, 0], beside_cells[k, 1]] > 0
        ready = selves[slot, heart] > 0 and deposits[vibe]
        total = weights[0] * showing + weights[1] * beside
        total = total + weights[2] * world_heart[slot_world[slot]] + weights[3] * ready
        phi[slot] = total


class Curriculum:
    """Draws each world's next (diagnostic, seed); `record` feeds finished episodes back."""

    def __init__(
        self,
        names: Sequence[str],
        agent_counts: Sequence[int],
        run_seed: int,
        symmetries: Sequence[str] = (),
        solved_drop: float = SOLVED_WEIGHT_DROP,
    ) -> None:
        self.solved_drop = check_solved_drop(solved_drop)
        entries = [curriculum_entry(name) for name in names]
        if not entries:
            raise ParameterError("curriculum: need at least one diagnostic")
        self.names = tuple(_entry_text(*entry) for entry in entries)
        self.agent_counts = list(agent_counts)
        self.run_seed = int(run_seed)
        self.rng = np.random.default_rng(stable_hash("curriculum", self.run_seed))
        self.specs: dict[int, list[WorldSpec]] = {}
        for count in sorted(set(self.agent_counts)):
            specs = [
                WorldSpec(r.name, r.episode_map(0, count), count, r.max_steps, r.env_config(count))
                for r, only in entries
                if count in r.allowed_agent_counts and (only is None or count in only)
            ]
            keys = [spec.key for spec in specs]
            if len(set(keys)) != len(keys):  # a second entry would silently double the task's share
                twice = sorted({key for key in keys if keys.count(key) > 1})
                raise ParameterError(f"curriculum: {twice} named more than once at {count} agent(s)")
            if not specs:
                raise ParameterError(
                    f"curriculum: no diagnostic of {list(self.names)} is trained at {count} agent(s)"
                )
            self.specs[count] = specs
        self.symmetries = symmetry_kinds(
            symmetries
        )  # checked, in `SYMMETRIES` order whatever the order given
        # spec -> its maps: the map itself, then each symmetry's (every one a full WorldSpec, built once)
        self.maps = {
            (spec.key, count): [spec, *(self._mirrored(spec, kind) for kind in self.symmetries)]
            for count, specs in self.specs.items()
            for spec in specs
        }
        self.success = {(spec.key, count): 0.0 for count, specs in self.specs.items() for spec in specs}
        self.episodes = [0] * len(self.agent_counts)

    @staticmethod
    def _mirrored(spec: WorldSpec, kind: str) -> WorldSpec:
        return replace(spec, grid_map=mirrored_map(spec.grid_map, kind))

    def next_episode(self, world: int) -> tuple[WorldSpec, int]:
        count = self.agent_counts[world]
        specs = self.specs[count]
        weights = np.array(
            [(1.0 - self.solved_drop * self.success[(s.key, count)]) / s.max_steps for s in specs]
        )
        spec = specs[int(self.rng.choice(len(specs), p=weights / weights.sum()))]
        if self.symmetries:  # no draw without them: runs from before the option are unchanged
            maps = self.maps[(spec.key, count)]
            spec = maps[int(self.rng.integers(len(maps)))]
        seed = training_seed(self.run_seed, world, self.episodes[world])
        self.episodes[world] += 1
        return spec, seed

    def unsolved(self, specs: Sequence[WorldSpec], slot_world: np.ndarray) -> np.ndarray:
        """`1 - recent success` of the task each slot's world plays (`specs[world]`), per slot."""
        counts = self.agent_counts
        rates = [1.0 - self.success[(spec.key, counts[w])] for w, spec in enumerate(specs)]
        return np.asarray(rates, np.float32)[slot_world]

    def record(self, key: str, num_agents: int, success: bool) -> None:
        previous = self.success[(key, num_agents)]
        self.success[(key, num_agents)] = previous + SUCCESS_MEMORY * (float(success) - previous)


class Shaper:
    """Training-only reward terms per slot (see the module docstring), reset per episode."""

    def __init__(self, config: ShapingConfig, gamma: float, batch: SlotArrays) -> None:
        self.config, self.gamma = config, float(gamma)
        self.visited = np.zeros((batch.num_slots, 1), np.bool_)  # (slot, cell): entered in this episode
        self.item_high = batch.selves[:, : len(rules.ITEMS)].astype(np.int64)
        self.potential = assembly_potential(batch)

    def rewards(self, batch: SlotArrays, steps_done: int, unsolved: np.ndarray | None = None) -> np.ndarray:
        """Shaping for the step `batch` just took; then the slots whose episode ended start afresh.

        Reads `positions`, `items` (after the action, before a reset) and `done`, and the current
        observations `selves`/`grids` (a finished slot's show its next episode's start). With
        `novelty_gate`, `unsolved` (per slot, `Curriculum.unsolved` of the episode the step belonged to)
        scales the novelty bonus."""
        done = batch.done
        bonus = np.zeros(batch.num_slots, np.float32)
        novelty = self.config.novelty_at(steps_done)
        if novelty > 0:
            scale = np.ones(batch.num_slots, np.float32)
            if self.config.novelty_gate:
                if unsolved is None:
                    raise ParameterError("shaping: novelty_gate needs each slot's unsolved rate")
                scale = unsolved
            positions = batch.positions
            if positions.max() >= self.visited.shape[1]:  # a larger map than any so far: widen the table
                wider = np.zeros((batch.num_slots, 2 * int(positions.max()) + 1), np.bool_)
                wider[:, : self.visited.shape[1]] = self.visited
                self.visited = wider
            _add_novelty(positions, self.visited, np.float32(novelty), scale, bonus)
        if self.config.pickup > 0:
            _add_pickups(batch.items, self.item_high, self.config.pickup, bonus)
        if self.config.assembly > 0:
            now = assembly_potential(batch)
            gamma, weight = np.float32(self.gamma), np.float32(self.config.assembly)
            _add_potential_change(now, self.potential, done, gamma, weight, bonus)
            self.potential = now
        _restart_ended(done, batch.selves, self.visited, self.item_high)
        return bonus


# The kernels below keep the precision of the numpy expressions they replaced, so the bits do not change
# (pinned against them by tests/test_learn_shaping_kernels.py): a pickup adds `pickup * count` in float64 to
# the float32 bonus; the potential's change is float32 throughout (numpy casts the Python scalars to float32).


@njit(cache=True)
def _add_pickups(items, item_high, pickup, bonus):
    """`pickup` per item a slot holds more of than ever before in its episode; raises the high marks."""
    for slot in range(items.shape[0]):
        count = 0
        for item in range(items.shape[1]):
            if items[slot, item] > item_high[slot, item]:
                count += 1
                item_high[slot, item] = items[slot, item]
        bonus[slot] = bonus[slot] + pickup * count


@njit(cache=True)
def _add_potential_change(now, before, done, gamma, scale, bonus):
    """`scale * (gamma * phi(s') - phi(s))` per slot, with phi(s') = 0 where the episode ended."""
    for slot in range(now.shape[0]):
        after = np.float32(0.0) if done[slot] else now[slot]
        bonus[slot] += scale * (gamma * after - before[slot])


@njit(cache=True)
def _restart_ended(done, selves, visited, item_high):
    """Slots whose episode ended start afresh: no cell visited, their new start's items as high marks."""
    for slot in range(done.shape[0]):
        if done[slot]:
            visited[slot, :] = False
            for item in range(item_high.shape[1]):
                item_high[slot, item] = selves[slot, item]


@njit(cache=True)
def _add_novelty(positions, visited, novelty, scale, bonus):
    """`novelty * scale[slot]` to each slot whose cell is new in its episode (marked in `visited`)."""
    for slot in range(positions.shape[0]):
        position = positions[slot]
        if not visited[slot, position]:
            visited[slot, position] = True
            bonus[slot] += novelty * scale[slot]
