"""The compiled step of Cogs vs Clips: the one implementation of what an action does.

Everything here is numba-compiled and works on the arrays of `layout.py`. numba caches the machine code next to
this file and recompiles when this file changes, but the constants below are frozen into that code from
`rules.py`, `layout.py` and `observation.py`, which numba does not watch: `_flush_stale_cache` (run at import)
deletes the cached code when one of those three files changed since it was compiled. `step_world` steps one world; `step_batch` steps many worlds in one call and writes
every agent's observation into the batch's arrays, so a `WorldBatch` step is one call, not a Python loop of
worlds. `World.step` (and so the PettingZoo env) calls `step_world` too: one world is a batch of one.
Rule numbers come from `rules.py` and the channel layout from `observation.py` (frozen into the compiled code
as constants); the assembler's protocols arrive as a `recipes` table built from `rules.assembler_protocols`.

The random turn order is drawn in Python, by each world's own `random.Random` (so the episodes are exactly
those of the Python engine this replaced: `tests/test_cvc_engine_pin.py`), and handed in as one number per
world (`draws`): the permutation `int(draw x n!)` of `permutation_table`, or, for worlds of more than
`MAX_TABLED_AGENTS` agents, an order shuffled in Python (`draw` < 0).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
from pathlib import Path

import numpy as np
from numba import njit

from cogames_lib.cvc import layout as L
from cogames_lib.cvc import observation, rules
from cogames_lib.cvc.observation import CHANNEL, VIEW_RADIUS, VIEW_SIZE

MAX_TABLED_AGENTS = 6

_AGENT = CHANNEL["agent"]
_VIBE = CHANNEL["agent_vibe"]
_CLIPPED = CHANNEL["clipped"]
_USES_LEFT = CHANNEL["uses_left"]
_STOCK = CHANNEL["stock"]
_NUM_CHANNELS = len(CHANNEL)
_RADIUS = VIEW_RADIUS
_SIZE = VIEW_SIZE
_NOOP = rules.NOOP
_FIRST_VIBE = rules.FIRST_VIBE_ACTION
_FIRST_MOVE = rules.FIRST_MOVE_ACTION
_MOVE_DR = np.array([dr for _, dr, _ in rules.MOVES], dtype=np.int64)
_MOVE_DC = np.array([dc for _, _, dc in rules.MOVES], dtype=np.int64)
_RING_DR = np.array([dr for dr, _ in L.RING], dtype=np.int64)
_RING_DC = np.array([dc for _, dc in L.RING], dtype=np.int64)
_MOVE_COST = rules.MOVE_ENERGY_COST
_CAPACITY = rules.ITEM_CAPACITY
_ENERGY_CAPACITY = rules.ENERGY_CAPACITY
_CHARGE = rules.CHARGER_ENERGY_GAIN
_HEART = rules.HEART
_DECODER = rules.DECODER
_DEFAULT_VIBE = rules.DEFAULT_VIBE
_DEPOSIT_VIBES = np.array([vibe in rules.HEART_CHEST_DEPOSIT_VIBES for vibe in rules.VIBES], dtype=np.bool_)
_SUCCESS_REWARD = rules.SUCCESS_REWARD


def permutation_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(orders, first row per agent count, orders per agent count): every turn order of 1..6 agents in
    `itertools.permutations` order, the order the Python engine indexed with `int(draw x n!)`."""
    rows: list[list[int]] = []
    first, count = np.zeros(MAX_TABLED_AGENTS + 1, np.int64), np.zeros(MAX_TABLED_AGENTS + 1, np.int64)
    for n in range(1, MAX_TABLED_AGENTS + 1):
        first[n], count[n] = len(rows), math.factorial(n)
        rows += [list(order) + [0] * (MAX_TABLED_AGENTS - n) for order in itertools.permutations(range(n))]
    return np.array(rows, dtype=np.int64), first, count


@njit(cache=True)
def _refresh(grid, stations, s):
    """Write station `s`'s shown values (clipped, uses left, stock) into the observation channels."""
    row, col = stations[s, L.S_GRID_ROW], stations[s, L.S_GRID_COL]
    grid[_CLIPPED, row, col] = stations[s, L.S_CLIPPED]
    grid[_USES_LEFT, row, col] = min(stations[s, L.S_USES_LEFT], 255)
    grid[_STOCK, row, col] = min(stations[s, L.S_STOCK], 255)


@njit(cache=True)
def show_stations(grid, stations):
    """`_refresh` every station: a world's static channels show each station's starting values."""
    for s in range(stations.shape[0]):
        _refresh(grid, stations, s)


