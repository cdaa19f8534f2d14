"""`WorldBatch`: many Cogs vs Clips worlds stepped in one process, observations as arrays, auto-reset.

One set of rules: every world here is the engine's own `World` (the same object `CogsVsClipsEnv` wraps), so
this module adds no rule. It only keeps a flat table of agent slots (world 0's agents, then world 1's, ...)
and copies each agent's observation into preallocated arrays: `grids` (slots, 17, 11, 11) uint8 and
`selves` (slots, 9) uint8, the same values the PettingZoo env hands out (`tests/test_cvc_batch.py` compares
the two step by step on every diagnostic at every agent count).

A world's agent count is fixed for its life; what it plays is chosen at every reset by `next_episode(world
index)`, which returns a `WorldSpec` (map, rules, budget) and the episode seed, so a trainer can run a
curriculum without this module knowing any diagnostic. The `World` of each (world index, spec key, map name)
is built once and reset for every later episode (a reset rebuilds all episode state); the map's name is part
of the key because one task may be played on several maps (a curriculum's mirror images).

`step` runs in two phases, `advance` (step every world, fill the arrays; an ended world waits) and
`start_next` (draw and start the ended worlds' next episodes in world order, observe them): the process
fan-out (`batch_processes.ProcessWorldBatch`) runs the same two phases in its workers and draws the next
episodes in between, in its parent, so its results never depend on the number of processes.

Measured on the 2-core machine (`benchmarks/cvc_collection.py`, random actions, observations built): see
docs/cvc_learned.md. One step is one call of the compiled `kernel.step_batch` plus one turn-order draw per world
in Python. The typed lists that hand the worlds to the kernel are built at `reset()`; numba compiles their
helpers in every new process (about 1 s, not cached on disk), which every fan-out worker pays once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol

import numpy as np
from numba.typed import List

from cogames_lib.cvc import kernel, rules
from cogames_lib.cvc.config import EnvConfig
from cogames_lib.cvc.maps import GridMap
from cogames_lib.cvc.observation import GRID_CHANNELS, SELF_FIELDS, VIEW_SIZE
from cogames_lib.cvc.world import ORDER_COUNT, ORDER_FIRST, ORDER_TABLE, World
from cogames_lib.errors import ParameterError

NUM_ITEMS = len(rules.ITEMS)

# The arrays a batch fills, per agent slot: name -> (shape after the slot axis, dtype). `WorldBatch`
# allocates them; the process fan-out lays the same arrays out in shared memory.
SLOT_ARRAYS: Mapping[str, tuple[tuple[int, ...], type]] = MappingProxyType(
    {
        "grids": ((len(GRID_CHANNELS), VIEW_SIZE, VIEW_SIZE), np.uint8),
        "selves": ((len(SELF_FIELDS),), np.uint8),
        "rewards": ((), np.float32),
        "done": ((), np.bool_),
        "positions": ((), np.int64),
        "items": ((NUM_ITEMS,), np.int64),
    }
)


@dataclass(frozen=True)
class WorldSpec:
    """What one episode plays: `key` names it (a diagnostic name), the rest builds the `World`."""

    key: str
    grid_map: GridMap
    num_agents: int
    max_steps: int
    config: EnvConfig

    @property
    def world_key(self) -> tuple[str, str]:
        """What a built `World` is cached under: the task and its map (one task, several maps: mirrors)."""
        return (self.key, self.grid_map.name)


# world index -> (what its next episode plays, the episode seed)
NextEpisode = Callable[[int], tuple[WorldSpec, int]]


@dataclass(frozen=True)
class FinishedEpisode:
    world: int
    key: str
    num_agents: int
    success: bool
    steps: int


class SlotArrays(Protocol):
    """What a reader of a batch's agent slots sees, whichever batch steps the worlds (`WorldBatch` here,
    `batch_processes.ProcessWorldBatch` in several processes): the layout and the arrays of `SLOT_ARRAYS`."""

    num_slots: int
    first_slot: np.ndarray
    slot_world: np.ndarray
    grids: np.ndarray
    selves: np.ndarray
    rewards: np.ndarray
    done: np.ndarray
    positions: np.ndarray
    items: np.ndarray


def _world_arrays(world: World) -> tuple[np.ndarray, ...]:
    """A world's state arrays in the order `kernel.step_batch` takes them."""
    return (world.cells, world.station_rows, world.agent_rows, world.meta, world.recipes, world.grid)


def slot_layout(agent_counts: Sequence[int]) -> tuple[list[int], np.ndarray, np.ndarray]:
    """(agent counts as ints, first slot of each world, world of each slot); refuses an empty or bad list."""
    counts = [int(n) for n in agent_counts]
    if not counts or min(counts) < 1:
        raise ParameterError(
            f"agent_counts must be a non-empty list of counts >= 1, got {list(agent_counts)}"
        )
    first_slot = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    return counts, first_slot, np.repeat(np.arange(len(counts)), counts)


def check_actions(actions: np.ndarray, num_slots: int) -> np.ndarray:
    """`actions` as an array of one action index per slot, or a `ParameterError`."""
    actions = np.asarray(actions)
    if actions.shape != (num_slots,):
        raise ParameterError(f"actions must have shape ({num_slots},), got {actions.shape}")
    if actions.size and (actions.min() < 0 or actions.max() >= len(rules.ACTIONS)):
        raise ParameterError(f"actions must be action indices in 0..{len(rules.ACTIONS) - 1}")
    return actions


