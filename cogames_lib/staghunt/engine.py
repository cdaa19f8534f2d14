"""The stag-hunt engine: the rules over a batch of worlds stepped in lockstep (numpy and numba, no torch, no gymnasium).

The only engine: training steps 64 worlds at once, the PettingZoo env and the probes a batch of one. The loop
over agents inside a turn stays (agents act one after the other). An act (`_act_worlds`: moves, attacks,
kills, payouts) and the observation crop (`_observe_rows`) are compiled with numba and loop over the worlds
in the call (a batch of one pays no numpy call overheads); the rest (turn order, healing, restarts) runs
over the batch axis in numpy. Worlds restart on their own when their episode ends (`reset_worlds`), so with random episode
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
from numba import njit

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
# The channel of each thing a cell can show, for `_observe_rows` (an argument, so a cached compilation never
# keeps an old channel order): wall, stag, wounded stag, hare, attack beam, the first agent channel.
_OBSERVATION_CODES = np.array(
    [CHANNEL_INDEX[name] for name in ("wall", "stag", "wounded_stag", "hare", "attack_beam")]
    + [CHANNEL_INDEX[f"{AGENT_KINDS[0]}_north"], NUM_ORIENTATIONS, STAG.code, HARE.code],
    dtype=np.int64,
)
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
        # (forward, lateral) steps of every attacked cell, in the order the beam reaches them.
        self._attack_offsets = np.array(self.shape_of_attack.offsets, dtype=np.int64).reshape(-1, 2)
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
        (0 none, else the nearest resource under the beam). One compiled call (`_act_worlds`) for the batch."""
        agents = np.ascontiguousarray(agents, dtype=np.int64)
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        return _act_worlds(
            agents, actions, self.walls, self.resources, self.health, self.agent_at, self.positions,
            self.orientations, self.beam, self.damaged_by, self.pending, self.rewards, self.kills,
            self.can_hunt, self._attack_offsets, self.shape_of_attack.walls_block,
            self.config.payout_timing == "next_act", _TURNS, _DELTAS, _REWARD, _NEEDS_HUNTER, NO_RESOURCE,
        )  # fmt: skip

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
        self.crop_cells = side * side
        self.size = len(OBSERVATION_CHANNELS) * self.crop_cells + len(VECTOR_FEATURES)
        if self.config.position_embedding:
            self.size += len(POSITION_FEATURES)
        self._static_codes = np.where(self.walls, CHANNEL_INDEX["wall"], CHANNEL_INDEX["empty"]).astype(
            np.int64
        )
        self.position_table = position_code(*np.divmod(np.arange(rows * cols), cols), self.shape)

    def observe(
        self, agents: np.ndarray | None = None, worlds: np.ndarray | None = None
    ) -> SparseObservations:
        """Observations of agent `agents[i]` in world `worlds[i]` (default: every agent of every world,
        world-major: row = world * agents + agent). One compiled call (`_observe_rows`)."""
        if agents is None:
            worlds = np.repeat(np.arange(self.batch), self.num_agents)
            agents = np.tile(np.arange(self.num_agents), self.batch)
        elif worlds is None:
            worlds = np.arange(self.batch)
        worlds = np.ascontiguousarray(worlds, dtype=np.int64)
        agents = np.ascontiguousarray(agents, dtype=np.int64)
        config = self.config
        # Which stags show as wounded: before acting, any damage dealt this turn; at the turn's start, the
        # stags damaged last turn (`end_turn`). Without the channel, none.
        if not config.wounded_stag_channel:
            wounded = np.zeros_like(self.wounded)
        elif self.before_act:
            wounded = self.health < STAG.health
        else:
            wounded = self.wounded
        indices = _observe_rows(
            worlds, agents, self._static_codes, self.resources, wounded, self.agent_at, self.beam,
            self.positions, self.orientations, self.kind_index, config.view_radius, self.size,
            len(OBSERVATION_CHANNELS) * self.crop_cells, _OBSERVATION_CODES,
        )  # fmt: skip
        row, col = self.positions[worlds, agents, 0], self.positions[worlds, agents, 1]
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


