"""PPO with one network shared by every agent, in the CleanRL single-file style (`cleanrl/ppo.py`).

Read top to bottom: `PPOConfig` documents every field; `train_seed` builds the worlds
(`cogames_lib.cvc.WorldBatch`, agent counts 1/2/4 mixed), the curriculum and the shaping
(`curriculum.py`), then alternates a rollout of `rollout_steps` steps of every agent slot with `epochs`
passes of clipped-objective minibatch updates; every agent slot is one CleanRL "environment". Checkpoints
(`learned:` policy files) are written at `checkpoint_steps` (agent-steps done, step 0 included).

Determinism: every random draw flows from the seed (torch, the action sampler, the curriculum, the episode
seeds); on the CPU torch runs one thread by default, so the same seed gives the same numbers (tested).
`collect_workers` > 1 steps the worlds in that many processes (`cogames_lib.cvc.batch_processes`); the
numbers stay the same for any count (tested), only the speed changes (docs/cvc_learned.md, "Collection").
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from cogames_lib.cvc.batch_processes import make_world_batch
from cogames_lib.diagnostics.mirrors import symmetry_kinds
from cogames_lib.errors import ParameterError, TrainingError
from cogames_lib.learn.curriculum import (
    AGENT_COUNTS,
    SOLVED_WEIGHT_DROP,
    Curriculum,
    Shaper,
    ShapingConfig,
    check_solved_drop,
    default_curriculum,
)
from cogames_lib.policies.learned import (
    NO_PREVIOUS_ACTION,
    SELF_ROWS_PER_SAMPLE,
    FrameStack,
    NetworkConfig,
    grid_features,
    self_features,
)


@dataclass(frozen=True)
class PPOConfig:
    """total_steps: agent-steps to train (rounded up to whole rollouts).
    worlds: how many worlds of each agent count in `AGENT_COUNTS` (1, 2, 4) run side by side.
    curriculum: the diagnostics trained on (normal tier; each world draws among those allowing its count).
    rollout_steps: steps per slot between updates; epochs, minibatches: PPO passes over each rollout.
    learning_rate (Adam), gamma, gae_lambda, clip, entropy, value_coef,
    max_grad_norm: CleanRL's PPO hyper-parameters.
    lr_anneal: the last fraction of the planned updates over which the learning rate falls linearly
    towards 0 (0: constant, the default; 1: CleanRL's anneal over the whole run); the updates before
    that window are bit for bit those of a run without it. network: frames (memory) and hidden units.
    shaping: training-only reward terms. threads: torch CPU threads (1 keeps results reproducible).
    collect_workers: processes that step the worlds (1: in the training process); results do not depend on it.
    map_symmetries: symmetries of the maps (`diagnostics.mirrors.SYMMETRIES`) a training episode may be
    played in, drawn uniformly with the map itself (empty: the shipped maps only, as before).
    solved_drop: a task's draw weight is `(1 - solved_drop x its recent success) / budget`: the default 0.75
    draws a solved task a quarter as often as an unsolved one; less keeps solved tasks in the draw."""

    total_steps: int = 2_000_000
    worlds: tuple[int, ...] = (48, 12, 6)
    curriculum: tuple[str, ...] = field(default_factory=default_curriculum)
    rollout_steps: int = 64
    epochs: int = 3
    minibatches: int = 4
    learning_rate: float = 1e-3
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    network: NetworkConfig = field(default_factory=NetworkConfig)
    shaping: ShapingConfig = field(default_factory=ShapingConfig)
    threads: int = 1
    collect_workers: int = 1
    map_symmetries: tuple[str, ...] = ()
    solved_drop: float = SOLVED_WEIGHT_DROP
    lr_anneal: float = 0.0

    def __post_init__(self) -> None:
        if len(self.worlds) != len(AGENT_COUNTS) or min(self.worlds) < 0 or sum(self.worlds) < 1:
            raise ParameterError(f"worlds: one count >= 0 per agent count {AGENT_COUNTS}, got {self.worlds}")
        for name in ("total_steps", "rollout_steps", "epochs", "minibatches", "threads", "collect_workers"):
            if int(getattr(self, name)) < 1:
                raise ParameterError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.collect_workers > sum(self.worlds):
            raise ParameterError(
                f"collect_workers: at most one per world ({sum(self.worlds)}), got {self.collect_workers}"
            )
        symmetry_kinds(self.map_symmetries)  # one-line errors for unknown or repeated kinds
        check_solved_drop(self.solved_drop)
        if not 0.0 <= self.lr_anneal <= 1.0:
            raise ParameterError(f"lr_anneal: a fraction of the run in [0, 1], got {self.lr_anneal}")

    def planned_updates(self) -> int:
        """Updates a seed runs: `total_steps` rounded up to whole rollouts."""
        return -(-self.total_steps // self.rollout_size())

    def learning_rate_at(self, update: int) -> float:
        """The learning rate of update `update` (0-based): constant, then, over the last `lr_anneal` of
        the planned updates, `learning_rate x (updates left) / (window)`, so the last update takes
        1 / window of it (CleanRL's schedule when `lr_anneal` is 1)."""
        window = self.lr_anneal * self.planned_updates()
        left = max(self.planned_updates() - update, 0)
        # the tolerance keeps a whole-number window whole (0.1 x 30 is 3.0000000000000004)
        return self.learning_rate if left >= window - 1e-9 else self.learning_rate * left / window

    def agent_counts(self) -> list[int]:
        return [count for count, worlds in zip(AGENT_COUNTS, self.worlds, strict=True) for _ in range(worlds)]

    def rollout_size(self) -> int:
        """Agent-steps per update: every agent slot of every world, `rollout_steps` times."""
        return sum(self.agent_counts()) * self.rollout_steps

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["worlds"] = dict(zip((str(c) for c in AGENT_COUNTS), self.worlds, strict=True))
        return data


@dataclass
class SeedResult:
    seed: int
    steps: int
    seconds: float
    checkpoints: list[str]
    log: list[dict[str, Any]]


def checkpoint_steps(total_steps: int, checkpoints: int) -> list[int]:
    """Evenly spaced targets 0, total/K, ..., total (K >= 1 checkpoints after step 0)."""
    if checkpoints < 1:
        raise ParameterError(f"checkpoints must be >= 1, got {checkpoints}")
    return sorted({round(total_steps * i / checkpoints) for i in range(checkpoints + 1)})


@njit(cache=True)
def _gather_bags(rows, starts, counts, chosen):
    """The bag rows and offsets of the samples `chosen` from a rollout's concatenated rows (compiled: one
    pass instead of numpy's repeat, arange and fancy index over about 90,000 rows per minibatch)."""
    offsets = np.empty(len(chosen), np.int64)
    total = 0
    for i in range(len(chosen)):
        offsets[i] = total
        total += counts[chosen[i]]
    gathered = np.empty(total, rows.dtype)
    for i in range(len(chosen)):
        start, at = starts[chosen[i]], offsets[i]
        for k in range(counts[chosen[i]]):
            gathered[at + k] = rows[start + k]
    return gathered, offsets


def sample_actions(log_probabilities: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row drawn from its (rows, actions) log-probabilities by the inverse of the cumulative
    distribution: one uniform draw per row (cheaper than `torch.multinomial` on the rollout's small batches)."""
    cumulative = np.cumsum(np.exp(log_probabilities), axis=1)
    # torch.multinomial refused non-finite probabilities too: say so, never act on them
    if not np.isfinite(cumulative[:, -1]).all():
        raise TrainingError(
            "training diverged: the policy's action probabilities are not finite (NaN or inf logits); "
            "lower PPOConfig.learning_rate or check the reward scale"
        )
    draws = rng.random(len(cumulative)) * cumulative[:, -1]
    return np.minimum((cumulative <= draws[:, None]).sum(axis=1), cumulative.shape[1] - 1)


class SeedTrainer:
    """One training seed: `update()` runs one rollout of every slot and the PPO epochs on it.

    Without `lr_anneal` the learning rate is constant and the shaping depends only on the agent-steps done
    and on the run's own history (the gated novelty reads the curriculum's success rates), never on the
    planned length, so training for S steps is exactly the first S steps of a longer run (a run cut short
    at a deadline is a prefix of the planned one). `lr_anneal` ties the last updates' rate to the planned
    length; the updates before its window keep the prefix property.
    """

    def __init__(self, config: PPOConfig, seed: int, device: str = "cpu") -> None:
        import torch

        from cogames_lib.policies.learned_network import LearnedNetwork

        self.config, self.seed = config, int(seed)
        if device == "cpu":
            torch.set_num_threads(config.threads)
        torch.manual_seed(self.seed)
        self.device = torch.device(device)
        self.sampler = np.random.default_rng([self.seed, 0x5A4D])  # the rollout's action draws
        self.network = LearnedNetwork(config.network).to(self.device)
        self.optimizer = torch.optim.Adam(
            self.network.parameters(), lr=config.learning_rate, eps=1e-5, fused=True
        )
        counts = config.agent_counts()
        self.curriculum = Curriculum(
            config.curriculum, counts, self.seed, config.map_symmetries, config.solved_drop
        )
        self.batch = make_world_batch(counts, self.curriculum.next_episode, config.collect_workers)
        self.batch.reset()
        self.slots = self.batch.num_slots
        self.rollout_size = config.rollout_size()
        self.shaper = Shaper(config.shaping, config.gamma, self.batch)
        self.stack = FrameStack(self.slots, config.network.frames)
        self.previous_action = np.full(self.slots, NO_PREVIOUS_ACTION, np.int64)
        self.restart = np.ones(self.slots, bool)
        self.steps = 0
        self.updates = 0
        self.seconds = 0.0
        self.finished: list[tuple[str, int, bool]] = []
        self.stats = np.zeros(4)

    def _tensor(self, array: np.ndarray) -> Any:
        import torch

        return torch.from_numpy(array).to(self.device)

    def close(self) -> None:
        """Stop the collection workers, if any."""
        self.batch.close()

    def state_dict(self) -> dict[str, Any]:
        return {k: v.detach().cpu().clone() for k, v in self.network.state_dict().items()}

    def update(self) -> None:
        import torch

        started = time.perf_counter()
        config, batch, network, slots = self.config, self.batch, self.network, self.slots
        length, tensor = config.rollout_steps, self._tensor
        grid_list, count_list = [], []
        self_rows = np.zeros((length, slots, SELF_ROWS_PER_SAMPLE), np.int64)
        actions = np.zeros((length, slots), np.int64)
        log_probs = np.zeros((length, slots), np.float32)
        values = np.zeros((length + 1, slots), np.float32)
        rewards = np.zeros((length, slots), np.float32)
        dones = np.zeros((length, slots), np.float32)
        for t in range(length + 1):
            if t == length:  # the observation after the rollout: its value bootstraps the returns
                frames = self.stack.peek(batch.grids, self.restart)
            else:
                frames = self.stack.push(batch.grids, self.restart)
            rows, offsets = grid_features(frames)
            current_self = self_features(batch.selves, self.previous_action)
            with torch.inference_mode():  # cheaper than no_grad: no version counters on the rollout's tensors
                logits, value = network(tensor(rows), tensor(offsets), tensor(current_self))
            values[t] = value.cpu().numpy()
            if t == length:
                break
            with torch.inference_mode():
                log_softmax = torch.log_softmax(logits, -1).cpu().numpy()
            action = sample_actions(log_softmax, self.sampler)
            grid_list.append(rows)
            count_list.append(np.diff(np.append(offsets, len(rows))))
            self_rows[t], actions[t] = current_self, action
            log_probs[t] = log_softmax[np.arange(slots), action]
            unsolved = (  # of the episodes this step belongs to: read before the auto-resets
                self.curriculum.unsolved(batch.specs, batch.slot_world)
                if config.shaping.novelty_gate
                else None
            )
            for episode in batch.step(action):
                self.curriculum.record(episode.key, episode.num_agents, episode.success)
                self.finished.append((episode.key, episode.num_agents, episode.success))
            team = np.add.reduceat(batch.rewards, batch.first_slot)[batch.slot_world]
            shaped = self.shaper.rewards(batch, self.steps + t * slots, unsolved)
            rewards[t] = team + shaped
            dones[t] = batch.done
            self.restart = batch.done.copy()
            self.previous_action = np.where(self.restart, NO_PREVIOUS_ACTION, action)
        advantages = np.zeros((length, slots), np.float32)
        running = np.zeros(slots, np.float32)
        for t in reversed(range(length)):
            keep = 1.0 - dones[t]
            delta = rewards[t] + config.gamma * values[t + 1] * keep - values[t]
            running = delta + config.gamma * config.gae_lambda * keep * running
            advantages[t] = running
        returns = advantages + values[:-1]
        if config.lr_anneal > 0:  # without it the optimizer's rate is never touched (the same bits as before)
            for group in self.optimizer.param_groups:
                group["lr"] = config.learning_rate_at(self.updates)
        self._optimize(grid_list, count_list, self_rows, actions, log_probs, advantages, returns)
        self.steps += self.rollout_size
        self.updates += 1
        self.seconds += time.perf_counter() - started

    def _optimize(
        self,
        grid_list: list[np.ndarray],
        count_list: list[np.ndarray],
        self_rows: np.ndarray,
        actions: np.ndarray,
        log_probs: np.ndarray,
        advantages: np.ndarray,
        returns: np.ndarray,
    ) -> None:
        import torch

        config, network, tensor, size = self.config, self.network, self._tensor, self.rollout_size
        all_rows = np.concatenate(grid_list)
        all_counts = np.concatenate(count_list)
        starts = np.zeros(size, np.int64)
        np.cumsum(all_counts[:-1], out=starts[1:])
        flat_self = tensor(self_rows.reshape(size, -1))
        flat_actions = tensor(actions.reshape(-1))
        flat_log_probs = tensor(log_probs.reshape(-1))
        flat_advantages = tensor(advantages.reshape(-1))
        flat_returns = tensor(returns.reshape(-1))
        order_rng = np.random.default_rng([self.seed, self.updates])
        minibatch = size // config.minibatches
        for _ in range(config.epochs):
            order = order_rng.permutation(size)
            for start in range(0, size - minibatch + 1, minibatch):
                chosen = order[start : start + minibatch]
                mb_rows, mb_offsets = _gather_bags(all_rows, starts, all_counts, chosen)
                index = tensor(chosen)
                logits, value = network(tensor(mb_rows), tensor(mb_offsets), flat_self[index])
                log_softmax = torch.log_softmax(logits, -1)
                new_log_prob = log_softmax.gather(1, flat_actions[index][:, None]).squeeze(-1)
                entropy = -(log_softmax.exp() * log_softmax).sum(-1).mean()
                ratio = (new_log_prob - flat_log_probs[index]).exp()
                advantage = flat_advantages[index]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                policy_loss = torch.max(
                    -advantage * ratio, -advantage * ratio.clamp(1 - config.clip, 1 + config.clip)
                ).mean()
                value_loss = 0.5 * (value - flat_returns[index]).pow(2).mean()
                loss = policy_loss + config.value_coef * value_loss - config.entropy * entropy
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(network.parameters(), config.max_grad_norm)
                self.optimizer.step()
                self.stats += (
                    float(policy_loss.detach()),
                    float(value_loss.detach()),
                    float(entropy.detach()),
                    1,
                )

    def log_entry(self) -> dict[str, Any]:
        """Losses and training-episode successes since the last entry (then reset)."""
        entry = _log_entry(self.updates, self.steps, self.seconds, self.stats, self.finished)
        self.stats, self.finished = np.zeros(4), []
        return entry


def train_seed(
    config: PPOConfig,
    seed: int,
    device: str = "cpu",
    on_checkpoint: Callable[[int, dict[str, Any]], None] | None = None,
    checkpoints: int = 1,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> SeedResult:
    """Train one seed for `config.total_steps` (rounded up to whole rollouts); `on_checkpoint(step,
    state_dict)` at step 0 and at `checkpoints` evenly spaced steps."""
    trainer = SeedTrainer(config, seed, device)
    updates = config.planned_updates()
    targets = checkpoint_steps(updates * trainer.rollout_size, checkpoints)
    saved: list[str] = []
    log: list[dict[str, Any]] = []
    try:
        while True:
            while targets and targets[0] <= trainer.steps:
                targets.pop(0)
                if on_checkpoint is not None:
                    on_checkpoint(trainer.steps, trainer.state_dict())
                saved.append(str(trainer.steps))
            if trainer.updates == updates:
                break
            trainer.update()
            if progress is not None or trainer.updates % 10 == 0 or trainer.updates == updates:
                log.append(trainer.log_entry())
                if progress is not None:
                    progress(log[-1])
    finally:
        trainer.close()
    return SeedResult(trainer.seed, trainer.steps, trainer.seconds, saved, log)


def _log_entry(
    update: int, steps: int, seconds: float, stats: np.ndarray, finished: list[tuple[str, int, bool]]
) -> dict[str, Any]:
    rates: dict[str, list[int]] = {}
    for key, count, success in finished:
        tally = rates.setdefault(f"{key.removeprefix('diagnostic_')}@{count}", [0, 0])
        tally[0] += int(success)
        tally[1] += 1
    batches = max(stats[3], 1.0)
    return {
        "update": update,
        "steps": steps,
        "seconds": round(seconds, 1),
        "policy_loss": round(float(stats[0] / batches), 4),  # plain floats: a progress line shows 0.1,
        "value_loss": round(float(stats[1] / batches), 4),  # not np.float64(0.1)
        "entropy": round(float(stats[2] / batches), 3),
        "train_success": {key: f"{s}/{n}" for key, (s, n) in sorted(rates.items())},
    }


def run_path(run_dir: str | Path, seed: int, step: int) -> Path:
    return Path(run_dir) / f"seed_{seed}" / f"checkpoint_{step:010d}.pt"
