"""Reading sorrel's probe files: every naming variant, identity columns, `.txt` map names, mirrored steps.

The fixtures are written here the way sorrel's code writes them (one row per file, its column order,
its mirrored step labels), from tables our probes produced, so reading them back must give our tables.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cogames_lib.staghunt.probes import (
    INTENTION_COLUMNS,
    MULTISTEP_COLUMNS,
    load_probe_suite,
    run_intention_probe,
    run_multistep_probe,
    softmax,
)
from cogames_lib.staghunt.rules import Action
from cogames_lib.staghunt.sorrel_io import load_sorrel_probe_csvs

# sorrel's identity-aware headers put the partner's id and kind after `version` / `partner_kind`
SORREL_INTENTION_IDENTITY = (
    *INTENTION_COLUMNS[:5],
    "partner_agent_id",
    "partner_agent_kind",
    *INTENTION_COLUMNS[5:],
)
SORREL_MULTISTEP_IDENTITY = (
    *MULTISTEP_COLUMNS[:3],
    "partner_agent_id",
    "partner_agent_kind",
    *MULTISTEP_COLUMNS[3:],
)
PARTNER_IDS = {"AgentKindA": 1, "AgentKindB": 2}  # the partner each kind stands for in the identity files


class DistinctQ:
    """Q-values that differ per action, so a swapped column cannot go unnoticed."""

    def __init__(self, values) -> None:
        self.values = np.asarray(values, dtype=float)

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        return self.values


@pytest.fixture(scope="module")
def ours() -> tuple[pd.DataFrame, pd.DataFrame]:
    agents = [DistinctQ([0.1, 0.2, 0.9, 0.4, 0.5]), DistinctQ([0.3, -0.2, 0.0, 1.1, 0.7])]
    suite = load_probe_suite()
    return run_intention_probe(agents, 40, suite=suite), run_multistep_probe(agents, 40, suite=suite)


def sorrel_body(row: pd.Series, identity: bool, intention: bool) -> pd.DataFrame:
    """One file's body as sorrel writes it: mirrored step labels, map name with `.txt`."""
    values = row.to_dict()
    if intention:
        values["q_val_step_left"], values["q_val_step_right"] = (
            row["q_val_step_right"],
            row["q_val_step_left"],
        )
        values["map_name"] = f"{row['map_name']}.txt"
    partner = row["partner_kind"]
    values["partner_agent_id"] = "" if partner == "no_partner" else PARTNER_IDS[partner]
    values["partner_agent_kind"] = "" if partner == "no_partner" else partner
    if intention:
        header = SORREL_INTENTION_IDENTITY if identity else INTENTION_COLUMNS
    else:
        header = SORREL_MULTISTEP_IDENTITY if identity else MULTISTEP_COLUMNS
    return pd.DataFrame([[values[c] for c in header]], columns=list(header))


def file_name(row: pd.Series, variant: str, intention: bool) -> str:
    """sorrel's three naming variants; no_partner files keep the kind form in every variant (as sorrel)."""
    partner = row["partner_kind"]
    if intention:
        head = f"test_intention_epoch_{row['epoch']}_agent_{row['agent_id']}_map_{row['map_name']}"
        tail = f"_{row['version']}.csv"
    else:
        head = f"multi_step_probe_test_epoch_{row['epoch']}_agent_{row['agent_id']}_map_test_multi_step"
        tail = ".csv"
    if variant == "kind" or partner == "no_partner":
        return f"{head}_partner_{partner}{tail}"
    if variant == "kind_and_id":
        return f"{head}_partner_{partner}_id_{PARTNER_IDS[partner]}{tail}"
    return f"{head}_id_{PARTNER_IDS[partner]}{tail}"


def write_variant(folder: Path, intention: pd.DataFrame, multistep: pd.DataFrame, variant: str) -> None:
    identity = variant != "kind"
    for table, is_intention in ((intention, True), (multistep, False)):
        for _, row in table.iterrows():
            sorrel_body(row, identity, is_intention).to_csv(
                folder / file_name(row, variant, is_intention), index=False
            )


@pytest.mark.parametrize("variant", ["kind", "kind_and_id", "id_only"])
def test_every_naming_variant_reads_back_as_our_tables(ours, tmp_path: Path, variant: str) -> None:
    intention, multistep = ours
    write_variant(tmp_path, intention, multistep, variant)
    tables = load_sorrel_probe_csvs(tmp_path)
    key = ["agent_id", "map_name", "version", "partner_kind"]
    expected = intention[list(INTENTION_COLUMNS)].sort_values(key, ignore_index=True)
    loaded = tables.intention[list(INTENTION_COLUMNS)].sort_values(key, ignore_index=True)
    assert len(loaded) == len(intention)  # no file skipped silently
    pd.testing.assert_frame_equal(loaded, expected, check_dtype=False)
    key = ["agent_id", "partner_kind"]
    pd.testing.assert_frame_equal(
        tables.multistep[list(MULTISTEP_COLUMNS)].sort_values(key, ignore_index=True),
        multistep[list(MULTISTEP_COLUMNS)].sort_values(key, ignore_index=True),
        check_dtype=False,
    )
    if variant == "kind":
        assert "partner_agent_id" not in tables.intention.columns
    else:
        rows = tables.intention.drop_duplicates("partner_kind").set_index("partner_kind")
        assert (
            rows.loc["AgentKindB", "partner_agent_id"] == 2
            and rows.loc["AgentKindB", "partner_agent_kind"] == "AgentKindB"
        )
        assert pd.isna(rows.loc["no_partner", "partner_agent_id"])
        assert list(tables.multistep.columns[: len(MULTISTEP_COLUMNS)]) == list(MULTISTEP_COLUMNS)


def test_swapped_step_columns_agree_with_the_weights_by_geometry(ours, tmp_path: Path) -> None:
    """After the swap, the softmax of our columns at the stag-facing action is sorrel's stag weight."""
    intention, multistep = ours
    write_variant(tmp_path, intention, multistep, "kind")
    loaded = load_sorrel_probe_csvs(tmp_path).intention
    q = loaded[[f"q_val_{a.name.lower()}" for a in Action]].to_numpy(float)
    weights = np.array([softmax(row) for row in q])
    step_weights = weights[:, [Action.STEP_LEFT, Action.STEP_RIGHT]]
    stag = loaded["weight_facing_stag"].to_numpy()
    assert np.allclose(
        np.where(np.isclose(step_weights[:, 0], stag), step_weights[:, 0], step_weights[:, 1]), stag
    )
    # without the swap the columns disagree with the (geometric) weights: the swap is needed
    raw = load_sorrel_probe_csvs(tmp_path, mirrored_steps=False).intention
    assert not np.allclose(raw["q_val_step_left"], loaded["q_val_step_left"])


def test_map_suffix_and_old_version_spelling(tmp_path: Path) -> None:
    header = ",".join(INTENTION_COLUMNS)
    row = "3,0,test_intention_probe_test_2.txt,AgentKindA,upper,1,2,3,4,5,0.25,0.5"
    (
        tmp_path
        / "test_intention_epoch_3_agent_0_map_test_intention_probe_test_2_partner_AgentKindA_upper.csv"
    ).write_text(f"{header}\n{row}\n")
    loaded = load_sorrel_probe_csvs(tmp_path).intention.iloc[0]
    assert loaded["map_name"] == "test_intention_probe_test_2" and loaded["version"] == "ver1"
    assert (loaded["q_val_step_left"], loaded["q_val_step_right"]) == (4, 3)
