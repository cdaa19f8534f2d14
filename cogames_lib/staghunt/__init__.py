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

Names are imported on first use (PEP 562), so `import cogames_lib.staghunt.engine` or a CLI that only
checks its arguments does not start torch or pettingzoo.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

from cogames_lib.staghunt.rules import PRESET_POPULATIONS

# public name -> the module (in this package) that defines it
_EXPORTS: dict[str, str] = {
    "AGENT_KINDS": "rules",
    "Action": "rules",
    "AgentSpec": "rules",
    "BatchStagHunt": "batch_engine",
    "DQNAgent": "learner",
    "DQNConfig": "learner",
    "DQNPopulation": "learner",
    "FrozenQAgent": "learner",
    "INTENTION_COLUMNS": "probes",
    "MAPS_DIR": "maps",
    "MULTISTEP_COLUMNS": "probes",
    "OBSERVATION_CHANNELS": "rules",
    "PARTNER_KINDS": "rules",
    "ProbeSettings": "probes",
    "QNetwork": "learner",
    "RandomPolicyScore": "baselines",
    "STUDY_LEARNER": "train",
    "StagHuntConfig": "world_config",
    "StagHuntEnv": "env",
    "TRAINING_COLUMNS": "train",
    "TrainConfig": "train",
    "WORLD_PRESETS": "world_config",
    "alignment_pairs": "analysis",
    "alignment_table": "analysis",
    "behaviour_summary": "analysis",
    "intention_summary": "analysis",
    "load_checkpoint": "train",
    "load_orientation_reference": "orientation",
    "load_probe_suite": "probes",
    "load_probe_tables": "sorrel_io",
    "load_sorrel_probe_csvs": "sorrel_io",
    "load_stag_hunt_map": "maps",
    "preset": "train",
    "random_policy_score": "baselines",
    "run_intention_probe": "probes",
    "run_multistep_probe": "probes",
    "run_study": "study",
    "train": "train",
    "train_many": "runs",
    "validate_probe_parameters": "runs",
    "world_config": "world_config",
}

CONDITIONS: tuple[str, ...] = tuple(PRESET_POPULATIONS)
# Functions named like the module that defines them: importing the module must not rebind the package's name
# to the module (what the import system does to a package attribute named like a submodule).
_NAMED_LIKE_THEIR_MODULE: tuple[str, ...] = ("train", "world_config")


class _StagHuntPackage(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        if name in _NAMED_LIKE_THEIR_MODULE and isinstance(value, types.ModuleType):
            return  # `cogames_lib.staghunt.train` stays the function; the module lives in sys.modules
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _StagHuntPackage


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = ["CONDITIONS", *sorted(_EXPORTS)]
