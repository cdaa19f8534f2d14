"""Lazy re-exports (PEP 562): a package names its public objects and where they live, and each is
imported on first use, so importing the package does not start torch, PettingZoo or papermill.

A package keeps a table `_EXPORTS` (name -> the module that defines it; `""` for a submodule of the
package itself; a zero-argument function for a value computed on first use) and a two-line
`def __getattr__(name): return lazy.load(__name__, _EXPORTS, name)`. A `def` rather than an assigned
function, so type checkers still see the package's names as existing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

Source = str | Callable[[], Any]
Exports = Mapping[str, Source]


def load(package: str, exports: Exports, name: str) -> Any:
    """The object `package` exports as `name`; AttributeError (as Python's own) for a name it does not."""
    if name not in exports:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    source = exports[name]
    if callable(source):
        return source()
    if not source:  # a submodule of the package
        return importlib.import_module(f"{package}.{name}")
    return getattr(importlib.import_module(source), name)
