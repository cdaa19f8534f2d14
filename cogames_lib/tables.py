"""Every table's contract, defined once: columns in their order, the key, and the dtypes.

Writers build their frames with `schema.frame(rows)`, readers and validators call `schema.validate(df,
source)`, plots pick the columns they need with `schema.pick(...)`, so a renamed or added column is one line
here and every user follows. Adding a column: one `("name", "dtype")` line in its table below (and the
writer that fills it). Columns a table may carry after its own (`optional`, e.g. a study's `condition` and
`seed`) keep a fixed order when present.

dtypes are pandas dtype names: plain ("str", "int64", "float64", "bool") where a value is never missing,
nullable ("string", "Int64", "Float64", "boolean") where it may be, "category" for a fixed category order
(applied by the writer, e.g. `outcomes.status_categorical`). pandas is imported inside the functions, so
importing this module costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cogames_lib.errors import DataFileError

if TYPE_CHECKING:
    import pandas as pd

_TEXT = frozenset({"str", "string", "object", "category"})
_INTEGER = frozenset({"int64", "Int64"})
_REAL = frozenset({"float64", "Float64"})
_BOOLEAN = frozenset({"bool", "boolean"})


@dataclass(frozen=True)
class TableSchema:
    """One table: `name`, `columns` (in order), `key` (what identifies a row), `dtypes` per column.

    `optional` columns (name -> dtype) are not required; when present they follow `columns` in their order.
    """

    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]
    dtypes: Mapping[str, str] = field(hash=False)
    optional: Mapping[str, str] = field(default_factory=dict, hash=False)

    @classmethod
    def of(
        cls,
        name: str,
        columns: Sequence[tuple[str, str]],
        key: Sequence[str],
        optional: Sequence[tuple[str, str]] = (),
    ) -> TableSchema:
        """A schema from (column, dtype) pairs: one line per column where the table is defined."""
        names = tuple(column for column, _ in columns)
        if len(set(names)) != len(names):
            raise ValueError(f"table {name}: a column is listed twice in {names}")
        if not set(key) <= set(names):
            raise ValueError(f"table {name}: key {tuple(key)} names columns not in {names}")
        return cls(name, names, tuple(key), dict(columns), dict(optional))

    def pick(self, *names: str) -> tuple[str, ...]:
        """Some of this table's columns (e.g. the ones a figure needs); a name the table lacks is a bug."""
        unknown = [n for n in names if n not in self.dtypes and n not in self.optional]
        if unknown:
            raise KeyError(f"table {self.name} has no column(s) {unknown}")
        return names

    def dtype_of(self, column: str) -> str:
        return self.dtypes.get(column) or self.optional[column]

    def validate(self, frame: pd.DataFrame, source: object, columns: Iterable[str] | None = None) -> None:
        """Raise `DataFileError` naming `source` (a file, or what produced the frame) and the column when
        a required column is missing or holds values of the wrong kind (text, integer, number, boolean)."""
        wanted = tuple(self.columns if columns is None else self.pick(*columns))
        missing = [column for column in wanted if column not in frame.columns]
        if missing:
            raise DataFileError(f"{source}: missing columns {missing} of the {self.name} table")
        for column in (*wanted, *(c for c in self.optional if c in frame.columns and c not in wanted)):
            problem = _kind_problem(frame[column], self.dtype_of(column))
            if problem:
                raise DataFileError(f"{source}: column {column!r} of the {self.name} table {problem}")

    def frame(self, rows: Iterable[Mapping[str, Any]] | None = None) -> pd.DataFrame:
        """Rows (dicts) -> a frame with exactly this table's columns, in order, cast to their dtypes
        ("category" columns are left to the writer, which knows the category order)."""
        import pandas as pd

        result = pd.DataFrame(list(rows or []), columns=list(self.columns))
        casts = {c: d for c, d in self.dtypes.items() if d != "category"}
        return result.astype(casts)

    def ordered(self, frame: pd.DataFrame) -> pd.DataFrame:
        """`frame` with this table's columns first, then its optional columns present, then any others."""
        head = [c for c in (*self.columns, *self.optional) if c in frame.columns]
        return frame[head + [c for c in frame.columns if c not in head]]


