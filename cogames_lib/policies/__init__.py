"""Policies for Cogs vs Clips: the protocol, the name resolver, and the reference policies.

Names accepted everywhere: "noop", "random", "scripted", "scripted:-chorus[,-memory...]" (ablations),
or an import path "package.module:Class". `resolve_policy(name)` is the one resolver.
"""

from __future__ import annotations

from cogames_lib.policies.base import (
    ABLATIONS,
    ACCEPTED_FORMS,
    Policy,
    PolicySpec,
    ablation_specs,
    load_policy,
    resolve_policy,
)
from cogames_lib.policies.scripted import ScriptedPolicy, Skills
from cogames_lib.policies.simple import NoopPolicy, RandomPolicy

__all__ = [
    "ABLATIONS",
    "ACCEPTED_FORMS",
    "NoopPolicy",
    "Policy",
    "PolicySpec",
    "RandomPolicy",
    "ScriptedPolicy",
    "Skills",
    "ablation_specs",
    "load_policy",
    "resolve_policy",
]
