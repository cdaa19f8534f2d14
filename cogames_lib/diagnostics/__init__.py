"""The Cogs vs Clips diagnostic catalogue: lookups and environment construction.

`DIAGNOSTICS` maps name -> `Diagnostic` record in the document's order (17 documented, then 6 new).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from cogames_lib.cvc.maps import GridMap, load_map
from cogames_lib.diagnostics.catalogue import DIAGNOSTICS, Diagnostic
from cogames_lib.diagnostics.redundancy import (
    MIN_SHARED_CELLS,
    REDUNDANT_AGREEMENT,
    agreement_matrix,
    linkage_order,
    outcome_matrix,
    redundancy,
)
from cogames_lib.errors import ParameterError, UnknownNameError, close_matches_message
from cogames_lib.paths import DIAGNOSTIC_MAPS_DIR

if TYPE_CHECKING:
    from cogames_lib.cvc.env import CogsVsClipsEnv

__all__ = [
    "DIAGNOSTICS",
    "MIN_SHARED_CELLS",
    "REDUNDANT_AGREEMENT",
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


def get_diagnostic(name: str) -> Diagnostic:
    """The record of `name`; the `diagnostic_` prefix may be left out."""
    record = DIAGNOSTICS.get(name) or DIAGNOSTICS.get(f"diagnostic_{name}")
    if record is None:
        raise UnknownNameError(close_matches_message("diagnostic", name, list(DIAGNOSTICS)))
    return record


def resolve_diagnostics(names: str | list[str] | tuple[str, ...]) -> list[Diagnostic]:
    """`"all"` or a list of names (prefix optional) -> records in registry order of the request."""
    if isinstance(names, str):
        names = list(DIAGNOSTICS) if names == "all" else [names]
    if not names:
        raise ParameterError("diagnostics: give at least one diagnostic name or 'all'")
    return [get_diagnostic(name) for name in names]


def check_agent_count(diagnostic: Diagnostic, num_agents: int) -> None:
    if num_agents not in diagnostic.allowed_agent_counts:
        allowed = ", ".join(str(n) for n in diagnostic.allowed_agent_counts)
        raise ParameterError(f"{diagnostic.name} does not allow {num_agents} agent(s); allowed: {allowed}")


@cache
def diagnostic_map(name: str) -> GridMap:
    """The parsed map of a diagnostic (cached: maps are immutable)."""
    return load_map(DIAGNOSTIC_MAPS_DIR / get_diagnostic(name).map_file)


def make_env(
    name: str, num_agents: int, seed: int | None = None, render_mode: str | None = None
) -> CogsVsClipsEnv:
    """A ready environment for one diagnostic (reset with `seed` when given)."""
    from cogames_lib.cvc.env import CogsVsClipsEnv  # PettingZoo: only when an env is wanted

    diagnostic = get_diagnostic(name)
    check_agent_count(diagnostic, num_agents)
    env = CogsVsClipsEnv(
        diagnostic_map(diagnostic.name),
        num_agents=num_agents,
        max_steps=diagnostic.max_steps,
        config=diagnostic.env_config(num_agents),
        render_mode=render_mode,
    )
    if seed is not None:
        env.reset(seed=seed)
    return env
