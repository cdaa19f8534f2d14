"""A stable hash for seeds: the same integer in every process (base layer: any capability derives seeds with it).

Python's `hash()` of a string changes from one process to the next (PYTHONHASHSEED), so it would give a
different seed on every worker. BLAKE2b of a canonical text does not. Seeds are kept below 2**31 so every
consumer (Python's `random`, numpy's legacy and new generators, torch) accepts them unchanged.
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
