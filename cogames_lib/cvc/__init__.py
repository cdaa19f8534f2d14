"""Cogs vs Clips: the gridworld engine (`World`), its rules as data, maps, and the PettingZoo env.

Names are imported on first use (PEP 562), so `import cogames_lib.cvc` (or any of its modules) does not
start PettingZoo: only `CogsVsClipsEnv` needs it.
"""

from __future__ import annotations

from typing import Any

from cogames_lib import lazy

_EXPORTS = {
    "CHANNEL": "cogames_lib.cvc.observation",
    "GRID_CHANNELS": "cogames_lib.cvc.observation",
    "SELF_FIELDS": "cogames_lib.cvc.observation",
    "SELF_INDEX": "cogames_lib.cvc.observation",
    "VIEW_RADIUS": "cogames_lib.cvc.observation",
    "CogsVsClipsEnv": "cogames_lib.cvc.env",
    "EnvConfig": "cogames_lib.cvc.config",
    "ExtractorOverride": "cogames_lib.cvc.config",
    "GridMap": "cogames_lib.cvc.maps",
    "World": "cogames_lib.cvc.world",
    "load_map": "cogames_lib.cvc.maps",
    "parse_map_text": "cogames_lib.cvc.maps",
    "rules": "",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    return lazy.load(__name__, _EXPORTS, name)
