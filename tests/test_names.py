"""Names: no public name means two things in two subpackages; statuses are StrEnums; every exception class of
`cogames_lib.errors` is raised somewhere in the package."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from enum import StrEnum
from pathlib import Path

import cogames_lib
from cogames_lib import errors

ROOT = Path(cogames_lib.__file__).parent


def packages() -> list[str]:
    found = ["cogames_lib"]
    for info in pkgutil.walk_packages([str(ROOT)], prefix="cogames_lib."):
        if info.ispkg:
            found.append(info.name)
    return sorted(found)


def test_no_public_name_is_exported_by_two_subpackages_with_different_meanings() -> None:
    seen: dict[str, tuple[str, object]] = {}
    clashes = []
    for name in packages():
        module = importlib.import_module(name)
        for public in getattr(module, "__all__", ()):
            value = getattr(module, public)
            if public in seen and seen[public][1] is not value:
                clashes.append(f"{public}: {seen[public][0]} and {name}")
            seen.setdefault(public, (name, value))
    assert clashes == []


def test_every_package_exports_what_its_all_lists() -> None:
    for name in packages():
        module = importlib.import_module(name)
        missing = [public for public in getattr(module, "__all__", ()) if not hasattr(module, public)]
        assert missing == [], name


def test_statuses_are_string_enums() -> None:
    from cogames_lib.outcomes import CompletionStatus
    from cogames_lib.report.status import NotebookStatus

    for status in (CompletionStatus, NotebookStatus):
        assert issubclass(status, StrEnum)
        assert all(member == member.value for member in status)


def raised_names() -> set[str]:
    """Names of the exceptions a `raise` statement of the package constructs (`raise X(...)` or `raise X`)."""
    names = set()
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and node.exc is not None:
                target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(target, ast.Name):
                    names.add(target.id)
                elif isinstance(target, ast.Attribute):
                    names.add(target.attr)
    return names


def test_every_exception_class_is_raised_somewhere() -> None:
    classes = [
        name
        for name, value in vars(errors).items()
        if inspect.isclass(value) and issubclass(value, Exception) and value.__module__ == errors.__name__
    ]
    # the base class is caught, never raised itself
    never = sorted(set(classes) - raised_names() - {"CogamesLibError"})
    assert never == [], f"defined in errors.py but never raised: {never}"
