"""Arrows point down: base -> capabilities -> workbook, capability groups apart, no cycle between modules.

Every import counts: module level, inside functions, and under `if TYPE_CHECKING:` (a type-only import is
still a dependency a reader must follow, and it becomes a real one the day someone moves it).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "cogames_lib"

BASE = {
    "",
    "errors",
    "finding",
    "stats",
    "outcomes",
    "tables",
    "io",
    "outdir",
    "parallel",
    "paths",
    "seeding",
    "lazy",
    "bag_sum",  # the sparse first layer both learners share (torch and numba; imported only by them)
}
CAPABILITY_GROUPS = {
    "cvc": "cogs_vs_clips",
    "diagnostics": "cogs_vs_clips",
    "policies": "cogs_vs_clips",
    "sweep": "cogs_vs_clips",
    "learn": "cogs_vs_clips",
    "mindcraft": "mindcraft",
    "staghunt": "staghunt",
}
# Inside the Cogs-vs-Clips group: the engine, then the catalogue and the policies (which ignore each other:
# environments never import policies), then the sweep that plays them, then the trainer of learned agents.
COGS_VS_CLIPS_ORDER = {"cvc": 0, "diagnostics": 1, "policies": 1, "sweep": 2, "learn": 3}
WORKBOOK = {"plots", "report", "cli", "__main__"}
LEVEL = {"base": 0, "capability": 1, "workbook": 2}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in sorted(ROOT.rglob("*.py"))}


def top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer(module: str) -> str:
    name = top(module)
    if name in BASE:
        return "base"
    if name in CAPABILITY_GROUPS:
        return "capability"
    assert name in WORKBOOK, f"{module}: top-level name {name!r} is in no layer; add it to test_layers"
    return "workbook"


def resolve(importer: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    is_package = importer in MODULES and MODULES[importer].name == "__init__.py"
    package = importer if is_package else importer.rsplit(".", 1)[0]
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(module: str, source: str | None = None) -> set[str]:
    """Every cogames_lib module `module` imports (a `from pkg import sub` counts as pkg.sub when sub is one)."""
    found: set[str] = set()
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8") if source is None else source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = resolve(module, node)
            names = [
                f"{source}.{alias.name}" if f"{source}.{alias.name}" in MODULES else source
                for alias in node.names
            ]
        else:
            continue
        found |= {name for name in names if name == "cogames_lib" or name.startswith("cogames_lib.")}
    found.discard(module)
    return found


GRAPH = {module: imports_of(module) for module in MODULES}


def test_every_module_sits_in_a_layer() -> None:
    for module in MODULES:
        layer(module)


def test_imports_point_down_and_capability_groups_stay_apart() -> None:
    offenders = []
    for module, targets in GRAPH.items():
        for target in sorted(targets):
            if LEVEL[layer(target)] > LEVEL[layer(module)]:
                offenders.append(f"{module} -> {target} ({layer(module)} imports {layer(target)})")
            elif layer(module) == layer(target) == "capability":
                here, there = CAPABILITY_GROUPS[top(module)], CAPABILITY_GROUPS[top(target)]
                if here != there:
                    offenders.append(f"{module} -> {target} (capability {here} imports {there})")
                elif (
                    here == "cogs_vs_clips"
                    and top(module) != top(target)
                    and COGS_VS_CLIPS_ORDER[top(target)] >= COGS_VS_CLIPS_ORDER[top(module)]
                ):
                    offenders.append(f"{module} -> {target} (against cvc -> diagnostics|policies -> sweep)")
    assert offenders == []


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_no_import_cycle_between_modules() -> None:
    cycle = find_cycle(GRAPH)
    assert cycle is None, " -> ".join(cycle or [])


def test_the_checks_see_type_only_function_level_and_relative_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from cogames_lib.plots import style\n"
        "def f():\n    import cogames_lib.report\n"
        "from . import maps\n"
    )
    found = imports_of("cogames_lib.cvc.example", source)
    assert found == {"cogames_lib.plots.style", "cogames_lib.report", "cogames_lib.cvc.maps"}


@pytest.mark.parametrize(
    ("graph", "has_cycle"),
    [({"a": {"b"}, "b": {"c"}, "c": {"a"}}, True), ({"a": {"b"}, "b": {"c"}, "c": set()}, False)],
)
def test_find_cycle_sees_a_cycle(graph: dict[str, set[str]], has_cycle: bool) -> None:
    assert (find_cycle(graph) is not None) == has_cycle


def test_the_report_computes_no_statistic() -> None:
    """Every number on a page is a `Finding` from a capability's function: `report/` renders, so it imports
    neither `cogames_lib.stats` nor a statistics package."""
    offenders = []
    for module, path in MODULES.items():
        if not module.startswith("cogames_lib.report"):
            continue
        packages = {
            alias.name.split(".")[0]
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            (node.module or "").split(".")[0]
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.ImportFrom) and not node.level
        }
        offenders += [f"{module} imports {p}" for p in sorted(packages & {"scipy", "statsmodels"})]
        if "cogames_lib.stats" in GRAPH[module]:
            offenders.append(f"{module} imports cogames_lib.stats")
    assert offenders == []
