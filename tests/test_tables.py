"""One schema per table: every writer's output has its table's columns, in order, of the declared kinds."""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd
import pytest

from cogames_lib import tables
from cogames_lib.errors import DataFileError
from cogames_lib.tables import TableSchema

SAMPLE = Path(__file__).resolve().parent.parent / "cogames_lib" / "data" / "mindcraft_sample"


def matches(frame: pd.DataFrame, schema: TableSchema, source: str, extra: tuple[str, ...] = ()) -> None:
    """The frame's columns are the schema's (plus `extra`) in order, and pass its validation."""
    optional = tuple(c for c in schema.optional if c in frame.columns)
    assert list(frame.columns) == [*schema.columns, *optional, *extra], source
    schema.validate(frame, source)
    if len(frame):
        assert not frame.duplicated(list(schema.key)).any(), f"{source}: key {schema.key} repeats"


# -- the writers -----------------------------------------------------------------------------------------
def test_sweep_writes_episodes_and_summaries_of_their_schemas(tmp_path: Path) -> None:
    from cogames_lib.sweep import load_traces, run_sweep, summarise

    episodes = run_sweep(
        ["noop", "random"], ["chest_deposit_near"], [1], 2, tmp_path, progress=False, record_traces=True
    )
    matches(episodes, tables.EPISODES, "run_sweep")
    matches(pd.read_parquet(tmp_path / "episodes.parquet"), tables.EPISODES, "episodes.parquet")
    for part in (tmp_path / "episodes").glob("part-*.parquet"):
        on_disk = pd.read_parquet(part)
        matches(on_disk, tables.EPISODES, part.name)
        assert {c: str(t) for c, t in on_disk.dtypes.items()} == dict(tables.EPISODES.dtypes)
    matches(summarise(episodes), tables.SWEEP_SUMMARY, "summarise")
    traces = load_traces(tmp_path)
    assert len(traces)
    matches(traces, tables.TRACES, "load_traces")


def test_mindcraft_analysis_writes_its_four_tables_of_their_schemas() -> None:
    from cogames_lib.mindcraft import (
        agents_table,
        aggregate_results,
        compare_models,
        most_paired_models,
        runs_table,
        skipped_table,
    )

    runs = aggregate_results(SAMPLE / "experiments", sorted((SAMPLE / "tasks").glob("*.json")))
    matches(runs_table(runs), tables.MINDCRAFT_RUNS, "runs_table")
    agents = agents_table(runs)
    matches(agents, tables.MINDCRAFT_AGENTS, "agents_table")
    skipped = skipped_table(runs)
    assert len(skipped)  # the sample holds odd entries on purpose
    matches(skipped, tables.MINDCRAFT_SKIPPED, "skipped_table")
    pair = most_paired_models(runs)
    assert pair is not None
    comparison = compare_models(runs, *pair, n_resamples=50)
    matches(comparison, tables.MINDCRAFT_COMPARISON, "compare_models")
    written = (
        (tables.MINDCRAFT_RUNS, runs_table(runs)),
        (tables.MINDCRAFT_AGENTS, agents),
        (tables.MINDCRAFT_SKIPPED, skipped),
        (tables.MINDCRAFT_COMPARISON, comparison),
    )
    for schema, frame in written:
        declared = {c: d for c, d in schema.dtypes.items() if d != "category"}
        assert {c: str(frame[c].dtype) for c in declared} == declared


