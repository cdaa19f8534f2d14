"""What uniformly random actions score in a world: the yardstick learning curves are read against."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.engine import StagHuntEngine
from cogames_lib.staghunt.rules import HARE, NUM_ACTIONS, PRESET_POPULATIONS, STAG, AgentSpec
from cogames_lib.staghunt.world_config import StagHuntConfig


@dataclass(frozen=True)
class RandomPolicyScore:
    """Per-episode means of uniformly random play with the standard errors of the stag rate and the return
    (ratios to random play carry them: `study_findings`); `seed` and `worlds` say how it was played."""

    episodes: int
    stags_per_episode: float
    stags_standard_error: float
    hares_per_episode: float
    mean_return: float
    return_standard_error: float = float("nan")
    seed: int = 0
    worlds: int = 100


def random_policy_score(
    config: StagHuntConfig,
    population: tuple[AgentSpec, ...] | str = "all_can_hunt",
    episodes: int = 1_000,
    seed: int = 0,
    worlds: int = 100,
) -> RandomPolicyScore:
    """Play `episodes` episodes of uniformly random actions (seeded) in the world `config` describes.
    `mean_return` is the mean over agents of an agent's episode return, as in `training.csv`."""
    if episodes < 1 or worlds < 1:
        raise ParameterError(f"episodes and worlds must be >= 1, got {episodes}, {worlds}")
    if isinstance(population, str):
        if population not in PRESET_POPULATIONS:
            raise ParameterError(f"unknown population {population!r}; known: {sorted(PRESET_POPULATIONS)}")
        population = PRESET_POPULATIONS[population]
    worlds = min(worlds, episodes)
    world_seed, action_seed = np.random.SeedSequence(seed).spawn(2)
    engine = StagHuntEngine(population, config, worlds, world_seed)
    actions_rng = np.random.default_rng(action_seed)
    engine.reset_worlds(np.arange(worlds))
    returns = np.zeros((worlds, engine.num_agents))
    kills = np.zeros((worlds, 2))
    stags: list[float] = []
    hares: list[float] = []
    mean_returns: list[float] = []
    while len(stags) < episodes:
        order = engine.begin_turn()
        for slot in range(engine.num_agents):
            engine.act(order[:, slot], actions_rng.integers(0, NUM_ACTIONS, size=worlds))
        ended = engine.end_turn()
        returns += engine.rewards
        kills += engine.kills[:, [STAG.code, HARE.code]]
        for world in ended:
            stags.append(kills[world, 0])
            hares.append(kills[world, 1])
            mean_returns.append(returns[world].mean())
        returns[ended], kills[ended] = 0.0, 0.0
        engine.reset_worlds(ended)
    stag_rate, episode_return = np.asarray(stags[:episodes]), np.asarray(mean_returns[:episodes])
    return RandomPolicyScore(
        episodes=episodes,
        stags_per_episode=float(stag_rate.mean()),
        stags_standard_error=_standard_error(stag_rate),
        hares_per_episode=float(np.mean(hares[:episodes])),
        mean_return=float(episode_return.mean()),
        return_standard_error=_standard_error(episode_return),
        seed=seed,
        worlds=worlds,
    )


def _standard_error(values: np.ndarray) -> float:
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("nan")
