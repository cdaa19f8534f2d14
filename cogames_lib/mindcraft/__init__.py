"""Granular outcome parsing of Mindcraft experiment logs (any number of agents), aggregated with pandas.

Public surface (the notebook and the CLI use only these):

- `analyze_json_file(path)` -> per-log outcome dict (`logs.py` documents the keys)
- `extract_result(folder_path, task_definition=None)` -> per-run dict (`runs.py`)
- `aggregate_results(folders_or_roots, task_definitions=None, model_name=None, no_score_policy="failure")`
  -> the runs frame (`aggregate.py` documents every column); `runs_table(runs)` and `agents_table(runs)`
  give the storable tables `mindcraft_runs` and `mindcraft_agents`, `skipped_table(runs)` the
  `mindcraft_skipped` table (every folder or file not analysed, and why)
- `compare_models(runs, a, b)`: model A vs B paired by task id (`compare.py`)
- `load_task_definitions(paths)`, `task_definition_metrics(task_id, definition)` (`tasks.py`)
- summary helpers returning DataFrames with n and a Wilson interval on every rate (`summaries.py`)
- `find_task_folders(roots)`, `validate_analysis_parameters(roots, task_files, no_score_policy)`

Nothing here writes into an experiment tree; parsing never raises on file content. Layouts
(`discovery.py`), stale logs (`stale.py`) and the hostile-file policy (`files.py`) are documented
where they are implemented and in docs/mindcraft.md. The SYNTHETIC sample tree's generator is developer
tooling, outside the library (`tools/mindcraft_sample`).
"""

from __future__ import annotations

from cogames_lib.mindcraft.aggregate import (
    AGENT_COLUMNS,
    RUN_COLUMNS,
    SKIPPED_COLUMNS,
    agents_table,
    aggregate_results,
    runs_table,
    skipped_table,
)
from cogames_lib.mindcraft.collect import find_task_folders
from cogames_lib.mindcraft.compare import COMPARISON_COLUMNS, compare_models, most_paired_models
from cogames_lib.mindcraft.discovery import (
    LAYOUTS,
    NO_SCORE_POLICIES,
    SkippedFolder,
    validate_analysis_parameters,
)
from cogames_lib.mindcraft.files import DEFAULT_MAX_LOG_BYTES
from cogames_lib.mindcraft.logs import analyze_json_file, analyze_log_bytes, parse_agent_log_name
from cogames_lib.mindcraft.runs import extract_result, read_model_name
from cogames_lib.mindcraft.stale import STALE_START_SKEW_S
from cogames_lib.mindcraft.summaries import (
    SUMMARY_TABLES,
    status_counts,
    summary_by_agent_count,
    summary_by_depth,
    summary_by_missing_items,
    summary_by_plan_availability,
    summary_by_task_type,
    summary_construction_scores,
    summary_cooking_by_blocked_agents,
    summary_overall,
    summary_tables,
)
from cogames_lib.mindcraft.tasks import load_task_definitions, task_definition_metrics, task_file_paths

__all__ = [
    "AGENT_COLUMNS",
    "COMPARISON_COLUMNS",
    "DEFAULT_MAX_LOG_BYTES",
    "LAYOUTS",
    "NO_SCORE_POLICIES",
    "RUN_COLUMNS",
    "SKIPPED_COLUMNS",
    "STALE_START_SKEW_S",
    "SUMMARY_TABLES",
    "SkippedFolder",
    "agents_table",
    "aggregate_results",
    "analyze_json_file",
    "analyze_log_bytes",
    "compare_models",
    "extract_result",
    "find_task_folders",
    "load_task_definitions",
    "most_paired_models",
    "parse_agent_log_name",
    "read_model_name",
    "runs_table",
    "skipped_table",
    "status_counts",
    "summary_by_agent_count",
    "summary_by_depth",
    "summary_by_missing_items",
    "summary_by_plan_availability",
    "summary_by_task_type",
    "summary_construction_scores",
    "summary_cooking_by_blocked_agents",
    "summary_overall",
    "summary_tables",
    "task_definition_metrics",
    "task_file_paths",
    "validate_analysis_parameters",
]
