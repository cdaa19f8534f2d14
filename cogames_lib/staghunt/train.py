"""Training: one epoch is one episode; every agent learns from its own experience; probes run on frozen
copies every `probe_every` epochs (and at epoch 0, before any learning). One loop (`training_episodes`)
steps `TrainConfig.worlds` worlds in lockstep (1 by default, 64 for the study).

Randomness: one `SeedSequence(seed)` is split into independent streams: the world (maps, spawns, turn
order) and one per agent (network init, exploration, replay sampling). Probes are deterministic and
touch none of them, so a run with probes ends with the same parameters as one without.

Output layout (`run_directory(out_dir, condition, seed)` = `out_dir/<condition>/seed_<seed>/`):
`training.csv` (one row per epoch, `TRAINING_COLUMNS` + `return_agent_<i>`), `probe_intention.csv`,
`probe_multistep.csv` (the spec's columns + `agent_kind, partner_relation, condition, seed, run_id`),
`checkpoints/epoch_<E>.pt` as `TrainConfig.checkpoints` asks (`cogames_lib.staghunt.checkpoints`: which
epochs, what state, how to load). Every file is written atomically (`cogames_lib.io`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from cogames_lib import io
from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.checkpoints import (
    DEFAULT_CHECKPOINTS,
    checkpoint_due,
    checkpoint_path,
    load_population_state,
    read_checkpoint,
    save_checkpoint,
    validate_checkpoint_mode,
)
from cogames_lib.staghunt.engine import StagHuntEngine, observation_size
from cogames_lib.staghunt.learner import DQNConfig, DQNPopulation
from cogames_lib.staghunt.probes import (
    ProbeSettings,
    load_probe_suite,
    run_intention_probe,
    run_multistep_probe,
)
from cogames_lib.staghunt.rules import HARE, PRESET_POPULATIONS, STAG, AgentSpec
from cogames_lib.staghunt.world_config import StagHuntConfig, world_config
from cogames_lib.tables import TRAINING

# The table's contract lives in `cogames_lib.tables` (one `return_agent_<i>` column per agent follows).
TRAINING_COLUMNS: tuple[str, ...] = TRAINING.columns


# How this project trains the sorrel_e3 world (docs/staghunt_training.md says why each value):
# 3-step double DQN, gamma 0.99, a wider net, replay of 100k transitions per agent, 64 worlds in lockstep.
STUDY_LEARNER = DQNConfig(
    hidden_sizes=(128, 128), learning_rate=5e-4, gamma=0.99, buffer_size=100_000, batch_size=128,
    learning_starts=5_000, target_update_every=500, n_step=3, replay_ratio=2.0,
)  # fmt: skip
STUDY_WORLDS = 64
STUDY_EPSILON_DECAY_EPOCHS = 5_000


@dataclass(frozen=True)
class TrainConfig:
    """A training run.

    condition: population preset (`all_can_hunt`, `not_all_can_hunt`) unless `population` is given.
    env, learner: world and learner parameters. epsilon_start/epsilon_end/epsilon_decay_epochs: linear
    per-epoch epsilon schedule. probes: probe maps and multi-step staging. checkpoints: none, last,
    probes or all (`cogames_lib.staghunt.checkpoints`). worlds: episodes played in lockstep (a different
    `worlds` is a different, equally valid random stream).
    """

    condition: str = "all_can_hunt"
    env: StagHuntConfig = field(default_factory=StagHuntConfig)
    learner: DQNConfig = field(default_factory=DQNConfig)
    epsilon_start: float = 1.0
    epsilon_end: float = 0.05
    epsilon_decay_epochs: int = 1000
    population: tuple[AgentSpec, ...] | None = None
    probes: ProbeSettings = field(default_factory=ProbeSettings)
    checkpoints: str = DEFAULT_CHECKPOINTS
    worlds: int = 1

    def __post_init__(self) -> None:
        validate_checkpoint_mode(self.checkpoints)
        if self.worlds < 1:
            raise ParameterError(f"worlds must be >= 1, got {self.worlds}")
        if self.population is None and self.condition not in PRESET_POPULATIONS:
            raise ParameterError(f"unknown condition {self.condition!r}; known: {sorted(PRESET_POPULATIONS)}")
        if self.epsilon_decay_epochs < 1:
            raise ParameterError(f"epsilon_decay_epochs must be >= 1, got {self.epsilon_decay_epochs}")

    @property
    def agents(self) -> tuple[AgentSpec, ...]:
        return self.population if self.population is not None else PRESET_POPULATIONS[self.condition]

    def epsilon(self, epoch: Any) -> Any:
        """Epsilon for (1-based) `epoch` (an int, or an array of them): linear from start to end over
        `epsilon_decay_epochs`."""
        fraction = np.minimum(1.0, (np.asarray(epoch) - 1) / self.epsilon_decay_epochs)
        value = self.epsilon_start + fraction * (self.epsilon_end - self.epsilon_start)
        return float(value) if np.ndim(value) == 0 else value


def preset(condition: str, world: str = "default", **overrides: Any) -> TrainConfig:
    """The named condition (`all_can_hunt` or `not_all_can_hunt`) in the named world (`default` or
    `sorrel_e3`, see `world_config.WORLD_PRESETS`), with optional field overrides. `sorrel_e3` also sets
    the learner and batch this project trains that world with (`STUDY_LEARNER`, `STUDY_WORLDS`)."""
    base = TrainConfig(condition=condition)
    if world != "default" or "env" not in overrides:
        base = replace(base, env=world_config(world))
    if world == "sorrel_e3":
        base = replace(base, learner=STUDY_LEARNER, worlds=STUDY_WORLDS,
                       epsilon_decay_epochs=STUDY_EPSILON_DECAY_EPOCHS)  # fmt: skip
    return replace(base, **overrides)


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


def load_checkpoint(path: str | Path, config: TrainConfig | None = None) -> DQNPopulation:
    """Rebuild the population of a checkpoint (safe loader: `weights_only=True`); `.members` are the
    agents, ready for probes. What is restored depends on the checkpoint mode
    (`checkpoints.load_population_state`); replay buffers and RNG states are not saved, so training resumed
    from a checkpoint is not bit-identical to an uninterrupted run."""
    config = config or TrainConfig()
    state = read_checkpoint(path)["population"]
    count = len(state["agents"])
    population = DQNPopulation(
        count,
        observation_size(config.env.view_radius, config.env.position_embedding),
        config.learner,
        list(range(count)),
    )
    load_population_state(population, state, path)
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
    seeds = [int(s.generate_state(1)[0]) for s in agent_seeds]
    learners, rows = _trainer(config, epochs, world_seed, seeds)
    agents = learners.members
    probe_settings = probe_settings_for(config)
    suite = load_probe_suite(probe_settings) if probe_every else None
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
            if checkpoint_due(config.checkpoints, epoch, epochs):
                save_checkpoint(learners, checkpoint_path(run_dir, epoch), config.checkpoints,
                                epoch=epoch, condition=config.condition, seed=seed)  # fmt: skip
            _write_tables(run_dir, training_rows, intention, multistep, len(population))

    if probe_every:
        probe_and_save(0)
    bar = _progress_bar(epochs, f"{config.condition} seed {seed}", progress)
    for row in rows:
        training_rows.append(row)
        epoch = row["epoch"]
        bar.update(1)
        if epoch % 10 == 0 or epoch == epochs:
            bar.set_postfix(mean_return=f"{row['mean_return']:.1f}", refresh=False)
        if (probe_every and epoch % probe_every == 0) or (epoch == epochs and (probe_every or run_dir)):
            probe_and_save(epoch)
    bar.close()
    return TrainResult(learners, _training_frame(training_rows, len(population)), _concat(intention),
                       _concat(multistep), run_dir)  # fmt: skip


def probe_settings_for(config: TrainConfig) -> ProbeSettings:
    """The run's probe settings with the world options that shape an observation taken from `env`."""
    env = config.env
    return replace(config.probes, attack_range=env.attack_range, view_radius=env.view_radius,
                   attack_shape=env.attack_shape, position_embedding=env.position_embedding,
                   wounded_stag_channel=env.wounded_stag_channel)  # fmt: skip


