"""The pure Cogs vs Clips engine: state and the step rule, no gymnasium, no PettingZoo.

Positions are flat indices into the map padded by one wall cell on every side, so a move is an
addition and never needs a bounds check. The observation channel tensor is updated incrementally as
things change, so an observation is one slice copy.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cogames_lib.cvc import rules
from cogames_lib.cvc.agent import AgentState
from cogames_lib.cvc.config import EnvConfig
from cogames_lib.cvc.maps import WALKABLE, GridMap
from cogames_lib.cvc.observation import CHANNEL, OBJECT_CHANNELS, VIEW_RADIUS, VIEW_SIZE, empty_padded_grid
from cogames_lib.cvc.stations import STATION_FACTORIES, Station

EMPTY, WALL, STATION = 0, 1, 2
_AGENT, _VIBE = CHANNEL["agent"], CHANNEL["agent_vibe"]
_CLIPPED, _USES_LEFT, _STOCK = CHANNEL["clipped"], CHANNEL["uses_left"], CHANNEL["stock"]


@dataclass(frozen=True)
class Event:
    step: int
    agent: int
    action: str
    success: bool
    detail: str = ""


class World:
    """One episode's state. `reset(seed)` then `step(actions)` (one action index per agent)."""

    def __init__(self, grid_map: GridMap, num_agents: int, config: EnvConfig | None = None) -> None:
        grid_map.require_spawns(num_agents)
        self.grid_map = grid_map
        self.num_agents = num_agents
        self.config = config or EnvConfig()
        self.chorus_size = self.config.chorus_size or num_agents
        self.height, self.width = grid_map.height, grid_map.width
        self.stride = self.width + 2
        self.move_delta = [0, -self.stride, self.stride, -1, 1]  # by action index (noop, N, S, W, E)
        # Clockwise around a cell, starting north.
        s = self.stride
        self.ring = (-s, -s + 1, 1, s + 1, s, s - 1, -1, -s - 1)
        # The layout never changes during an episode: cell kinds and the static channels are built once.
        self.kind = [WALL] * ((self.height + 2) * self.stride)
        self._station_cells: list[tuple[int, str]] = []
        self._static_grid = empty_padded_grid(self.height, self.width)
        for r, row in enumerate(grid_map.cells):
            for c, name in enumerate(row):
                position = self.to_position(r, c)
                if name in WALKABLE:
                    self.kind[position] = EMPTY
                elif name != "wall":
                    self.kind[position] = STATION
                    self._station_cells.append((position, name))
                if name in OBJECT_CHANNELS:
                    self._static_grid[CHANNEL[name], r + VIEW_RADIUS, c + VIEW_RADIUS] = 1
        # One channel buffer for the world's life (reset copies the static layout into it), and an
        # (H, W, C, 11, 11) view of every agent-centred window on it: observing all agents is one gather.
        self.grid = self._static_grid.copy()
        windows = np.lib.stride_tricks.sliding_window_view(self.grid, (VIEW_SIZE, VIEW_SIZE), axis=(1, 2))
        self._windows = windows.transpose(1, 2, 0, 3, 4)
        # Every turn order, so a step draws one random number instead of shuffling (small teams only).
        self._orders = (
            [list(order) for order in itertools.permutations(range(num_agents))] if num_agents <= 6 else None
        )
        self.record_events = False
        self.reset(0)

    # -- coordinates -------------------------------------------------------------------------------
    def to_position(self, row: int, col: int) -> int:
        return (row + 1) * self.stride + col + 1

    def to_row_col(self, position: int) -> tuple[int, int]:
        return position // self.stride - 1, position % self.stride - 1

    # -- episode -----------------------------------------------------------------------------------
    def reset(self, seed: int | None) -> None:
        self.rng = random.Random(seed)
        self.step_count = 0
        self.succeeded = False
        self.rewards = [0.0] * self.num_agents
        self.events: list[Event] = []
        self.agent_at = [-1] * len(self.kind)
        np.copyto(self.grid, self._static_grid)
        self.stations: dict[int, Station] = {}
        for position, name in self._station_cells:
            station = STATION_FACTORIES[name](position, self.config, self.chorus_size)
            self.stations[position] = station
            self.refresh_station(station)
        spawns = self.rng.sample(list(self.grid_map.spawns), self.num_agents)
        self.agents: list[AgentState] = []
        for index, (r, c) in enumerate(spawns):
            seed_items = self.config.seed_for(index)
            items = [int(seed_items.get(item, 0)) for item in rules.ITEMS]
            energy = int(seed_items.get("energy", self.config.initial_energy))
            agent = AgentState(index, self.to_position(r, c), r, c, items, energy)
            self.agents.append(agent)
            self.agent_at[agent.position] = index
            self.grid[_AGENT, r + VIEW_RADIUS, c + VIEW_RADIUS] = 1
            self.grid[_VIBE, r + VIEW_RADIUS, c + VIEW_RADIUS] = agent.vibe + 1

    def step(self, actions: Sequence[int]) -> None:
        """Agents act one at a time in a fresh random order; then energy refill (if on)."""
        self.step_count += 1
        self.rewards = [0.0] * self.num_agents
        if self._orders is not None:
            order = self._orders[int(self.rng.random() * len(self._orders))]
        else:
            order = list(range(self.num_agents))
            self.rng.shuffle(order)
        for index in order:
            agent = self.agents[index]
            action = actions[index]
            success = self._act(agent, action)
            agent.last_success = int(success)
            if self.record_events:
                self.events.append(Event(self.step_count, index, rules.ACTIONS[action], success))
            if self.succeeded:  # the heart is in the chest: the episode is over for everyone
                break
        if self.config.energy_refill:
            for agent in self.agents:
                agent.energy = rules.ENERGY_CAPACITY

    def _act(self, agent: AgentState, action: int) -> bool:
        if action >= rules.FIRST_VIBE_ACTION:
            agent.vibe = action - rules.FIRST_VIBE_ACTION
            self.grid[_VIBE, agent.row + VIEW_RADIUS, agent.col + VIEW_RADIUS] = agent.vibe + 1
            return True
        if action == rules.NOOP:
            return True
        target = agent.position + self.move_delta[action]
        kind = self.kind[target]
        if kind == EMPTY:
            if self.agent_at[target] >= 0 or agent.energy < rules.MOVE_ENERGY_COST:
                return False
            agent.energy -= rules.MOVE_ENERGY_COST
            self._move(agent, target)
            return True
        if kind == STATION:
            station = self.stations[target]
            if agent.energy < station.energy_cost:
                return False
            # Pay first so a charger's gain lands on the paid balance; refund on failure (failures are free).
            agent.energy -= station.energy_cost
            if station.use(self, agent):
                return True
            agent.energy += station.energy_cost
        return False

    def _move(self, agent: AgentState, target: int) -> None:
        grid = self.grid
        row, col = agent.row + VIEW_RADIUS, agent.col + VIEW_RADIUS
        grid[_AGENT, row, col] = 0
        grid[_VIBE, row, col] = 0
        self.agent_at[agent.position] = -1
        agent.position = target
        agent.row, agent.col = target // self.stride - 1, target % self.stride - 1
        self.agent_at[target] = agent.index
        row, col = agent.row + VIEW_RADIUS, agent.col + VIEW_RADIUS
        grid[_AGENT, row, col] = 1
        grid[_VIBE, row, col] = agent.vibe + 1

    # -- services for stations ---------------------------------------------------------------------
    def adjacent_agents(self, position: int, start_from: int | None = None) -> list[AgentState]:
        """Agents in the 8 cells around `position`, clockwise from `start_from` (default: north)."""
        ring: tuple[int, ...] = self.ring
        if start_from is not None:
            start = ring.index(start_from - position)
            ring = ring[start:] + ring[:start]
        agent_at = self.agent_at
        return [self.agents[agent_at[position + d]] for d in ring if agent_at[position + d] >= 0]

    def refresh_station(self, station: Station) -> None:
        row, col = self.to_row_col(station.position)
        row, col = row + VIEW_RADIUS, col + VIEW_RADIUS
        self.grid[_CLIPPED, row, col] = station.clipped_value()
        self.grid[_USES_LEFT, row, col] = station.uses_left_value()
        self.grid[_STOCK, row, col] = station.stock_value()

    def record_deposit(self, agent: AgentState, hearts: int) -> None:
        self.rewards[agent.index] += rules.SUCCESS_REWARD
        self.succeeded = True
        self.record_event(agent, f"deposited {hearts} heart")

    def record_event(self, agent: AgentState, detail: str) -> None:
        if self.record_events:
            self.events.append(Event(self.step_count, agent.index, "event", True, detail))

    # -- observations ------------------------------------------------------------------------------
    def observe_all(self) -> list[dict[str, np.ndarray]]:
        """Every agent's observation, gathered in two numpy calls."""
        agents = self.agents
        if len(agents) == 1:  # a slice copy beats a fancy-index gather for one window
            return [self.observe(agents[0])]
        grids = self._windows[[a.row for a in agents], [a.col for a in agents]]
        selves = np.array([[*a.items, a.energy, a.vibe, a.last_success] for a in agents], dtype=np.uint8)
        return [{"grid": grids[i], "self": selves[i]} for i in range(len(agents))]

    def observe(self, agent: AgentState) -> dict[str, np.ndarray]:
        row, col = agent.row, agent.col
        items = agent.items
        return {
            "grid": self.grid[:, row : row + VIEW_SIZE, col : col + VIEW_SIZE].copy(),
            "self": np.array(
                (
                    items[0],
                    items[1],
                    items[2],
                    items[3],
                    items[4],
                    items[5],
                    agent.energy,
                    agent.vibe,
                    agent.last_success,
                ),
                dtype=np.uint8,
            ),
        }
