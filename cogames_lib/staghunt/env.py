"""PettingZoo adapters over the one engine (a batch of one world): the AEC game and the parallel env derived
from it with PettingZoo's own conversion.

The stag hunt is turn-based: each turn the agents act one after the other in a freshly drawn random order.
`StagHuntAECEnv` plays exactly that: `agent_selection` follows the turn's order (`agents` is listed in
that order), and `observe(agent)` is what the world's `observation_timing` says the agent sees: with
`before_act` (sorrel_e3) the world just before it acts, with `turn_start` the world as the turn started.
Rewards are the turn's payouts, set when the turn's last agent has acted. Episodes end by truncation.

`StagHuntEnv` is PettingZoo's `aec_to_parallel` of that game: every live agent submits an action, then the
agents act in the turn's order. Its observations are every agent's view between turns; in a `before_act`
world an agent therefore chooses from the turn's start, not from the view just before its act (what
training and the AEC env give it). Play `before_act` worlds through the AEC env to keep that rule.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.conversions import aec_to_parallel_wrapper

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.engine import StagHuntEngine
from cogames_lib.staghunt.rules import (
    HARE,
    NUM_ACTIONS,
    POSITION_FEATURES,
    PRESET_POPULATIONS,
    RESOURCES,
    STAG,
    AgentSpec,
)
from cogames_lib.staghunt.world_config import StagHuntConfig


def _population(population: Sequence[AgentSpec] | str) -> tuple[AgentSpec, ...]:
    if isinstance(population, str):
        if population not in PRESET_POPULATIONS:
            raise ParameterError(
                f"unknown population preset {population!r}; known: {list(PRESET_POPULATIONS)}"
            )
        return PRESET_POPULATIONS[population]
    return tuple(population)


class StagHuntAECEnv(AECEnv):
    """PettingZoo AEC stag hunt. Agents are `agent_0..agent_{n-1}`; observations are flat float32 vectors
    (`rules.OBSERVATION_CHANNELS`, `rules.VECTOR_FEATURES`, then the position code if the world has it);
    `infos[agent]` holds `kind`, `can_hunt` and this turn's `attack_target` (stag, hare or None)."""

    metadata: ClassVar[dict] = {
        "name": "cogames_staghunt_v1",
        "render_modes": ["ansi"],
        "is_parallelizable": True,
    }

    def __init__(self, config: StagHuntConfig | None = None, population: Sequence[AgentSpec] | str = "all_can_hunt",
                 render_mode: str | None = None) -> None:  # fmt: skip
        super().__init__()
        self.config = config or StagHuntConfig()
        self.population = _population(population)
        self.render_mode = render_mode
        self.possible_agents = [f"agent_{i}" for i in range(len(self.population))]
        self.agents: list[str] = []
        self._index = {name: index for index, name in enumerate(self.possible_agents)}
        self.engine = StagHuntEngine(self.population, self.config, 1, np.random.SeedSequence())
        low = np.zeros(self.engine.size, dtype=np.float32)
        if self.config.position_embedding:
            low[-len(POSITION_FEATURES) :] = -1.0  # sin and cos
        self._space = spaces.Box(low, np.ones(self.engine.size, dtype=np.float32), dtype=np.float32)
        self._turn_start = np.zeros((len(self.population), self.engine.size), dtype=np.float32)

    def observation_space(self, agent: str) -> spaces.Box:
        return self._space

    @functools.cache  # noqa: B019 - PettingZoo expects the same space object each call
    def action_space(self, agent: str) -> spaces.Discrete:
        return spaces.Discrete(NUM_ACTIONS)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.engine.rng = np.random.default_rng(seed)
        self.engine.reset_worlds(np.zeros(1, dtype=np.int64))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {name: {"kind": spec.kind, "can_hunt": spec.can_hunt, "attack_target": None}
                      for name, spec in zip(self.agents, self.population, strict=True)}  # fmt: skip
        self._begin_turn()

    def _begin_turn(self) -> None:
        order = self.engine.begin_turn()[0]
        self._order = [self.possible_agents[index] for index in order]
        self.agents = list(self._order)  # a new list: the parallel wrapper iterates the previous one
        self._slot = 0
        self.agent_selection = self._order[0]
        for info in self.infos.values():
            info["attack_target"] = None
        if not self.engine.before_act:
            self._turn_start = self.engine.observe_dense()

    def observe(self, agent: str) -> np.ndarray:
        index = self._index[agent]
        if self.engine.before_act:
            return self.engine.observe_dense(np.array([index]))[0]
        return self._turn_start[index].copy()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not 0 <= int(action) < NUM_ACTIONS:
            raise ParameterError(f"{agent}: action must be in 0..{NUM_ACTIONS - 1}, got {action}")
        self._cumulative_rewards[agent] = 0.0
        index = self._index[agent]
        code = int(self.engine.act(np.array([index]), np.array([int(action)]))[0])
        self.infos[agent]["attack_target"] = RESOURCES[code].name if code in RESOURCES else None
        self._slot += 1
        if self._slot < len(self._order):
            self._clear_rewards()
            self.agent_selection = self._order[self._slot]
        else:
            ended = (
                len(self.engine.end_turn()) > 0
            )  # an episode's pending payouts are paid into its last turn
            for name in self.agents:
                self.rewards[name] = float(self.engine.rewards[0, self._index[name]])
            if ended:
                self.truncations = dict.fromkeys(self.agents, True)
                self._turn_start = self.engine.observe_dense()
                self.agent_selection = self.agents[0]
            else:
                self._begin_turn()
        self._accumulate_rewards()

    def render(self) -> str | None:
        return render_ascii(self.engine) if self.render_mode == "ansi" else None

    def close(self) -> None:
        pass


class StagHuntEnv(aec_to_parallel_wrapper):
    """PettingZoo parallel stag hunt: `aec_to_parallel(StagHuntAECEnv(...))`, which checks every action
    before any agent acts. Every live agent must submit an action each turn."""

    def __init__(self, config: StagHuntConfig | None = None, population: Sequence[AgentSpec] | str = "all_can_hunt",
                 render_mode: str | None = None) -> None:  # fmt: skip
        super().__init__(StagHuntAECEnv(config, population, render_mode))

    @property
    def config(self) -> StagHuntConfig:
        return self.aec_env.config

    @property
    def population(self) -> tuple[AgentSpec, ...]:
        return self.aec_env.population

    def step(self, actions: dict) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            raise ParameterError("step() called on a finished episode; call reset() first")
        for name in self.agents:
            action = actions.get(name)
            if action is None or not 0 <= int(action) < NUM_ACTIONS:
                raise ParameterError(f"{name}: action must be in 0..{NUM_ACTIONS - 1}, got {action}")
        return super().step(actions)


def render_ascii(engine: StagHuntEngine, world: int = 0) -> str:
    """Text picture of one world: W wall, 1 stag, 2 hare, ^>v< agents by orientation."""
    arrows = "^>v<"
    chars = np.where(engine.walls, "W", " ").astype("<U1")
    chars[engine.resources[world] == STAG.code] = (
        "1"  # the map legend's characters, so a render reads as a map
    )
    chars[engine.resources[world] == HARE.code] = "2"
    for (row, col), facing in zip(engine.positions[world], engine.orientations[world], strict=True):
        chars[row, col] = arrows[facing]
    return "\n".join("".join(row) for row in chars)
