"""The array layout of one world's state: the one contract between the compiled step (`kernel.py`), the world
that builds and resets the arrays (`world.py`) and the read views that policies, traces and the oracle use
(`agent.py`, `stations.py`).

A world's state is six integer arrays and its observation channel tensor:
- `cells` (3, padded cells): the cell kind (static), the agent standing there (-1: none), the station there
  (its row in `stations`, -1: none); positions are flat indices into the map padded by one wall cell.
- `stations` (stations, S_FIELDS): one row per station, the fields below.
- `agents` (agents, A_FIELDS): one row per agent.
- `meta` (M_FIELDS,): the world's counters and switches.
- `recipes` (rows, R_FIELDS): the assembler's protocols as data, one row per (protocol, input option).
"""

from __future__ import annotations

from cogames_lib.cvc import rules

NUM_ITEMS = len(rules.ITEMS)
NUM_VIBES = len(rules.VIBES)

# Cell kinds (`cells[CELL_KIND]`).
EMPTY, WALL, STATION = 0, 1, 2
CELL_KIND, CELL_AGENT, CELL_STATION = 0, 1, 2

# Station kinds (`stations[:, S_TYPE]`).
EXTRACTOR, CHARGER, HEART_CHEST, RESOURCE_CHEST, ASSEMBLER = 0, 1, 2, 3, 4

# Station fields. GRID_ROW/GRID_COL address the station's cell in the padded observation tensor.
(
    S_TYPE,
    S_POSITION,
    S_GRID_ROW,
    S_GRID_COL,
    S_ENERGY_COST,
    S_ITEM,  # the extractor's resource or the resource chest's (an index into rules.ITEMS)
    S_OUTPUT,
    S_MAX_OUTPUT,
    S_BONUS,  # the extractor's extra output per extra adjacent agent
    S_USES_LEFT,
    S_CLIPPED,
    S_STOCK,  # a resource chest's stock, the heart chest's hearts
    S_CAPACITY,
    S_WITHDRAW_VIBE,
    S_DEPOSIT_VIBE,
) = range(15)
S_FIELDS = 15

# Agent fields: position and grid cell, the items in rules.ITEMS order, then the rest.
A_POSITION, A_ROW, A_COL = 0, 1, 2
A_ITEMS = 3
A_ENERGY = A_ITEMS + NUM_ITEMS
A_VIBE = A_ENERGY + 1
A_LAST_SUCCESS = A_VIBE + 1
A_REWARD = A_LAST_SUCCESS + 1  # successful deposits at the last step (reward = this x SUCCESS_REWARD)
A_ACTED = A_REWARD + 1  # 1 if the agent had its turn at the last step (a success ends the step)
A_EVENT = A_ACTED + 1  # what its use of a station did at the last step: one of the EVENT_ codes
A_EVENT_ARG = A_EVENT + 1  # the deposit's hearts, or the protocol's row in rules.assembler_protocols
A_FIELDS = A_EVENT_ARG + 1

EVENT_NONE, EVENT_DEPOSIT, EVENT_ASSEMBLE = 0, 1, 2

# World fields.
M_STEP, M_SUCCEEDED, M_STRIDE, M_ENERGY_REFILL = 0, 1, 2, 3
M_FIELDS = 4

# Recipe fields: the protocol's index, the vibes it needs (a count per vibe), the inputs of this option (a count
# per item) and its output (a count per item). Rows of one protocol are consecutive, options in order.
R_PROTOCOL = 0
R_VIBES = 1
R_INPUTS = R_VIBES + NUM_VIBES
R_OUTPUT = R_INPUTS + NUM_ITEMS
R_FIELDS = R_OUTPUT + NUM_ITEMS

# The eight cells around a cell, clockwise from north, as (row, col) offsets: who stands beside a station, in
# the order the assembler takes its inputs.
RING: tuple[tuple[int, int], ...] = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def ring_offsets(stride: int) -> tuple[int, ...]:
    """`RING` as flat position offsets on a padded map whose rows are `stride` cells apart."""
    return tuple(dr * stride + dc for dr, dc in RING)
