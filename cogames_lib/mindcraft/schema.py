"""Columns, order and dtypes of every Mindcraft table, in one place (writers, readers and tests import them).

Tables: `mindcraft_runs` (one row per task; `aggregate.py` documents the columns), `mindcraft_agents`
(one row per agent log), `mindcraft_skipped` (one row per folder or file not analysed) and the model
comparison (`compare.py`). Text that comes from file names may hold undecodable bytes: in memory it is
kept losslessly as `surrogateescape` text (`folder_path`); stored tables carry the printable form
(`*_display`, and in every text column) plus the exact bytes (`folder_path_bytes`, `path_bytes`).
"""

from __future__ import annotations

METRIC_COLUMNS: tuple[str, ...] = (
    "timeout_s",
    "depth",
    "max_depth",
    "missing_item_count",
    "plan_availability",
    "requires_crafting_table",
    "blocked_agent_count",
    "total_recipe_steps",
    "max_steps_per_recipe",
    "unique_target_items",
    "overall_difficulty_score",
    "difficulty_category",
    "material_count",
    "level_count",
    "block_count",
)
RUN_COLUMNS: tuple[str, ...] = (
    "experiment",
    "model_name",
    "task_id",
    "task_type",
    "layout",
    "agent_count",
    "expected_agent_count",
    "expected_agent_count_mismatch",
    "total_agent_logs_found",
    "repetition_count",
    "successful_repetitions",
    "overall_completion_status",
    "overall_is_successful",
    "overall_raw_score",
    "success_for_rate",
    "end_reason",
    "stale_log_count",
    "has_task_definition",
    "score_scale",
    *METRIC_COLUMNS,
    "ignored_files",
    "folder_display",
    "folder_path",
)
NESTED_COLUMNS: tuple[str, ...] = ("agent_outcomes", "repetitions")
# Column -> pandas dtype; nullable types so NA survives CSV and parquet without turning into floats.
RUN_DTYPES: dict[str, str] = {
    "experiment": "string",
    "model_name": "string",
    "task_id": "string",
    "task_type": "string",
    "layout": "string",
    "agent_count": "Int64",
    "expected_agent_count": "Int64",
    "expected_agent_count_mismatch": "boolean",
    "total_agent_logs_found": "Int64",
    "repetition_count": "Int64",
    "successful_repetitions": "Int64",
    "overall_is_successful": "boolean",
    "overall_raw_score": "Float64",
    "success_for_rate": "boolean",
    "end_reason": "string",
    "stale_log_count": "Int64",
    "has_task_definition": "boolean",
    "score_scale": "Float64",
    "timeout_s": "Float64",
    "depth": "Int64",
    "max_depth": "Int64",
    "missing_item_count": "Int64",
    "plan_availability": "string",
    "requires_crafting_table": "boolean",
    "blocked_agent_count": "Int64",
    "total_recipe_steps": "Int64",
    "max_steps_per_recipe": "Int64",
    "unique_target_items": "Int64",
    "overall_difficulty_score": "Float64",
    "difficulty_category": "string",
    "material_count": "Int64",
    "level_count": "Int64",
    "block_count": "Int64",
    "ignored_files": "string",
    "folder_display": "string",
    "folder_path": "object",  # surrogateescape text in memory; see STORED_PATH_COLUMNS
}
# in-memory path column -> the binary column that carries its exact bytes in stored tables
STORED_PATH_COLUMNS: dict[str, str] = {"folder_path": "folder_path_bytes", "path": "path_bytes"}

AGENT_COLUMNS: tuple[str, ...] = (
    "experiment",
    "model_name",
    "task_id",
    "task_type",
    "layout",
    "run_index",
    "agent_name",
    "file_name",
    "completion_status",
    "raw_score",
    "logged_score",
    "score_scale",
    "verdict_source",
    "score_lines_found",
    "turn_count",
    "agent_log_processed",
    "parsing_errors",
    "final_system_message",
    "file_size_bytes",
    "task_start_ms",
    "stale_reason",
    "folder_display",
)
AGENT_DTYPES: dict[str, str] = {
    "experiment": "string",
    "model_name": "string",
    "task_id": "string",
    "task_type": "string",
    "layout": "string",
    "run_index": "Int64",
    "agent_name": "string",
    "file_name": "string",
    "raw_score": "Float64",
    "logged_score": "float64",  # plain float: a logged `NaN` stays NaN, distinct from no score (NA)
    "score_scale": "Float64",
    "verdict_source": "string",
    "score_lines_found": "Int64",
    "turn_count": "Int64",
    "agent_log_processed": "boolean",
    "parsing_errors": "string",
    "final_system_message": "string",
    "file_size_bytes": "Int64",
    "task_start_ms": "Float64",
    "stale_reason": "string",
    "folder_display": "string",
}

SKIPPED_COLUMNS: tuple[str, ...] = ("kind", "path_display", "reason", "path")

COMPARISON_COLUMNS: tuple[str, ...] = (
    "group",
    "value",
    "n_tasks",
    "rate_a",
    "rate_b",
    "difference",
    "ci_low",
    "ci_high",
    "both_succeeded",
    "only_a",
    "only_b",
    "neither",
    "mcnemar_p",
)
