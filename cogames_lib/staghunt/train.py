"""Training loop: one epoch is one episode; every agent learns from its own experience; probes run on
frozen copies every `probe_every` epochs (and at epoch 0, before any learning).

Randomness: one `SeedSequence(seed)` is split into independent streams: the world (maps, spawns, turn
order) and one per agent (network init, exploration, replay sampling). Probes are deterministic and
touch none of them, so a run with probes ends with the same parameters as one without.

Output layout (`run_directory(out_dir, condition, seed)` = `out_dir/<condition>/seed_<seed>/`):
`training.csv` (one row per epoch, `TRAINING_COLUMNS` + `return_agent_<i>`), `probe_intention.csv`,
`probe_multistep.csv` (the spec's columns + `agent_kind, partner_relation, condition, seed, run_id`),
`checkpoints/epoch_<E>.pt` (`{"epoch", "condition", "seed", "population": DQNPopulation.state_dict()}`,
load with `torch.load(path, weights_only=True)` or `load_checkpoint`). Every file is written atomically (`cogames_lib.io`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from cogames_lib import io
from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.engine import observation_size
from cogames_lib.staghunt.env import EpisodeRunner, StagHuntConfig
from cogames_lib.staghunt.learner import DQNConfig, DQNPopulation
from cogames_lib.staghunt.probes import (
    ProbeSettings,
    load_probe_suite,
    run_intention_probe,
    run_multistep_probe,
)
from cogames_lib.staghunt.rules import PRESET_POPULATIONS, AgentSpec
from cogames_lib.tables import TRAINING

# The table's contract lives in `cogames_lib.tables` (one `return_agent_<i>` column per agent follows).
TRAINING_COLUMNS: tuple[str, ...] = TRAINING.columns


@dataclass(frozen=True)
class TrainConfig:
    """A training run.

    condition: population preset (`all_can_hunt`, `not_all_can_hunt`) unless `population` is given.
    env, learner: world and learner parameters. epsilon_start/epsilon_end/epsilon_decay_epochs: linear
    per-epoch epsilon schedule. probes: probe maps and multi-step staging.
    """

    condition: str = "all_can_hunt"
    env: StagHuntConfig = field(default_factory=StagHuntConfig)
    learner: DQNConfig = field(default_factory=DQNConfig)
    epsilon_start: float = 1.0
    epsilon_end: float = 0.05
    epsilon_decay_epochs: int = 1000
    population: tuple[AgentSpec, ...] | None = None
    probes: ProbeSettings = field(default_factory=ProbeSettings)

    def __post_init__(self) -> None:
        if self.population is None and self.condition not in PRESET_POPULATIONS:
            raise ParameterError(f"unknown condition {self.condition!r}; known: {sorted(PRESET_POPULATIONS)}")
        if self.epsilon_decay_epochs < 1:
            raise ParameterError(f"epsilon_decay_epochs must be >= 1, got {self.epsilon_decay_epochs}")

    @property
    def agents(self) -> tuple[AgentSpec, ...]:
        return self.population if self.population is not None else PRESET_POPULATIONS[self.condition]

    def epsilon(self, epoch: int) -> float:
        """Epsilon for (1-based) `epoch`: linear from start to end over `epsilon_decay_epochs`."""
        fraction = min(1.0, (epoch - 1) / self.epsilon_decay_epochs)
        return self.epsilon_start + fraction * (self.epsilon_end - self.epsilon_start)


def preset(condition: str, **overrides: Any) -> TrainConfig:
    """The named preset (`all_can_hunt` or `not_all_can_hunt`) with optional field overrides."""
    return replace(TrainConfig(condition=condition), **overrides)


@dataclass
class TrainResult:
    """What `train` returns: the population (`.members` are the agents) and the three tables."""

    population: DQNPopulation
    training: pd.DataFrame
    intention: pd.DataFrame
    multistep: pd.DataFrame
    run_dir: Path | None


def run_directory(out_dir: str | Path, condition: str, seed: int) -> Path:
    return Path(out_dir) / condition / f"seed_{seed}"


def save_checkpoint(population: DQNPopulation, path: Path, **metadata: object) -> None:
    io.write_torch(path, {**metadata, "population": population.state_dict()})


def load_checkpoint(path: str | Path, config: TrainConfig | None = None) -> DQNPopulation:
    """Rebuild the population of a checkpoint (safe loader: `weights_only=True`); `.members` are the
    agents, ready for probes. Networks, target networks and the optimizer are restored; replay buffers
    and RNG states are not saved, so training resumed from a checkpoint is not bit-identical to an
    uninterrupted run."""
    config = config or TrainConfig()
    state = torch.load(Path(path), weights_only=True)["population"]
    count = len(state["agents"])
    population = DQNPopulation(
        count,
        observation_size(config.env.view_radius),
        config.learner,
        list(range(count)),
    )
    population.load_state_dict(state)
    return population


def train(
    config: TrainConfig,
    epochs: int,
    probe_every: int = 100,
    seed: int = 0,
    out_dir: str | Path | None = None,
    progress: bool = True,
) -> TrainResult:
    """Train the population for `epochs` episodes; `probe_every=0` disables probes and checkpoints
    except the final checkpoint. Returns the agents and tables; writes them under `out_dir` if given."""
    if epochs < 1 or probe_every < 0 or seed < 0:
        raise ParameterError(
            f"need epochs >= 1, probe_every >= 0, seed >= 0; got {epochs}, {probe_every}, {seed}"
        )
    if out_dir is not None:  # an unusable folder is one clear error before any training time is spent
        io.make_dir(run_directory(out_dir, config.condition, seed), name="out_dir")
    torch.set_num_threads(1)  # tiny networks: threads cost more than they bring, and keep runs reproducible
    population = config.agents
    world_seed, *agent_seeds = np.random.SeedSequence(seed).spawn(1 + len(population))
    world_rng = np.random.default_rng(world_seed)
    size = observation_size(config.env.view_radius)
    seeds = [int(s.generate_state(1)[0]) for s in agent_seeds]
    population_learner = DQNPopulation(len(population), size, config.learner, seeds)
    agents = population_learner.members
    runner = EpisodeRunner(population, config.env)
    suite = load_probe_suite(config.probes) if probe_every else None
    run_dir = run_directory(out_dir, config.condition, seed) if out_dir is not None else None
    extra = {"condition": config.condition, "seed": seed, "run_id": f"{config.condition}/seed_{seed}"}
    training_rows: list[dict] = []
    intention: list[pd.DataFrame] = []
    multistep: list[pd.DataFrame] = []

    def probe_and_save(epoch: int) -> None:
        if suite is not None:
            intention.append(run_intention_probe(agents, epoch, population, suite, extra))
            multistep.append(run_multistep_probe(agents, epoch, population, suite, extra))
        if run_dir is not None:
            save_checkpoint(population_learner, run_dir / "checkpoints" / f"epoch_{epoch}.pt", epoch=epoch,
                            condition=config.condition, seed=seed)  # fmt: skip
            _write_tables(run_dir, training_rows, intention, multistep, len(population))

    if probe_every:
        probe_and_save(0)
    bar = _progress_bar(epochs, f"{config.condition} seed {seed}", progress)
    for epoch in range(1, epochs + 1):
        training_rows.append(_run_epoch(runner, population_learner, world_rng, config.epsilon(epoch), epoch))
        bar.update(1)
        if epoch % 10 == 0 or epoch == epochs:
            bar.set_postfix(mean_return=f"{training_rows[-1]['mean_return']:.1f}", refresh=False)
        if (probe_every and epoch % probe_every == 0) or (epoch == epochs and (probe_every or run_dir)):
            probe_and_save(epoch)
    bar.close()
    return TrainResult(population_learner, _training_frame(training_rows, len(population)), _concat(intention),
                       _concat(multistep), run_dir)  # fmt: skip


def _run_epoch(
    runner: EpisodeRunner, learners: DQNPopulation, rng: np.random.Generator, epsilon: float, epoch: int
) -> dict:
    started = time.perf_counter()
    observations = runner.reset(rng)
    returns = np.zeros(learners.num_agents)
    kills = {"stag": 0, "hare": 0}
    updates_before = learners.updates_done
    losses = []
    done = False
    while not done:
        actions = learners.act_all(observations, epsilon)
        next_observations, result, done = runner.step(actions)
        updates = learners.updates_done
        # Episodes end by a time limit, not a terminal state: bootstrap through it (done=False).
        learners.observe_all(observations, actions, result.rewards, next_observations, False)
        if learners.updates_done != updates:
            losses.append(learners.last_loss)
        returns += result.rewards
        for name in kills:
            kills[name] += result.kills[name]
        observations = next_observations
    row = {
        "epoch": epoch, "epsilon": epsilon, "mean_return": float(returns.mean()),
        "stags_killed": kills["stag"], "hares_killed": kills["hare"],
        "updates": learners.updates_done - updates_before,
        "mean_loss": float(np.mean(losses)) if losses else float("nan"),
        "seconds": time.perf_counter() - started,
    }  # fmt: skip
    row.update({f"return_agent_{i}": float(value) for i, value in enumerate(returns)})
    return row


def _training_frame(rows: list[dict], num_agents: int) -> pd.DataFrame:
    columns = list(TRAINING_COLUMNS) + [f"return_agent_{i}" for i in range(num_agents)]
    return pd.DataFrame(rows, columns=columns)


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _write_tables(run_dir: Path, training_rows: list[dict], intention: list, multistep: list, n: int) -> None:
    io.write_csv(run_dir / "training.csv", _training_frame(training_rows, n))
    if intention:
        io.write_csv(run_dir / "probe_intention.csv", _concat(intention))
        io.write_csv(run_dir / "probe_multistep.csv", _concat(multistep))


def _progress_bar(total: int, description: str, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=description, unit="epoch", disable=not enabled, leave=False)