def _kind_problem(series: pd.Series, dtype: str) -> str | None:
    """Why `series` cannot hold values of `dtype`, or None. Checks the kind, not the exact width."""
    import pandas as pd
    from pandas.api import types

    if series.empty or dtype in _TEXT:
        return None
    values = series.cat.categories.to_series() if isinstance(series.dtype, pd.CategoricalDtype) else series
    present = values.dropna()
    if present.empty:
        return None
    if dtype in _BOOLEAN:
        ok = types.is_bool_dtype(values) or present.isin([True, False]).all()
        return None if ok else f"holds {_plain(present.iloc[0])!r}, not a boolean"
    numbers = pd.to_numeric(present, errors="coerce")
    if numbers.isna().any():
        bad = present[numbers.isna()].iloc[0]
        return f"holds {_plain(bad)!r}, not a number"
    if dtype in _INTEGER and not (numbers == numbers.round()).all():
        bad = present[numbers != numbers.round()].iloc[0]
        return f"holds {_plain(bad)!r}, not an integer"
    return None


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (for a message that reads `0.5`, not `np.float64(0.5)`)."""
    return value.item() if hasattr(value, "item") else value


# -- Cogs vs Clips: sweeps -------------------------------------------------------------------------------
EPISODES = TableSchema.of(
    "episodes",
    [
        ("sweep_id", "str"),
        ("policy", "str"),
        ("diagnostic", "str"),
        # normal (shipped map), hard (map generated per seed, `<name>_hard`) or custom (`<name>@<map>`)
        ("tier", "str"),
        ("num_agents", "int64"),
        ("seed", "int64"),
        ("status", "str"),
        ("success", "bool"),
        ("reward", "float64"),
        ("steps", "int64"),
        ("max_steps", "int64"),
        ("error", "str"),
        ("duration_s", "float64"),
        ("episode_seed", "int64"),
    ],
    # the cell, the seed index and the derived seed (which encodes the sweep seed)
    key=("policy", "diagnostic", "num_agents", "seed", "episode_seed"),
)
# One row per agent per step of a recorded episode (`run_episode(..., record_trace=True)`), keyed like episodes.
TRACE_STEP_COLUMNS: tuple[tuple[str, str], ...] = (
    ("step", "int64"),
    ("agent", "int64"),
    ("row", "int64"),
    ("col", "int64"),
    ("vibe", "str"),
    ("action", "str"),
    ("action_success", "boolean"),
    ("event", "str"),
)
TRACES = TableSchema.of(
    "traces",
    [*((column, EPISODES.dtypes[column]) for column in EPISODES.key), *TRACE_STEP_COLUMNS],
    key=(*EPISODES.key, "step", "agent"),
)
# What a reader needs to find an episode again (the derived seed is an implementation detail).
EPISODE_DISPLAY_KEY: tuple[str, ...] = EPISODES.pick("policy", "diagnostic", "num_agents", "seed")

# `stats.rate_table`'s columns after the group keys (Wilson interval).
RATE_COLUMNS: tuple[str, ...] = ("n", "successes", "rate", "ci_low", "ci_high")
SWEEP_SUMMARY = TableSchema.of(
    "sweep summary",
    [
        ("policy", "str"),
        ("diagnostic", "str"),
        ("num_agents", "int64"),
        ("n", "int64"),
        ("successes", "int64"),
        ("rate", "float64"),
        ("ci_low", "float64"),
        ("ci_high", "float64"),
        ("timed_out", "int64"),
        ("run_errors", "int64"),
    ],
    key=("policy", "diagnostic", "num_agents"),
    # the diagnostic's tier, when the summary is grouped by diagnostic (episodes carry it)
    optional=[("tier", "str")],
)

# -- Mindcraft -------------------------------------------------------------------------------------------
MINDCRAFT_METRIC_COLUMNS: tuple[tuple[str, str], ...] = (
    ("timeout_s", "Float64"),
    ("depth", "Int64"),
    ("max_depth", "Int64"),
    ("missing_item_count", "Int64"),
    ("plan_availability", "string"),
    ("requires_crafting_table", "boolean"),
    ("blocked_agent_count", "Int64"),
    ("total_recipe_steps", "Int64"),
    ("max_steps_per_recipe", "Int64"),
    ("unique_target_items", "Int64"),
    ("overall_difficulty_score", "Float64"),
    ("difficulty_category", "string"),
    ("material_count", "Int64"),
    ("level_count", "Int64"),
    ("block_count", "Int64"),
)
# Names read from experiment trees may hold undecodable bytes. In memory (`aggregate_results`) a path column
# holds the exact name as `surrogateescape` text (object dtype); a stored table holds its printable form
# there (`mindcraft.files.display_text`) and the exact bytes in the binary column named here.
MINDCRAFT_PATH_BYTES_COLUMNS: Mapping[str, str] = {"folder_path": "folder_path_bytes", "path": "path_bytes"}
# One row per task (`mindcraft.aggregate` documents each column). `aggregate_results` also carries the
# nested `agent_outcomes` and `repetitions` after these and no `folder_path_bytes` (see above).
MINDCRAFT_RUNS = TableSchema.of(
    "mindcraft_runs",
    [
        ("experiment", "string"),
        ("model_name", "string"),
        ("task_id", "string"),
        ("task_type", "string"),
        ("layout", "string"),
        ("agent_count", "Int64"),
        ("expected_agent_count", "Int64"),
        ("expected_agent_count_mismatch", "boolean"),
        ("total_agent_logs_found", "Int64"),
        ("repetition_count", "Int64"),
        ("successful_repetitions", "Int64"),
        ("overall_completion_status", "category"),
        ("overall_is_successful", "boolean"),
        ("overall_raw_score", "Float64"),
        ("success_for_rate", "boolean"),
        ("end_reason", "string"),
        ("stale_log_count", "Int64"),
        ("has_task_definition", "boolean"),
        ("score_scale", "Float64"),
        *MINDCRAFT_METRIC_COLUMNS,
        ("ignored_files", "string"),
        ("folder_display", "string"),
        ("folder_path", "string"),
        ("folder_path_bytes", "object"),
    ],
    # one task folder (or flat/per-run group) per row; the printable folder tells same-named tasks apart
    key=("folder_display", "task_id"),
)
# One row per agent log.
MINDCRAFT_AGENTS = TableSchema.of(
    "mindcraft_agents",
    [
        ("experiment", "string"),
        ("model_name", "string"),
        ("task_id", "string"),
        ("task_type", "string"),
        ("layout", "string"),
        ("run_index", "Int64"),
        ("agent_name", "string"),
        ("file_name", "string"),
        ("completion_status", "category"),
        ("raw_score", "Float64"),
        ("logged_score", "float64"),  # plain float: a logged `NaN` stays NaN, distinct from no score (NA)
        ("score_scale", "Float64"),
        ("verdict_source", "string"),
        ("score_lines_found", "Int64"),
        ("turn_count", "Int64"),
        ("agent_log_processed", "boolean"),
        ("parsing_errors", "string"),
        ("final_system_message", "string"),
        ("file_size_bytes", "Int64"),
        ("task_start_ms", "Float64"),
        ("stale_reason", "string"),
        ("folder_display", "string"),
    ],
    key=("folder_display", "task_id", "run_index", "file_name"),  # per-run folders repeat file names
)
# One row per folder or file under the analysed roots that was not analysed, and why.
MINDCRAFT_SKIPPED = TableSchema.of(
    "mindcraft_skipped",
    [
        ("kind", "string"),
        ("path_display", "string"),
        ("reason", "string"),
        ("path", "string"),
        ("path_bytes", "object"),
    ],
    key=("path_display", "kind"),
)
# `mindcraft.compare_models`: model A vs B paired by task id, one row per group value.
MINDCRAFT_COMPARISON = TableSchema.of(
    "mindcraft_comparison",
    [
        ("group", "str"),
        ("value", "str"),
        ("n_tasks", "int64"),
        ("rate_a", "float64"),
        ("rate_b", "float64"),
        ("difference", "float64"),
        ("ci_low", "float64"),
        ("ci_high", "float64"),
        ("both_succeeded", "int64"),
        ("only_a", "int64"),
        ("only_b", "int64"),
        ("neither", "int64"),
        ("mcnemar_p", "float64"),
    ],
    key=("group", "value"),
)

# -- Stag hunt: training and probes ----------------------------------------------------------------------
# Written after a probe table's own columns when known (our runs; sorrel's files have none of them).
# `stag_action` (step_left / step_right: the step that turns the focal toward the stag) and `partner_side`
# (stag / hare / equidistant / none: where the partner stands across the focal's stag-hare axis) say which
# counterbalanced case a row is (`staghunt.probe_cases`); `agent_can_hunt` is the focal's ability.
PROBE_EXTRA_COLUMNS: tuple[tuple[str, str], ...] = (
    ("agent_kind", "str"),
    ("partner_relation", "str"),
    ("stag_action", "str"),
    ("partner_side", "str"),
    ("agent_can_hunt", "bool"),
    ("condition", "str"),
    ("seed", "int64"),
    ("run_id", "str"),
)
PROBE_INTENTION = TableSchema.of(
    "probe_intention",
    [
        ("epoch", "int64"),
        ("agent_id", "int64"),
        ("map_name", "str"),
        ("partner_kind", "str"),
        ("version", "str"),
        ("q_val_forward", "float64"),
        ("q_val_backward", "float64"),
        ("q_val_step_left", "float64"),
        ("q_val_step_right", "float64"),
        ("q_val_attack", "float64"),
        ("weight_facing_stag", "float64"),
        ("weight_facing_hare", "float64"),
    ],
    key=("epoch", "agent_id", "map_name", "partner_kind", "version"),
    optional=PROBE_EXTRA_COLUMNS,
)
PROBE_MULTISTEP = TableSchema.of(
    "probe_multistep",
    [
        ("epoch", "int64"),
        ("agent_id", "int64"),
        ("partner_kind", "str"),
        ("first_attack_target", "str"),
        ("result", "float64"),
        ("turn_of_first_attack", "Int64"),
    ],
    key=("epoch", "agent_id", "partner_kind"),
    optional=PROBE_EXTRA_COLUMNS,
)
# One row per epoch; a `return_agent_<i>` column per agent follows these.
TRAINING = TableSchema.of(
    "training",
    [
        ("epoch", "int64"),
        ("epsilon", "float64"),
        ("mean_return", "float64"),
        ("stags_killed", "int64"),
        ("hares_killed", "int64"),
        ("updates", "int64"),
        ("mean_loss", "float64"),
        ("seconds", "float64"),
    ],
    key=("epoch",),
)
# One row per (condition, seed) training run of `staghunt.train_many`.
PROBE_RUNS = TableSchema.of(
    "probe_runs",
    [
        ("condition", "str"),
        ("seed", "int64"),
        ("run_dir", "str"),
        ("epochs", "int64"),
        ("final_mean_return", "float64"),
        ("mean_return_last_10pct", "float64"),
        ("seconds", "float64"),
    ],
    key=("condition", "seed"),
)
# One row per (condition, seed, focal, partner) of a study's behavioural validation with acting partners
# (`staghunt.acting_partners`): the focal's per-episode rates and counts, averaged over `episodes`.
ACTING_PARTNERS = TableSchema.of(
    "acting_partners",
    [
        ("condition", "str"),
        ("seed", "int64"),
        ("focal_id", "int64"),
        ("focal_kind", "str"),
        ("partner_id", "int64"),
        ("partner_kind", "str"),
        ("partner_can_hunt", "bool"),
        ("partner_relation", "str"),
        ("episodes", "int64"),
        ("approached_stag", "float64"),
        ("attacked_stag", "float64"),
        ("stag_attacks", "float64"),
        ("hare_attacks", "float64"),
        ("stags_killed", "float64"),
    ],
    key=("condition", "seed", "focal_id", "partner_id"),
)
# One row per condition of a study: what uniformly random play scores in its world (`staghunt.baselines`),
# with the seed and the number of worlds played in lockstep, so the baseline can be recomputed.
RANDOM_POLICY = TableSchema.of(
    "random_policy",
    [
        ("condition", "str"),
        ("episodes", "int64"),
        ("stags_per_episode", "float64"),
        ("stags_standard_error", "float64"),
        ("hares_per_episode", "float64"),
        ("mean_return", "float64"),
        ("return_standard_error", "float64"),
        ("seed", "int64"),
        ("worlds", "int64"),
    ],
    key=("condition",),
)
# The curves and effects of the stag-hunt study analysis (`staghunt.study_findings`), which the plots read:
# a curve point is a mean across seeds with its 95% bootstrap interval; an effect row is one paired test.
STUDY_CURVE_COLUMNS: tuple[str, ...] = ("n_seeds", "mean", "ci_low", "ci_high")
STUDY_EFFECT_COLUMNS: tuple[str, ...] = (
    "effect", "condition", "scale", "partner_side", "design", "n_seeds", "estimate", "ci_low", "ci_high",
    "p_sign_flip", "p_wilcoxon", "wilcoxon_note", "seeds_positive",
)  # fmt: skip

# -- suite-level comparison of two policies (`sweep.compare`) --------------------------------------------
# One row per (diagnostic, agent count) cell both policies played: each side's episodes and pass rate.
COMPARISON_CELLS = TableSchema.of(
    "comparison cells",
    [
        ("diagnostic", "str"),
        ("num_agents", "int64"),
        ("n_first", "int64"),
        ("rate_first", "float64"),
        ("n_second", "int64"),
        ("rate_second", "float64"),
    ],
    key=("diagnostic", "num_agents"),
)
# A performance profile: per policy and threshold, the fraction of cells whose pass rate is above it.
PERFORMANCE_PROFILE = TableSchema.of(
    "performance profile",
    [
        ("policy", "str"),
        ("threshold", "float64"),
        ("fraction", "float64"),
        ("low", "float64"),
        ("high", "float64"),
    ],
    key=("policy", "threshold"),
)

SCHEMAS: tuple[TableSchema, ...] = (
    EPISODES,
    TRACES,
    SWEEP_SUMMARY,
    MINDCRAFT_RUNS,
    MINDCRAFT_AGENTS,
    MINDCRAFT_SKIPPED,
    MINDCRAFT_COMPARISON,
    PROBE_INTENTION,
    PROBE_MULTISTEP,
    TRAINING,
    PROBE_RUNS,
    COMPARISON_CELLS,
    PERFORMANCE_PROFILE,
    ACTING_PARTNERS,
    RANDOM_POLICY,
)