def check_spec(index: int, num_agents: int, spec: WorldSpec) -> None:
    """A world's agent count is fixed for its life: what `next_episode` gives must match it."""
    if spec.num_agents != num_agents:
        raise ParameterError(
            f"world {index} has {num_agents} agent(s), next_episode gave {spec.key!r} with {spec.num_agents}"
        )


class WorldBatch:
    """Worlds with fixed agent counts `agent_counts[w]`; slot `first_slot[w] + i` is agent i of world w.

    After `reset()` and after every `step(actions)`, `grids`/`selves` hold each slot's current observation
    (after an episode ends the world is reset at once, so they show the new episode's first observation).
    `step` also fills, per slot: `rewards` (the engine's reward for that step), `done` (the slot's episode
    ended at this step: success or budget), `positions` and `items` (where the agent stood and what it held
    after its action, before any reset: trainers derive shaping from them), and returns the episodes that
    finished. `arrays` (name -> array of `SLOT_ARRAYS`' shape): where to write instead of fresh arrays (the
    process fan-out passes views of shared memory).
    """

    def __init__(
        self,
        agent_counts: Sequence[int],
        next_episode: NextEpisode,
        arrays: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        counts, self.first_slot, self.slot_world = slot_layout(agent_counts)
        self.agent_counts = counts
        self.next_episode = next_episode
        self.num_slots = int(sum(counts))
        if arrays is None:
            arrays = {
                name: np.zeros((self.num_slots, *shape), dtype)
                for name, (shape, dtype) in SLOT_ARRAYS.items()
            }
        self.grids, self.selves = arrays["grids"], arrays["selves"]
        self.rewards, self.done = arrays["rewards"], arrays["done"]
        self.positions, self.items = arrays["positions"], arrays["items"]
        self.worlds: list[World] = []
        self._large_teams = [index for index, n in enumerate(counts) if n > kernel.MAX_TABLED_AGENTS]
        self.specs: list[WorldSpec] = []
        self._cache: list[dict[tuple[str, str], World]] = [{} for _ in counts]

    def _start(self, index: int) -> None:
        spec, seed = self.next_episode(index)
        check_spec(index, self.agent_counts[index], spec)
        world = self._cache[index].get(spec.world_key)
        if world is None:
            world = World(spec.grid_map, spec.num_agents, spec.config)
            self._cache[index][spec.world_key] = world
        world.reset(seed)
        if index < len(self.worlds):
            self.worlds[index], self.specs[index] = world, spec
            for arrays, array in zip(self._arrays, _world_arrays(world), strict=True):
                arrays[index] = array
        else:
            self.worlds.append(world)
            self.specs.append(spec)
        self._max_steps[index] = spec.max_steps

    def reset(self) -> None:
        self.worlds, self.specs = [], []
        self._max_steps = np.zeros(len(self.agent_counts), np.int64)
        for index in range(len(self.agent_counts)):
            self._start(index)
        # The compiled step reads every world's arrays from typed lists (one entry per world, replaced when a
        # world starts an episode on another map).
        self._arrays = [List(arrays) for arrays in zip(*map(_world_arrays, self.worlds), strict=True)]
        self._draws = np.zeros(len(self.agent_counts), np.float64)
        self._orders = np.zeros(self.num_slots, np.int64)
        self._ended = np.zeros(len(self.agent_counts), np.bool_)
        for index in range(len(self.agent_counts)):
            self._observe(index)

    def _observe(self, index: int) -> None:
        world = self.worlds[index]
        kernel.observe_agents(
            world.agent_rows, world.grid, self.grids, self.selves, int(self.first_slot[index])
        )

    def close(self) -> None:
        """Nothing to release (the process fan-out has processes and shared memory to release)."""

    def step(self, actions: np.ndarray) -> list[FinishedEpisode]:
        """Apply one action per slot (ints in 0..17) to every world; reset finished worlds."""
        finished = self.advance(actions)
        self.start_next([episode.world for episode in finished])
        return finished

    def advance(self, actions: np.ndarray) -> list[FinishedEpisode]:
        """The first phase of `step`: step every world and fill the arrays; the worlds whose episode ended
        keep their last observation until `start_next`."""
        chosen = np.ascontiguousarray(check_actions(actions, self.num_slots), dtype=np.int64)
        draws = self._draws
        draws[:] = [world.turn_draw() for world in self.worlds]
        for index in self._large_teams:  # their orders are shuffled in Python
            first = int(self.first_slot[index])
            self._orders[first : first + self.agent_counts[index]] = self.worlds[index].turn_order(-1.0)
        cells, stations, agents, meta, recipes, grid = self._arrays
        kernel.step_batch(
            cells,
            stations,
            agents,
            meta,
            recipes,
            grid,
            chosen,
            self.first_slot,
            draws,
            self._orders,
            ORDER_TABLE,
            ORDER_FIRST,
            ORDER_COUNT,
            self._max_steps,
            self.grids,
            self.selves,
            self.rewards,
            self.done,
            self.positions,
            self.items,
            self._ended,
        )
        finished = []
        for index in np.flatnonzero(self._ended).tolist():
            world, spec = self.worlds[index], self.specs[index]
            finished.append(
                FinishedEpisode(index, spec.key, self.agent_counts[index], world.succeeded, world.step_count)
            )
        return finished

    def start_next(self, worlds: Sequence[int]) -> None:
        """The second phase of `step`: start each of `worlds`' next episode (`next_episode` is called in
        the order given) and observe it."""
        for index in worlds:
            self._start(index)
            self._observe(index)
