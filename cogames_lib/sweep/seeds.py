"""Episode seeds derived from the cell, with a stable hash.

Python's `hash()` of a string changes from one process to the next (PYTHONHASHSEED), so it would give a
different seed on every worker. BLAKE2b of a canonical text does not: the seed of an episode depends on
(sweep seed, policy, diagnostic, num_agents, seed index) only, never on the worker, the backend, the
chunking or the order in which episodes run. Seeds are kept below 2**31 so every consumer (Python's
`random`, numpy's legacy and new generators, torch) accepts them unchanged.
"""

from __future__ import annotations

import hashlib

SEED_BITS = 31
_FIELD_SEPARATOR = "\x1f"  # a character no policy or diagnostic name contains


def stable_hash(*parts: object, bits: int = SEED_BITS) -> int:
    """A non-negative integer below 2**bits from the `str()` of the parts, identical in every process."""
    text = _FIELD_SEPARATOR.join(str(part) for part in parts)
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - bits)


def episode_seed(sweep_seed: int, policy: str, diagnostic: str, num_agents: int, seed_index: int) -> int:
    """The environment seed of one episode of a sweep."""
    return stable_hash("episode", int(sweep_seed), policy, diagnostic, int(num_agents), int(seed_index))


def agent_seed(episode_seed_value: int, agent_index: int) -> int:
    """The seed handed to agent `agent_index`'s policy in an episode (distinct per agent)."""
    return stable_hash("agent", int(episode_seed_value), int(agent_index))
