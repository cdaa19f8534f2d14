"""The counterbalanced probe suite and the controls: mirror symmetry of the cases, the new columns, the side
bias estimated and removed on synthetic data with a known answer, the controls' populations."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from cogames_lib.staghunt import social
from cogames_lib.staghunt.probe_cases import PARTNER_SIDES, partner_side, side_of
from cogames_lib.staghunt.probes import (
    ProbeSettings,
    load_probe_suite,
    run_intention_probe,
    run_multistep_probe,
)
from cogames_lib.staghunt.rules import (
    AGENT_KINDS,
    ORIENTATION_DELTAS,
    PARTNER_TEST_FOCAL_KIND,
    PRESET_POPULATIONS,
    STAG,
    Action,
    move_direction,
)
from cogames_lib.staghunt.study import expected_effect
from cogames_lib.tables import PROBE_INTENTION

A, B = AGENT_KINDS


@pytest.fixture(scope="module")
def suite():
    return load_probe_suite(ProbeSettings(suite="counterbalanced"))


def _stag(case) -> tuple[int, int]:
    ((row, col),) = np.argwhere(case.grid.resources == STAG.code)
    return int(row), int(col)


def test_the_stag_step_is_left_in_half_the_cases_and_right_in_the_other_half(suite) -> None:
    partnered = [case for case in suite.intention_cases if case.partner_kinds == AGENT_KINDS]
    alone = [case for case in suite.intention_cases if case.partner_kinds == ("no_partner",)]
    assert len(partnered) == 48 and len(alone) == 8
    for cases in (partnered, alone):
        assert Counter(case.stag_action for case in cases) == {Action.STEP_LEFT: len(cases) // 2,
                                                              Action.STEP_RIGHT: len(cases) // 2}  # fmt: skip
    # every side and every map is balanced too: a bias toward one side cannot pose as a side of the partner
    by_side = Counter((case.map_name, case.partner_side, case.stag_action) for case in partnered)
    assert set(by_side.values()) == {2} and len(by_side) == 4 * 3 * 2
    assert {case.partner_side for case in partnered} == set(PARTNER_SIDES)


def test_each_case_has_its_mirror_image_across_the_stag_hare_axis(suite) -> None:
    cases = {(c.map_name, c.version): c for c in suite.intention_cases}
    for (map_name, version), case in cases.items():
        step, rest = version.split("_", 1)
        mirror = cases[(map_name, f"{'right' if step == 'left' else 'left'}_{rest}")]
        stag = _stag(case)
        axis = np.subtract(stag, case.focal.row_col)  # focal -> stag
        assert mirror.focal.row_col == case.focal.row_col and mirror.stag_action != case.stag_action
        assert mirror.focal.initial == (case.focal.initial + 2) % 4  # facing the other way across the axis
        # the partner cell reflected across the line through focal and stag
        offset = np.subtract(case.partner.row_col, case.focal.row_col)
        along = axis * (offset @ axis) / (axis @ axis)
        reflected = tuple(int(v) for v in np.add(case.focal.row_col, 2 * along - offset))
        assert mirror.partner.row_col == reflected and mirror.partner_side == case.partner_side


def test_the_stag_step_turns_the_focal_toward_the_stag_by_geometry(suite) -> None:
    for case in [*suite.intention_cases]:
        stag, focal = _stag(case), case.focal.row_col
        facing = move_direction(case.focal.initial, case.stag_action)
        moved = np.add(focal, ORIENTATION_DELTAS[facing])
        ahead = np.subtract(stag, moved)
        assert (np.sign(ahead) == np.sign(ORIENTATION_DELTAS[facing])).all() or (ahead == 0).sum() == 1
        assert side_of(focal, case.focal.initial, stag) == (-1 if case.stag_action == Action.STEP_LEFT else 1)
        other = np.add(focal, ORIENTATION_DELTAS[move_direction(case.focal.initial, case.hare_action)])
        assert np.abs(np.subtract(stag, other)).sum() == 3  # the hare step moves away from the stag


def test_partner_side_by_geometry() -> None:
    # focal at (6, 8) facing North: its left is West, where the stag (6, 6) lies
    assert partner_side((6, 8), 0, (6, 6), (8, 6)) == "stag"  # sorrel's partner: the stag side
    assert partner_side((6, 8), 0, (6, 6), (8, 10)) == "hare"
    assert partner_side((6, 8), 0, (6, 6), (4, 8)) == "equidistant"


def test_sorrel_suite_rows_say_its_stag_is_always_on_step_left_and_its_partner_on_the_stag_side() -> None:
    frame = run_intention_probe([_Fixed([0, 0, 1, 0, 0])], 0, suite=load_probe_suite())
    assert set(frame["stag_action"]) == {"step_left"}
    assert set(frame.loc[frame["partner_kind"] != "no_partner", "partner_side"]) == {"stag"}


class _Fixed:
    def __init__(self, q: list[float]) -> None:
        self.q = np.asarray(q, dtype=float)

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        return self.q

    def frozen_copy(self) -> _Fixed:
        return self


def test_counterbalanced_probe_rows_carry_the_case_columns_and_a_left_bias_reads_as_no_stag_preference(
    suite,
) -> None:
    population = PRESET_POPULATIONS["not_all_can_hunt"]
    agents = [_Fixed([0, 0, 1, 0, 0])] * 3  # always prefers STEP_LEFT, whatever lies there
    frame = run_intention_probe(
        agents, 10, population, suite, extra={"condition": "not_all_can_hunt", "seed": 0}
    )
    PROBE_INTENTION.validate(frame, "probe")
    assert len(frame) == 3 * (48 * 2 + 8)
    assert frame["agent_can_hunt"].tolist().count(False) == 48 * 2 + 8  # the KindB agent cannot hunt
    assert set(frame["partner_side"]) == {"stag", "hare", "equidistant", "none"}
    assert (frame.loc[frame["partner_kind"] == "no_partner", "partner_side"] == "none").all()
    # on sorrel's suite this agent would read as P(stag) ~ 0.73; counterbalanced, the bias is found and removed
    levels = social.preference_levels(frame).set_index(["scale", "partner_relation"])
    assert levels.loc[("p_stag", "same"), "mean"] == pytest.approx(0.5)
    bias = social.side_bias(frame).set_index("scale")
    assert bias.loc["p_stag", "estimate"] == pytest.approx(np.exp(1) / (np.exp(1) + 1) - 0.5)
    assert bias.loc["q_gap", "estimate"] == pytest.approx(1.0) and bias.loc["argmax", "estimate"] == 0.5
    multistep = run_multistep_probe(agents, 10, population, suite)
    assert len(multistep) == 3 * (4 * 2 + 2)
    assert set(multistep["stag_action"]) == {"step_left", "step_right"}


def _synthetic(bias: float, gaps: dict[str, float], seeds: int = 6, left_share: int = 3) -> pd.DataFrame:
    """Counterbalanced-style rows for KindA focals: Q_stag - Q_hare = gaps[relation] + noise, plus a side
    bias `bias` added to STEP_LEFT's Q whatever lies there; `left_share` stag-left cases per stag-right case
    (an unbalanced table, so a plain mean would carry the bias)."""
    rng = np.random.default_rng(3)
    rows = []
    for seed in range(seeds):
        seed_noise = rng.normal(0, 0.05)
        for case in range(4 * (left_share + 1)):
            stag_left = case % (left_share + 1) != 0
            for partner, relation in (("no_partner", "none"), (A, "same"), (B, "different")):
                gap = gaps[relation] + seed_noise
                q_stag_step, q_hare_step = gap / 2, -gap / 2
                left, right = (q_stag_step, q_hare_step) if stag_left else (q_hare_step, q_stag_step)
                left += bias
                weights = np.exp([left, right]) / np.exp([0, 0, left, right, 0]).sum()
                rows.append({"epoch": 100, "agent_id": 0, "map_name": "m", "partner_kind": partner,
                             "version": f"v{case}", "q_val_forward": 0.0, "q_val_backward": 0.0,
                             "q_val_step_left": left, "q_val_step_right": right, "q_val_attack": 0.0,
                             "weight_facing_stag": weights[0 if stag_left else 1],
                             "weight_facing_hare": weights[1 if stag_left else 0], "agent_kind": A,
                             "partner_relation": relation, "stag_action": "step_left" if stag_left else "step_right",
                             "partner_side": "equidistant", "agent_can_hunt": True, "condition": "not_all_can_hunt",
                             "seed": seed})  # fmt: skip
    return pd.DataFrame(rows)


def test_bias_removal_recovers_a_known_side_bias_and_known_levels() -> None:
    frame = _synthetic(bias=0.8, gaps={"none": 0.0, "same": 0.6, "different": 0.2})
    bias = social.side_bias(frame).set_index("scale")
    assert bias.loc["q_gap", "estimate"] == pytest.approx(0.8)  # mean Q_left - Q_right over both halves
    assert bias.loc["q_gap", "balanced"]
    levels = social.preference_levels(frame).set_index(["scale", "partner_relation"])["mean"]
    # each level is the known gap plus the same seed noise (the `none` level is that noise alone)
    assert levels[("q_gap", "same")] - levels[("q_gap", "none")] == pytest.approx(0.6)
    assert levels[("q_gap", "different")] - levels[("q_gap", "none")] == pytest.approx(0.2)
    # the plain mean over the 3:1 unbalanced cases carries half the bias: (3 x 0.8 - 1 x 0.8) / 4 = 0.4
    naive = (
        social.with_scales(frame).query("partner_relation == 'same'").groupby("seed")["q_gap"].mean().mean()
    )
    assert naive - levels[("q_gap", "same")] == pytest.approx(0.4)
    effect = social.partner_effect(frame, by_side=False).set_index("scale")
    assert effect.loc["q_gap", "estimate"] == pytest.approx(0.4)
    assert effect.loc["q_gap", "seeds_positive"] == 6 and effect.loc["q_gap", "p_sign_flip"] == pytest.approx(
        2 / 64
    )
    assert effect.loc["p_stag", "estimate"] > 0.05 and effect.loc["argmax", "estimate"] >= 0


def test_an_agent_that_avoids_the_partner_shows_opposite_effects_on_the_stag_and_hare_sides() -> None:
    """Avoiding a KindB partner (stepping away from its side) lowers P(stag) when it stands on the stag side
    and raises it on the hare side; equidistant and over all sides, no effect."""
    rows = []
    for seed in range(4):
        for side in ("stag", "hare", "equidistant"):
            for stag_left in (True, False):
                for partner in (A, B):
                    away = 0.5 if partner == B and side != "equidistant" else 0.0
                    gap = -away if side == "stag" else away  # step away from the partner's side
                    left, right = (gap / 2, -gap / 2) if stag_left else (-gap / 2, gap / 2)
                    w = np.exp([0, 0, left, right, 0]) / np.exp([0, 0, left, right, 0]).sum()
                    rows.append({"epoch": 5, "agent_id": 0, "map_name": "m", "partner_kind": partner,
                                 "version": f"{side}{stag_left}", "q_val_forward": 0.0, "q_val_backward": 0.0,
                                 "q_val_step_left": left, "q_val_step_right": right, "q_val_attack": 0.0,
                                 "weight_facing_stag": w[2 if stag_left else 3],
                                 "weight_facing_hare": w[3 if stag_left else 2], "agent_kind": A,
                                 "partner_relation": "same" if partner == A else "different",
                                 "stag_action": "step_left" if stag_left else "step_right", "partner_side": side,
                                 "agent_can_hunt": True, "condition": "all_can_hunt", "seed": seed})  # fmt: skip
    effects = social.partner_effect(pd.DataFrame(rows), ["q_gap"]).set_index("partner_side")["estimate"]
    assert effects["stag"] == pytest.approx(0.5) and effects["hare"] == pytest.approx(-0.5)
    assert effects["equidistant"] == pytest.approx(0.0) and effects["all"] == pytest.approx(0.0)


def test_the_controls_separate_the_label_from_the_ability() -> None:
    def hunters(condition: str) -> dict[str, set[bool]]:
        return {
            kind: {s.can_hunt for s in PRESET_POPULATIONS[condition] if s.kind == kind}
            for kind in AGENT_KINDS
        }

    assert hunters("roles_swapped") == {A: {False}, B: {True}}  # the roles exchanged
    assert hunters("kind_shuffled") == {A: {True, False}, B: {True, False}}  # the label tells nothing
    for condition in ("kind_shuffled", "two_of_each"):
        kinds = Counter(spec.kind for spec in PRESET_POPULATIONS[condition])
        assert kinds[A] >= 2 and kinds[B] >= 2  # the kind channel no longer names one agent
    assert hunters("two_of_each") == hunters("not_all_can_hunt")
    assert set(PARTNER_TEST_FOCAL_KIND) == set(PRESET_POPULATIONS)
    assert expected_effect("not_all_can_hunt").startswith("positive")
    assert expected_effect("roles_swapped").startswith("positive")
    assert expected_effect("two_of_each").startswith("positive")
    assert expected_effect("kind_shuffled").startswith("zero")
    assert expected_effect("all_can_hunt").startswith("zero")


def test_focal_rows_follow_each_condition_s_focal_kind_and_ability() -> None:
    frame = pd.DataFrame({
        "condition": ["roles_swapped"] * 3 + ["kind_shuffled"] * 4,
        "agent_kind": [B, B, A, A, A, B, B], "agent_can_hunt": [True, True, False, True, False, True, False],
    })  # fmt: skip
    kept = social.focal_rows(frame)
    assert kept.index.tolist() == [0, 1, 3, 5]


def test_the_cli_knows_the_probe_suites_without_importing_them() -> None:
    from cogames_lib.cli.probe import PROBE_SUITES
    from cogames_lib.staghunt.probe_cases import SUITES

    assert PROBE_SUITES == SUITES
