"""Stag-hunt probe tests: a two-kind stag-hunt gridworld, DQN learners, frozen-copy probes, analysis.

Public surface (everything a notebook needs):
- world: `StagHuntEnv` (PettingZoo ParallelEnv), `StagHuntConfig`, `world_config` / `WORLD_PRESETS` (`default`,
  `sorrel_e3`), `BatchStagHunt` (many worlds in lockstep), `random_policy_score`, `load_stag_hunt_map`,
  `load_orientation_reference`;
- learning: `TrainConfig`, `DQNConfig`, `STUDY_LEARNER`, `preset`, `train`, `train_many`, `run_study`,
  `load_checkpoint`;
- probes: `run_intention_probe`, `run_multistep_probe`, `load_probe_suite`, `ProbeSettings`;
- reading results: `load_probe_tables` (our run folders or sorrel's), `load_sorrel_probe_csvs`;
- analysis: `intention_summary`, `behaviour_summary`, `alignment_pairs`, `alignment_table`;
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
from cogames_lib.staghunt.baselines import RandomPolicyScore, random_policy_score
from cogames_lib.staghunt.batch_engine import BatchStagHunt
from cogames_lib.staghunt.env import StagHuntEnv
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
from cogames_lib.staghunt.sorrel_io import load_probe_tables, load_sorrel_probe_csvs
from cogames_lib.staghunt.study import run_study
from cogames_lib.staghunt.train import (
    STUDY_LEARNER,
    TRAINING_COLUMNS,
    TrainConfig,
    load_checkpoint,
    preset,
    train,
)
from cogames_lib.staghunt.world_config import WORLD_PRESETS, StagHuntConfig, world_config

CONDITIONS: tuple[str, ...] = tuple(PRESET_POPULATIONS)

__all__ = [
    "AGENT_KINDS",
    "CONDITIONS",
    "INTENTION_COLUMNS",
    "MAPS_DIR",
    "MULTISTEP_COLUMNS",
    "OBSERVATION_CHANNELS",
    "PARTNER_KINDS",
    "STUDY_LEARNER",
    "TRAINING_COLUMNS",
    "WORLD_PRESETS",
    "Action",
    "AgentSpec",
    "BatchStagHunt",
    "DQNAgent",
    "DQNConfig",
    "DQNPopulation",
    "FrozenQAgent",
    "ProbeSettings",
    "QNetwork",
    "RandomPolicyScore",
    "StagHuntConfig",
    "StagHuntEnv",
    "TrainConfig",
    "alignment_pairs",
    "alignment_table",
    "behaviour_summary",
    "intention_summary",
    "load_checkpoint",
    "load_orientation_reference",
    "load_probe_suite",
    "load_probe_tables",
    "load_sorrel_probe_csvs",
    "load_stag_hunt_map",
    "preset",
    "random_policy_score",
    "run_intention_probe",
    "run_multistep_probe",
    "run_study",
    "train",
    "train_many",
    "validate_probe_parameters",
    "world_config",
]  # fmt: skip