@njit(cache=True)
def _neighbours(cells, meta, position, start, out):
    """The agents in the 8 cells around `position`, clockwise from the ring cell `start` (0: north), into
    `out`; returns how many."""
    stride = meta[L.M_STRIDE]
    n = 0
    for k in range(8):
        j = (start + k) % 8
        agent = cells[L.CELL_AGENT, position + _RING_DR[j] * stride + _RING_DC[j]]
        if agent >= 0:
            out[n] = agent
            n += 1
    return n


@njit(cache=True)
def _use_extractor(cells, stations, agents, meta, grid, s, actor):
    if stations[s, L.S_CLIPPED]:
        # Using a clipped extractor with a decoder repairs it: that use extracts nothing and is not counted.
        if agents[actor, L.A_ITEMS + _DECODER] == 0:
            return False
        agents[actor, L.A_ITEMS + _DECODER] -= 1
        stations[s, L.S_CLIPPED] = 0
        _refresh(grid, stations, s)
        return True
    if stations[s, L.S_USES_LEFT] <= 0:
        return False
    amount = stations[s, L.S_OUTPUT]
    if stations[s, L.S_BONUS]:
        around = np.empty(8, np.int64)
        extra = _neighbours(cells, meta, stations[s, L.S_POSITION], 0, around) - 1
        amount += stations[s, L.S_BONUS] * max(0, extra)
    item = L.A_ITEMS + stations[s, L.S_ITEM]
    amount = min(amount, stations[s, L.S_MAX_OUTPUT], _CAPACITY - agents[actor, item])
    if amount <= 0:
        return False
    agents[actor, item] += amount
    stations[s, L.S_USES_LEFT] -= 1
    _refresh(grid, stations, s)
    return True


@njit(cache=True)
def _use_heart_chest(stations, agents, meta, grid, s, actor):
    if not _DEPOSIT_VIBES[agents[actor, L.A_VIBE]]:
        return False
    amount = min(agents[actor, L.A_ITEMS + _HEART], stations[s, L.S_CAPACITY] - stations[s, L.S_STOCK])
    if amount <= 0:  # nothing to deposit, or full: the heart stays with the agent (never destroyed)
        return False
    agents[actor, L.A_ITEMS + _HEART] -= amount
    stations[s, L.S_STOCK] += amount
    _refresh(grid, stations, s)
    agents[actor, L.A_REWARD] += 1
    agents[actor, L.A_EVENT] = L.EVENT_DEPOSIT
    agents[actor, L.A_EVENT_ARG] = amount
    meta[L.M_SUCCEEDED] = 1
    return True


@njit(cache=True)
def _use_resource_chest(stations, agents, grid, s, actor):
    item = L.A_ITEMS + stations[s, L.S_ITEM]
    vibe = agents[actor, L.A_VIBE]
    if vibe == stations[s, L.S_WITHDRAW_VIBE]:
        amount = min(stations[s, L.S_STOCK], _CAPACITY - agents[actor, item])
        sign = 1
    elif vibe == stations[s, L.S_DEPOSIT_VIBE]:
        amount = min(agents[actor, item], stations[s, L.S_CAPACITY] - stations[s, L.S_STOCK])
        sign = -1
    else:
        return False
    if amount <= 0:
        return False
    agents[actor, item] += sign * amount
    stations[s, L.S_STOCK] -= sign * amount
    _refresh(grid, stations, s)
    return True


@njit(cache=True)
def _use_assembler(cells, stations, agents, meta, recipes, s, actor):
    """The first protocol whose vibes match exactly (any extra non-default vibe breaks it) and whose first
    payable input option the agents around pay, each unit from whoever holds the most (ties: clockwise from
    the actor); the output goes to the actor if it shows one of the protocol's vibes, else to the first
    neighbour (clockwise) that does."""
    stride = meta[L.M_STRIDE]
    position = stations[s, L.S_POSITION]
    offset = agents[actor, L.A_POSITION] - position
    start = 0
    for j in range(8):
        if _RING_DR[j] * stride + _RING_DC[j] == offset:
            start = j
    around = np.empty(8, np.int64)
    n = _neighbours(cells, meta, position, start, around)
    shown = np.zeros(L.NUM_VIBES, np.int64)
    for k in range(n):
        vibe = agents[around[k], L.A_VIBE]
        if vibe != _DEFAULT_VIBE:
            shown[vibe] += 1
    row = 0
    while row < recipes.shape[0]:
        protocol = recipes[row, L.R_PROTOCOL]
        end = row
        while end < recipes.shape[0] and recipes[end, L.R_PROTOCOL] == protocol:
            end += 1
        matches = True
        for v in range(L.NUM_VIBES):
            if shown[v] != recipes[row, L.R_VIBES + v]:
                matches = False
        if not matches:
            row = end
            continue
        for option in range(row, end):
            payable = True
            for item in range(L.NUM_ITEMS):
                pooled = 0
                for k in range(n):
                    pooled += agents[around[k], L.A_ITEMS + item]
                if pooled < recipes[option, L.R_INPUTS + item]:
                    payable = False
            if not payable:
                continue
            for item in range(L.NUM_ITEMS):
                for _ in range(recipes[option, L.R_INPUTS + item]):
                    holder = around[0]
                    for k in range(1, n):  # the first of equal holders keeps it
                        if agents[around[k], L.A_ITEMS + item] > agents[holder, L.A_ITEMS + item]:
                            holder = around[k]
                    agents[holder, L.A_ITEMS + item] -= 1
            receiver = actor
            if recipes[row, L.R_VIBES + agents[actor, L.A_VIBE]] == 0:
                for k in range(n):
                    if recipes[row, L.R_VIBES + agents[around[k], L.A_VIBE]] > 0:
                        receiver = around[k]
                        break
            for item in range(L.NUM_ITEMS):
                if recipes[option, L.R_OUTPUT + item] > 0:
                    gained = agents[receiver, L.A_ITEMS + item] + recipes[option, L.R_OUTPUT + item]
                    agents[receiver, L.A_ITEMS + item] = min(_CAPACITY, gained)
            agents[actor, L.A_EVENT] = L.EVENT_ASSEMBLE
            agents[actor, L.A_EVENT_ARG] = protocol
            return True
        return False
    return False


