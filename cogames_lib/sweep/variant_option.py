"""The sweep's custom-variant option: the CLI's --base/--map/--max-steps and the sweep notebook's `variant`
parameter, turned into one more diagnostic record for the sweep."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cogames_lib.diagnostics import get_diagnostic
from cogames_lib.errors import ParameterError

VARIANT_KEYS = ("base", "map", "max_steps")


def with_variant(diagnostics: Any, variant: Mapping[str, Any] | None) -> Any:
    """Sweep diagnostics plus one custom variant: the CLI's --base/--map/--max-steps and the sweep notebook's
    `variant` parameter, a mapping {"base": NAME, "map": FILE, "max_steps": N} (None values are left out).

    Without a variant, `diagnostics` (None: "all") is returned as it is; with one, `diagnostics` (None: none)
    gets it appended. The map is checked here, before any episode runs."""
    given = {key: value for key, value in dict(variant or {}).items() if value is not None}
    unknown = sorted(set(given) - set(VARIANT_KEYS))
    if unknown:
        raise ParameterError(f"variant: unknown key(s) {unknown}; known: {list(VARIANT_KEYS)}")
    if not given:
        return "all" if diagnostics is None else diagnostics
    if "base" not in given:
        raise ParameterError(
            "variant: a map or max_steps needs its base diagnostic (--base / variant['base'])"
        )
    record = get_diagnostic(given["base"]).variant(map=given.get("map"), max_steps=given.get("max_steps"))
    if diagnostics is None:
        return [record]
    listed = [diagnostics] if isinstance(diagnostics, str) else list(diagnostics)
    return [*listed, record]
