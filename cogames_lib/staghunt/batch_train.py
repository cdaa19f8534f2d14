"""The batched training loop: `worlds` episodes in lockstep, one training row per finished episode.

An epoch is still one episode. Worlds restart as soon as their episode ends, until `epochs` episodes have
started; epochs are numbered in the order episodes finish (ties by world index), and each episode plays
with the epsilon of the epoch number it had when it started. Everything is drawn from the run's seeded
streams in a fixed order, so the same (seed, worlds) gives the same numbers on any machine and whatever
else runs in other processes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import numpy as np

from cogames_lib.staghunt.batch_engine import BatchStagHunt
from cogames_lib.staghunt.batch_learner import BatchedDQN
from cogames_lib.staghunt.rules import HARE, STAG


def batched_episodes(
    engine: BatchStagHunt,
    learner: BatchedDQN,
    epochs: int,
    epsilon: Callable[[np.ndarray], np.ndarray],
    bootstrap_at_end: bool,
) -> Iterator[dict]:
    """Play and learn until `epochs` episodes have finished; yield their rows in finishing order."""
    worlds, agents = engine.batch, engine.num_agents
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
        learner.store(learner.collector.record(observations, cells, actions, live))
        ended = engine.end_turn()
        learner.collector.add_rewards(engine.rewards, live)
        returns += engine.rewards
        kills[:, 0] += engine.kills[:, STAG.code]
        kills[:, 1] += engine.kills[:, HARE.code]
        ended_live = ended[live[ended]]
        if len(ended_live):
            final = engine.observe(np.tile(np.arange(agents), len(ended_live)), np.repeat(ended_live, agents))
            learner.store(learner.collector.finish(ended_live, _per_world(final.indices, agents),
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