@njit(cache=True)
def _move(cells, agents, grid, actor, target, stride):
    row, col = agents[actor, L.A_ROW] + _RADIUS, agents[actor, L.A_COL] + _RADIUS
    grid[_AGENT, row, col] = 0
    grid[_VIBE, row, col] = 0
    cells[L.CELL_AGENT, agents[actor, L.A_POSITION]] = -1
    agents[actor, L.A_POSITION] = target
    agents[actor, L.A_ROW] = target // stride - 1
    agents[actor, L.A_COL] = target % stride - 1
    cells[L.CELL_AGENT, target] = actor
    row, col = agents[actor, L.A_ROW] + _RADIUS, agents[actor, L.A_COL] + _RADIUS
    grid[_AGENT, row, col] = 1
    grid[_VIBE, row, col] = agents[actor, L.A_VIBE] + 1


@njit(cache=True)
def _act(cells, stations, agents, meta, recipes, grid, actor, action):
    if action >= _FIRST_VIBE:
        vibe = action - _FIRST_VIBE
        agents[actor, L.A_VIBE] = vibe
        grid[_VIBE, agents[actor, L.A_ROW] + _RADIUS, agents[actor, L.A_COL] + _RADIUS] = vibe + 1
        return True
    if action == _NOOP:
        return True
    stride = meta[L.M_STRIDE]
    move = action - _FIRST_MOVE
    target = agents[actor, L.A_POSITION] + _MOVE_DR[move] * stride + _MOVE_DC[move]
    kind = cells[L.CELL_KIND, target]
    if kind == L.EMPTY:
        if cells[L.CELL_AGENT, target] >= 0 or agents[actor, L.A_ENERGY] < _MOVE_COST:
            return False
        agents[actor, L.A_ENERGY] -= _MOVE_COST
        _move(cells, agents, grid, actor, target, stride)
        return True
    if kind == L.STATION:
        s = cells[L.CELL_STATION, target]
        cost = stations[s, L.S_ENERGY_COST]
        if agents[actor, L.A_ENERGY] < cost:
            return False
        # Pay first so a charger's gain lands on the paid balance; refund on failure (failures are free).
        agents[actor, L.A_ENERGY] -= cost
        kind_of = stations[s, L.S_TYPE]
        if kind_of == L.EXTRACTOR:
            used = _use_extractor(cells, stations, agents, meta, grid, s, actor)
        elif kind_of == L.CHARGER:
            agents[actor, L.A_ENERGY] = min(_ENERGY_CAPACITY, agents[actor, L.A_ENERGY] + _CHARGE)
            used = True
        elif kind_of == L.HEART_CHEST:
            used = _use_heart_chest(stations, agents, meta, grid, s, actor)
        elif kind_of == L.RESOURCE_CHEST:
            used = _use_resource_chest(stations, agents, grid, s, actor)
        else:
            used = _use_assembler(cells, stations, agents, meta, recipes, s, actor)
        if used:
            return True
        agents[actor, L.A_ENERGY] += cost
    return False


@njit(cache=True)
def step_world(cells, stations, agents, meta, recipes, grid, actions, order):
    """One step: the agents act one at a time in `order` (the episode ends at a deposit, and the agents after
    the depositor do not act), then energy is refilled if the world refills it."""
    meta[L.M_STEP] += 1
    for i in range(agents.shape[0]):
        agents[i, L.A_REWARD] = 0
        agents[i, L.A_ACTED] = 0
        agents[i, L.A_EVENT] = L.EVENT_NONE
    for k in range(order.shape[0]):
        actor = order[k]
        success = _act(cells, stations, agents, meta, recipes, grid, actor, actions[actor])
        agents[actor, L.A_LAST_SUCCESS] = 1 if success else 0
        agents[actor, L.A_ACTED] = 1
        if meta[L.M_SUCCEEDED]:  # the heart is in the chest: the episode is over for everyone
            break
    if meta[L.M_ENERGY_REFILL]:
        for i in range(agents.shape[0]):
            agents[i, L.A_ENERGY] = _ENERGY_CAPACITY


