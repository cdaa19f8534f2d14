"""Checks of the probe-training parameters, in a module of their own so that a notebook's first cell or the
CLI can reject a bad value before anything imports torch."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.rules import PRESET_POPULATIONS

BACKENDS = ("local", "dask")


def validate_probe_parameters(
    conditions: str | Sequence[str] | None = None,
    epochs: int | None = None,
    probe_every: int | None = None,
    seeds: int | Sequence[int] | None = None,
    folder: str | Path | None = None,
    workers: int | None = None,
    backend: str | None = None,
) -> None:
    """Check notebook/CLI parameters up front; raises a one-line `ParameterError` naming the culprit."""
    if conditions is not None:
        for condition in [conditions] if isinstance(conditions, str) else conditions:
            if condition not in PRESET_POPULATIONS:
                raise ParameterError(f"condition: unknown {condition!r}; known: {sorted(PRESET_POPULATIONS)}")
    for name, value in (("epochs", epochs), ("probe_every", probe_every), ("workers", workers)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise ParameterError(f"{name} must be an integer >= 1, got {value!r}")
    if seeds is not None:
        for seed in [seeds] if isinstance(seeds, int) else seeds:
            if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
                raise ParameterError(f"seeds must be integers >= 0, got {seed!r}")
    if folder is not None:
        from cogames_lib.staghunt.sorrel_io import require_folder  # pandas: only when a folder is checked

        require_folder(folder)
    if backend is not None and backend not in BACKENDS:
        raise ParameterError(f"backend must be one of {list(BACKENDS)}, got {backend!r}")