def test_probe_training_writes_training_and_probe_tables_of_their_schemas(tmp_path: Path) -> None:
    from cogames_lib.staghunt import StagHuntConfig, preset, train_many
    from cogames_lib.staghunt.learner import DQNConfig

    fast = DQNConfig(learning_starts=20, batch_size=8, train_every=2, target_update_every=5, buffer_size=200)
    config = preset("all_can_hunt", env=StagHuntConfig(max_turns=8), learner=fast, epsilon_decay_epochs=2)
    runs = train_many([config], seeds=[0], epochs=2, probe_every=2, out_dir=tmp_path, progress=False)
    matches(runs, tables.PROBE_RUNS, "train_many")
    run_dir = Path(runs["run_dir"].iloc[0])
    returns = tuple(f"return_agent_{i}" for i in range(3))
    matches(pd.read_csv(run_dir / "training.csv"), tables.TRAINING, "training.csv", extra=returns)
    intention = pd.read_csv(run_dir / "probe_intention.csv")
    matches(intention, tables.PROBE_INTENTION, "probe_intention.csv")
    assert {"condition", "seed", "run_id"} <= set(intention.columns)
    matches(pd.read_csv(run_dir / "probe_multistep.csv"), tables.PROBE_MULTISTEP, "probe_multistep.csv")


# -- the schema object -----------------------------------------------------------------------------------
def test_validate_names_the_source_and_the_column() -> None:
    frame = tables.PROBE_MULTISTEP.frame(
        [
            {
                "epoch": 1,
                "agent_id": 0,
                "partner_kind": "stag_hunter",
                "first_attack_target": "stag",
                "result": 1.0,
                "turn_of_first_attack": 3,
            }
        ]
    )
    tables.PROBE_MULTISTEP.validate(frame, "x.csv")
    with pytest.raises(DataFileError, match=r"^x\.csv: missing columns \['result'\] of the probe_multistep"):
        tables.PROBE_MULTISTEP.validate(frame.drop(columns="result"), "x.csv")
    with pytest.raises(DataFileError, match=r"^x\.csv: column 'epoch' .* holds 'late', not a number"):
        tables.PROBE_MULTISTEP.validate(frame.assign(epoch=["late"]), "x.csv")
    with pytest.raises(DataFileError, match=r"column 'agent_id' .* holds 0\.5, not an integer"):
        tables.PROBE_MULTISTEP.validate(frame.assign(agent_id=[0.5]), "x.csv")
    with pytest.raises(DataFileError, match=r"column 'seed' .* not a number"):
        tables.PROBE_MULTISTEP.validate(frame.assign(seed=["s1"]), "x.csv")  # an optional column present


def test_frame_orders_and_casts_and_ordered_puts_extras_last() -> None:
    row = dict.fromkeys(reversed(tables.TRAINING.columns), 1)
    frame = tables.TRAINING.frame([row])
    assert list(frame.columns) == list(tables.TRAINING.columns)
    assert str(frame["epoch"].dtype) == "int64" and str(frame["seconds"].dtype) == "float64"
    shuffled = pd.DataFrame(columns=["run_id", "note", *reversed(tables.PROBE_MULTISTEP.columns)])
    assert list(tables.PROBE_MULTISTEP.ordered(shuffled).columns) == [
        *tables.PROBE_MULTISTEP.columns,
        "run_id",
        "note",
    ]


def test_adding_a_column_is_one_pair_and_a_bad_schema_is_refused() -> None:
    schema = TableSchema.of("t", [("a", "int64"), ("b", "str")], key=("a",))
    assert schema.columns == ("a", "b") and schema.dtypes == {"a": "int64", "b": "str"}
    with pytest.raises(ValueError, match="listed twice"):
        TableSchema.of("t", [("a", "int64"), ("a", "str")], key=("a",))
    with pytest.raises(ValueError, match="key"):
        TableSchema.of("t", [("a", "int64")], key=("z",))
    with pytest.raises(KeyError, match="no column"):
        schema.pick("a", "c")


def test_every_table_is_declared_once_with_a_key_inside_its_columns() -> None:
    names = [schema.name for schema in tables.SCHEMAS]
    assert len(names) == len(set(names))
    for schema in tables.SCHEMAS:
        assert set(schema.key) <= set(schema.columns) and set(schema.dtypes) == set(schema.columns)


# -- one definition per contract -------------------------------------------------------------------------
PACKAGE = Path(__file__).resolve().parent.parent / "cogames_lib"