@njit(cache=True)
def observe_agents(agents, grid, grids, selves, first):
    """Copy every agent's 11 x 11 window and `self` vector into slots `first`, `first + 1`, ..."""
    for i in range(agents.shape[0]):
        slot = first + i
        row, col = agents[i, L.A_ROW], agents[i, L.A_COL]
        for c in range(_NUM_CHANNELS):
            for r in range(_SIZE):
                for q in range(_SIZE):
                    grids[slot, c, r, q] = grid[c, row + r, col + q]
        for k in range(L.NUM_ITEMS):
            selves[slot, k] = agents[i, L.A_ITEMS + k]
        selves[slot, L.NUM_ITEMS] = agents[i, L.A_ENERGY]
        selves[slot, L.NUM_ITEMS + 1] = agents[i, L.A_VIBE]
        selves[slot, L.NUM_ITEMS + 2] = agents[i, L.A_LAST_SUCCESS]


@njit(cache=True)
def step_batch(
    cells_of,
    stations_of,
    agents_of,
    meta_of,
    recipes_of,
    grid_of,  # typed lists, one entry per world
    actions,
    first_slot,
    draws,
    orders,
    order_table,
    order_first,
    order_count,
    max_steps,
    grids,
    selves,
    rewards,
    done,
    positions,
    items,
    ended,  # the batch arrays
):
    """Step every world, then fill each slot's reward, episode end, position and items; observe the worlds that
    go on (`ended[w]` marks those whose episode ended: they keep their last observation until restarted)."""
    for w in range(len(agents_of)):
        agents = agents_of[w]
        meta = meta_of[w]
        n = agents.shape[0]
        first = first_slot[w]
        if draws[w] >= 0.0:
            row = order_first[n] + np.int64(draws[w] * order_count[n])
            order = order_table[row, :n]
        else:
            order = orders[first : first + n]
        step_world(
            cells_of[w], stations_of[w], agents, meta, recipes_of[w], grid_of[w], actions[first:], order
        )
        finished = meta[L.M_SUCCEEDED] != 0 or meta[L.M_STEP] >= max_steps[w]
        ended[w] = finished
        for i in range(n):
            slot = first + i
            rewards[slot] = agents[i, L.A_REWARD] * _SUCCESS_REWARD
            done[slot] = finished
            positions[slot] = agents[i, L.A_POSITION]
            for k in range(L.NUM_ITEMS):
                items[slot, k] = agents[i, L.A_ITEMS + k]
        if not finished:
            observe_agents(agents, grid_of[w], grids, selves, first)


@njit(cache=True)
def frozen_constants():
    """Constants as the compiled code sees them (a test compares them with the Python modules' values)."""
    return (
        _MOVE_COST,
        _CHARGE,
        _ENERGY_CAPACITY,
        _CAPACITY,
        _FIRST_VIBE,
        _NUM_CHANNELS,
        _STOCK,
        L.A_FIELDS,
        L.S_FIELDS,
        L.R_FIELDS,
        _SUCCESS_REWARD,
    )


def _flush_stale_cache() -> None:
    """Delete this module's cached machine code if `rules.py`, `layout.py` or `observation.py` changed since it
    was compiled (a stamp of their sources is kept beside the cache); concurrent processes may both flush."""
    digest = hashlib.sha256()
    for module in (rules, L, observation):
        digest.update(Path(str(module.__file__)).read_bytes())
    try:
        # numba's own choice of directory (in-tree or user-wide); `_cache` is numba's, not typed.
        cache = Path(step_world._cache.cache_path)  # type: ignore[attr-defined]
        stamp = cache / f"{Path(__file__).stem}.constants"
        if stamp.is_file() and stamp.read_text() == digest.hexdigest():
            return
        for cached in [
            *cache.glob(f"{Path(__file__).stem}.*.nbi"),
            *cache.glob(f"{Path(__file__).stem}.*.nbc"),
        ]:
            cached.unlink(missing_ok=True)
        cache.mkdir(parents=True, exist_ok=True)
        temporary = stamp.with_name(f"{stamp.name}.{os.getpid()}.tmp")
        temporary.write_text(digest.hexdigest())
        os.replace(temporary, stamp)
    except (AttributeError, OSError):  # no cache directory numba can write: it compiles in memory anyway
        return


_flush_stale_cache()
