"""Task definitions: loading task files and deriving the metrics results are grouped by.

A task file is a JSON object mapping task id -> definition (the key is the id; there is no
`task_id` field). Facts that exist only in the id (plan availability, `missing_<item>`, depth and
agent count suffixes) are parsed from it, so metrics exist even without a task file.

`task_definition_metrics(task_id, definition)` returns a flat dict (these become `runs` columns):

| key | types | meaning |
|---|---|---|
| `expected_agent_count` | all | definition's `agent_count`, else `num_agents_<n>` in the id |
| `timeout_s` | all | definition's `timeout` (Mindcraft's default 300 s when a definition lacks it) |
| `depth`, `max_depth` | techtree | crafting-tree depth of the task, of the target |
| `missing_item_count` | techtree | `len(missing_items)`, else count of `missing_<item>` in the id |
| `plan_availability` | techtree | `full_plan`, `partial_plan`, `no_plan` from the id (older `with_plan` -> `full_plan`) |
| `requires_crafting_table` | techtree | `requires_ctable` / `requires_crafting_table`, else `requires_ctable` in the id |
| `blocked_agent_count` | techtree, cooking | agents with a blocked action (techtree) or no recipe access (cooking) |
| `total_recipe_steps`, `max_steps_per_recipe`, `unique_target_items` | cooking | from `recipes`/`target`, or `difficulty_metrics` when present |
| `overall_difficulty_score`, `difficulty_category` | cooking | from `difficulty_metrics` when present |
| `material_count`, `level_count`, `block_count` | construction | distinct materials, blueprint levels, non-air cells |
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from cogames_lib.errors import DataFileError

DEFAULT_TIMEOUT_S = 300

# Substring of the id -> task type, tried in order, for folders without a definition.
TASK_TYPE_FROM_ID: tuple[tuple[str, str], ...] = (
    ("cooking", "cooking"),
    ("crafting", "techtree"),
    ("techtree", "techtree"),
    ("construction", "construction"),
    ("debug", "debug"),
)

# Id fragment -> plan availability, tried in order ("with_partial_plan" must win over "with_plan").
PLAN_FROM_ID: tuple[tuple[str, str], ...] = (
    ("partial_plan", "partial_plan"),
    ("no_plan", "no_plan"),
    ("full_plan", "full_plan"),
    ("with_plan", "full_plan"),
)

DEPTH_IN_ID = re.compile(r"depth_(\d+)")
AGENTS_IN_ID = re.compile(r"num_agents_(\d+)")
MISSING_IN_ID = re.compile(r"missing_(?!items)[a-z]")
BLOCKED_ACCESS_IN_ID = re.compile(r"blocked_access((?:_\d+)+)")


def _float_or_none(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


# `difficulty_metrics` key -> how to read its value; a value of another type is ignored (the derived
# number stays) so one odd task file cannot break the typed runs table.
DIFFICULTY_KEYS: dict[str, Callable[[Any], Any]] = {
    "total_recipe_steps": _int_or_none,
    "max_steps_per_recipe": _int_or_none,
    "unique_target_items": _int_or_none,
    "overall_difficulty_score": _float_or_none,
    "difficulty_category": _text_or_none,
}


def task_file_paths(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """Task-file arguments: files as given, folders expanded to their `*.json` files (sorted)."""
    files: list[str] = []
    for path in paths:
        path_text = os.fspath(path)
        if os.path.isdir(path_text):
            names = sorted(name for name in os.listdir(path_text) if name.endswith(".json"))
            files += [os.path.join(path_text, n) for n in names if os.path.isfile(os.path.join(path_text, n))]
        else:
            files.append(path_text)
    return files


def load_task_definitions(paths: Iterable[str | os.PathLike[str]]) -> dict[str, dict[str, Any]]:
    """{task_id: definition} from task files; later files override earlier ones for the same id.

    Raises `DataFileError` (naming the file) for an unreadable file, invalid JSON, or a top level
    that is not an object of objects.
    """
    definitions: dict[str, dict[str, Any]] = {}
    for path in paths:
        path_text = os.fspath(path)
        try:
            with open(path_text, encoding="utf-8") as handle:
                document = json.load(handle)
        except OSError as error:
            raise DataFileError(f"task file {path_text}: cannot read ({error.strerror or error})") from None
        except (UnicodeDecodeError, ValueError) as error:
            raise DataFileError(f"task file {path_text}: not valid UTF-8 JSON ({error})") from None
        if not isinstance(document, dict):
            raise DataFileError(
                f"task file {path_text}: top level must be an object of task id -> definition"
            )
        for task_id, definition in document.items():
            if not isinstance(definition, dict):
                raise DataFileError(f"task file {path_text}: task {task_id!r} is not an object")
            definitions[task_id] = definition
    return definitions


def task_type_of(task_id: str, definition: Mapping[str, Any] | None) -> str | None:
    """`type` of the definition (never the cooking-only `task_type`), else guessed from the id."""
    if definition is not None and isinstance(definition.get("type"), str):
        return definition["type"]
    return next((task_type for fragment, task_type in TASK_TYPE_FROM_ID if fragment in task_id), None)


def _techtree_metrics(task_id: str, definition: Mapping[str, Any]) -> dict[str, Any]:
    depth = _int_or_none(definition.get("depth"))
    if depth is None and (match := DEPTH_IN_ID.search(task_id)):
        depth = int(match.group(1))
    missing = definition.get("missing_items")
    missing_count = len(missing) if isinstance(missing, list) else len(MISSING_IN_ID.findall(task_id))
    requires_table = definition.get("requires_ctable", definition.get("requires_crafting_table"))
    if not isinstance(requires_table, bool):
        requires_table = "requires_ctable" in task_id
    blocked = definition.get("blocked_actions")
    blocked_count = (
        sum(1 for actions in blocked.values() if isinstance(actions, list) and actions)
        if isinstance(blocked, dict)
        else None
    )
    return {
        "depth": depth,
        "max_depth": _int_or_none(definition.get("max_depth")),
        "missing_item_count": missing_count,
        "plan_availability": next((plan for fragment, plan in PLAN_FROM_ID if fragment in task_id), None),
        "requires_crafting_table": requires_table,
        "blocked_agent_count": blocked_count,
    }


def _distinct_count(items: dict[str, Any] | list[Any]) -> int:
    """Distinct keys of a dict target, distinct entries of a list target (entries may be lists or dicts)."""
    return len({json.dumps(item, sort_keys=True, default=str) for item in items})


def _cooking_metrics(task_id: str, definition: Mapping[str, Any]) -> dict[str, Any]:
    recipes = definition.get("recipes")
    recipes = recipes if isinstance(recipes, dict) else {}
    steps = [len(recipe) for recipe in recipes.values() if isinstance(recipe, list)]
    target = definition.get("target")
    unique_targets = _distinct_count(target) if isinstance(target, dict | list) else None
    blocked = definition.get("blocked_access_to_recipe")
    if isinstance(blocked, list):
        blocked_count: int | None = len(blocked)
    elif match := BLOCKED_ACCESS_IN_ID.search(task_id):
        blocked_count = len(match.group(1).strip("_").split("_"))
    else:
        blocked_count = None
    metrics: dict[str, Any] = {
        "total_recipe_steps": sum(steps) if steps else None,
        "max_steps_per_recipe": max(steps) if steps else None,
        "unique_target_items": unique_targets,
        "overall_difficulty_score": None,
        "difficulty_category": _text_or_none(definition.get("difficulty")),
        "blocked_agent_count": blocked_count,
    }
    difficulty = definition.get("difficulty_metrics")
    if isinstance(difficulty, dict):  # the task author's own numbers win over our derivation
        for key, read in DIFFICULTY_KEYS.items():
            value = read(difficulty.get(key))
            if value is not None:
                metrics[key] = value
    return metrics


def _construction_metrics(task_id: str, definition: Mapping[str, Any]) -> dict[str, Any]:
    blueprint = definition.get("blueprint")
    blueprint = blueprint if isinstance(blueprint, dict) else {}
    materials = blueprint.get("materials")
    levels = blueprint.get("levels")
    levels = levels if isinstance(levels, list) else []
    blocks = 0
    for level in levels:
        placement = level.get("placement") if isinstance(level, dict) else None
        for row in placement if isinstance(placement, list) else []:
            if isinstance(row, list):
                blocks += sum(1 for cell in row if isinstance(cell, str) and cell != "air")
    return {
        "material_count": len(materials) if isinstance(materials, dict) else None,
        "level_count": len(levels) if levels else None,
        "block_count": blocks if levels else None,
    }


METRICS_BY_TASK_TYPE: dict[str, Callable[[str, Mapping[str, Any]], dict[str, Any]]] = {
    "techtree": _techtree_metrics,
    "cooking": _cooking_metrics,
    "construction": _construction_metrics,
}


def task_definition_metrics(task_id: str, definition: Mapping[str, Any] | None) -> dict[str, Any]:
    """Flat metrics of one task (keys in the module docstring); never raises on odd definitions."""
    known = definition if isinstance(definition, Mapping) else {}
    expected = _int_or_none(known.get("agent_count"))
    if expected is None and (match := AGENTS_IN_ID.search(task_id)):
        expected = int(match.group(1))
    timeout = known.get("timeout", DEFAULT_TIMEOUT_S if known else None)
    metrics: dict[str, Any] = {
        "expected_agent_count": expected,
        "timeout_s": timeout if isinstance(timeout, int | float) and not isinstance(timeout, bool) else None,
    }
    type_metrics = METRICS_BY_TASK_TYPE.get(task_type_of(task_id, definition) or "")
    if type_metrics is not None:
        metrics.update(type_metrics(task_id, known))
    return metrics
