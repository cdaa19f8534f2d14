"""Redundancy from learned data: checkpoint verdicts, agreement with intervals over training seeds, and the
seed's three questions answered next to the ablations, on a hand-built emergence table whose answer is known."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from cogames_lib.diagnostics.redundancy import CLUSTER_COLUMNS, PAIR_COLUMNS, pair_agreement
from cogames_lib.errors import ParameterError
from cogames_lib.learn.emergence import with_first_reliable_step
from cogames_lib.learn.redundancy import (
    ANSWER_COLUMNS,
    checkpoint_outcomes,
    learned_redundancy,
    question_pairs,
    questions_only,
    seed_question_answers,
)
from cogames_lib.stats import wilson_interval
from cogames_lib.tables import EMERGENCE

SEEDS, STEPS = (0, 1, 2), tuple(range(0, 80_000, 10_000))  # 3 seeds x 8 checkpoints = 24 cells at 1 agent


def full(name: str) -> str:
    return f"diagnostic_{name}"


def passes(name: str, seed: int, step: int) -> bool:
    """The known truth of the hand-built run."""
    if name in ("chest_navigation1", "chest_navigation2"):
        return step >= 40_000  # learned together: redundant
    if name == "chest_navigation3":
        return step >= 40_000 and not (seed == 0 and step == 40_000)  # one cell later: 23 of 24 agree
    if name == "extract_missing_germanium":
        return step >= 20_000  # learned earlier than the other three
    if name.startswith("extract_missing"):
        return step >= 50_000
    if name == "chest_deposit_near":
        return step >= 10_000
    return False  # chest_deposit_search and the assembler pair: never


NAMES = (
    "chest_navigation1",
    "chest_navigation2",
    "chest_navigation3",
    "chest_deposit_near",
    "chest_deposit_search",
    "assemble_seeded_near",
    "assemble_seeded_search",
    "extract_missing_carbon",
    "extract_missing_oxygen",
    "extract_missing_germanium",
    "extract_missing_silicon",
)


def hand_run() -> pd.DataFrame:
    rows = [
        dict(
            seed=seed,
            step=step,
            diagnostic=full(name),
            tier="normal",
            num_agents=1,
            n=10,
            # a pass is 9 of 10 episodes, a fail 3 of 10: verdicts at the 0.8 bar are the truth above
            successes=9 if passes(name, seed, step) else 3,
            first_reliable_step=pd.NA,
        )
        for seed in SEEDS
        for step in STEPS
        for name in NAMES
    ]
    return with_first_reliable_step(EMERGENCE.frame(rows))


def row(pairs: pd.DataFrame, a: str, b: str) -> pd.Series:
    return pairs[(pairs["diagnostic_a"] == full(a)) & (pairs["diagnostic_b"] == full(b))].iloc[0]


def test_checkpoint_verdicts_are_the_rate_against_the_bar():
    matrix = checkpoint_outcomes(hand_run())
    assert matrix.index.names == ["seed", "step", "num_agents"] and matrix.shape == (24, len(NAMES))
    assert list(matrix.columns)[:3] == [
        full("chest_navigation1"),
        full("chest_navigation2"),
        full("chest_navigation3"),
    ]
    assert matrix.loc[(0, 40_000, 1), full("chest_navigation3")] == 0.0
    assert matrix.loc[(1, 40_000, 1), full("chest_navigation3")] == 1.0
    assert checkpoint_outcomes(hand_run(), reliable_rate=0.95).to_numpy().sum() == 0


def test_learned_redundancy_finds_the_known_answer():
    pairs = learned_redundancy(hand_run())
    assert list(pairs.columns) == [*PAIR_COLUMNS, *CLUSTER_COLUMNS]
    nav12 = row(pairs, "chest_navigation1", "chest_navigation2")
    assert (nav12["n_shared"], nav12["agreement"], nav12["redundant"], nav12["kappa"]) == (24, 1.0, True, 1.0)
    nav13 = row(pairs, "chest_navigation1", "chest_navigation3")
    assert (nav13["agreements"], nav13["only_a"], nav13["only_b"]) == (23, 1, 0)
    assert nav13["redundant"]  # 23/24 = 0.958 >= 0.95
    assert (nav13["ci_low"], nav13["ci_high"]) == pytest.approx(wilson_interval(23, 24))
    # per seed the agreement is 7/8, 1, 1: mean 0.9583, sem 0.0417, t(0.975, 2) = 4.303, clipped at 1
    assert nav13["n_clusters"] == 3
    assert nav13["cluster_ci_low"] == pytest.approx(0.9583 - 4.3027 * 0.041667, abs=1e-3)
    assert nav13["cluster_ci_high"] == 1.0
    germanium = row(pairs, "extract_missing_carbon", "extract_missing_germanium")
    # germanium passes at 20k-40k where carbon does not: 3 steps x 3 seeds = 9 disagreements
    assert (germanium["agreements"], germanium["only_a"], germanium["only_b"]) == (15, 0, 9)
    assert not germanium["redundant"]
    carbon_oxygen = row(pairs, "extract_missing_carbon", "extract_missing_oxygen")
    assert carbon_oxygen["agreement"] == 1.0 and carbon_oxygen["cluster_ci_low"] == 1.0


def test_without_clusters_pair_agreement_is_the_catalogue_statistic():
    matrix = checkpoint_outcomes(hand_run())
    plain = pair_agreement(matrix)
    clustered = pair_agreement(matrix, cluster="seed")
    pd.testing.assert_frame_equal(plain, clustered[list(PAIR_COLUMNS)])
    with pytest.raises(ParameterError, match="no index level"):
        pair_agreement(matrix, cluster="policy")


def test_the_seed_questions_are_answered_next_to_the_ablations():
    learned = learned_redundancy(hand_run())
    # an ablation table that lists one pair in the other order: its one-sided counts must swap with it
    ablations = pd.DataFrame(
        [
            dict(
                diagnostic_a=full("chest_deposit_search"),
                diagnostic_b=full("chest_deposit_near"),
                n_shared=90,
                agreements=63,
                agreement=0.7,
                ci_low=0.6,
                ci_high=0.78,
                both_pass=41,
                both_fail=22,
                only_a=1,
                only_b=26,
                kappa=0.42,
                redundant=False,
            )
        ]
    )
    answers = seed_question_answers(learned, ablations)
    assert list(answers.columns) == list(ANSWER_COLUMNS)
    assert len(answers) == 2 * len(question_pairs()) == 2 * (3 + 6 + 1 + 1)
    by = answers.set_index(["source", "diagnostic_a", "diagnostic_b"])
    near_search = by.loc[("learned", full("chest_deposit_near"), full("chest_deposit_search"))]
    assert near_search["reading"] == "distinct: chest_deposit_search is the harder one"
    assembler = by.loc[("learned", full("assemble_seeded_near"), full("assemble_seeded_search"))]
    assert assembler["reading"] == "both always fail: agreement without information"
    assert math.isnan(assembler["kappa"])
    assert by.loc[("learned", full("chest_navigation1"), full("chest_navigation2")), "reading"].startswith(
        "redundant"
    )
    swapped = by.loc[("ablations", full("chest_deposit_near"), full("chest_deposit_search"))]
    assert (swapped["only_a"], swapped["only_b"], swapped["agreement"]) == (26, 1, 0.7)
    missing = by.loc[("ablations", full("chest_navigation1"), full("chest_navigation2"))]
    assert missing["reading"] == "not evaluated on a shared cell"


def test_questions_only_keeps_the_questions_pairs():
    pairs = learned_redundancy(hand_run())
    kept = questions_only(pairs)
    assert len(kept) == len(question_pairs()) and len(pairs) == len(NAMES) * (len(NAMES) - 1) // 2


def test_a_table_with_a_cell_twice_is_refused():
    table = hand_run()
    with pytest.raises(ParameterError, match="twice"):
        checkpoint_outcomes(pd.concat([table, table.head(1)]))
