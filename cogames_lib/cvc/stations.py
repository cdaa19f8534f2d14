"""Stations as data: one row of the world's `stations` array per station (`layout.py`), built here from the
map's object names and the diagnostic's `EnvConfig`, and `StationView`, a read view of one row for traces,
tests and the oracle. What a use of each kind does is in the compiled step (`kernel.py`); adding a station
kind is a row builder here and a branch there.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cogames_lib.cvc import layout as L
from cogames_lib.cvc import rules
from cogames_lib.cvc.config import EnvConfig


def _row(kind: int, energy_cost: int = rules.STATION_USE_ENERGY_COST) -> np.ndarray:
    row = np.zeros(L.S_FIELDS, np.int32)
    row[L.S_TYPE], row[L.S_ENERGY_COST] = kind, energy_cost
    row[L.S_WITHDRAW_VIBE] = row[L.S_DEPOSIT_VIBE] = -1
    return row


def _extractor(resource: str) -> Callable[[EnvConfig], np.ndarray]:
    def build(config: EnvConfig) -> np.ndarray:
        rule = config.extractor_rule(resource)
        row = _row(L.EXTRACTOR, rule.energy_cost)
        row[L.S_ITEM] = rules.ITEM_INDEX[resource]
        row[L.S_OUTPUT], row[L.S_MAX_OUTPUT] = rule.output, rule.max_output
        row[L.S_BONUS] = rule.bonus_per_extra_adjacent_agent
        row[L.S_USES_LEFT] = rule.max_uses
        row[L.S_CLIPPED] = resource in config.clipped
        return row

    return build


def _resource_chest(resource: str) -> Callable[[EnvConfig], np.ndarray]:
    def build(config: EnvConfig) -> np.ndarray:
        row = _row(L.RESOURCE_CHEST)
        row[L.S_ITEM] = rules.ITEM_INDEX[resource]
        row[L.S_CAPACITY] = config.resource_chest_capacity
        row[L.S_STOCK] = min(config.resource_chest_stock.get(resource, 0), config.resource_chest_capacity)
        row[L.S_WITHDRAW_VIBE] = rules.VIBE_INDEX[resource + rules.RESOURCE_CHEST_WITHDRAW_SUFFIX]
        row[L.S_DEPOSIT_VIBE] = rules.VIBE_INDEX[resource + rules.RESOURCE_CHEST_DEPOSIT_SUFFIX]
        return row

    return build


def _heart_chest(config: EnvConfig) -> np.ndarray:
    row = _row(L.HEART_CHEST)
    row[L.S_CAPACITY] = config.heart_chest_capacity
    return row


# Map object name -> its station row at the start of an episode.
STATION_ROWS: dict[str, Callable[[EnvConfig], np.ndarray]] = {
    "assembler": lambda config: _row(L.ASSEMBLER),
    "chest": _heart_chest,
    "charger": lambda config: _row(L.CHARGER),
    **{f"{resource}_extractor": _extractor(resource) for resource in rules.RESOURCES},
    **{f"chest_{resource}": _resource_chest(resource) for resource in rules.RESOURCES},
}


def recipe_table(chorus_size: int) -> np.ndarray:
    """`rules.assembler_protocols(chorus_size)` as the `recipes` array: one row per (protocol, input option)."""
    rows = []
    for index, protocol in enumerate(rules.assembler_protocols(chorus_size)):
        for inputs in protocol.input_options:
            row = np.zeros(L.R_FIELDS, np.int32)
            row[L.R_PROTOCOL] = index
            for vibe, count in protocol.vibes:
                row[L.R_VIBES + rules.VIBE_INDEX[vibe]] += count
            for item, amount in inputs:
                row[L.R_INPUTS + rules.ITEM_INDEX[item]] += amount
            for item, amount in protocol.output:
                row[L.R_OUTPUT + rules.ITEM_INDEX[item]] += amount
            rows.append(row)
    return np.array(rows, dtype=np.int32)


class StationView:
    """One station of a world, read live from its row (the world's arrays change as it steps)."""

    __slots__ = ("_rows", "_s", "kind", "position")

    def __init__(self, rows: np.ndarray, s: int, kind: str) -> None:
        self._rows, self._s = rows, s
        self.kind = kind
        self.position = int(rows[s, L.S_POSITION])

    def _get(self, field: int) -> int:
        return int(self._rows[self._s, field])

    @property
    def energy_cost(self) -> int:
        return self._get(L.S_ENERGY_COST)

    @property
    def uses_left(self) -> int:
        return self._get(L.S_USES_LEFT)

    @property
    def clipped(self) -> bool:
        return bool(self._get(L.S_CLIPPED))

    @property
    def stock(self) -> int:
        return self._get(L.S_STOCK)

    @property
    def capacity(self) -> int:
        return self._get(L.S_CAPACITY)

    @property
    def hearts(self) -> int:
        return self._get(L.S_STOCK)

    @hearts.setter
    def hearts(self, value: int) -> None:  # tests build "a chest that already holds a heart"
        self._rows[self._s, L.S_STOCK] = value

    # Values shown in the observation's value channels (what `kernel._refresh` writes).
    def clipped_value(self) -> int:
        return self._get(L.S_CLIPPED)

    def uses_left_value(self) -> int:
        return min(self._get(L.S_USES_LEFT), 255)

    def stock_value(self) -> int:
        return min(self._get(L.S_STOCK), 255)

    def __repr__(self) -> str:
        return f"StationView({self.kind!r} at {self.position})"
