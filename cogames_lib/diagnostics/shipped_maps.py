"""The diagnostics' shipped map files (`cogames_lib/maps/diagnostics/`), parsed once per process.

A leaf module: the normal tier plays these maps and the hard tier's generator stretches them, so both the
record (`catalogue`) and the generator (`hard_maps`) read them from here.
"""

from __future__ import annotations

from functools import cache

from cogames_lib.cvc.maps import GridMap, load_map
from cogames_lib.paths import DIAGNOSTIC_MAPS_DIR


@cache
def shipped_map(file_name: str) -> GridMap:
    """A map file of `cogames_lib/maps/diagnostics/`, parsed once per process (maps are immutable)."""
    return load_map(DIAGNOSTIC_MAPS_DIR / file_name)
