"""The stag-hunt world as a pure numpy engine (no gymnasium): state, one turn of rules, observations.

Health rule: damage only lasts for the turn in which it is dealt. At the end of every turn each damaged
resource that survived regains 1 health, so a stag (health 2) dies only if two hunters hit it in the
same turn; a lone agent hitting it on consecutive turns never kills it. A stag hit this turn is shown
as `wounded_stag` in the next observation (the cue that a partner is attacking). Killed resources do
not come back within an episode.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    RESOURCES,
    STAG,
    VECTOR_FEATURES,
    Action,
    AgentSpec,
    move_direction,
)

_MAX_HEALTH = np.zeros(max(RESOURCES) + 1, dtype=np.int8)
for _code, _kind in RESOURCES.items():
    _MAX_HEALTH[_code] = _kind.health
_KIND_INDEX = {kind: index for index, kind in enumerate(AGENT_KINDS)}
_FIRST_AGENT_CHANNEL = CHANNEL_INDEX[f"{AGENT_KINDS[0]}_north"]


def observation_size(view_radius: int = 4) -> int:
    """Length of the flat observation vector: crop channels x (2r+1)^2 + the own-state vector."""
    side = 2 * view_radius + 1
    return len(OBSERVATION_CHANNELS) * side * side + len(VECTOR_FEATURES)


@dataclass
class TurnResult:
    """What happened in one turn: per-agent rewards and attack targets, kills by resource name."""

    rewards: np.ndarray
    attack_targets: list[str | None]
    kills: dict[str, int] = field(default_factory=dict)


class StagHuntEngine:
    """Mutable world state of one episode for a fixed population."""

    def __init__(self, population: Sequence[AgentSpec], attack_range: int = 2, view_radius: int = 4) -> None:
        if not population:
            raise ParameterError("population must hold at least one agent")
        if attack_range < 1 or view_radius < 1:
            raise ParameterError(
                f"attack_range and view_radius must be >= 1, got {attack_range}, {view_radius}"
            )
        self.population = tuple(population)
        self.attack_range = attack_range
        self.view_radius = view_radius
        self.kind_index = np.array([_KIND_INDEX[spec.kind] for spec in self.population], dtype=np.int64)
        self.can_hunt = np.array([spec.can_hunt for spec in self.population], dtype=bool)
        self.turn = 0

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
        self.beam = np.zeros_like(self.walls)
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
        result = TurnResult(
            np.zeros(self.num_agents), [None] * self.num_agents, {k.name: 0 for k in RESOURCES.values()}
        )
        self.beam[:] = False
        hitters: dict[tuple[int, int], list[int]] = {}
        for index in order:
            action = actions[index]
            if action is None or not self.active[index]:
                continue
            if action == Action.ATTACK:
                result.attack_targets[index] = self._attack(int(index), hitters, result)
            else:
                self._move(int(index), int(action))
        alive = self.resources != NO_RESOURCE
        damaged = alive & (self.health < _MAX_HEALTH[self.resources])
        self.wounded = damaged & (self.resources == STAG.code)
        self.health[damaged] += 1
        self.turn += 1
        return result

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

    def _attack(
        self, index: int, hitters: dict[tuple[int, int], list[int]], result: TurnResult
    ) -> str | None:
        """Hit every resource ahead at distances 1..attack_range; return the nearest one's name."""
        row, col = self.positions[index]
        d_row, d_col = ORIENTATION_DELTAS[int(self.orientations[index])]
        first: str | None = None
        for distance in range(1, self.attack_range + 1):
            cell = (row + d_row * distance, col + d_col * distance)
            if self.walls[cell]:
                break  # walls stop the beam (and the border keeps it inside the grid)
            self.beam[cell] = True
            code = int(self.resources[cell])
            if code == NO_RESOURCE:
                continue
            kind = RESOURCES[code]
            first = first or kind.name
            if kind.needs_hunter and not self.can_hunt[index]:
                continue
            cell_hitters = hitters.setdefault(cell, [])
            cell_hitters.append(index)
            self.health[cell] -= 1
            if self.health[cell] <= 0:
                self.resources[cell] = NO_RESOURCE
                for hitter in cell_hitters:
                    result.rewards[hitter] += kind.reward / len(cell_hitters)
                result.kills[kind.name] += 1
        return first

    # --- observations ------------------------------------------------------------------------------

    def _channel_grid(self) -> np.ndarray:
        grid = self._static.copy()
        radius = self.view_radius
        rows, cols = self.walls.shape
        inner = grid[:, radius : radius + rows, radius : radius + cols]
        stag = self.resources == STAG.code
        inner[CHANNEL_INDEX["stag"]] = stag & ~self.wounded
        inner[CHANNEL_INDEX["wounded_stag"]] = stag & self.wounded
        inner[CHANNEL_INDEX["hare"]] = self.resources == HARE.code
        inner[CHANNEL_INDEX["attack_beam"]] = self.beam
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
        observations = np.zeros((self.num_agents, observation_size(self.view_radius)), dtype=np.float32)
        crop_size = grid.shape[0] * side * side
        for index in np.flatnonzero(self.active):
            row, col = self.positions[index]
            observations[index, :crop_size] = grid[:, row : row + side, col : col + side].reshape(-1)
            observations[index, crop_size + self.orientations[index]] = 1.0
            observations[index, crop_size + NUM_ORIENTATIONS + self.kind_index[index]] = 1.0
        return observations

    def observe(self, index: int) -> np.ndarray:
        return self.observe_all()[index]
