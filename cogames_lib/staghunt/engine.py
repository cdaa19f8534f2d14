"""The stag-hunt engine: the rules over a batch of worlds stepped in lockstep (numpy, no torch, no gymnasium).

The only engine: training steps 64 worlds at once, the PettingZoo env and the probes a batch of one. The loop
over agents inside a turn stays (agents act one after the other), every other loop runs over the batch axis
in numpy. Worlds restart on their own when their episode ends (`reset_worlds`), so with random episode
lengths no world idles waiting for the longest one.

Health rule: damage only lasts for the turn in which it is dealt. At the end of every turn each damaged
resource that survived regains 1 health, so a stag (health 2) dies only if two hunters hit it in the
same turn; its reward is split among the agents that damaged it since it last healed. Killed resources do
not come back within an episode. The world options (`world_config.StagHuntConfig`) choose the attack shape,
when agents observe (turn start, or just before acting: then the `wounded_stag` channel shows damage
dealt earlier in the same turn and every agent's beam stays until that agent acts again), when payouts
arrive, the position code and the wounded-stag channel.

Observations are produced sparse: one feature index per crop cell (its one channel), one per beam cell
(or the padding index), two for the own-state vector, plus the cell index for the position code. That
is all a binary observation holds, and it is ~7x smaller than the dense vector; `dense_observations`
turns it into the flat vector of `engine.observation_size`.

Turn protocol: `begin_turn()` draws each world's agent order; then for each slot `k`, the agents
`order[:, k]` act (`act(agents, actions)`), observing first with `observe(agents)` if observations are
taken just before acting; `end_turn()` heals, advances the clock and returns the worlds that finished.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.maps import StagHuntMap, load_stag_hunt_map
from cogames_lib.staghunt.rules import (
    AGENT_KINDS,
    CHANNEL_INDEX,
    HARE,
    MOVE_TURNS,
    NO_RESOURCE,
    NUM_ORIENTATIONS,
    OBSERVATION_CHANNELS,
    ORIENTATION_DELTAS,
    POSITION_FEATURES,
    RESOURCES,
    STAG,
    VECTOR_FEATURES,
    WEST,
    Action,
    AgentSpec,
    attack_shape,
    position_code,
)
from cogames_lib.staghunt.world_config import StagHuntConfig

_MAX_HEALTH = np.zeros(max(RESOURCES) + 1, dtype=np.int8)
_REWARD = np.zeros(max(RESOURCES) + 1, dtype=np.float64)
_NEEDS_HUNTER = np.zeros(max(RESOURCES) + 1, dtype=bool)
for _code, _kind in RESOURCES.items():
    _MAX_HEALTH[_code], _REWARD[_code], _NEEDS_HUNTER[_code] = _kind.health, _kind.reward, _kind.needs_hunter
_KIND_INDEX = {kind: index for index, kind in enumerate(AGENT_KINDS)}
_DELTAS = np.array(ORIENTATION_DELTAS, dtype=np.int64)
# Action -> quarter turns of the move (-1 for ATTACK).
_TURNS = np.array([MOVE_TURNS.get(Action(a), -1) for a in range(len(Action))], dtype=np.int64)


def observation_size(view_radius: int = 4, position_embedding: bool = False) -> int:
    """Length of the flat observation vector: crop channels x (2r+1)^2 + the own-state vector (+ the
    12-float position code)."""
    side = 2 * view_radius + 1
    extra = len(POSITION_FEATURES) if position_embedding else 0
    return len(OBSERVATION_CHANNELS) * side * side + len(VECTOR_FEATURES) + extra


@dataclass
class SparseObservations:
    """Observations of K (world, agent) rows: `indices` (K, L) int32 into the flat observation vector
    (the value `size` pads), `cells` (K,) int64 = row * cols + col (the position code's input)."""

    indices: np.ndarray
    cells: np.ndarray


class StagHuntEngine:
    """`batch` worlds of one population and one `StagHuntConfig`, all the same map shape. `grid` (a loaded
    map) stands in for `config.map_path`, so probes that stage many situations read each map once."""

    def __init__(self, population: Sequence[AgentSpec], config: StagHuntConfig, batch: int = 1,
                 seed: int | np.random.SeedSequence = 0, *, grid: StagHuntMap | None = None) -> None:  # fmt: skip
        if batch < 1 or not population:
            raise ParameterError(f"need batch >= 1 and at least one agent, got {batch}, {len(population)}")
        self.config = config
        self.population = tuple(population)
        self.batch, self.num_agents = batch, len(population)
        self.kind_index = np.array([_KIND_INDEX[spec.kind] for spec in population], dtype=np.int64)
        self.can_hunt = np.array([spec.can_hunt for spec in population], dtype=bool)
        self.fixed_map = (
            grid if grid is not None else load_stag_hunt_map(config.map_path) if config.map_path else None
        )
        if self.fixed_map is not None:
            self.walls = self.fixed_map.walls.copy()
        else:
            self.walls = np.zeros((config.size, config.size), dtype=bool)
            self.walls[[0, -1], :] = True
            self.walls[:, [0, -1]] = True
        self.shape = self.walls.shape
        self.shape_of_attack = attack_shape(config.attack_shape, config.attack_range)
        offsets = np.array(self.shape_of_attack.offsets, dtype=np.int64).reshape(-1, 2)
        self._attack_forward, self._attack_lateral = offsets[None, :, :1], offsets[None, :, 1:]
        self.rng = np.random.default_rng(seed)
        self.before_act = config.observation_timing == "before_act"
        b, n, (rows, cols) = batch, self.num_agents, self.shape
        self.resources = np.zeros((b, rows, cols), dtype=np.int8)
        self.health = np.zeros((b, rows, cols), dtype=np.int8)
        self.agent_at = np.full((b, rows, cols), -1, dtype=np.int64)
        self.positions = np.zeros((b, n, 2), dtype=np.int64)
        self.orientations = np.zeros((b, n), dtype=np.int64)
        self.wounded = np.zeros((b, rows, cols), dtype=bool)  # turn_start: stags damaged last turn
        self.beam = np.zeros((b, n, rows, cols), dtype=bool)  # per attacker
        self.damaged_by = np.zeros((b, n, rows, cols), dtype=bool)  # since the last healing
        self.pending = np.zeros((b, n))
        self.turn = np.zeros(b, dtype=np.int64)
        self.max_turns = np.full(b, config.max_turns, dtype=np.int64)
        self.rewards = np.zeros((b, n))
        self.kills = np.zeros((b, len(RESOURCES) + 1), dtype=np.int64)  # by resource code
        self.order = np.zeros((b, n), dtype=np.int64)
        self._setup_observation()

    # --- episodes ----------------------------------------------------------------------------------

    def reset_worlds(self, worlds: np.ndarray) -> None:
        """Start a new episode in `worlds` (indices): map, spawns, orientations, length from `self.rng`."""
        worlds = np.asarray(worlds, dtype=np.int64)
        k, n, config = len(worlds), self.num_agents, self.config
        if k == 0:
            return
        rows, cols = self.shape
        if self.fixed_map is None:
            interior = ~self.walls
            present = (self.rng.random((k, rows, cols)) < config.resource_density) & interior
            stag = self.rng.random((k, rows, cols)) < config.stag_probability
            resources = np.where(present, np.where(stag, STAG.code, HARE.code), NO_RESOURCE).astype(np.int8)
        else:
            resources = np.repeat(self.fixed_map.resources[None], k, axis=0)
            for row, col in self.fixed_map.random_resource_cells:
                stag = self.rng.random(k) < config.stag_probability
                resources[:, row, col] = np.where(stag, STAG.code, HARE.code)
        self.resources[worlds] = resources
        self.health[worlds] = _MAX_HEALTH[resources]
        spawns = self.fixed_map.spawns if self.fixed_map is not None else ()
        if len(spawns) >= n:
            chosen = np.argsort(self.rng.random((k, len(spawns))), axis=1)[:, :n]
            positions = np.array(spawns, dtype=np.int64)[chosen]
        else:  # n distinct free cells per world: the n smallest random keys among free cells
            free = (~self.walls[None] & (resources == NO_RESOURCE)).reshape(k, -1)
            if (free.sum(axis=1) < n).any():
                raise ParameterError(f"a map has fewer than {n} free cells for the agents")
            keys = np.where(free, self.rng.random(free.shape), 2.0)
            flat = np.argsort(keys, axis=1)[:, :n]
            positions = np.stack([flat // cols, flat % cols], axis=-1)
        self.positions[worlds] = positions
        if config.start_orientation == "west":
            self.orientations[worlds] = WEST
        else:
            self.orientations[worlds] = self.rng.integers(0, NUM_ORIENTATIONS, size=(k, n))
        if config.episode_length == "uniform":
            self.max_turns[worlds] = self.rng.integers(1, config.max_turns + 1, size=k)
        else:
            self.max_turns[worlds] = config.max_turns
        self.agent_at[worlds] = -1
        agent_ids = np.broadcast_to(np.arange(n), (k, n))
        self.agent_at[worlds[:, None], positions[..., 0], positions[..., 1]] = agent_ids
        for array in (self.wounded, self.beam, self.damaged_by):
            array[worlds] = False
        self.pending[worlds] = 0.0
        self.turn[worlds] = 0

    def load_state(self, world: int, resources: np.ndarray, positions: np.ndarray, orientations: np.ndarray,
                   max_turns: int, health: np.ndarray | None = None) -> None:  # fmt: skip
        """Put one world in a given state (probes stage their situations this way; `health` defaults to
        full). Agents must stand on distinct free floor cells and face 0..3."""
        resources = np.asarray(resources, dtype=np.int8)
        positions = np.asarray(positions, dtype=np.int64).reshape(self.num_agents, 2)
        orientations = np.asarray(orientations, dtype=np.int64).reshape(self.num_agents)
        rows, cols = positions[:, 0], positions[:, 1]
        inside = (rows >= 0) & (rows < self.shape[0]) & (cols >= 0) & (cols < self.shape[1])
        occupied = ~inside | self.walls[rows % self.shape[0], cols % self.shape[1]]
        occupied |= resources[rows % self.shape[0], cols % self.shape[1]] != NO_RESOURCE
        if occupied.any() or len({(int(r), int(c)) for r, c in positions}) < self.num_agents:
            raise ParameterError(
                f"agents cannot start on walls, resources or each other: {positions.tolist()}"
            )
        if ((orientations < 0) | (orientations >= NUM_ORIENTATIONS)).any():
            raise ParameterError(f"orientations must be in 0..3, got {orientations.tolist()}")
        self.resources[world] = resources
        self.health[world] = _MAX_HEALTH[resources] if health is None else health
        self.positions[world], self.orientations[world] = positions, orientations
        self.agent_at[world] = -1
        self.agent_at[world, positions[:, 0], positions[:, 1]] = np.arange(self.num_agents)
        for array in (self.wounded, self.beam, self.damaged_by):
            array[world] = False
        self.pending[world], self.turn[world], self.max_turns[world] = 0.0, 0, max_turns

    # --- one turn ----------------------------------------------------------------------------------

    def begin_turn(self, order: np.ndarray | None = None) -> np.ndarray:
        """Clear this turn's tallies and draw every world's agent order ((batch, agents))."""
        self.rewards[:] = 0.0
        self.kills[:] = 0
        if order is None:
            order = np.argsort(self.rng.random((self.batch, self.num_agents)), axis=1)
        self.order = np.asarray(order, dtype=np.int64)
        return self.order

    def act(self, agents: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Agent `agents[w]` of every world w does `actions[w]`; returns the attacked target code per world
        (0 none, else the nearest resource under the beam)."""
        worlds = np.arange(self.batch)
        agents, actions = np.asarray(agents, dtype=np.int64), np.asarray(actions, dtype=np.int64)
        if self.config.payout_timing == "next_act":  # a payout is delivered when its recipient acts
            self.rewards[worlds, agents] += self.pending[worlds, agents]
            self.pending[worlds, agents] = 0.0
        # An attacker's beam stays on the map until it acts again: before acting an agent sees the beams of
        # everyone who attacked since its last act; at a turn's start everyone sees the last turn's beams.
        self.beam[worlds, agents] = False
        targets = np.zeros(self.batch, dtype=np.int64)
        moving = _TURNS[actions] >= 0
        if moving.any():
            self._move(worlds[moving], agents[moving], actions[moving])
        attacking = ~moving
        if attacking.any():
            targets[attacking] = self._attack(worlds[attacking], agents[attacking])
        return targets

    def _move(self, worlds: np.ndarray, agents: np.ndarray, actions: np.ndarray) -> None:
        direction = (self.orientations[worlds, agents] + _TURNS[actions]) % NUM_ORIENTATIONS
        start = self.positions[worlds, agents]
        target = start + _DELTAS[direction]
        free = (
            ~self.walls[target[:, 0], target[:, 1]]
            & (self.resources[worlds, target[:, 0], target[:, 1]] == NO_RESOURCE)
            & (self.agent_at[worlds, target[:, 0], target[:, 1]] < 0)
        )  # a blocked move does nothing, not even turn the agent
        worlds, agents, start, target = worlds[free], agents[free], start[free], target[free]
        self.agent_at[worlds, start[:, 0], start[:, 1]] = -1
        self.agent_at[worlds, target[:, 0], target[:, 1]] = agents
        self.positions[worlds, agents] = target
        self.orientations[worlds, agents] = direction[free]

    def _attack(self, worlds: np.ndarray, agents: np.ndarray) -> np.ndarray:
        """All cells of every attack at once: one attacker per world, so no two hits share a cell and
        the order of the cells only decides the target (the nearest resource) and where a wall stops a
        line beam."""
        rows, cols = self.shape
        facing = self.orientations[worlds, agents]
        forward, right = _DELTAS[facing], _DELTAS[(facing + 1) % NUM_ORIENTATIONS]
        cells = (self.positions[worlds, agents][:, None] + self._attack_forward * forward[:, None]
                 + self._attack_lateral * right[:, None])  # (k, offsets, 2)  # fmt: skip
        inside = ((cells >= 0) & (cells < (rows, cols))).all(axis=2)
        r, c = np.where(inside, cells[..., 0], 0), np.where(inside, cells[..., 1], 0)
        lit = ~(self.walls[r, c] | ~inside)
        if self.shape_of_attack.walls_block:
            lit = np.logical_and.accumulate(lit, axis=1)
        w, a = np.broadcast_to(worlds[:, None], r.shape), np.broadcast_to(agents[:, None], r.shape)
        self.beam[w[lit], a[lit], r[lit], c[lit]] = True
        code = np.where(lit, self.resources[w, r, c], NO_RESOURCE).astype(np.int64)
        found = code != NO_RESOURCE
        first = code[np.arange(len(worlds)), found.argmax(axis=1)]  # NO_RESOURCE when nothing was found
        hit = found & (self.can_hunt[agents][:, None] | ~_NEEDS_HUNTER[code])
        if hit.any():
            w, a, r, c, code = w[hit], a[hit], r[hit], c[hit], code[hit]
            self.damaged_by[w, a, r, c] = True
            self.health[w, r, c] -= 1
            dead = self.health[w, r, c] <= 0
            for world, row, col, kind in zip(w[dead], r[dead], c[dead], code[dead], strict=True):
                self._kill(int(world), int(row), int(col), int(kind))
        return first

    def _kill(self, world: int, row: int, col: int, code: int) -> None:
        damagers = np.flatnonzero(self.damaged_by[world, :, row, col])
        share = _REWARD[code] / len(damagers)  # split among the agents that damaged it since it last healed
        target = self.pending if self.config.payout_timing == "next_act" else self.rewards
        target[world, damagers] += share
        self.resources[world, row, col] = NO_RESOURCE
        self.health[world, row, col] = 0
        self.damaged_by[world, :, row, col] = False
        self.kills[world, code] += 1

    def end_turn(self) -> np.ndarray:
        """Heal every damaged resource by 1, advance the clock; returns the worlds whose episode ended
        (their pending payouts are paid into this turn's rewards)."""
        alive = self.resources != NO_RESOURCE
        damaged = alive & (self.health < _MAX_HEALTH[self.resources])
        self.wounded = damaged & (self.resources == STAG.code)
        self.health[damaged] += 1
        self.damaged_by[:] = False
        self.turn += 1
        ended = np.flatnonzero(self.turn >= self.max_turns)
        if len(ended):
            self.rewards[ended] += self.pending[ended]
            self.pending[ended] = 0.0
        return ended

    # --- observations ------------------------------------------------------------------------------

    def _setup_observation(self) -> None:
        radius = self.config.view_radius
        side = 2 * radius + 1
        rows, cols = self.shape
        self.side, self.padded_cols = side, cols + 2 * radius
        self.crop_cells = side * side
        self.size = len(OBSERVATION_CHANNELS) * self.crop_cells + len(VECTOR_FEATURES)
        if self.config.position_embedding:
            self.size += len(POSITION_FEATURES)
        offsets = np.add.outer(np.arange(side) * self.padded_cols, np.arange(side)).reshape(-1)
        self.crop_offsets = offsets
        self.cell_positions = np.arange(self.crop_cells)
        padded = (self.batch, rows + 2 * radius, cols + 2 * radius)
        self._padded_codes = np.full(padded, CHANNEL_INDEX["wall"], dtype=np.int32)
        self._padded_beam = np.zeros(padded, dtype=bool)
        self._static_codes = np.where(self.walls, CHANNEL_INDEX["wall"], CHANNEL_INDEX["empty"]).astype(
            np.int32
        )
        self._agent_worlds = np.repeat(np.arange(self.batch), self.num_agents)
        self.position_table = position_code(*np.divmod(np.arange(rows * cols), cols), self.shape)

    def _code_grid(self) -> np.ndarray:
        """(batch, padded rows * padded cols) channel index of every cell (walls outside the map), written
        into one preallocated padded buffer (the border is set once)."""
        radius, config = self.config.view_radius, self.config
        stag = self.resources == STAG.code
        code = self._padded_codes[:, radius : radius + self.shape[0], radius : radius + self.shape[1]]
        code[:] = self._static_codes
        code[stag] = CHANNEL_INDEX["stag"]
        if config.wounded_stag_channel:
            code[stag & ((self.health < STAG.health) if self.before_act else self.wounded)] = CHANNEL_INDEX[
                "wounded_stag"
            ]
        code[self.resources == HARE.code] = CHANNEL_INDEX["hare"]
        first_agent = CHANNEL_INDEX[f"{AGENT_KINDS[0]}_north"]
        agent_channel = first_agent + self.kind_index[None] * NUM_ORIENTATIONS + self.orientations
        code[self._agent_worlds, self.positions[..., 0].ravel(), self.positions[..., 1].ravel()] = (
            agent_channel.ravel()
        )
        return self._padded_codes.reshape(self.batch, -1)

    def observe(
        self, agents: np.ndarray | None = None, worlds: np.ndarray | None = None
    ) -> SparseObservations:
        """Observations of agent `agents[i]` in world `worlds[i]` (default: every agent of every world,
        world-major: row = world * agents + agent)."""
        if agents is None:
            worlds = np.repeat(np.arange(self.batch), self.num_agents)
            agents = np.tile(np.arange(self.num_agents), self.batch)
        elif worlds is None:
            worlds = np.arange(self.batch)
        worlds, agents = np.asarray(worlds, dtype=np.int64), np.asarray(agents, dtype=np.int64)
        codes = self._code_grid()
        radius = self.config.view_radius
        self._padded_beam[:, radius : radius + self.shape[0], radius : radius + self.shape[1]] = (
            self.beam.any(axis=1)
        )
        beam = self._padded_beam.reshape(self.batch, -1)
        row, col = self.positions[worlds, agents, 0], self.positions[worlds, agents, 1]
        window = (row * self.padded_cols + col)[:, None] + self.crop_offsets[None]
        cells = codes[worlds[:, None], window] * self.crop_cells + self.cell_positions
        lit = beam[worlds[:, None], window]
        beam_index = np.where(
            lit, CHANNEL_INDEX["attack_beam"] * self.crop_cells + self.cell_positions, self.size
        )
        vector_start = len(OBSERVATION_CHANNELS) * self.crop_cells
        vector = np.stack([vector_start + self.orientations[worlds, agents],
                           vector_start + NUM_ORIENTATIONS + self.kind_index[agents]], axis=1)  # fmt: skip
        indices = np.concatenate([cells, beam_index, vector], axis=1).astype(np.int32)
        return SparseObservations(indices, row * self.shape[1] + col)

    def dense_observations(self, sparse: SparseObservations) -> np.ndarray:
        """(K, size) float32 flat observations (what the PettingZoo env and the probes hand a policy)."""
        dense = np.zeros((len(sparse.indices), self.size + 1), dtype=np.float32)
        np.put_along_axis(dense, sparse.indices.astype(np.int64), 1.0, axis=1)
        dense = dense[:, : self.size]
        if self.config.position_embedding:
            dense[:, -len(POSITION_FEATURES) :] = self.position_table[sparse.cells]
        return dense

    def observe_dense(self, agents: np.ndarray | None = None, worlds: np.ndarray | None = None) -> np.ndarray:
        """`observe` as (K, size) float32 flat observations."""
        return self.dense_observations(self.observe(agents, worlds))


BatchStagHunt = StagHuntEngine  # its name before issue 20 made it the only engine