def _literal_column_lists(source: str) -> dict[str, frozenset[str]]:
    """Module-level `NAME_COLUMNS = (...)` / `[...]` written out as string literals (or (name, dtype) pairs):
    a column list defined here rather than imported from the table it describes."""
    found: dict[str, frozenset[str]] = {}
    for node in ast.parse(source).body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        value = getattr(node, "value", None)
        if not isinstance(value, (ast.Tuple, ast.List)):
            continue
        names = [
            element.value if isinstance(element, ast.Constant) else element.elts[0].value
            for element in value.elts
            if (isinstance(element, ast.Constant) and isinstance(element.value, str))
            or (isinstance(element, ast.Tuple) and element.elts and isinstance(element.elts[0], ast.Constant))
        ]
        if len(names) != len(value.elts) or not names:
            continue
        for target in targets:
            if isinstance(target, ast.Name) and target.id.endswith("COLUMNS"):
                found[target.id] = frozenset(map(str, names))
    return found


def column_list_definitions(package: Path = PACKAGE) -> dict[str, list[tuple[str, frozenset[str]]]]:
    """Every literal column list of the package by name: [(module, columns), ...]."""
    definitions: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for path in sorted(package.rglob("*.py")):
        module = path.relative_to(package.parent).as_posix()
        for name, columns in _literal_column_lists(path.read_text(encoding="utf-8")).items():
            definitions.setdefault(name, []).append((module, columns))
    return definitions


def second_definitions(definitions: dict[str, list[tuple[str, frozenset[str]]]]) -> list[str]:
    """A column list's name defined by literals in two modules, or the same three or more columns listed
    under two names: either is a second definition of one contract, which will drift."""
    problems = [
        f"{name} is defined in {', '.join(module for module, _ in places)}"
        for name, places in definitions.items()
        if len({module for module, _ in places}) > 1
    ]
    flat = [(name, module, columns) for name, places in definitions.items() for module, columns in places]
    for index, (name, module, columns) in enumerate(flat):
        for other, other_module, other_columns in flat[index + 1 :]:
            if len(columns) >= 3 and columns == other_columns and name != other:
                problems.append(f"{module}:{name} and {other_module}:{other} list the same columns")
    return problems


def test_every_column_list_is_defined_once() -> None:
    assert second_definitions(column_list_definitions()) == []


def test_the_check_sees_a_second_definition() -> None:
    first = _literal_column_lists('CURVE_COLUMNS = ["n_seeds", "mean", "ci_low", "ci_high"]\n')
    second = _literal_column_lists('CURVE_COLUMNS = ("epoch", "n_seeds", "mean", "ci_low", "ci_high")\n')
    renamed = _literal_column_lists(
        'LINE_COLUMNS: tuple[str, ...] = ("n_seeds", "mean", "ci_low", "ci_high")\n'
    )
    pairs = _literal_column_lists('TABLE_COLUMNS = (("a", "str"), ("b", "int64"))\nX = ["a", "b"]\n')
    assert pairs == {"TABLE_COLUMNS": frozenset({"a", "b"})}
    imported = _literal_column_lists(
        "from cogames_lib.tables import EPISODES\nEPISODE_COLUMNS = EPISODES.columns\n"
    )
    assert imported == {}
    same_name = {"CURVE_COLUMNS": [("a.py", first["CURVE_COLUMNS"]), ("b.py", second["CURVE_COLUMNS"])]}
    assert second_definitions(same_name) == ["CURVE_COLUMNS is defined in a.py, b.py"]
    same_columns = {
        "CURVE_COLUMNS": [("a.py", first["CURVE_COLUMNS"])],
        "LINE_COLUMNS": [("b.py", renamed["LINE_COLUMNS"])],
    }
    assert second_definitions(same_columns) == [
        "a.py:CURVE_COLUMNS and b.py:LINE_COLUMNS list the same columns"
    ]
