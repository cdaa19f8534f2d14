"""A hand-built one-world scenario on the one engine, with the turn spelled out (tests only)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from cogames_lib.staghunt.engine import StagHuntEngine
from cogames_lib.staghunt.maps import parse_stag_hunt_map_text
from cogames_lib.staghunt.rules import HARE, RESOURCES, STAG, AgentSpec
from cogames_lib.staghunt.world_config import StagHuntConfig


@dataclass
class Turn:
    rewards: np.ndarray
    kills: dict[str, int]
    attack_targets: list[str | None]


class Scenario:
    """`text` (an ASCII map) with agents (all KindA unless `kinds`) at `positions` facing `orientations`."""

    def __init__(self, text: str, positions, orientations, can_hunt: Sequence[bool] | None = None,
                 max_turns: int = 1_000, **options) -> None:  # fmt: skip
        grid = parse_stag_hunt_map_text(text, "scenario")
        hunt = can_hunt if can_hunt is not None else [True] * len(positions)
        population = [AgentSpec("AgentKindA", flag) for flag in hunt]
        self.engine = StagHuntEngine(population, StagHuntConfig(**options), grid=grid)
        self.engine.load_state(0, grid.resources, positions, orientations, max_turns=max_turns)
        self.ended = False

    def step(self, actions: Sequence[int | None], order: Sequence[int],
             choose: Callable[[int, np.ndarray], int] | None = None) -> Turn:  # fmt: skip
        """One turn: agents act in `order` (`None` skips an agent); `choose(i, obs)` picks from the
        observation just before acting instead."""
        engine = self.engine
        engine.begin_turn(order=np.array([list(order)]))
        targets: list[str | None] = [None] * engine.num_agents
        for index in order:
            action = choose(index, self.observe(index)) if choose else actions[index]
            if action is None:
                continue
            code = int(engine.act(np.array([index]), np.array([int(action)]))[0])
            targets[index] = RESOURCES[code].name if code in RESOURCES else None
        self.ended = len(engine.end_turn()) > 0
        kills = {"stag": int(engine.kills[0, STAG.code]), "hare": int(engine.kills[0, HARE.code])}
        return Turn(engine.rewards[0].copy(), kills, targets)

    def observe(self, index: int) -> np.ndarray:
        return self.engine.observe_dense(np.array([index]))[0]

    def observe_all(self) -> np.ndarray:
        return self.engine.observe_dense()

    @property
    def resources(self) -> np.ndarray:
        return self.engine.resources[0]

    @property
    def health(self) -> np.ndarray:
        return self.engine.health[0]

    @property
    def positions(self) -> np.ndarray:
        return self.engine.positions[0]

    @property
    def orientations(self) -> np.ndarray:
        return self.engine.orientations[0]

    @property
    def beam(self) -> np.ndarray:
        """(agents, rows, cols): the cells each agent's last attack lit."""
        return self.engine.beam[0]
