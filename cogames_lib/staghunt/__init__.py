"""Stag-hunt probe tests: a two-kind stag-hunt gridworld, DQN learners, frozen-copy probes, analysis.

Public surface (everything a notebook needs):
- world: `StagHuntEnv` (PettingZoo ParallelEnv), `StagHuntConfig`, `load_stag_hunt_map`, `load_orientation_reference`;
- learning: `TrainConfig`, `DQNConfig`, `preset`, `train`, `train_many`, `load_checkpoint`;
- probes: `run_intention_probe`, `run_multistep_probe`, `load_probe_suite`, `ProbeSettings`;
- reading results: `load_probe_tables` (our run folders or sorrel's), `load_sorrel_probe_csvs`;
- analysis: `intention_summary`, `behaviour_summary`, `alignment_pairs`, `alignment_table`;
- studies (docs/staghunt_analysis.md): `load_probe_study`, `partner_curves`, `learning_curves`,
  `final_learning`, `partner_effect`, `kind_sensitivity`, `study_headline`, `learning_verdict`; checkpoints: `CHECKPOINT_MODES`;
- `validate_probe_parameters` for a notebook's first cell; table columns `INTENTION_COLUMNS`,
  `MULTISTEP_COLUMNS`, `TRAINING_COLUMNS`; constants `CONDITIONS`, `PARTNER_KINDS`, `AGENT_KINDS`.
"""

from __future__ import annotations

from cogames_lib.staghunt.analysis import (
    alignment_pairs,
    alignment_table,
    behaviour_summary,
    intention_summary,
)
from cogames_lib.staghunt.checkpoints import CHECKPOINT_MODES
from cogames_lib.staghunt.env import StagHuntConfig, StagHuntEnv
from cogames_lib.staghunt.learner import DQNAgent, DQNConfig, DQNPopulation, FrozenQAgent, QNetwork
from cogames_lib.staghunt.maps import MAPS_DIR, load_stag_hunt_map
from cogames_lib.staghunt.orientation import load_orientation_reference
from cogames_lib.staghunt.probes import (
    INTENTION_COLUMNS,
    MULTISTEP_COLUMNS,
    ProbeSettings,
    load_probe_suite,
    run_intention_probe,
    run_multistep_probe,
)
from cogames_lib.staghunt.rules import (
    AGENT_KINDS,
    OBSERVATION_CHANNELS,
    PARTNER_KINDS,
    PRESET_POPULATIONS,
    Action,
    AgentSpec,
)
from cogames_lib.staghunt.runs import train_many, validate_probe_parameters
from cogames_lib.staghunt.social import (
    final_learning,
    kind_sensitivity,
    learning_curves,
    partner_curves,
    partner_effect,
)
from cogames_lib.staghunt.sorrel_io import load_probe_tables, load_sorrel_probe_csvs
from cogames_lib.staghunt.study_summary import learning_verdict, study_headline
from cogames_lib.staghunt.study_tables import ProbeStudy, load_probe_study
from cogames_lib.staghunt.train import TRAINING_COLUMNS, TrainConfig, load_checkpoint, preset, train

CONDITIONS: tuple[str, ...] = tuple(PRESET_POPULATIONS)

__all__ = [
    "AGENT_KINDS",
    "CHECKPOINT_MODES",
    "CONDITIONS",
    "INTENTION_COLUMNS",
    "MAPS_DIR",
    "MULTISTEP_COLUMNS",
    "OBSERVATION_CHANNELS",
    "PARTNER_KINDS",
    "TRAINING_COLUMNS",
    "Action",
    "AgentSpec",
    "DQNAgent",
    "DQNConfig",
    "DQNPopulation",
    "FrozenQAgent",
    "ProbeSettings",
    "ProbeStudy",
    "QNetwork",
    "StagHuntConfig",
    "StagHuntEnv",
    "TrainConfig",
    "alignment_pairs",
    "alignment_table",
    "behaviour_summary",
    "final_learning",
    "intention_summary",
    "kind_sensitivity",
    "learning_curves",
    "learning_verdict",
    "load_checkpoint",
    "load_orientation_reference",
    "load_probe_study",
    "load_probe_suite",
    "load_probe_tables",
    "load_sorrel_probe_csvs",
    "load_stag_hunt_map",
    "partner_curves",
    "partner_effect",
    "preset",
    "run_intention_probe",
    "run_multistep_probe",
    "study_headline",
    "train",
    "train_many",
    "validate_probe_parameters",
]  # fmt: skip
