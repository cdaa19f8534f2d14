"""The Cogs vs Clips diagnostic catalogue: lookups and environment construction.

`DIAGNOSTICS` maps name -> `Diagnostic` record in the document's order (17 documented, then 6 new): the
normal tier. `HARD_DIAGNOSTICS` holds one `<name>_hard` record per diagnostic (maps generated per episode
seed, see `hard_maps.py`); `REGISTRY` holds both tiers. Every function here that takes a diagnostic accepts
a name (the `diagnostic_` prefix may be left out) or a `Diagnostic` record (e.g. a custom variant).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from cogames_lib.cvc.maps import GridMap
from cogames_lib.diagnostics.catalogue import DIAGNOSTICS, Diagnostic
from cogames_lib.diagnostics.hard_table import HARD_DIAGNOSTICS
from cogames_lib.diagnostics.redundancy import (
    MIN_SHARED_CELLS,
    REDUNDANT_AGREEMENT,
    agreement_matrix,
    linkage_order,
    outcome_matrix,
    redundancy,
)
from cogames_lib.errors import ParameterError, UnknownNameError, close_matches_message

REGISTRY: Mapping[str, Diagnostic] = MappingProxyType({**DIAGNOSTICS, **HARD_DIAGNOSTICS})
TIERS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"normal": tuple(DIAGNOSTICS), "hard": tuple(HARD_DIAGNOSTICS), "all": tuple(REGISTRY)}
)

if TYPE_CHECKING:
    from cogames_lib.cvc.env import CogsVsClipsEnv

__all__ = [
    "DIAGNOSTICS",
    "HARD_DIAGNOSTICS",
    "MIN_SHARED_CELLS",
    "REDUNDANT_AGREEMENT",
    "REGISTRY",
    "TIERS",
    "Diagnostic",
    "agreement_matrix",
    "check_agent_count",
    "diagnostic_map",
    "get_diagnostic",
    "linkage_order",
    "make_env",
    "outcome_matrix",
    "redundancy",
    "resolve_diagnostics",
]


def get_diagnostic(name: str | Diagnostic) -> Diagnostic:
    """The record of `name` (either tier; the `diagnostic_` prefix may be left out); a record is returned
    as it is."""
    if isinstance(name, Diagnostic):
        return name
    if not isinstance(name, str):
        raise ParameterError(f"diagnostic: {name!r} is neither a diagnostic name nor a Diagnostic record")
    record = REGISTRY.get(name) or REGISTRY.get(f"diagnostic_{name}")
    if record is None:
        raise UnknownNameError(close_matches_message("diagnostic", name, list(REGISTRY)))
    return record


def resolve_diagnostics(names: str | Diagnostic | list | tuple) -> list[Diagnostic]:
    """A tier (`"normal"`, `"hard"`, `"all"` = both) or a list of names/records -> records in request order."""
    if isinstance(names, str) and names in TIERS:
        return [REGISTRY[name] for name in TIERS[names]]
    if isinstance(names, str | Diagnostic):
        names = [names]
    if not names:
        raise ParameterError("diagnostics: give at least one diagnostic name or 'all'")
    return [get_diagnostic(name) for name in names]


def check_agent_count(diagnostic: Diagnostic, num_agents: int) -> None:
    if num_agents not in diagnostic.allowed_agent_counts:
        allowed = ", ".join(str(n) for n in diagnostic.allowed_agent_counts)
        raise ParameterError(f"{diagnostic.name} does not allow {num_agents} agent(s); allowed: {allowed}")


def diagnostic_map(name: str | Diagnostic, seed: int = 0, num_agents: int | None = None) -> GridMap:
    """The map of a diagnostic's episode: fixed for the normal tier and custom variants; for the hard tier
    the map generated from `seed` for `num_agents` agents (default: the fewest the diagnostic allows)."""
    diagnostic = get_diagnostic(name)
    count = min(diagnostic.allowed_agent_counts) if num_agents is None else num_agents
    return diagnostic.episode_map(seed, count)


def make_env(
    name: str | Diagnostic, num_agents: int, seed: int | None = None, render_mode: str | None = None
) -> CogsVsClipsEnv:
    """A ready environment for one diagnostic (reset with `seed` when given). A hard-tier map depends on
    the seed: its env must be reset with the same `seed` (None means 0)."""
    from cogames_lib.cvc.env import CogsVsClipsEnv  # PettingZoo: only when an env is wanted

    diagnostic = get_diagnostic(name)
    check_agent_count(diagnostic, num_agents)
    env = CogsVsClipsEnv(
        diagnostic.episode_map(0 if seed is None else seed, num_agents),
        num_agents=num_agents,
        max_steps=diagnostic.max_steps,
        config=diagnostic.env_config(num_agents),
        render_mode=render_mode,
    )
    if seed is not None:
        env.reset(seed=seed)
    return env
