"""A stable hash for seeds: the same integer in every process (base layer: any capability derives seeds with it).

Python's `hash()` of a string changes from one process to the next (PYTHONHASHSEED), so it would give a
different seed on every worker. BLAKE2b of a canonical text does not. Seeds are kept below 2**31 so every
consumer (Python's `random`, numpy's legacy and new generators, torch) accepts them unchanged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from cogames_lib.errors import ParameterError

SEED_BITS = 31
_FIELD_SEPARATOR = "\x1f"  # a character no policy or diagnostic name contains


def stable_hash(*parts: object, bits: int = SEED_BITS) -> int:
    """A non-negative integer below 2**bits from the `str()` of the parts, identical in every process."""
    text = _FIELD_SEPARATOR.join(str(part) for part in parts)
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - bits)


def seed_list(seeds: int | Iterable[int], parameter: str) -> list[int]:
    """`seeds` as a list: a count k means seeds 0..k-1, otherwise the given seeds; a one-line
    `ParameterError` naming `parameter` when there are none."""
    chosen = list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]
    if not chosen:
        raise ParameterError(f"{parameter}: need at least one seed")
    return chosen
