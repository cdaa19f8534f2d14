"""Episode seeds derived from the cell with `cogames_lib.seeding.stable_hash`.

The seed of an episode depends on (sweep seed, policy, diagnostic, num_agents, seed index) only, never on
the worker, the backend, the chunking or the order in which episodes run.
"""

from __future__ import annotations

from cogames_lib.seeding import SEED_BITS, stable_hash

__all__ = ["SEED_BITS", "agent_seed", "episode_seed", "stable_hash"]


def episode_seed(sweep_seed: int, policy: str, diagnostic: str, num_agents: int, seed_index: int) -> int:
    """The environment seed of one episode of a sweep."""
    return stable_hash("episode", int(sweep_seed), policy, diagnostic, int(num_agents), int(seed_index))


def agent_seed(episode_seed_value: int, agent_index: int) -> int:
    """The seed handed to agent `agent_index`'s policy in an episode (distinct per agent)."""
    return stable_hash("agent", int(episode_seed_value), int(agent_index))
