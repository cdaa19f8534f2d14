"""Redundancy of the diagnostics from learned data, next to the answer of the scripted ablations.

The agreement statistic is the catalogue's own (`diagnostics.redundancy.pair_agreement`); only the cell
changes. For learned agents a cell is one checkpoint at one agent count, (training seed, step, num_agents),
and its outcome is the checkpoint's verdict on the diagnostic: pass when its rate on the evaluation episodes
reaches `RELIABLE_RATE`. A verdict per checkpoint, not per episode, because two evaluation episodes of two
diagnostics that share a seed index are unrelated draws: episode-level agreement would count episode luck as
disagreement. Two diagnostics are redundant for the learned agent when the checkpoints that pass one pass
the other, over training, seeds and agent counts. Consecutive checkpoints of one seed are not independent,
so each pair also carries an interval over training seeds (`CLUSTER_COLUMNS`).

Agreement says something only where the verdicts vary: two diagnostics no checkpoint ever passes agree on
every cell (kappa is then undefined). `seed_question_answers` says so in its `reading` column.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

import pandas as pd

from cogames_lib.diagnostics.redundancy import (
    MIN_SHARED_CELLS,
    PAIR_COLUMNS,
    REDUNDANT_AGREEMENT,
    pair_agreement,
    redundancy,
)
from cogames_lib.errors import ParameterError
from cogames_lib.learn.emergence import RELIABLE_RATE, diagnostic_order, passes_bar
from cogames_lib.tables import EMERGENCE

CHECKPOINT_CELL = ("seed", "step", "num_agents")
# The seed document's three questions, each a group of diagnostics whose every pair is compared.
SEED_QUESTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "navigation 1/2/3",
        ("chest_navigation1", "chest_navigation2", "chest_navigation3"),
    ),
    (
        "extract-missing variants",
        (
            "extract_missing_carbon",
            "extract_missing_oxygen",
            "extract_missing_germanium",
            "extract_missing_silicon",
        ),
    ),
    ("near vs search (chest)", ("chest_deposit_near", "chest_deposit_search")),
    ("near vs search (assembler)", ("assemble_seeded_near", "assemble_seeded_search")),
)
ANSWER_COLUMNS = (
    "question",
    "diagnostic_a",
    "diagnostic_b",
    "source",
    "n_shared",
    "agreement",
    "ci_low",
    "ci_high",
    "kappa",
    "both_pass",
    "both_fail",
    "only_a",
    "only_b",
    "redundant",
    "n_clusters",
    "cluster_ci_low",
    "cluster_ci_high",
    "reading",
)


def checkpoint_outcomes(table: pd.DataFrame, reliable_rate: float = RELIABLE_RATE) -> pd.DataFrame:
    """Cells (training seed, step, num_agents) x diagnostics (catalogue order): 1.0 where the checkpoint's
    rate reaches `reliable_rate`, 0.0 where it does not, NaN where not evaluated (or n = 0)."""
    EMERGENCE.validate(
        table, "emergence table", EMERGENCE.pick(*CHECKPOINT_CELL, "diagnostic", "n", "successes")
    )
    if table.duplicated([*CHECKPOINT_CELL, "diagnostic"]).any():
        raise ParameterError(
            "redundancy: the emergence table holds a checkpoint cell twice; pass one run's table"
        )
    usable = table[table["n"] > 0]
    verdict = passes_bar(usable["successes"], usable["n"], reliable_rate).astype(float)
    frame = usable.assign(verdict=verdict, diagnostic=usable["diagnostic"].astype(str))
    matrix = frame.pivot(index=list(CHECKPOINT_CELL), columns="diagnostic", values="verdict")
    return matrix.reindex(columns=diagnostic_order(table["diagnostic"]))


def learned_redundancy(
    table: pd.DataFrame,
    threshold: float = REDUNDANT_AGREEMENT,
    min_shared: int = MIN_SHARED_CELLS,
    reliable_rate: float = RELIABLE_RATE,
) -> pd.DataFrame:
    """`pair_agreement` over the checkpoint verdicts of an emergence table, with intervals over training
    seeds: `PAIR_COLUMNS` + `CLUSTER_COLUMNS`, one row per pair of diagnostics."""
    return pair_agreement(checkpoint_outcomes(table, reliable_rate), threshold, min_shared, cluster="seed")


def _full_name(name: str) -> str:
    return name if name.startswith("diagnostic_") else f"diagnostic_{name}"


def question_pairs() -> list[tuple[str, str, str]]:
    """(question, diagnostic a, diagnostic b) for every pair within each of `SEED_QUESTIONS`."""
    return [
        (question, _full_name(a), _full_name(b))
        for question, names in SEED_QUESTIONS
        for a, b in combinations(names, 2)
    ]


def _reading(row: pd.Series) -> str:
    if row.isna().get("n_shared", True) or not row["n_shared"]:
        return "not evaluated on a shared cell"
    if row["both_pass"] == 0 and row["only_a"] == 0 and row["only_b"] == 0:
        return "both always fail: agreement without information"
    if row["both_fail"] == 0 and row["only_a"] == 0 and row["only_b"] == 0:
        return "both always pass: agreement without information"
    if row["redundant"]:
        return "redundant: they pass and fail together"
    if row["only_a"] and row["only_b"]:
        return "distinct: each is passed where the other is failed"
    harder = "b" if row["only_a"] else "a"
    return f"distinct: {str(row[f'diagnostic_{harder}']).removeprefix('diagnostic_')} is the harder one"


def seed_question_answers(learned_pairs: pd.DataFrame, ablation_pairs: pd.DataFrame | None) -> pd.DataFrame:
    """The seed's questions answered twice, one row per (pair, source): from learned checkpoints
    (`learned_redundancy`) and from the scripted ablations (`diagnostics.redundancy`, None to leave out).
    `ANSWER_COLUMNS`; `reading` puts the row in words (an agreement of two never-passed diagnostics is
    flagged as carrying no information)."""
    rows = []
    for source, pairs in (("learned", learned_pairs), ("ablations", ablation_pairs)):
        if pairs is None:
            continue
        missing = [c for c in PAIR_COLUMNS if c not in pairs.columns]
        if missing:
            raise ParameterError(f"seed_question_answers: the {source} pair table lacks {missing}")
        index = {
            frozenset((str(r.diagnostic_a), str(r.diagnostic_b))): r._asdict()
            for r in pairs.itertuples(index=False)
        }
        for question, a, b in question_pairs():
            record = index.get(frozenset((a, b)))
            row = {"question": question, "source": source, "diagnostic_a": a, "diagnostic_b": b}
            if record is not None:
                # keep a before b as the question lists them, swapping the one-sided counts with them
                swapped = record["diagnostic_a"] != a
                row.update({k: v for k, v in record.items() if k not in ("diagnostic_a", "diagnostic_b")})
                if swapped:
                    row["only_a"], row["only_b"] = record["only_b"], record["only_a"]
            rows.append(row)
    answers = pd.DataFrame(rows).reindex(columns=list(ANSWER_COLUMNS))
    answers["reading"] = [_reading(row) for _, row in answers.iterrows()]
    return answers


def ablation_pairs(
    out_dir: str | Path, seeds: int = 10, workers: int = 1, progress: bool = False
) -> pd.DataFrame:
    """The ablation-based answer: scripted, its six single-skill ablations, random and noop on the
    diagnostics of `SEED_QUESTIONS` at 1, 2 and 4 agents (the catalogue sweep's design, sweep seed 0), then
    `diagnostics.redundancy` restricted to the questions' pairs."""
    from cogames_lib.policies import ablation_specs
    from cogames_lib.sweep import run_sweep

    names = list(dict.fromkeys(name for _, group in SEED_QUESTIONS for name in group))
    episodes = run_sweep(
        ["scripted", *ablation_specs(), "random", "noop"],
        names,
        [1, 2, 4],
        seeds,
        out_dir,
        workers=workers,
        progress=progress,
    )
    return questions_only(redundancy(episodes))


def questions_only(
    pairs: pd.DataFrame, questions: Sequence[tuple[str, str, str]] | None = None
) -> pd.DataFrame:
    """The rows of a pair table that belong to one of the seed's questions."""
    wanted = {frozenset((a, b)) for _, a, b in (questions or question_pairs())}
    keep = [
        frozenset((str(a), str(b))) in wanted
        for a, b in zip(pairs["diagnostic_a"], pairs["diagnostic_b"], strict=True)
    ]
    return pairs[keep].reset_index(drop=True)
