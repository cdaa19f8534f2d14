"""Stag-hunt probe tests: a two-kind stag-hunt gridworld, DQN learners, frozen-copy probes, analysis.

Public surface (everything a notebook needs):
- world: `StagHuntAECEnv` (PettingZoo AEC game) and `StagHuntEnv` (the parallel env derived from it),
  `StagHuntConfig`, `world_config` / `WORLD_PRESETS` (`default`, `sorrel_e3`), `StagHuntEngine` (the one
  engine: worlds in lockstep; `BatchStagHunt` is its earlier name), `random_policy_score`,
  `load_stag_hunt_map`, `load_orientation_reference`;
- learning: `TrainConfig`, `DQNConfig`, `STUDY_LEARNER`, `preset`, `train`, `train_many`, `run_study`,
  `load_checkpoint`;
- probes: `run_intention_probe`, `run_multistep_probe`, `load_probe_suite`, `ProbeSettings`;
- reading results: `load_probe_tables` (our run folders or sorrel's), `load_sorrel_probe_csvs`;
- analysis: `intention_summary`, `behaviour_summary`, `alignment_pairs`, `alignment_table`;
- studies (docs/staghunt_analysis.md): `run_study` / `finish_study` (pre-registered, counterbalanced probes,
  controls, acting partners), `load_probe_study`, `ProbeStudy`, and the one analysis path: `staghunt_findings`
  over `partner_effect`, `side_bias`, `preference_levels`, `acting_partner_effect`, `partner_curves`,
  `learning_curves`, `final_learning`; `study_headline`, `learning_verdict`;
  checkpoints: `CHECKPOINT_MODES`;
- `validate_probe_parameters` for a notebook's first cell; table columns `INTENTION_COLUMNS`,
  `MULTISTEP_COLUMNS`, `TRAINING_COLUMNS`; constants `CONDITIONS`, `PARTNER_KINDS`, `AGENT_KINDS`.

Names are imported on first use (PEP 562): `import cogames_lib.staghunt.engine` starts neither torch nor
PettingZoo; `DQNConfig` or `train` do.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from cogames_lib import lazy


def _conditions() -> tuple[str, ...]:
    """The population presets' names (read from the rules on first use)."""
    from cogames_lib.staghunt.rules import PRESET_POPULATIONS

    return tuple(PRESET_POPULATIONS)


_EXPORTS: dict[str, lazy.Source] = {
    "BatchStagHunt": "cogames_lib.staghunt.engine",
    "StagHuntEngine": "cogames_lib.staghunt.engine",
    "StagHuntAECEnv": "cogames_lib.staghunt.env",
    "RandomPolicyScore": "cogames_lib.staghunt.baselines",
    "STUDY_LEARNER": "cogames_lib.staghunt.train",
    "WORLD_PRESETS": "cogames_lib.staghunt.world_config",
    "random_policy_score": "cogames_lib.staghunt.baselines",
    "run_study": "cogames_lib.staghunt.study",
    "finish_study": "cogames_lib.staghunt.study",
    "acting_partner_rows": "cogames_lib.staghunt.acting_partners",
    "staghunt_findings": "cogames_lib.staghunt.study_findings",
    "side_bias": "cogames_lib.staghunt.social",
    "preference_levels": "cogames_lib.staghunt.social",
    "acting_partner_effect": "cogames_lib.staghunt.social",
    "world_config": "cogames_lib.staghunt.world_config",
    "AGENT_KINDS": "cogames_lib.staghunt.rules",
    "Action": "cogames_lib.staghunt.rules",
    "AgentSpec": "cogames_lib.staghunt.rules",
    "DQNAgent": "cogames_lib.staghunt.learner",
    "DQNConfig": "cogames_lib.staghunt.learner",
    "DQNPopulation": "cogames_lib.staghunt.learner",
    "FrozenQAgent": "cogames_lib.staghunt.learner",
    "INTENTION_COLUMNS": "cogames_lib.staghunt.probes",
    "STAGHUNT_MAPS_DIR": "cogames_lib.staghunt.maps",
    "MULTISTEP_COLUMNS": "cogames_lib.staghunt.probes",
    "OBSERVATION_CHANNELS": "cogames_lib.staghunt.rules",
    "PARTNER_KINDS": "cogames_lib.staghunt.rules",
    "PRESET_POPULATIONS": "cogames_lib.staghunt.rules",
    "ProbeSettings": "cogames_lib.staghunt.probes",
    "QNetwork": "cogames_lib.staghunt.learner",
    "StagHuntConfig": "cogames_lib.staghunt.world_config",
    "StagHuntEnv": "cogames_lib.staghunt.env",
    "TRAINING_COLUMNS": "cogames_lib.staghunt.train",
    "TrainConfig": "cogames_lib.staghunt.train",
    "alignment_pairs": "cogames_lib.staghunt.analysis",
    "alignment_table": "cogames_lib.staghunt.analysis",
    "behaviour_summary": "cogames_lib.staghunt.analysis",
    "intention_summary": "cogames_lib.staghunt.analysis",
    "load_checkpoint": "cogames_lib.staghunt.train",
    "load_orientation_reference": "cogames_lib.staghunt.orientation",
    "load_probe_suite": "cogames_lib.staghunt.probes",
    "load_probe_tables": "cogames_lib.staghunt.sorrel_io",
    "load_sorrel_probe_csvs": "cogames_lib.staghunt.sorrel_io",
    "load_stag_hunt_map": "cogames_lib.staghunt.maps",
    "preset": "cogames_lib.staghunt.train",
    "run_intention_probe": "cogames_lib.staghunt.probes",
    "run_multistep_probe": "cogames_lib.staghunt.probes",
    "train": "cogames_lib.staghunt.train",
    "train_many": "cogames_lib.staghunt.runs",
    "validate_probe_parameters": "cogames_lib.staghunt.parameters",
    "CONDITIONS": _conditions,
    "CHECKPOINT_MODES": "cogames_lib.staghunt.checkpoints",
    "ProbeStudy": "cogames_lib.staghunt.study_tables",
    "load_probe_study": "cogames_lib.staghunt.study_tables",
    "final_learning": "cogames_lib.staghunt.social",
    "learning_curves": "cogames_lib.staghunt.social",
    "partner_curves": "cogames_lib.staghunt.social",
    "partner_effect": "cogames_lib.staghunt.social",
    "learning_verdict": "cogames_lib.staghunt.study_summary",
    "study_headline": "cogames_lib.staghunt.study_summary",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    return lazy.load(__name__, _EXPORTS, name)


class _Package(types.ModuleType):
    """This package, with one twist: the import system binds every loaded submodule as an attribute of its
    package, and `train` names both a submodule and the function exported here. The binding is kept off, so
    `cogames_lib.staghunt.train` stays the function however the submodule was first imported (as it was
    when this package imported everything eagerly)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if (
            isinstance(value, types.ModuleType) and name in _EXPORTS
        ):  # every export here is a module's attribute
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