def _trainer(
    config: TrainConfig, epochs: int, world_seed: np.random.SeedSequence, seeds: list[int]
) -> tuple[DQNPopulation, Iterator[dict]]:
    """The learners and the iterator of training rows (one per epoch)."""
    population = config.agents
    engine = StagHuntEngine(population, config.env, config.worlds, world_seed)
    table = engine.position_table if config.env.position_embedding else None
    learners = DQNPopulation(len(population), engine.size, config.learner, seeds, table)
    bootstrap = config.env.episode_length == "fixed"  # a random length is an end the agent cannot see coming
    return learners, training_episodes(engine, learners, epochs, config.epsilon, bootstrap)


def training_episodes(
    engine: StagHuntEngine,
    learner: DQNPopulation,
    epochs: int,
    epsilon: Callable[[np.ndarray], np.ndarray],
    bootstrap_at_end: bool,
) -> Iterator[dict]:
    """The one episode loop: `engine.batch` worlds in lockstep, played and learned from until `epochs`
    episodes have finished; yields their training rows in finishing order.

    Worlds restart as soon as their episode ends, until `epochs` episodes have started; epochs are numbered
    in the order episodes finish (ties by world index), and each episode plays with the epsilon of the
    epoch number it had when it started. With `before_act` observations each turn slot observes and acts
    on its own (the next agent sees the moves before it); otherwise one forward covers every agent."""
    worlds, agents = engine.batch, engine.num_agents
    collector = learner.collect(worlds, engine.observe(np.zeros(worlds, dtype=np.int64)).indices.shape[1])
    rows_of = np.arange(worlds)
    started = min(worlds, epochs)
    live = np.zeros(worlds, dtype=bool)
    live[:started] = True
    engine.reset_worlds(rows_of)
    start_epoch = np.arange(1, worlds + 1)
    returns = np.zeros((worlds, agents))
    kills = np.zeros((worlds, 2), dtype=np.int64)
    finished = 0
    updates_since, losses_since, clock = 0, [], time.perf_counter()
    observations = np.zeros((worlds, agents, 0), dtype=np.int32)
    cells = np.zeros((worlds, agents), dtype=np.int64)
    while finished < epochs:
        world_epsilon = epsilon(start_epoch)
        order = engine.begin_turn()
        actions = np.zeros((worlds, agents), dtype=np.int64)
        if engine.before_act:
            for slot in range(agents):
                acting = order[:, slot]
                seen = engine.observe(acting)
                if observations.shape[2] != seen.indices.shape[1]:
                    observations = np.zeros((worlds, agents, seen.indices.shape[1]), dtype=np.int32)
                observations[rows_of, acting], cells[rows_of, acting] = seen.indices, seen.cells
                actions[rows_of, acting] = learner.act_rows(seen, acting, world_epsilon)
                engine.act(acting, actions[rows_of, acting])
        else:
            seen = engine.observe()
            every_agent = np.tile(np.arange(agents), worlds)
            actions = learner.act_rows(seen, every_agent, np.repeat(world_epsilon, agents)).reshape(
                worlds, agents
            )
            observations = seen.indices.reshape(worlds, agents, -1)
            cells = seen.cells.reshape(worlds, agents)
            for slot in range(agents):
                engine.act(order[:, slot], actions[rows_of, order[:, slot]])
        learner.store(collector.record(observations, cells, actions, live))
        ended = engine.end_turn()
        collector.add_rewards(engine.rewards, live)
        returns += engine.rewards
        kills[:, 0] += engine.kills[:, STAG.code]
        kills[:, 1] += engine.kills[:, HARE.code]
        ended_live = ended[live[ended]]
        if len(ended_live):
            final = engine.observe(np.tile(np.arange(agents), len(ended_live)), np.repeat(ended_live, agents))
            learner.store(collector.finish(ended_live, _per_world(final.indices, agents),
                                                   final.cells.reshape(-1, agents), bootstrap_at_end))  # fmt: skip
        losses = learner.train_step(int(live.sum()))
        updates_since += len(losses)
        losses_since += losses
        for world in ended_live:
            finished += 1
            now = time.perf_counter()
            row = {"epoch": finished, "epsilon": float(world_epsilon[world]),
                   "mean_return": float(returns[world].mean()), "stags_killed": int(kills[world, 0]),
                   "hares_killed": int(kills[world, 1]), "updates": updates_since,
                   "mean_loss": float(np.mean(losses_since)) if losses_since else float("nan"),
                   "seconds": now - clock}  # fmt: skip
            row.update({f"return_agent_{i}": float(value) for i, value in enumerate(returns[world])})
            updates_since, losses_since, clock = 0, [], now
            yield row
            if finished >= epochs:
                return
        if len(ended):
            returns[ended], kills[ended] = 0.0, 0
            restart = ended_live[: max(0, epochs - started)]
            live[np.setdiff1d(ended, restart)] = False
            start_epoch[restart] = started + 1 + np.arange(len(restart))
            started += len(restart)
            engine.reset_worlds(ended)


def _per_world(indices: np.ndarray, agents: int) -> np.ndarray:
    return indices.reshape(-1, agents, indices.shape[1])


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
