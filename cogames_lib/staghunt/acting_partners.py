"""Behavioural validation with partners that act: greedy episodes of a trained focal beside a trained partner.

The probes show a focal a partner that never moves. Here the partner is a frozen trained agent of the same
run, of the focal's own kind or of the other kind, and both act greedily (epsilon 0) in the run's world for
`episodes` full episodes of `max_turns` turns (random episode lengths are switched off so every episode
counts the same). Each (focal, partner) pair plays the same episodes: the worlds draw maps, spawns and turn
orders from one seed that does not depend on the partner, so the two partner conditions of a focal differ
only in who stands beside it (common random numbers). Every agent keeps its trained ability (`can_hunt`),
so a partner of a kind that cannot hunt really cannot; that is the point of acting partners.

Per episode, for the focal: `approached_stag` (it stood next to a live stag, 4-neighbour, at the end of a
turn), `attacked_stag` (at least one of its attacks had a stag as its nearest target), `stag_attacks` (such
attacks), `hare_attacks`, and the episode's `stags_killed` (by anyone: a stag needs two hunters). The table
holds one row per (focal, partner) with the mean over episodes (`tables.ACTING_PARTNERS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.engine import StagHuntEngine
from cogames_lib.staghunt.rules import HARE, STAG, Action, AgentSpec
from cogames_lib.staghunt.world_config import StagHuntConfig
from cogames_lib.tables import ACTING_PARTNERS

EPISODE_METRICS: tuple[str, ...] = (
    "approached_stag",
    "attacked_stag",
    "stag_attacks",
    "hare_attacks",
    "stags_killed",
)
_NEIGHBOURS = np.array([(-1, 0), (1, 0), (0, -1), (0, 1)], dtype=np.int64)


def greedy_actions(agent: Any, observations: np.ndarray) -> np.ndarray:
    """argmax Q of each observation row (ties to the lowest action): one batched call when the agent's
    `q_values` takes a (K, size) batch (a `FrozenQAgent` does), else (it refuses the batch or answers in
    another shape) one call per row, as the probe protocol promises."""
    if len(observations) == 0:
        return np.zeros(0, dtype=np.int64)
    try:
        values = np.asarray(agent.q_values(observations))
    except (ValueError, TypeError, RuntimeError):
        values = np.zeros(0)
    if values.shape != (len(observations), len(Action)):
        values = np.stack([np.asarray(agent.q_values(row)).reshape(-1) for row in observations])
    return values.argmax(axis=1).astype(np.int64)


def play_pair(
    focal: Any,
    partner: Any,
    specs: tuple[AgentSpec, AgentSpec],
    config: StagHuntConfig,
    episodes: int,
    seed: int | np.random.SeedSequence,
) -> dict[str, np.ndarray]:
    """`episodes` greedy episodes of `focal` (agent 0) beside `partner` (agent 1), in lockstep; returns each
    `EPISODE_METRICS` entry per episode (arrays of length `episodes`)."""
    if episodes < 1:
        raise ParameterError(f"episodes must be >= 1, got {episodes}")
    world = replace(config, episode_length="fixed")
    engine = StagHuntEngine(specs, world, episodes, seed)
    everyone = np.arange(episodes)
    engine.reset_worlds(everyone)
    metrics = {name: np.zeros(episodes) for name in EPISODE_METRICS}
    approached = np.zeros(episodes, dtype=bool)
    policies = (focal, partner)
    for _ in range(world.max_turns):
        order = engine.begin_turn()
        if not engine.before_act:
            start = engine.observe_dense().reshape(episodes, 2, -1)
        for slot in range(2):
            acting = order[:, slot]
            seen = engine.observe_dense(acting) if engine.before_act else start[everyone, acting]
            actions = np.zeros(episodes, dtype=np.int64)
            for agent, policy in enumerate(policies):
                rows = np.flatnonzero(acting == agent)
                actions[rows] = greedy_actions(policy, seen[rows])
            targets = engine.act(acting, actions)
            focal_attack = (acting == 0) & (actions == Action.ATTACK)
            metrics["stag_attacks"] += focal_attack & (targets == STAG.code)
            metrics["hare_attacks"] += focal_attack & (targets == HARE.code)
        engine.end_turn()
        metrics["stags_killed"] += engine.kills[:, STAG.code]
        cells = engine.positions[:, 0][:, None, :] + _NEIGHBOURS[None]
        approached |= (engine.resources[everyone[:, None], cells[..., 0], cells[..., 1]] == STAG.code).any(
            axis=1
        )
    metrics["approached_stag"] = approached.astype(float)
    metrics["attacked_stag"] = (metrics["stag_attacks"] > 0).astype(float)
    return metrics


def acting_partner_rows(
    agents: Sequence[Any],
    population: Sequence[AgentSpec],
    config: StagHuntConfig,
    episodes: int,
    seed: int,
    focal_kind: str | None,
) -> pd.DataFrame:
    """One row per (focal, partner) of one trained run: every hunter of `focal_kind` (None: every hunter) as
    focal beside every other agent of the run as partner; `tables.ACTING_PARTNERS` columns (without
    condition and seed). The worlds' seed depends on `seed` and the focal only, so one focal's partners play
    the same episodes."""
    if len(agents) != len(population):
        raise ParameterError(f"population has {len(population)} entries for {len(agents)} agents")
    rows = []
    for focal_id, spec in enumerate(population):
        if not spec.can_hunt or (focal_kind is not None and spec.kind != focal_kind):
            continue
        for partner_id, partner in enumerate(population):
            if partner_id == focal_id:
                continue
            worlds_seed = np.random.SeedSequence([seed, focal_id])
            metrics = play_pair(
                agents[focal_id], agents[partner_id], (spec, partner), config, episodes, worlds_seed
            )
            rows.append({
                "focal_id": focal_id, "focal_kind": spec.kind, "partner_id": partner_id,
                "partner_kind": partner.kind, "partner_can_hunt": partner.can_hunt,
                "partner_relation": "same" if partner.kind == spec.kind else "different", "episodes": episodes,
                **{name: float(values.mean()) for name, values in metrics.items()},
            })  # fmt: skip
    columns = [c for c in ACTING_PARTNERS.columns if c not in ("condition", "seed")]
    return pd.DataFrame(rows, columns=columns)
