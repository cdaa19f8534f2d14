"""cogames_lib: an evaluation workbook for multi-agent RL research.

Capabilities (each a sub-package that knows nothing of the others):
  cogames_lib.cvc          Cogs vs Clips gridworld engine (PettingZoo ParallelEnv)
  cogames_lib.diagnostics  the diagnostic mission catalogue
  cogames_lib.policies     reference policies and the policy protocol
  cogames_lib.sweep        parallel, resumable evaluation sweeps
  cogames_lib.mindcraft    Mindcraft agent-log outcome parsing
  cogames_lib.staghunt     stag-hunt environment, DQN learners, probe tests
  cogames_lib.stats / plots / report   the workbook layer
"""

from __future__ import annotations

from cogames_lib.errors import CogamesLibError

__version__ = "0.1.0"
__all__ = ["CogamesLibError", "__version__"]
