"""`CogsVsClipsEnv`: the thin PettingZoo `ParallelEnv` adapter over the pure `World`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from cogames_lib.cvc import rules
from cogames_lib.cvc.config import EnvConfig
from cogames_lib.cvc.maps import GridMap, load_map
from cogames_lib.cvc.observation import observation_space
from cogames_lib.cvc.render import render_ansi, render_rgb
from cogames_lib.cvc.world import World
from cogames_lib.errors import ParameterError

RENDER_MODES = ("ansi", "rgb_array")
_NUM_ACTIONS = len(rules.ACTIONS)


def _action_index(agent: str, action: object) -> int:
    """The action as an index in 0..17; anything else is refused, since the engine would misread it
    (a negative index moves east, a large one sets a vibe that does not exist)."""
    try:
        index = int(action)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        index = -1
    if not 0 <= index < _NUM_ACTIONS or index != action:
        raise ParameterError(
            f"actions[{agent!r}]: {action!r} is not an action index in 0..{_NUM_ACTIONS - 1}"
        )
    return index


class CogsVsClipsEnv(ParallelEnv):
    """A Cogs vs Clips episode on one map.

    Agents are named `agent_0 ... agent_{n-1}`. Reward is 1.0 to the agent that deposits a heart in the
    heart chest, which terminates the episode for everyone; otherwise the episode truncates at
    `max_steps`. `env.unwrapped.world` is the engine state, for tests and traces only: policies must
    use observations.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "cogs_vs_clips_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": True,
    }

    def __init__(
        self,
        grid_map: GridMap | str | Path,
        num_agents: int = 1,
        max_steps: int = 250,
        config: EnvConfig | None = None,
        render_mode: str | None = None,
    ) -> None:
        if not isinstance(grid_map, GridMap):
            grid_map = load_map(grid_map)
        if max_steps < 1:
            raise ParameterError(f"max_steps must be >= 1, got {max_steps}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ParameterError(f"render_mode must be one of {RENDER_MODES} or None, got {render_mode!r}")
        self.world = World(grid_map, num_agents, config)
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.possible_agents = [f"agent_{i}" for i in range(num_agents)]
        self.agents: list[str] = []
        self._observation_space = observation_space()
        self._action_space = spaces.Discrete(len(rules.ACTIONS))
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.world.reset(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {agent: {} for agent in self.agents}

    def step(self, actions: dict[str, int]):
        if not self.agents:
            raise ParameterError("step() called on a finished episode: call reset() first")
        world = self.world
        world.step([_action_index(agent, actions.get(agent, rules.NOOP)) for agent in self.possible_agents])
        names = self.agents
        observations = self._observations()
        rewards = dict(zip(names, world.rewards, strict=True))
        done = world.succeeded
        truncated = not done and world.step_count >= self.max_steps
        terminations = dict.fromkeys(names, done)
        truncations = dict.fromkeys(names, truncated)
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in names}
        if done or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return dict(zip(self.possible_agents, self.world.observe_all(), strict=True))

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return render_ansi(self.world)
        if self.render_mode == "rgb_array":
            return render_rgb(self.world)
        return None

    def state(self) -> np.ndarray:
        return self.world.grid.copy()

    def close(self) -> None:
        pass
