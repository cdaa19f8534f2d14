"""Check and normalise a sweep's parameters before any work starts (the notebook's first cell).

Every problem raises a one-line `ParameterError` naming the parameter, the bad value and what is
allowed, so a papermill run fails at once with a message a user can act on, not after an hour of work.
"""

from __future__ import annotations

import hashlib
import json
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from cogames_lib.errors import CogamesLibError, ParameterError

BACKENDS = ("local", "dask")
ALL = "all"


@dataclass(frozen=True)
class SweepPlan:
    """Validated sweep parameters; diagnostics in registry order, agent counts sorted, seeds as indices."""

    policies: tuple[Any, ...]  # PolicySpec objects (picklable, `.name`, `.make()`)
    policy_names: tuple[str, ...]
    diagnostics: tuple[str, ...]
    agent_counts: tuple[int, ...]
    seeds: tuple[int, ...]
    workers: int
    backend: str
    scheduler: Any
    out_dir: Path
    sweep_seed: int

    @property
    def sweep_id(self) -> str:
        """Identical for identical arguments (so a resumed sweep keeps its id), different otherwise."""
        text = json.dumps(
            [self.sweep_seed, self.policy_names, self.diagnostics, self.agent_counts, self.seeds]
        )
        return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


def _is_int(value: Any) -> TypeGuard[int]:
    # numpy integers register as numbers.Integral; a bool is not a count
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _as_list(value: Any) -> list:
    if isinstance(value, str) or not isinstance(value, Iterable):
        return [value]
    return list(value)


def normalise_diagnostics(diagnostics: str | Sequence[str]) -> tuple[str, ...]:
    """ "all" or names (the `diagnostic_` prefix may be left out) -> full names in registry order."""
    from cogames_lib.diagnostics import DIAGNOSTICS, get_diagnostic

    names = _as_list(diagnostics)
    if not names:
        raise ParameterError("diagnostics: empty; give 'all' or at least one diagnostic name")
    if ALL in names:
        return tuple(DIAGNOSTICS)
    selected = set()
    for name in names:
        try:
            selected.add(get_diagnostic(str(name)).name)
        except CogamesLibError as error:
            raise ParameterError(f"diagnostics: {error}") from None
    return tuple(name for name in DIAGNOSTICS if name in selected)


def normalise_seeds(seeds: int | Sequence[int]) -> tuple[int, ...]:
    """An int n means seed indices 0..n-1; a list gives the indices themselves (non-negative, distinct)."""
    if _is_int(seeds):
        if seeds < 1:
            raise ParameterError(f"seeds: the number of seeds must be >= 1, got {seeds}")
        return tuple(range(int(seeds)))
    values = _as_list(seeds)
    if not values:
        raise ParameterError("seeds: empty list; give a number of seeds or a list of seed indices")
    for value in values:
        if not _is_int(value) or value < 0:
            raise ParameterError(f"seeds: seed indices must be integers >= 0, got {value!r}")
    if len(set(values)) != len(values):
        raise ParameterError(f"seeds: duplicate seed indices in {values}")
    return tuple(int(value) for value in values)


def _resolve_policies(policies: Any) -> tuple[tuple[Any, ...], tuple[str, ...]]:
    entries = _as_list(policies)
    if not entries:
        raise ParameterError("policies: empty; give at least one policy (e.g. 'scripted')")
    specs = []
    for entry in entries:
        if isinstance(entry, str):
            from cogames_lib.policies import resolve_policy

            try:
                specs.append(resolve_policy(entry))
            except CogamesLibError as error:
                raise ParameterError(f"policies: {error}") from None
        elif hasattr(entry, "name") and hasattr(entry, "make"):
            specs.append(entry)
        else:
            raise ParameterError(f"policies: {entry!r} is neither a policy name nor a PolicySpec")
    names = tuple(str(spec.name) for spec in specs)
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ParameterError(f"policies: duplicate policy name(s) {duplicates}")
    return tuple(specs), names


def validate_sweep_parameters(
    policies: Any,
    diagnostics: str | Sequence[str],
    agent_counts: int | Sequence[int],
    seeds: int | Sequence[int],
    workers: int = 1,
    backend: str = "local",
    scheduler: Any = None,
    out_dir: str | Path = "sweep_out",
    sweep_seed: int = 0,
) -> SweepPlan:
    """Validate every sweep parameter; returns the normalised `SweepPlan` or raises `ParameterError`."""
    from cogames_lib.diagnostics import get_diagnostic

    if not _is_int(workers) or workers < 1:
        raise ParameterError(f"workers: must be an integer >= 1, got {workers!r}")
    if backend not in BACKENDS:
        raise ParameterError(f"backend: must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise ParameterError(f"scheduler: only used with backend='dask' (backend is {backend!r})")
    if not _is_int(sweep_seed) or sweep_seed < 0:
        raise ParameterError(f"sweep_seed: must be an integer >= 0, got {sweep_seed!r}")
    out_path = Path(out_dir)
    if out_path.exists() and not out_path.is_dir():
        raise ParameterError(f"out_dir: {str(out_path)!r} exists and is not a directory")
    names = normalise_diagnostics(diagnostics)
    counts = _as_list(agent_counts)
    if not counts:
        raise ParameterError("agent_counts: empty; give at least one agent count")
    for count in counts:
        if not _is_int(count) or count < 1:
            raise ParameterError(f"agent_counts: agent counts must be integers >= 1, got {count!r}")
    allowed = set()
    for name in names:
        allowed |= {int(c) for c in get_diagnostic(name).allowed_agent_counts}
    for count in counts:
        if count not in allowed:
            raise ParameterError(
                f"agent_counts: no selected diagnostic allows {count} agents (allowed: {sorted(allowed)})"
            )
    specs, policy_names = _resolve_policies(policies)
    return SweepPlan(
        policies=specs,
        policy_names=policy_names,
        diagnostics=names,
        agent_counts=tuple(sorted({int(c) for c in counts})),
        seeds=normalise_seeds(seeds),
        workers=int(workers),
        backend=backend,
        scheduler=scheduler,
        out_dir=out_path,
        sweep_seed=int(sweep_seed),
    )
