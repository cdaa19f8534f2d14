"""Stations: one small class per kind, each with a single `use` hook.

`World.step` never names a station: moving into a station calls `station.use(world, actor)`, which
returns whether the use succeeded; the world then charges `station.energy_cost`. Adding a station kind
is a new class here and a row in `STATION_FACTORIES`, not an edit to the step loop.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Protocol

from cogames_lib.cvc import rules
from cogames_lib.cvc.agent import AgentState
from cogames_lib.cvc.config import EnvConfig


class StationHost(Protocol):
    """What a station may ask of the world (`cvc.world.World` provides it); declared here so that
    stations do not import the world that imports them."""

    def adjacent_agents(self, position: int, start_from: int | None = None) -> list[AgentState]: ...

    def refresh_station(self, station: Station) -> None: ...

    def record_deposit(self, agent: AgentState, hearts: int) -> None: ...

    def record_event(self, agent: AgentState, detail: str) -> None: ...


class Station:
    kind: str = "station"
    energy_cost: int = rules.STATION_USE_ENERGY_COST

    def __init__(self, position: int) -> None:
        self.position = position

    def use(self, world: StationHost, actor: AgentState) -> bool:
        raise NotImplementedError

    # Values shown in the observation's value channels.
    def clipped_value(self) -> int:
        return 0

    def uses_left_value(self) -> int:
        return 0

    def stock_value(self) -> int:
        return 0


class Extractor(Station):
    def __init__(self, position: int, rule: rules.ExtractorRule, clipped: bool) -> None:
        super().__init__(position)
        self.kind = f"{rule.resource}_extractor"
        self.rule = rule
        self.item = rules.ITEM_INDEX[rule.resource]
        self.energy_cost = rule.energy_cost
        self.uses_left = rule.max_uses
        self.clipped = clipped

    def use(self, world: StationHost, actor: AgentState) -> bool:
        if self.clipped:
            # Using a clipped extractor with a decoder repairs it: that use extracts nothing and is not counted.
            if actor.items[rules.DECODER] == 0:
                return False
            actor.items[rules.DECODER] -= 1
            self.clipped = False
            world.refresh_station(self)
            return True
        if self.uses_left <= 0:
            return False
        amount = self.rule.output
        if self.rule.bonus_per_extra_adjacent_agent:
            extra_agents = len(world.adjacent_agents(self.position)) - 1
            amount += self.rule.bonus_per_extra_adjacent_agent * max(0, extra_agents)
        amount = min(amount, self.rule.max_output, rules.ITEM_CAPACITY - actor.items[self.item])
        if amount <= 0:
            return False
        actor.items[self.item] += amount
        self.uses_left -= 1
        world.refresh_station(self)
        return True

    def clipped_value(self) -> int:
        return int(self.clipped)

    def uses_left_value(self) -> int:
        return min(self.uses_left, 255)


class Charger(Station):
    kind = "charger"

    def use(self, world: StationHost, actor: AgentState) -> bool:
        # Net gain is CHARGER_ENERGY_GAIN - energy_cost: the use itself is charged like any other.
        actor.energy = min(rules.ENERGY_CAPACITY, actor.energy + rules.CHARGER_ENERGY_GAIN)
        return True


class HeartChest(Station):
    kind = "chest"

    def __init__(self, position: int, capacity: int) -> None:
        super().__init__(position)
        self.capacity = capacity
        self.hearts = 0

    def use(self, world: StationHost, actor: AgentState) -> bool:
        if rules.VIBES[actor.vibe] not in rules.HEART_CHEST_DEPOSIT_VIBES:
            return False
        amount = min(actor.items[rules.HEART], self.capacity - self.hearts)
        if amount <= 0:  # nothing to deposit, or full: the heart stays with the agent (never destroyed)
            return False
        actor.items[rules.HEART] -= amount
        self.hearts += amount
        world.refresh_station(self)
        world.record_deposit(actor, amount)
        return True

    def stock_value(self) -> int:
        return min(self.hearts, 255)


class ResourceChest(Station):
    def __init__(self, position: int, resource: str, stock: int, capacity: int) -> None:
        super().__init__(position)
        self.kind = f"chest_{resource}"
        self.item = rules.ITEM_INDEX[resource]
        self.withdraw_vibe = rules.VIBE_INDEX[resource + rules.RESOURCE_CHEST_WITHDRAW_SUFFIX]
        self.deposit_vibe = rules.VIBE_INDEX[resource + rules.RESOURCE_CHEST_DEPOSIT_SUFFIX]
        self.capacity = capacity
        self.stock = min(stock, capacity)

    def use(self, world: StationHost, actor: AgentState) -> bool:
        if actor.vibe == self.withdraw_vibe:
            amount = min(self.stock, rules.ITEM_CAPACITY - actor.items[self.item])
            sign = 1
        elif actor.vibe == self.deposit_vibe:
            amount = min(actor.items[self.item], self.capacity - self.stock)
            sign = -1
        else:
            return False
        if amount <= 0:
            return False
        actor.items[self.item] += sign * amount
        self.stock -= sign * amount
        world.refresh_station(self)
        return True

    def stock_value(self) -> int:
        return min(self.stock, 255)


class Assembler(Station):
    kind = "assembler"

    def __init__(self, position: int, protocols: tuple[rules.Protocol, ...]) -> None:
        super().__init__(position)
        self.protocols = [(Counter(dict(p.vibes)), p) for p in protocols]

    def use(self, world: StationHost, actor: AgentState) -> bool:
        neighbours = world.adjacent_agents(self.position, start_from=actor.position)
        shown = Counter(rules.VIBES[a.vibe] for a in neighbours if a.vibe != rules.DEFAULT_VIBE)
        for vibe_multiset, protocol in self.protocols:
            if shown != vibe_multiset:  # exact match: any extra non-default vibe breaks it
                continue
            for inputs in protocol.input_options:
                if _pool_can_pay(neighbours, inputs):
                    _take_evenly(neighbours, inputs)
                    receiver = (
                        actor
                        if rules.VIBES[actor.vibe] in vibe_multiset
                        else _first_matched(neighbours, vibe_multiset)
                    )
                    for item, amount in protocol.output:
                        index = rules.ITEM_INDEX[item]
                        receiver.items[index] = min(rules.ITEM_CAPACITY, receiver.items[index] + amount)
                    world.record_event(actor, f"assembled {protocol.name}")
                    return True
            return False
        return False


def _pool_can_pay(agents: list[AgentState], inputs: tuple[tuple[str, int], ...]) -> bool:
    return all(sum(a.items[rules.ITEM_INDEX[item]] for a in agents) >= amount for item, amount in inputs)


def _take_evenly(agents: list[AgentState], inputs: tuple[tuple[str, int], ...]) -> None:
    """Take each unit from whoever holds the most of it (ties: clockwise from the actor)."""
    for item, amount in inputs:
        index = rules.ITEM_INDEX[item]
        for _ in range(amount):
            holder = max(agents, key=lambda a: a.items[index])  # max() keeps the first of equal holders
            holder.items[index] -= 1


def _first_matched(agents: list[AgentState], vibe_multiset: Counter) -> AgentState:
    return next(a for a in agents if rules.VIBES[a.vibe] in vibe_multiset)


StationFactory = Callable[[int, EnvConfig, int], Station]


def _extractor_factory(resource: str) -> StationFactory:
    def build(pos: int, config: EnvConfig, chorus: int) -> Station:
        return Extractor(pos, config.extractor_rule(resource), resource in config.clipped)

    return build


def _resource_chest_factory(resource: str) -> StationFactory:
    def build(pos: int, config: EnvConfig, chorus: int) -> Station:
        stock = config.resource_chest_stock.get(resource, 0)
        return ResourceChest(pos, resource, stock, config.resource_chest_capacity)

    return build


# Map object name -> how to build its station (position, config, chorus size).
STATION_FACTORIES: dict[str, StationFactory] = {
    "assembler": lambda pos, config, chorus: Assembler(pos, rules.assembler_protocols(chorus)),
    "chest": lambda pos, config, chorus: HeartChest(pos, config.heart_chest_capacity),
    "charger": lambda pos, config, chorus: Charger(pos),
    **{f"{resource}_extractor": _extractor_factory(resource) for resource in rules.RESOURCES},
    **{f"chest_{resource}": _resource_chest_factory(resource) for resource in rules.RESOURCES},
}
