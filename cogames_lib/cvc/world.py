"""The pure Cogs vs Clips engine: a world's state as arrays and the step rule, no gymnasium, no PettingZoo.

A world's state is the arrays of `layout.py`; the compiled `kernel.step_world` is the one implementation of
the rules (a `WorldBatch` steps many worlds through the same code). This class builds the arrays from a map,
resets them (spawns and starting items, drawn in Python from the episode seed), draws each step's turn order
and hands out observations and read views (`agents`, `stations`) for policies' tests, traces and the oracle.

Positions are flat indices into the map padded by one wall cell on every side, so a move is an
addition and never needs a bounds check. The observation channel tensor is updated incrementally as
things change, so an observation is one slice copy.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np

from cogames_lib.cvc import kernel, rules
from cogames_lib.cvc import layout as L
from cogames_lib.cvc.agent import AgentState
from cogames_lib.cvc.config import EnvConfig
from cogames_lib.cvc.maps import WALKABLE, GridMap
from cogames_lib.cvc.observation import CHANNEL, OBJECT_CHANNELS, VIEW_RADIUS, VIEW_SIZE, empty_padded_grid
from cogames_lib.cvc.stations import STATION_ROWS, StationView, recipe_table
from cogames_lib.errors import ParameterError

EMPTY, WALL, STATION = L.EMPTY, L.WALL, L.STATION
_NUM_ACTIONS = len(rules.ACTIONS)
_AGENT, _VIBE, _WALL = CHANNEL["agent"], CHANNEL["agent_vibe"], CHANNEL["wall"]
ORDER_TABLE, ORDER_FIRST, ORDER_COUNT = kernel.permutation_table()
# A map object's cell kind; every other object is a station.
_CELL_CODE: dict[str, int] = {**dict.fromkeys(WALKABLE, EMPTY), "wall": WALL}


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
        self.ring = L.ring_offsets(self.stride)  # clockwise around a cell, starting north
        # The layout never changes during an episode: cell kinds, station rows and the static channels
        # (with every station's starting values shown) are built once; a reset copies them.
        num_cells = (self.height + 2) * self.stride
        codes = chain.from_iterable(map(_CELL_CODE.get, row, repeat(STATION)) for row in grid_map.cells)
        kinds = np.full((self.height + 2, self.stride), WALL, dtype=np.int32)
        # No count: a ragged hand-built map fails in the reshape instead of being cut short.
        kinds[1:-1, 1:-1] = np.fromiter(codes, np.int32).reshape(self.height, self.width)
        self.kind = kinds.ravel().tolist()
        self._static_grid = empty_padded_grid(self.height, self.width)
        self._static_grid[_WALL, VIEW_RADIUS:-VIEW_RADIUS, VIEW_RADIUS:-VIEW_RADIUS] = (
            kinds[1:-1, 1:-1] == WALL
        )
        station_rows: list[np.ndarray] = []
        station_names: list[str] = []
        self.cells = np.full((3, num_cells), -1, dtype=np.int32)
        self.cells[L.CELL_KIND] = kinds.ravel()
        for position in np.flatnonzero(kinds.ravel() == STATION).tolist():
            r, c = self.to_row_col(position)
            name = grid_map.cells[r][c]
            station = STATION_ROWS[name](self.config)
            station[L.S_POSITION] = position
            station[L.S_GRID_ROW], station[L.S_GRID_COL] = r + VIEW_RADIUS, c + VIEW_RADIUS
            self.cells[L.CELL_STATION, position] = len(station_rows)
            station_rows.append(station)
            station_names.append(name)
            if name in OBJECT_CHANNELS:
                self._static_grid[CHANNEL[name], r + VIEW_RADIUS, c + VIEW_RADIUS] = 1
        self._station_start = np.array(station_rows, dtype=np.int32).reshape(-1, L.S_FIELDS)
        kernel.show_stations(
            self._static_grid, self._station_start
        )  # their starting values, as a step shows them
        self.station_rows = self._station_start.copy()
        self.agent_rows = np.zeros((num_agents, L.A_FIELDS), dtype=np.int32)
        self.meta = np.zeros(L.M_FIELDS, dtype=np.int32)
        self.meta[L.M_STRIDE] = self.stride
        self.meta[L.M_ENERGY_REFILL] = self.config.energy_refill
        self.recipes = recipe_table(self.chorus_size)
        self.stations: dict[int, StationView] = {
            int(row[L.S_POSITION]): StationView(self.station_rows, s, name)
            for s, (row, name) in enumerate(zip(self._station_start, station_names, strict=True))
        }
        self.agent_at = self.cells[L.CELL_AGENT]
        # One channel buffer for the world's life (reset copies the static layout into it), and an
        # (H, W, C, 11, 11) view of every agent-centred window on it: observing all agents is one gather.
        self.grid = self._static_grid.copy()
        windows = np.lib.stride_tricks.sliding_window_view(self.grid, (VIEW_SIZE, VIEW_SIZE), axis=(1, 2))
        self._windows = windows.transpose(1, 2, 0, 3, 4)
        self._tabled = num_agents <= kernel.MAX_TABLED_AGENTS
        self._order = np.arange(num_agents, dtype=np.int64)
        n = min(num_agents, kernel.MAX_TABLED_AGENTS)
        self._orders = list(ORDER_TABLE[ORDER_FIRST[n] : ORDER_FIRST[n] + ORDER_COUNT[n], :n])
        self.record_events = False
        self.reset(0)

    # -- coordinates -------------------------------------------------------------------------------
    def to_position(self, row: int, col: int) -> int:
        return (row + 1) * self.stride + col + 1

    def to_row_col(self, position: int) -> tuple[int, int]:
        return position // self.stride - 1, position % self.stride - 1

    # -- state read by policies' tests, traces and the oracle ---------------------------------------
    @property
    def step_count(self) -> int:
        return int(self.meta[L.M_STEP])

    @property
    def succeeded(self) -> bool:
        return bool(self.meta[L.M_SUCCEEDED])

    @property
    def rewards(self) -> list[float]:
        return [rules.SUCCESS_REWARD * r for r in self.agent_rows[:, L.A_REWARD].tolist()]

    # -- episode -----------------------------------------------------------------------------------
    def reset(self, seed: int | None) -> None:
        self.rng = random.Random(seed)
        self.meta[L.M_STEP] = self.meta[L.M_SUCCEEDED] = 0
        self.events: list[Event] = []
        self.cells[L.CELL_AGENT] = -1
        np.copyto(self.grid, self._static_grid)
        np.copyto(self.station_rows, self._station_start)
        spawns = self.rng.sample(list(self.grid_map.spawns), self.num_agents)
        rows = self.agent_rows
        rows[:] = 0
        for index, (r, c) in enumerate(spawns):
            seed_items = self.config.seed_for(index)
            position = self.to_position(r, c)
            rows[index, L.A_POSITION], rows[index, L.A_ROW], rows[index, L.A_COL] = position, r, c
            for k, item in enumerate(rules.ITEMS):
                rows[index, L.A_ITEMS + k] = int(seed_items.get(item, 0))
            rows[index, L.A_ENERGY] = int(seed_items.get("energy", self.config.initial_energy))
            rows[index, L.A_VIBE] = rules.DEFAULT_VIBE
            rows[index, L.A_LAST_SUCCESS] = 1
            self.cells[L.CELL_AGENT, position] = index
            self.grid[_AGENT, r + VIEW_RADIUS, c + VIEW_RADIUS] = 1
            self.grid[_VIBE, r + VIEW_RADIUS, c + VIEW_RADIUS] = rules.DEFAULT_VIBE + 1
        # A new list every episode: readers that plan per episode (the oracle) notice a reset by its identity.
        self.agents: list[AgentState] = [AgentState(rows, index) for index in range(self.num_agents)]

    def turn_draw(self) -> float:
        """This step's turn order, drawn from the episode's generator: a number in [0, 1) that
        `kernel.step_batch` maps to a permutation, or -1 after shuffling `self._order` (large teams)."""
        if self._tabled:
            return self.rng.random()
        order = list(range(self.num_agents))
        self.rng.shuffle(order)
        self._order[:] = order
        return -1.0

    def turn_order(self, draw: float) -> np.ndarray:
        """The order `draw` (from `turn_draw`) stands for: what `kernel.step_batch` computes from it."""
        if draw < 0:
            return self._order
        return self._orders[int(draw * len(self._orders))]

    def step(self, actions: Sequence[int]) -> None:
        """Agents act one at a time in a fresh random order; then energy refill (if on)."""
        # The compiled step trusts its input (no bounds checks): a bad action would write past its arrays.
        if len(actions) != self.num_agents or not all(0 <= action < _NUM_ACTIONS for action in actions):
            raise ParameterError(
                f"World.step needs {self.num_agents} action indices in 0..{_NUM_ACTIONS - 1}, got {list(actions)}"
            )
        order = self.turn_order(self.turn_draw())
        chosen = np.asarray(actions, dtype=np.int64)
        kernel.step_world(
            self.cells, self.station_rows, self.agent_rows, self.meta, self.recipes, self.grid, chosen, order
        )
        if self.record_events:
            self._record(order, chosen)

    def _record(self, order: np.ndarray, chosen: np.ndarray) -> None:
        """The step's events, in turn order: what a station use did, then the action and its success."""
        rows, step = self.agent_rows, self.step_count
        protocols = rules.assembler_protocols(self.chorus_size)
        for index in order.tolist():
            if not rows[index, L.A_ACTED]:
                break  # the episode ended at an earlier agent's deposit
            event, argument = int(rows[index, L.A_EVENT]), int(rows[index, L.A_EVENT_ARG])
            if event == L.EVENT_DEPOSIT:
                self.events.append(Event(step, index, "event", True, f"deposited {argument} heart"))
            elif event == L.EVENT_ASSEMBLE:
                self.events.append(Event(step, index, "event", True, f"assembled {protocols[argument].name}"))
            action = rules.ACTIONS[int(chosen[index])]
            self.events.append(Event(step, index, action, bool(rows[index, L.A_LAST_SUCCESS])))

    # -- observations ------------------------------------------------------------------------------
    def observe_all(self) -> list[dict[str, np.ndarray]]:
        """Every agent's observation, gathered in two numpy calls."""
        rows = self.agent_rows
        if self.num_agents == 1:  # a slice copy beats a fancy-index gather for one window
            return [self.observe(self.agents[0])]
        grids = self._windows[rows[:, L.A_ROW], rows[:, L.A_COL]]
        selves = self._selves()
        return [{"grid": grids[i], "self": selves[i]} for i in range(self.num_agents)]

    def _selves(self) -> np.ndarray:
        return self.agent_rows[:, L.A_ITEMS : L.A_LAST_SUCCESS + 1].astype(np.uint8)

    def observe(self, agent: AgentState) -> dict[str, np.ndarray]:
        fields = self.agent_rows[agent.index]
        row, col = fields[L.A_ROW : L.A_COL + 1].tolist()
        return {
            "grid": self.grid[:, row : row + VIEW_SIZE, col : col + VIEW_SIZE].copy(),
            "self": fields[L.A_ITEMS : L.A_LAST_SUCCESS + 1].astype(np.uint8),
        }