@njit(cache=True)
def _act_worlds(agents, actions, walls, resources, health, agent_at, positions, orientations, beam, damaged_by,
                pending, rewards, kills, can_hunt, offsets, walls_block, pay_on_act, turns, deltas, reward,
                needs_hunter, none):  # fmt: skip
    """The rules of one act in every world w (agent `agents[w]`, action `actions[w]`), in place: a payout
    waiting for the actor is paid (`pay_on_act`), its beam from its last act is cleared; a move turns and
    steps (a blocked move does nothing, not even turn the agent); an attack lights the shape's cells in
    order (outside the map or on a wall: unlit, and with `walls_block` every cell after it too), damages
    every resource under the beam it may hunt, kills those at 0 health (the reward split among the agents
    that damaged it since it last healed) and returns the first resource code the beam reached (`none`
    where it reached none). The rule tables come as arguments (`_TURNS`, `_DELTAS`, `_REWARD`,
    `_NEEDS_HUNTER`), not as globals that a cached compilation would freeze when `rules.py` changes."""
    rows, cols = walls.shape
    quarter = deltas.shape[0]
    targets = np.zeros(agents.shape[0], np.int64)
    hits = np.empty((offsets.shape[0], 2), np.int64)
    for w in range(agents.shape[0]):
        a = agents[w]
        if pay_on_act:
            rewards[w, a] += pending[w, a]
            pending[w, a] = 0.0
        beam[w, a] = False
        turn = turns[actions[w]]
        row, col = positions[w, a, 0], positions[w, a, 1]
        if turn >= 0:
            direction = (orientations[w, a] + turn) % quarter
            r, c = row + deltas[direction, 0], col + deltas[direction, 1]
            if not walls[r, c] and resources[w, r, c] == none and agent_at[w, r, c] < 0:
                agent_at[w, row, col] = -1
                agent_at[w, r, c] = a
                positions[w, a, 0], positions[w, a, 1] = r, c
                orientations[w, a] = direction
            continue
        facing = orientations[w, a]
        right = (facing + 1) % quarter
        first, count, blocked = none, 0, False
        for i in range(offsets.shape[0]):
            r = row + offsets[i, 0] * deltas[facing, 0] + offsets[i, 1] * deltas[right, 0]
            c = col + offsets[i, 0] * deltas[facing, 1] + offsets[i, 1] * deltas[right, 1]
            lit = 0 <= r < rows and 0 <= c < cols and not walls[r, c]
            if walls_block:
                if blocked:
                    lit = False
                elif not lit:
                    blocked = True
            if not lit:
                continue
            beam[w, a, r, c] = True
            code = resources[w, r, c]
            if code == none:
                continue
            if first == none:
                first = code
            if can_hunt[a] or not needs_hunter[code]:
                hits[count, 0], hits[count, 1] = r, c
                count += 1
        for k in range(count):  # every hit is dealt before any resource dies
            damaged_by[w, a, hits[k, 0], hits[k, 1]] = True
            health[w, hits[k, 0], hits[k, 1]] -= 1
        for k in range(count):
            r, c = hits[k, 0], hits[k, 1]
            if health[w, r, c] <= 0:
                code = resources[w, r, c]
                damagers = 0
                for m in range(damaged_by.shape[1]):
                    damagers += damaged_by[w, m, r, c]
                share = reward[code] / damagers
                for m in range(damaged_by.shape[1]):
                    if damaged_by[w, m, r, c]:
                        if pay_on_act:
                            pending[w, m] += share
                        else:
                            rewards[w, m] += share
                        damaged_by[w, m, r, c] = False
                resources[w, r, c] = none
                health[w, r, c] = 0
                kills[w, code] += 1
        targets[w] = first
    return targets


@njit(cache=True)
def _observe_rows(worlds, agents, static_codes, resources, wounded, agent_at, beam, positions, orientations,
                  kind_index, radius, size, vector_start, codes):  # fmt: skip
    """Sparse observation rows: per crop cell (row-major around the agent) its one channel (outside the map a
    wall; else wall or empty, a stag, a wounded stag where `wounded`, a hare, an agent by kind and
    orientation: later ones cover earlier ones), per crop cell the attack beam's index or the padding
    index `size`, then the two own-state features (orientation, kind). `codes`: `_OBSERVATION_CODES`."""
    wall, stag, wounded_stag, hare, attack_beam = codes[0], codes[1], codes[2], codes[3], codes[4]
    first_agent, quarter, stag_code, hare_code = codes[5], codes[6], codes[7], codes[8]
    rows, cols = static_codes.shape
    side = 2 * radius + 1
    cells = side * side
    out = np.empty((worlds.shape[0], 2 * cells + 2), np.int32)
    for k in range(worlds.shape[0]):
        w, a = worlds[k], agents[k]
        top, left = positions[w, a, 0] - radius, positions[w, a, 1] - radius
        for i in range(side):
            r = top + i
            for j in range(side):
                c = left + j
                cell = i * side + j
                lit = False
                if r < 0 or r >= rows or c < 0 or c >= cols:
                    code = wall
                else:
                    code = static_codes[r, c]
                    resource = resources[w, r, c]
                    if resource == stag_code:
                        code = wounded_stag if wounded[w, r, c] else stag
                    elif resource == hare_code:
                        code = hare
                    other = agent_at[w, r, c]
                    if other >= 0:
                        code = first_agent + kind_index[other] * quarter + orientations[w, other]
                    for m in range(beam.shape[1]):
                        if beam[w, m, r, c]:
                            lit = True
                            break
                out[k, cell] = code * cells + cell
                out[k, cells + cell] = attack_beam * cells + cell if lit else size
        out[k, 2 * cells] = vector_start + orientations[w, a]
        out[k, 2 * cells + 1] = vector_start + quarter + kind_index[a]
    return out
