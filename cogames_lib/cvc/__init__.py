"""Cogs vs Clips: the gridworld engine (`World`), its rules as data, maps, and the PettingZoo env."""

from __future__ import annotations

from cogames_lib.cvc import rules
from cogames_lib.cvc.config import EnvConfig, ExtractorOverride
from cogames_lib.cvc.env import CogsVsClipsEnv
from cogames_lib.cvc.maps import GridMap, load_map, parse_map_text
from cogames_lib.cvc.observation import CHANNEL, GRID_CHANNELS, SELF_FIELDS, SELF_INDEX, VIEW_RADIUS
from cogames_lib.cvc.world import World

__all__ = [
    "CHANNEL",
    "GRID_CHANNELS",
    "SELF_FIELDS",
    "SELF_INDEX",
    "VIEW_RADIUS",
    "CogsVsClipsEnv",
    "EnvConfig",
    "ExtractorOverride",
    "GridMap",
    "World",
    "load_map",
    "parse_map_text",
    "rules",
]
