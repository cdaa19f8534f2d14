"""The scripted decentralized baseline with skill switches (see `behaviour` for its priorities)."""

from __future__ import annotations

from cogames_lib.policies.scripted.behaviour import ScriptedPolicy
from cogames_lib.policies.scripted.skills import Skills, role_resources

__all__ = ["ScriptedPolicy", "Skills", "role_resources"]
