"""Synthetic probe studies for tests: today's `train_many` output plus a `study.json`, and hand-built
probe tables with a known partner effect."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from cogames_lib.staghunt import StagHuntConfig, preset, train_many
from cogames_lib.staghunt.learner import DQNConfig
from cogames_lib.staghunt.probes import INTENTION_COLUMNS

TINY_LEARNER = DQNConfig(
    learning_starts=40, batch_size=8, train_every=4, target_update_every=5, buffer_size=300
)
CONDITIONS = ("all_can_hunt", "not_all_can_hunt")


def write_study_json(folder: Path, epochs: int, seeds: list[int], **overrides: object) -> dict:
    metadata = {
        "command": f"cogames-lib probe train --epochs {epochs}", "epochs": epochs, "seeds": seeds,
        "conditions": list(CONDITIONS), "world": "default", "code_version": "test", "wall_seconds": 1.0,
        # a test input: the study's own measured value lives in the real study.json
        "random_policy_stag_rate": 0.05, "date": "2026-11-25",
    }  # fmt: skip
    metadata.update(overrides)
    (folder / "study.json").write_text(json.dumps(metadata))
    return metadata


def tiny_trained_study(folder: Path, epochs: int = 6, seeds: tuple[int, ...] = (0, 1)) -> Path:
    """A real (tiny) study: `train_many` over both conditions, then a study.json."""
    configs = [
        preset(c, env=StagHuntConfig(max_turns=10), learner=TINY_LEARNER, epsilon_decay_epochs=4)
        for c in CONDITIONS
    ]
    train_many(configs, list(seeds), epochs, 3, folder, progress=False)
    write_study_json(folder, epochs, list(seeds))
    return folder


def intention_with_effect(
    effects: dict[str, float], seeds: int = 5, epochs: tuple[int, ...] = (90, 100)
) -> pd.DataFrame:
    """KindA focals whose P(stag) is 0.5 + effect/2 with a KindA partner and 0.5 - effect/2 with a KindB
    partner (plus seed noise), and a KindB focal without effect, for each condition in `effects`."""
    rng = np.random.default_rng(7)
    rows = []
    for condition, effect in effects.items():
        for seed in range(seeds):
            noise = rng.normal(0, 0.02)
            for epoch in (0, *epochs):
                for agent_id, kind in ((0, "AgentKindA"), (1, "AgentKindA"), (2, "AgentKindB")):
                    for map_name in ("m1", "m2"):
                        for version in ("ver1", "ver2"):
                            for partner in ("no_partner", "AgentKindA", "AgentKindB"):
                                shift = {"AgentKindA": effect / 2, "AgentKindB": -effect / 2}.get(
                                    partner, 0.0
                                )
                                p = 0.5 + (shift if kind == "AgentKindA" and epoch else 0.0) + noise
                                row = dict.fromkeys(INTENTION_COLUMNS, 0.0)
                                row.update(epoch=epoch, agent_id=agent_id, map_name=map_name, partner_kind=partner,
                                           version=version, weight_facing_stag=0.4 * p, weight_facing_hare=0.4 * (1 - p),
                                           agent_kind=kind, condition=condition, seed=seed)  # fmt: skip
                                rows.append(row)
    return pd.DataFrame(rows)
