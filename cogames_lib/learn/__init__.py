"""Training learned agents on the Cogs vs Clips diagnostics: a PPO trainer with one shared network, a
multi-task curriculum, training-only shaping, and run directories of `learned:` checkpoints; then capability
emergence over a run's checkpoints (`emergence`) and the redundancy of the diagnostics from learned outcome
data (`redundancy`).

Names are imported on first use (PEP 562): importing this package starts no torch.
"""

from __future__ import annotations

from typing import Any

from cogames_lib import lazy

_EXPORTS = {
    "Checkpoint": "cogames_lib.learn.emergence",
    "Curriculum": "cogames_lib.learn.curriculum",
    "NO_SHAPING": "cogames_lib.learn.curriculum",
    "ShapingConfig": "cogames_lib.learn.curriculum",
    "PPOConfig": "cogames_lib.learn.ppo",
    "default_curriculum": "cogames_lib.learn.curriculum",
    "find_checkpoints": "cogames_lib.learn.emergence",
    "learned_findings": "cogames_lib.learn.learn_findings",
    "learned_redundancy": "cogames_lib.learn.redundancy",
    "load_emergence": "cogames_lib.learn.emergence",
    "run_emergence": "cogames_lib.learn.emergence",
    "run_checkpoints": "cogames_lib.learn.runs",
    "train_run": "cogames_lib.learn.runs",
    "train_seed": "cogames_lib.learn.ppo",
    "training_seed": "cogames_lib.learn.curriculum",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    return lazy.load(__name__, _EXPORTS, name)
