"""The registry of both tiers: `REGISTRY` (name -> record, normal tier then hard), `TIERS`, and the name
lookups every function taking a diagnostic uses. Its own module so that modules of this package that need
the registry (e.g. `redundancy`'s ordering) import it without importing the package's `__init__`."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from cogames_lib.diagnostics.catalogue import DIAGNOSTICS, Diagnostic, find_diagnostic
from cogames_lib.diagnostics.hard_table import HARD_DIAGNOSTICS
from cogames_lib.errors import ParameterError

REGISTRY: Mapping[str, Diagnostic] = MappingProxyType({**DIAGNOSTICS, **HARD_DIAGNOSTICS})
TIERS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"normal": tuple(DIAGNOSTICS), "hard": tuple(HARD_DIAGNOSTICS), "all": tuple(REGISTRY)}
)


def get_diagnostic(name: str | Diagnostic) -> Diagnostic:
    """The record of `name` (either tier; the `diagnostic_` prefix may be left out); a record is returned
    as it is."""
    if isinstance(name, Diagnostic):
        return name
    if not isinstance(name, str):
        raise ParameterError(f"diagnostic: {name!r} is neither a diagnostic name nor a Diagnostic record")
    return find_diagnostic(REGISTRY, name)


def resolve_diagnostics(names: str | Diagnostic | list | tuple) -> list[Diagnostic]:
    """A tier (`"normal"`, `"hard"`, `"all"` = both) or a list of names/records -> records in request order."""
    if isinstance(names, str) and names in TIERS:
        return [REGISTRY[name] for name in TIERS[names]]
    if isinstance(names, str | Diagnostic):
        names = [names]
    if not names:
        raise ParameterError("diagnostics: give at least one diagnostic name or 'all'")
    return [get_diagnostic(name) for name in names]
