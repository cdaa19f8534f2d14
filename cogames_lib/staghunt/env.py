"""PettingZoo `ParallelEnv` adapter over the stag-hunt engine, plus the seeded episode set-up.

The adapter only builds per-agent dicts; every rule lives in `engine.py` and `rules.py`. Training uses
`EpisodeRunner` (arrays, no dicts) for speed; both share `start_episode`, so they play the same game.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.engine import StagHuntEngine, TurnResult, observation_size
from cogames_lib.staghunt.maps import StagHuntMap, load_stag_hunt_map, random_map, resolve_random_resources
from cogames_lib.staghunt.rules import (
    HARE,
    NO_RESOURCE,
    NUM_ACTIONS,
    NUM_ORIENTATIONS,
    PRESET_POPULATIONS,
    STAG,
    WEST,
    AgentSpec,
)
from cogames_lib.staghunt.world_config import StagHuntConfig


def start_episode(
    engine: StagHuntEngine,
    config: StagHuntConfig,
    rng: np.random.Generator,
    fixed_map: StagHuntMap | None = None,
) -> int:
    """Draw a map (or resolve the fixed one), spawns, orientations and the episode's length from `rng`,
    reset `engine`, and return the episode's number of turns."""
    grid = (
        fixed_map
        if fixed_map is not None
        else random_map(rng, config.size, config.resource_density, config.stag_probability)
    )
    resources = resolve_random_resources(grid, rng, config.stag_probability)
    n = engine.num_agents
    if len(grid.spawns) >= n:
        chosen = rng.choice(len(grid.spawns), size=n, replace=False)
        positions = [grid.spawns[i] for i in chosen]
    else:
        free = np.argwhere(~grid.walls & (resources == NO_RESOURCE))
        if len(free) < n:
            raise ParameterError(f"{grid.name}: only {len(free)} free cells for {n} agents")
        chosen = rng.choice(len(free), size=n, replace=False)
        positions = [tuple(int(v) for v in free[i]) for i in chosen]
    if config.start_orientation == "west":
        orientations = np.full(n, WEST)
    else:
        orientations = rng.integers(0, NUM_ORIENTATIONS, size=n)
    engine.reset(grid, resources, positions, [int(o) for o in orientations])
    if config.episode_length == "uniform":
        return int(rng.integers(1, config.max_turns + 1))
    return config.max_turns


class EpisodeRunner:
    """Array interface used by training: `reset(rng) -> obs`, `step(actions) -> (obs, result, done)`."""

    def __init__(self, population: Sequence[AgentSpec], config: StagHuntConfig) -> None:
        self.config = config
        self.engine = StagHuntEngine.from_config(population, config)
        self.fixed_map = load_stag_hunt_map(config.map_path) if config.map_path else None
        self.rng = np.random.default_rng(0)
        self.episode_turns = config.max_turns

    def reset(self, rng: np.random.Generator) -> np.ndarray:
        self.rng = rng
        self.episode_turns = start_episode(self.engine, self.config, rng, self.fixed_map)
        return self.engine.observe_all()

    def step(self, actions: Sequence[int | None]) -> tuple[np.ndarray, TurnResult, bool]:
        """One turn with actions chosen beforehand (with `before_act` observations, each agent's row of the
        returned array is only what it would see if nothing moved before it; use the engine's
        `step_with_policy` to act on true before-act observations)."""
        order = self.rng.permutation(self.engine.num_agents).tolist()
        result = self.engine.step(actions, order)
        done = self.engine.turn >= self.episode_turns
        if done:  # payouts still pending at the episode's end are paid into its last turn
            result.rewards += self.engine.pay_pending()
        return self.engine.observe_all(), result, done


class StagHuntEnv(ParallelEnv):
    """PettingZoo parallel stag hunt. Agents are `agent_0..agent_{n-1}`; observations are flat float32
    vectors (see `rules.OBSERVATION_CHANNELS` and `rules.VECTOR_FEATURES`); episodes end by truncation
    after `max_turns`. `infos[agent]` holds `kind`, `can_hunt` and the last `attack_target`."""

    metadata: ClassVar[dict] = {
        "name": "cogames_staghunt_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": True,
    }

    def __init__(
        self,
        config: StagHuntConfig | None = None,
        population: Sequence[AgentSpec] | str = "all_can_hunt",
        render_mode: str | None = None,
    ) -> None:
        if isinstance(population, str):
            if population not in PRESET_POPULATIONS:
                raise ParameterError(
                    f"unknown population preset {population!r}; known: {list(PRESET_POPULATIONS)}"
                )
            population = PRESET_POPULATIONS[population]
        self.config = config or StagHuntConfig()
        self.population = tuple(population)
        self.render_mode = render_mode
        self.possible_agents = [f"agent_{i}" for i in range(len(self.population))]
        self.agents: list[str] = []
        self._runner = EpisodeRunner(self.population, self.config)
        self._rng = np.random.default_rng()
        self._observation_size = observation_size(self.config.view_radius)

    @functools.cache  # noqa: B019 - PettingZoo expects the same space object each call
    def observation_space(self, agent: str) -> spaces.Box:
        return spaces.Box(0.0, 1.0, shape=(self._observation_size,), dtype=np.float32)

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Discrete:
        return spaces.Discrete(NUM_ACTIONS)

    def _infos(self, targets: list[str | None] | None = None) -> dict[str, dict]:
        return {
            name: {
                "kind": self.population[i].kind,
                "can_hunt": self.population[i].can_hunt,
                "attack_target": None if targets is None else targets[i],
            }
            for i, name in enumerate(self.possible_agents)
            if name in self.agents
        }

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.agents = list(self.possible_agents)
        observations = self._runner.reset(self._rng)
        return {name: observations[i] for i, name in enumerate(self.agents)}, self._infos()

    def step(self, actions: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            raise ParameterError("step() called on a finished episode; call reset() first")
        indexed = [None if name not in actions else int(actions[name]) for name in self.possible_agents]
        for name, action in zip(self.possible_agents, indexed, strict=True):
            if action is not None and not 0 <= action < NUM_ACTIONS:
                raise ParameterError(f"{name}: action must be in 0..{NUM_ACTIONS - 1}, got {action}")
        observations, result, done = self._runner.step(indexed)
        live = list(self.agents)
        rewards = {
            name: float(result.rewards[i]) for i, name in enumerate(self.possible_agents) if name in live
        }
        terminations = dict.fromkeys(live, False)
        truncations = dict.fromkeys(live, done)
        infos = self._infos(result.attack_targets)
        obs = {name: observations[i] for i, name in enumerate(self.possible_agents) if name in live}
        if done:
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return render_ascii(self._runner.engine)

    def close(self) -> None:
        pass


def render_ascii(engine: StagHuntEngine) -> str:
    """Text picture of the world: W wall, 1 stag, 2 hare, ^>v< agents by orientation."""
    arrows = "^>v<"
    chars = np.where(engine.walls, "W", " ").astype("<U1")
    chars[engine.resources == STAG.code] = "1"  # the map legend's characters, so a render reads as a map
    chars[engine.resources == HARE.code] = "2"
    for index in np.flatnonzero(engine.active):
        row, col = engine.positions[index]
        chars[row, col] = arrows[engine.orientations[index]]
    return "\n".join("".join(row) for row in chars)
