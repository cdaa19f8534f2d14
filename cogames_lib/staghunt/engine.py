"""The stag-hunt world as a pure numpy engine (no gymnasium): state, one turn of rules, observations.

Health rule: damage only lasts for the turn in which it is dealt. At the end of every turn each damaged
resource that survived regains 1 health, so a stag (health 2) dies only if two hunters hit it in the
same turn; a lone agent hitting it on consecutive turns never kills it. Its reward is split among the
agents that damaged it since it last healed, i.e. its hitters of that turn. Killed resources do not come
back within an episode.

World options (`world_config.StagHuntConfig` documents each): attack shape (line / area), observation
timing (turn_start: the `wounded_stag` channel shows stags hit during the last turn and the beam channel
that turn's beams; before_act: each agent observes just before it acts, the channel shows damage dealt
earlier in the same turn and every agent's beam stays until that agent acts again), payout timing
(immediate / at the recipient's next act, `pay_pending` at the episode's end), position embedding and the
wounded-stag channel. `batch_engine.BatchStagHunt` plays the same rules over many worlds at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.maps import StagHuntMap
from cogames_lib.staghunt.rules import (
    AGENT_KINDS,
    CHANNEL_INDEX,
    HARE,
    NO_RESOURCE,
    NUM_ORIENTATIONS,
    OBSERVATION_CHANNELS,
    ORIENTATION_DELTAS,
    POSITION_FEATURES,
    RESOURCES,
    STAG,
    VECTOR_FEATURES,
    Action,
    AgentSpec,
    move_direction,
    position_code,
)
from cogames_lib.staghunt.rules import attack_shape as make_attack_shape
from cogames_lib.staghunt.world_config import StagHuntConfig

_MAX_HEALTH = np.zeros(max(RESOURCES) + 1, dtype=np.int8)
for _code, _kind in RESOURCES.items():
    _MAX_HEALTH[_code] = _kind.health
_KIND_INDEX = {kind: index for index, kind in enumerate(AGENT_KINDS)}
_FIRST_AGENT_CHANNEL = CHANNEL_INDEX[f"{AGENT_KINDS[0]}_north"]


def observation_size(view_radius: int = 4, position_embedding: bool = False) -> int:
    """Length of the flat observation vector: crop channels x (2r+1)^2 + the own-state vector (+ the
    12-float position code)."""
    side = 2 * view_radius + 1
    extra = len(POSITION_FEATURES) if position_embedding else 0
    return len(OBSERVATION_CHANNELS) * side * side + len(VECTOR_FEATURES) + extra


@dataclass
class TurnResult:
    """What happened in one turn: per-agent rewards and attack targets, kills by resource name."""

    rewards: np.ndarray
    attack_targets: list[str | None]
    kills: dict[str, int] = field(default_factory=dict)


class StagHuntEngine:
    """Mutable world state of one episode for a fixed population."""

    def __init__(
        self,
        population: Sequence[AgentSpec],
        attack_range: int = 2,
        view_radius: int = 4,
        *,
        attack_shape: str = "line",
        observation_timing: str = "turn_start",
        payout_timing: str = "immediate",
        position_embedding: bool = False,
        wounded_stag_channel: bool = True,
    ) -> None:
        if not population:
            raise ParameterError("population must hold at least one agent")
        if attack_range < 1 or view_radius < 1:
            raise ParameterError(
                f"attack_range and view_radius must be >= 1, got {attack_range}, {view_radius}"
            )
        if observation_timing not in ("turn_start", "before_act"):
            raise ParameterError(
                f"observation_timing must be turn_start or before_act, got {observation_timing!r}"
            )
        if payout_timing not in ("immediate", "next_act"):
            raise ParameterError(f"payout_timing must be immediate or next_act, got {payout_timing!r}")
        self.population = tuple(population)
        self.attack_range = attack_range
        self.view_radius = view_radius
        self.shape_of_attack = make_attack_shape(attack_shape, attack_range)
        self.before_act = observation_timing == "before_act"
        self.payout_timing = payout_timing
        self.position_embedding = position_embedding
        self.wounded_stag_channel = wounded_stag_channel
        self.kind_index = np.array([_KIND_INDEX[spec.kind] for spec in self.population], dtype=np.int64)
        self.can_hunt = np.array([spec.can_hunt for spec in self.population], dtype=bool)
        self.turn = 0

    @classmethod
    def from_config(cls, population: Sequence[AgentSpec], config: StagHuntConfig) -> StagHuntEngine:
        """An engine with every rule option of `config`."""
        return cls(population, config.attack_range, config.view_radius, attack_shape=config.attack_shape,
                   observation_timing=config.observation_timing, payout_timing=config.payout_timing,
                   position_embedding=config.position_embedding,
                   wounded_stag_channel=config.wounded_stag_channel)  # fmt: skip

    @property
    def num_agents(self) -> int:
        return len(self.population)

    def reset(
        self,
        grid: StagHuntMap,
        resources: np.ndarray,
        positions: Sequence[tuple[int, int]],
        orientations: Sequence[int],
        active: Sequence[bool] | None = None,
    ) -> None:
        """Place the population: positions must be free floor cells; inactive agents are absent."""
        n = self.num_agents
        if len(positions) != n or len(orientations) != n:
            raise ParameterError(
                f"need {n} positions and orientations, got {len(positions)}, {len(orientations)}"
            )
        self.walls = grid.walls
        self.resources = resources.astype(np.int8).copy()
        self.health = _MAX_HEALTH[self.resources].copy()
        self.wounded = np.zeros_like(self.walls)
        self.beam = np.zeros((n, *self.walls.shape), dtype=bool)  # per attacker
        self.pending = np.zeros(n)
        self.positions = np.array(positions, dtype=np.int64).reshape(n, 2)
        self.orientations = np.array(orientations, dtype=np.int64)
        self.active = np.ones(n, dtype=bool) if active is None else np.array(active, dtype=bool)
        self.agent_at = np.full(self.walls.shape, -1, dtype=np.int64)
        for index in np.flatnonzero(self.active):
            row, col = self.positions[index]
            if (
                self.walls[row, col]
                or self.resources[row, col] != NO_RESOURCE
                or self.agent_at[row, col] >= 0
            ):
                raise ParameterError(
                    f"{grid.name}: agent {index} cannot start at occupied cell ({row}, {col})"
                )
            if not 0 <= self.orientations[index] < NUM_ORIENTATIONS:
                raise ParameterError(f"orientation must be in 0..3, got {self.orientations[index]}")
            self.agent_at[row, col] = index
        radius = self.view_radius
        rows, cols = self.walls.shape
        self._static = np.zeros((len(OBSERVATION_CHANNELS), rows + 2 * radius, cols + 2 * radius), np.float32)
        self._static[CHANNEL_INDEX["wall"]] = 1.0
        self._static[CHANNEL_INDEX["wall"], radius : radius + rows, radius : radius + cols] = self.walls
        self.turn = 0

    # --- rules -------------------------------------------------------------------------------------

    def step(self, actions: Sequence[int | None], order: Sequence[int]) -> TurnResult:
        """Resolve one turn: agents act one after the other in `order`; `None` means no action."""
        result = self.begin_turn()
        for index in order:
            self.act(int(index), actions[index], result)
        self.end_turn()
        return result

    def step_with_policy(
        self, choose: Callable[[int, np.ndarray], int | None], order: Sequence[int]
    ) -> tuple[TurnResult, dict[int, np.ndarray]]:
        """One turn where agent i, in `order`, observes just before it acts: `choose(i, obs) -> action`.
        Returns the turn's result and the observation each agent acted on."""
        result = self.begin_turn()
        seen: dict[int, np.ndarray] = {}
        for index in order:
            index = int(index)
            if self.active[index]:
                seen[index] = self.observe(index)
                self.act(index, choose(index, seen[index]), result)
        self.end_turn()
        return result, seen

    def begin_turn(self) -> TurnResult:
        if not self.before_act:
            self.beam[:] = False  # turn_start: observers see the beams of the last full turn
        self._hitters: dict[tuple[int, int], list[int]] = {}
        return TurnResult(
            np.zeros(self.num_agents), [None] * self.num_agents, {k.name: 0 for k in RESOURCES.values()}
        )

    def act(self, index: int, action: int | None, result: TurnResult) -> None:
        """Agent `index` takes its action (a pending payout is delivered first under `next_act`)."""
        if not self.active[index]:
            return
        if self.payout_timing == "next_act":
            result.rewards[index] += self.pending[index]
            self.pending[index] = 0.0
        if self.before_act:
            self.beam[index] = False  # an attacker's beam stays on the map until it acts again
        if action is None:
            return
        if action == Action.ATTACK:
            result.attack_targets[index] = self._attack(index, result)
        else:
            self._move(index, int(action))

    def end_turn(self) -> None:
        """Every damaged resource heals by 1; the turn counter advances."""
        alive = self.resources != NO_RESOURCE
        damaged = alive & (self.health < _MAX_HEALTH[self.resources])
        self.wounded = damaged & (self.resources == STAG.code)
        self.health[damaged] += 1
        self.turn += 1

    def pay_pending(self) -> np.ndarray:
        """Payouts not yet delivered (payout at next act); the episode's end pays them into its last turn."""
        pending, self.pending = self.pending, np.zeros(self.num_agents)
        return pending

    def _move(self, index: int, action: int) -> None:
        direction = move_direction(int(self.orientations[index]), action)
        row, col = self.positions[index]
        d_row, d_col = ORIENTATION_DELTAS[direction]
        target = (row + d_row, col + d_col)
        if self.walls[target] or self.resources[target] != NO_RESOURCE or self.agent_at[target] >= 0:
            return  # a blocked move does nothing, not even turn the agent
        self.agent_at[row, col] = -1
        self.agent_at[target] = index
        self.positions[index] = target
        self.orientations[index] = direction

    def _attack(self, index: int, result: TurnResult) -> str | None:
        """Hit every resource under the attack shape; return the nearest one's name."""
        row, col = self.positions[index]
        facing = int(self.orientations[index])
        forward, right = ORIENTATION_DELTAS[facing], ORIENTATION_DELTAS[(facing + 1) % NUM_ORIENTATIONS]
        rows, cols = self.walls.shape
        first: str | None = None
        for distance, lateral in self.shape_of_attack.offsets:
            cell = (
                row + distance * forward[0] + lateral * right[0],
                col + distance * forward[1] + lateral * right[1],
            )
            if not (0 <= cell[0] < rows and 0 <= cell[1] < cols) or self.walls[cell]:
                if self.shape_of_attack.walls_block:
                    break  # a line beam stops at a wall (the border keeps it inside the grid)
                continue  # an area attack skips wall cells
            self.beam[index][cell] = True
            code = int(self.resources[cell])
            if code == NO_RESOURCE:
                continue
            kind = RESOURCES[code]
            first = first or kind.name
            if kind.needs_hunter and not self.can_hunt[index]:
                continue
            cell_hitters = self._hitters.setdefault(cell, [])  # damaged it since it last healed
            cell_hitters.append(index)
            self.health[cell] -= 1
            if self.health[cell] <= 0:
                self.resources[cell] = NO_RESOURCE
                payout = result.rewards if self.payout_timing == "immediate" else self.pending
                for hitter in cell_hitters:
                    payout[hitter] += kind.reward / len(cell_hitters)
                del self._hitters[cell]
                result.kills[kind.name] += 1
        return first

    # --- observations ------------------------------------------------------------------------------

    def _channel_grid(self) -> np.ndarray:
        grid = self._static.copy()
        radius = self.view_radius
        rows, cols = self.walls.shape
        inner = grid[:, radius : radius + rows, radius : radius + cols]
        stag = self.resources == STAG.code
        if not self.wounded_stag_channel:
            wounded = np.zeros_like(stag)
        elif self.before_act:  # damage dealt earlier this turn (it heals at the turn's end)
            wounded = stag & (self.health < STAG.health)
        else:
            wounded = stag & self.wounded
        inner[CHANNEL_INDEX["stag"]] = stag & ~wounded
        inner[CHANNEL_INDEX["wounded_stag"]] = wounded
        inner[CHANNEL_INDEX["hare"]] = self.resources == HARE.code
        inner[CHANNEL_INDEX["attack_beam"]] = self.beam.any(axis=0)
        inner[CHANNEL_INDEX["empty"]] = ~self.walls & (self.resources == NO_RESOURCE) & (self.agent_at < 0)
        for index in np.flatnonzero(self.active):
            channel = (
                _FIRST_AGENT_CHANNEL + self.kind_index[index] * NUM_ORIENTATIONS + self.orientations[index]
            )
            inner[channel, self.positions[index, 0], self.positions[index, 1]] = 1.0
        return grid

    def observe_all(self) -> np.ndarray:
        """(num_agents, observation_size) float32; rows of inactive agents are zeros."""
        grid = self._channel_grid()
        side = 2 * self.view_radius + 1
        size = observation_size(self.view_radius, self.position_embedding)
        observations = np.zeros((self.num_agents, size), dtype=np.float32)
        crop_size = grid.shape[0] * side * side
        for index in np.flatnonzero(self.active):
            row, col = self.positions[index]
            observations[index, :crop_size] = grid[:, row : row + side, col : col + side].reshape(-1)
            observations[index, crop_size + self.orientations[index]] = 1.0
            observations[index, crop_size + NUM_ORIENTATIONS + self.kind_index[index]] = 1.0
            if self.position_embedding:
                observations[index, -len(POSITION_FEATURES) :] = position_code(row, col, self.walls.shape)
        return observations

    def observe(self, index: int) -> np.ndarray:
        return self.observe_all()[index]
