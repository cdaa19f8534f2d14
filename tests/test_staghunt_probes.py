"""Probe science: intention weights and geometry on all 8 cases, multi-step scoring, sorrel interop."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cogames_lib.errors import DataFileError, MapError, ParameterError
from cogames_lib.staghunt.probes import (
    INTENTION_COLUMNS,
    MULTISTEP_COLUMNS,
    ProbeSettings,
    load_probe_suite,
    run_intention_probe,
    run_multistep_episode,
    run_multistep_probe,
)
from cogames_lib.staghunt.rules import CHANNEL_INDEX, PRESET_POPULATIONS, Action
from cogames_lib.staghunt.sorrel_io import load_probe_tables, load_sorrel_probe_csvs

SIDE = 9
CENTRE = 4
# Offset (row, col) of one step per orientation, written out here independently of rules.py.
STEP = {0: (-1, 0), 1: (0, 1), 2: (1, 0), 3: (0, -1)}
OWN_LEFT = {0: 3, 1: 0, 2: 1, 3: 2}
OWN_RIGHT = {0: 1, 1: 2, 2: 3, 3: 0}


def decode(obs: np.ndarray) -> tuple[np.ndarray, int]:
    grid = obs[:-6].reshape(-1, SIDE, SIDE)
    return grid, int(np.argmax(obs[-6:-2]))


class StagSeekingQ:
    """Hand-made agent: Q = 3 for the step that turns it toward the stag it sees, 0 elsewhere."""

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        self.seen.append(obs)
        grid, orientation = decode(obs)
        ((row, col),) = np.argwhere(grid[CHANNEL_INDEX["stag"]])
        offset = (int(np.sign(row - CENTRE)), int(np.sign(col - CENTRE)))
        toward_stag = next(o for o, step in STEP.items() if step == offset)
        q = np.zeros(5)
        if OWN_LEFT[orientation] == toward_stag:
            q[Action.STEP_LEFT] = 3.0
        if OWN_RIGHT[orientation] == toward_stag:
            q[Action.STEP_RIGHT] = 3.0
        return q

    def frozen_copy(self) -> StagSeekingQ:
        return self  # keep the record of what it saw


class FixedQ:
    def __init__(self, values) -> None:
        self.values = np.asarray(values, dtype=float)

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        return self.values


def softmax(values: np.ndarray) -> np.ndarray:
    exp = np.exp(values - values.max())
    return exp / exp.sum()


@pytest.fixture(scope="module")
def suite():
    return load_probe_suite()


def test_weights_are_the_softmax_of_the_q_values(suite) -> None:
    values = [0.3, -1.0, 2.5, 0.7, 1.1]
    frame = run_intention_probe([FixedQ(values)], epoch=7, suite=suite)
    assert list(frame.columns[: len(INTENTION_COLUMNS)]) == list(INTENTION_COLUMNS)
    assert len(frame) == 4 * 2 * 3
    weights = softmax(np.array(values))
    assert np.allclose(frame[[f"q_val_{a.name.lower()}" for a in Action]].to_numpy(), values)
    # By geometry the stag-facing step is the own-left step in every reference case.
    assert np.allclose(frame["weight_facing_stag"], weights[Action.STEP_LEFT])
    assert np.allclose(frame["weight_facing_hare"], weights[Action.STEP_RIGHT])
    assert (frame["epoch"] == 7).all()


def test_stag_facing_action_found_by_geometry_in_all_eight_cases(suite) -> None:
    agent = StagSeekingQ()
    frame = run_intention_probe([agent], epoch=0, suite=suite)
    cases = frame[["map_name", "version"]].drop_duplicates()
    assert len(cases) == 8
    high = softmax(np.array([0, 0, 3.0, 0, 0]))
    assert np.allclose(frame["weight_facing_stag"], high.max())
    assert np.allclose(frame["weight_facing_hare"], high.min())


def test_probe_observation_shows_true_orientations_and_versions(suite) -> None:
    agent = StagSeekingQ()
    frame = run_intention_probe([agent], epoch=0, suite=suite)
    expected = {(4, 6): 3, (6, 8): 0, (8, 6): 1, (6, 4): 2}  # from the reference file
    spawns = {"test_intention_probe_test_1": [(6, 8), (8, 6)], "test_intention_probe_test_2": [(6, 4), (8, 6)],
              "test_intention_probe_test_3": [(4, 6), (6, 4)], "test_intention_probe_test_4": [(4, 6), (6, 8)]}  # fmt: skip
    for obs, (_, row) in zip(agent.seen, frame.iterrows(), strict=True):
        focal, partner = spawns[row.map_name][:: 1 if row.version == "ver1" else -1]
        grid, orientation = decode(obs)
        assert orientation == expected[focal]
        partner_cell = (CENTRE + partner[0] - focal[0], CENTRE + partner[1] - focal[1])
        channels = grid[:, partner_cell[0], partner_cell[1]]
        if row.partner_kind == "no_partner":
            assert channels[CHANNEL_INDEX["empty"]] == 1
        else:
            assert (
                channels[
                    CHANNEL_INDEX[
                        f"{row.partner_kind}_{['north', 'east', 'south', 'west'][expected[partner]]}"
                    ]
                ]
                == 1
            )


class Script:
    """A scripted focal: plays `actions` in order (then FORWARD), or a rule on its own orientation."""

    def __init__(self, actions=(), rule=None) -> None:
        self.actions, self.rule, self.turn = list(actions), rule, 0

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        raise AssertionError("the multi-step probe should call act()")

    def act(self, obs: np.ndarray, epsilon: float) -> int:
        assert epsilon == 0.0
        if self.rule is not None:
            return int(self.rule(decode(obs)[1]))
        self.turn += 1
        return int(self.actions[self.turn - 1]) if self.turn <= len(self.actions) else int(Action.FORWARD)


TURN_TO_STAG = {
    "rule": lambda o: Action.ATTACK if o == 0 else Action.STEP_RIGHT
}  # west -> own right is north
TURN_TO_HARE = {"rule": lambda o: Action.ATTACK if o == 2 else Action.STEP_LEFT}  # west -> own left is south


@pytest.mark.parametrize("partner_kind", ["no_partner", "AgentKindA", "AgentKindB"])
def test_multistep_scores_stag_hare_and_no_attack(suite, partner_kind: str) -> None:
    stag = run_multistep_episode(Script(**TURN_TO_STAG), "AgentKindA", partner_kind, suite)
    assert (stag.first_attack_target, stag.result, stag.turn_of_first_attack) == ("stag", 1.0, 2)
    hare = run_multistep_episode(Script(**TURN_TO_HARE), "AgentKindB", partner_kind, suite)
    assert (hare.first_attack_target, hare.result, hare.turn_of_first_attack) == ("hare", 0.0, 2)
    never = run_multistep_episode(Script(rule=lambda o: Action.FORWARD), "AgentKindA", partner_kind, suite)
    assert (never.first_attack_target, never.result) == ("none", 0.5)
    assert never.turn_of_first_attack == suite.settings.max_test_steps == len(never.focal_actions)


def test_an_attack_at_nothing_does_not_decide(suite) -> None:
    outcome = run_multistep_episode(
        Script([Action.ATTACK, Action.STEP_RIGHT, Action.ATTACK]), "AgentKindA", "AgentKindA", suite
    )
    assert (outcome.result, outcome.turn_of_first_attack) == (1.0, 3)


def test_fake_partner_never_moves(suite) -> None:
    wander = [Action.STEP_RIGHT, Action.FORWARD, Action.STEP_LEFT, Action.BACKWARD] * 4
    outcome = run_multistep_episode(Script(wander), "AgentKindA", "AgentKindB", suite)
    assert outcome.result == 0.5 and len(outcome.partner_states) == suite.settings.max_test_steps
    assert set(outcome.partner_states) == {(3, 6, 2)}  # (row, col, facing south)


def test_max_test_steps_is_a_setting() -> None:
    suite = load_probe_suite(ProbeSettings(max_test_steps=30))
    outcome = run_multistep_episode(Script(rule=lambda o: Action.BACKWARD), "AgentKindA", "no_partner", suite)
    assert outcome.turn_of_first_attack == 30
    with pytest.raises(ParameterError, match="max_test_steps"):
        ProbeSettings(max_test_steps=0)


def test_multistep_table_columns_and_greedy_fallback(suite) -> None:
    agents = [FixedQ([0, 0, 0, 0, 1]), FixedQ([0, 0, 0, 1, 0]), FixedQ([1, 0, 0, 0, 0])]
    frame = run_multistep_probe(
        agents, 5, PRESET_POPULATIONS["all_can_hunt"], suite, extra={"condition": "c"}
    )
    assert list(frame.columns[: len(MULTISTEP_COLUMNS)]) == list(MULTISTEP_COLUMNS)
    assert list(frame.columns[len(MULTISTEP_COLUMNS) :]) == [
        "agent_kind",
        "partner_relation",
        "stag_action",
        "partner_side",
        "agent_can_hunt",
        "condition",
    ]
    by_agent = frame.groupby("agent_id")["result"].unique()
    assert by_agent[0].tolist() == [0.5]  # attacks west at nothing, every turn
    assert by_agent[1].tolist() == [0.5]  # keeps stepping right (greedy argmax), never attacks
    relations = frame.set_index(["agent_id", "partner_kind"])["partner_relation"]
    assert relations[(2, "AgentKindB")] == "same" and relations[(2, "AgentKindA")] == "different"
    assert relations[(0, "no_partner")] == "none"


def test_bad_q_values_shape_is_a_parameter_error(suite) -> None:
    with pytest.raises(ParameterError, match="q_values must return 5"):
        run_intention_probe([FixedQ([1, 2, 3])], 0, suite=suite)


def test_orientation_that_no_step_can_reach_is_rejected(tmp_path: Path) -> None:
    source = Path(load_probe_suite().settings.maps_dir)
    for path in source.glob("*.txt"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    reference = tmp_path / "agent_init_orientation_reference_probe_test.txt"
    reference.write_text(reference.read_text().replace("orientation is 0, the orientation of facing stag is 3",
                                                       "orientation is 0, the orientation of facing stag is 2"))  # fmt: skip
    with pytest.raises(DataFileError, match="row 6 col 8: neither STEP_LEFT nor STEP_RIGHT"):
        load_probe_suite(ProbeSettings(maps_dir=str(tmp_path)))


def write_sorrel_files(intention: pd.DataFrame, multistep: pd.DataFrame, folder: Path) -> None:
    # sorrel's step labels are mirrored: its q_val_step_left column holds our STEP_RIGHT's Q-value
    intention = intention.rename(
        columns={"q_val_step_left": "q_val_step_right", "q_val_step_right": "q_val_step_left"}
    )
    for _, row in intention.iterrows():
        name = (f"test_intention_epoch_{row.epoch}_agent_{row.agent_id}_map_{row.map_name}"
                f"_partner_{row.partner_kind}_{row.version}.csv")  # fmt: skip
        row[list(INTENTION_COLUMNS)].to_frame().T.to_csv(folder / name, index=False)
    for _, row in multistep.iterrows():
        name = f"multi_step_probe_test_epoch_{row.epoch}_agent_{row.agent_id}_map_test_multi_step_partner_{row.partner_kind}.csv"
        # sorrel's body may lack fields the name carries: drop epoch/agent_id to test filling from the name
        row[list(MULTISTEP_COLUMNS[2:])].to_frame().T.to_csv(folder / name, index=False)


def test_sorrel_per_file_csvs_load_into_our_tables(suite, tmp_path: Path) -> None:
    agents = [FixedQ([0.1, 0.2, 0.3, 0.4, 0.5]), FixedQ([0, 0, 0, 0, 1])]
    intention = run_intention_probe(agents, 100, suite=suite)
    multistep = run_multistep_probe(agents, 100, suite=suite)
    write_sorrel_files(intention, multistep, tmp_path)
    (tmp_path / "unrelated.csv").write_text("a,b\n1,2\n")
    tables = load_sorrel_probe_csvs(tmp_path)
    assert list(tables.intention.columns[: len(INTENTION_COLUMNS)]) == list(INTENTION_COLUMNS)
    key = ["agent_id", "map_name", "version", "partner_kind"]
    ours = intention[list(INTENTION_COLUMNS)].sort_values(key, ignore_index=True)
    theirs = tables.intention[list(INTENTION_COLUMNS)].sort_values(key, ignore_index=True)
    pd.testing.assert_frame_equal(ours, theirs, check_dtype=False)
    loaded = tables.multistep.sort_values(["agent_id", "partner_kind"], ignore_index=True)
    expected = multistep.sort_values(["agent_id", "partner_kind"], ignore_index=True)
    pd.testing.assert_frame_equal(
        loaded[list(MULTISTEP_COLUMNS)], expected[list(MULTISTEP_COLUMNS)], check_dtype=False
    )
    assert load_probe_tables(tmp_path).intention.shape == tables.intention.shape


def test_sorrel_loader_errors(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="does not exist"):
        load_sorrel_probe_csvs(tmp_path / "missing")
    (tmp_path / "test_intention_epoch_1_agent_0_map_m_partner_no_partner_ver1.csv").write_text("epoch\n1\n")
    with pytest.raises(DataFileError, match=r"ver1.csv: missing columns \['q_val_forward'"):
        load_sorrel_probe_csvs(tmp_path)
    with pytest.raises(DataFileError, match="missing columns"):
        load_probe_tables(tmp_path)


def test_sorrel_loader_names_a_non_numeric_cell_and_a_file_given_as_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from cogames_lib.cli import main

    name = "multi_step_probe_test_epoch_3_agent_0_map_test_multi_step_partner_no_partner.csv"
    (tmp_path / name).write_text(
        "partner_kind,first_attack_target,result,turn_of_first_attack\n"
        "no_partner,stag,1.0,4\nno_partner,hare,abc,2\n"
    )
    with pytest.raises(DataFileError, match=rf"{name}: row 3 column 'result': 'abc' is not a number"):
        load_sorrel_probe_csvs(tmp_path)
    with pytest.raises(ParameterError, match="is a file, not a folder"):
        load_probe_tables(tmp_path / name)
    assert main(["probe", "analyze", str(tmp_path)]) == 2
    assert main(["probe", "analyze", str(tmp_path / name)]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 2 and "'abc' is not a number" in errors[0] and "not a folder" in errors[1]


def test_probe_csv_with_an_unknown_partner_kind_is_rejected_not_dropped(suite, tmp_path: Path) -> None:
    intention = run_intention_probe([FixedQ([0, 0, 0, 0, 1])], 0, suite=suite)
    intention.loc[2, "partner_kind"] = "AgentKindC"
    (tmp_path / "run").mkdir()
    intention.to_csv(tmp_path / "run" / "probe_intention.csv", index=False)
    with pytest.raises(
        DataFileError, match=r"probe_intention.csv: row 4 column 'partner_kind': unknown 'AgentKindC'"
    ):
        load_probe_tables(tmp_path)


def test_unknown_partner_kind_is_rejected() -> None:
    with pytest.raises(ParameterError, match="unknown partner kinds"):
        ProbeSettings(partner_kinds=("no_partner", "AgentKindC"))


def test_intention_map_with_three_spawns_is_rejected(tmp_path: Path) -> None:
    source = Path(load_probe_suite().settings.maps_dir)
    for path in source.glob("*.txt"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    broken = tmp_path / "test_intention_probe_test_2.txt"
    lines = broken.read_text().splitlines()
    lines[1] = "W A         W"
    broken.write_text("\n".join(lines) + "\n")
    with pytest.raises(MapError, match="needs exactly 2 agent spawns, found 3"):
        load_probe_suite(ProbeSettings(maps_dir=str(tmp_path)))
