"""Custom variants: a diagnostic on a user's map or budget, run like a registered one."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from cogames_lib.cli import main
from cogames_lib.diagnostics import get_diagnostic, make_env
from cogames_lib.errors import MapError, ParameterError
from cogames_lib.paths import DIAGNOSTIC_MAPS_DIR
from cogames_lib.sweep import run_episode, run_sweep, summarise
from cogames_lib.sweep.sweep_findings import sweep_findings

MEMORY_MAP = DIAGNOSTIC_MAPS_DIR / "diagnostic_memory.map"


def _map_file(tmp_path: Path, rows: list[str], name: str = "room.map") -> Path:
    legend = {"#": "wall", ".": "empty", "@": "agent.agent", "=": "chest", "&": "assembler", "?": "no_such"}
    body = "\n".join("  " + row for row in rows)
    entries = "\n".join(f'  "{char}": {obj}' for char, obj in legend.items() if char != "?")
    path = tmp_path / name
    path.write_text(f"type: test\nmap_data: |-\n{body}\nchar_to_map_name:\n{entries}\n", encoding="utf-8")
    return path


def test_variant_is_a_frozen_record_named_after_its_map(tmp_path: Path) -> None:
    path = _map_file(tmp_path, ["#######", "#@...=#", "#######"], "corridor.map")
    variant = get_diagnostic("chest_deposit_near").variant(map=path, max_steps=20)
    assert variant.name == "diagnostic_chest_deposit_near@corridor,max_steps=20"
    assert (variant.tier, variant.base, variant.max_steps) == ("custom", "diagnostic_chest_deposit_near", 20)
    with pytest.raises(dataclasses.FrozenInstanceError):
        variant.max_steps = 5  # type: ignore[misc]
    assert make_env(variant, 1).unwrapped.world.grid_map.width == 7
    # A variant of a variant keeps the registered base.
    again = variant.variant(max_steps=30)
    assert again.base == "diagnostic_chest_deposit_near" and again.grid_map == variant.grid_map


def test_run_episode_plays_a_variant_on_its_map(tmp_path: Path) -> None:
    path = _map_file(tmp_path, ["#######", "#@...=#", "#######"], "corridor.map")
    variant = get_diagnostic("chest_deposit_near").variant(map=path, max_steps=20)
    result = run_episode("oracle", variant, 1, seed=3)
    assert result["success"] and result["steps"] == 4  # three moves and the deposit
    assert (result["diagnostic"], result["tier"]) == (variant.name, "custom")
    tight = variant.variant(max_steps=3)
    assert not run_episode("oracle", tight, 1, seed=3)["success"]  # the budget is the variant's


def test_run_sweep_mixes_names_and_variants(tmp_path: Path) -> None:
    variant = get_diagnostic("memory").variant(map=MEMORY_MAP, max_steps=150)
    table = run_sweep(
        ["oracle", "noop"], ["memory", variant], [1], 2, tmp_path / "out", workers=2, progress=False
    )
    assert list(table["diagnostic"].cat.categories) == ["diagnostic_memory", variant.name]
    by_name = table.groupby("diagnostic", observed=True)
    assert set(by_name["tier"].first().astype(str)) == {"normal", "custom"}
    assert set(table.loc[table["diagnostic"] == variant.name, "max_steps"]) == {150}
    oracle = table[table["policy"] == "oracle"]
    assert oracle["success"].all()
    summary = summarise(table)
    assert dict(zip(summary["diagnostic"].astype(str), summary["tier"], strict=False)) == {
        "diagnostic_memory": "normal",
        variant.name: "custom",
    }
    findings = {finding.key: finding for finding in sweep_findings({"episodes": table})}
    assert findings["pass_rate[oracle/custom]"].estimate == 1.0 and "pass_rate[noop/normal]" in findings
    resumed = run_sweep(["oracle", "noop"], ["memory", variant], [1], 2, tmp_path / "out", progress=False)
    assert resumed.attrs["ran"] == 0 and len(resumed) == len(table)


def test_bad_map_names_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.map"
    path.write_text(
        'type: t\nmap_data: |-\n  #####\n  #@X=#\n  #####\nchar_to_map_name:\n  "#": wall\n  "@": agent.agent\n'
        '  "=": chest\n',
        encoding="utf-8",
    )
    with pytest.raises(MapError, match=r"bad.map: line 4: row 2, column 3: unknown char 'X'"):
        get_diagnostic("memory").variant(map=path)


def test_incompatible_base_is_one_line_naming_the_file(tmp_path: Path) -> None:
    path = _map_file(tmp_path, ["#######", "#@...=#", "#######"])
    with pytest.raises(MapError, match=r"room.map: no 'assembler' anywhere in the grid") as caught:
        get_diagnostic("chest_withdrawal").variant(map=path)
    assert "\n" not in str(caught.value)
    with pytest.raises(MapError, match="1 spawn"):
        get_diagnostic("chorus_quad").variant(map=path)


def test_variant_arguments_are_checked() -> None:
    memory = get_diagnostic("memory")
    with pytest.raises(ParameterError, match="unknown field"):
        memory.variant(max_step=3)
    with pytest.raises(ParameterError, match="max_steps must be an integer >= 1"):
        memory.variant(max_steps=0)
    with pytest.raises(ParameterError, match="give a map"):
        memory.variant()
    with pytest.raises(ParameterError, match="drawn per seed"):
        get_diagnostic("memory_hard").variant(max_steps=500)
    on_map = get_diagnostic("memory_hard").variant(map=MEMORY_MAP)
    assert (on_map.base, on_map.max_steps, on_map.hard) == ("diagnostic_memory", 110, None)


def test_cli_sweep_runs_a_variant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code = main(
        ["sweep", "--base", "memory", "--map", str(MEMORY_MAP), "--max-steps", "120", "--policies", "oracle",
         "--agents", "1", "--seeds", "1", "--workers", "1", "--out", str(out), "--no-progress"]
    )  # fmt: skip
    assert code == 0
    assert "memory@diagnostic_memory,max_steps=120  1.00" in capsys.readouterr().out
    assert main(["sweep", "--max-steps", "5", "--out", str(tmp_path / "x")]) == 2
    assert "needs its base diagnostic" in capsys.readouterr().err


def test_traces_of_variants_and_hard_episodes(tmp_path: Path) -> None:
    from cogames_lib.diagnostics import diagnostic_map
    from cogames_lib.report.sweep_views import failed_episode_traces
    from cogames_lib.sweep import load_traces

    variant = get_diagnostic("memory").variant(map=MEMORY_MAP, max_steps=20)
    out = tmp_path / "out"
    table = run_sweep(["noop"], [variant, "memory_hard"], [1], 1, out, record_traces=True, progress=False)
    assert len(load_traces(out, diagnostic=variant)) == len(load_traces(out, diagnostic=variant.name)) == 21
    pictures = failed_episode_traces(table, out, limit=5)
    assert len(pictures) == 1  # the custom variant's map is not known from its name: only the hard one
    hard = table[table["diagnostic"] == "diagnostic_memory_hard"].iloc[0]
    cells = diagnostic_map("memory_hard", int(hard["episode_seed"]), 1).cells
    assert pictures[0][2] == cells and cells != diagnostic_map("memory").cells
