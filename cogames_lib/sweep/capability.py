"""The capability matrix: which diagnostics each single-skill ablation of `scripted` fails.

Computed by playing episodes (`cogames_lib.sweep.episode.run_episode`), never looked up. A diagnostic claims
skills in the catalogue (`Diagnostic.skills`); `claimed_cells` turns the claims into the cells where an
ablation must fail, so a test can hold every claim against the data.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from cogames_lib import seeding
from cogames_lib.errors import ParameterError
from cogames_lib.policies.base import ABLATIONS, resolve_policy

MATRIX_COLUMNS = ("ablation", "diagnostic", "num_agents", "pass_rate", "n")
BASELINE = "none"  # the ablation label of the full scripted policy
CEILING = "oracle"  # the label of the full-knowledge reference ceiling (not an ablation)
DEFAULT_AGENT_COUNTS = (1, 2, 3, 4)
# An ablation "fails" a cell when it passes at most this share of the seeds there.
FAIL_AT_MOST = 0.2

# Ablation -> the catalogue skill it removes (pathfinding is what the navigation mazes test).
SKILL_OF_ABLATION: dict[str, str] = {
    "memory": "memory",
    "explore": "explore",
    "pathfinding": "navigation",
    "chorus": "chorus",
    "recharge": "recharge",
    "unclip": "unclip",
}


def _claim_applies(ablation: str, num_agents: int) -> bool:
    """A chorus of one needs no coordination: the chorus claim covers 2+ agents only."""
    return num_agents >= 2 if ablation == "chorus" else True


def claimed_cells(agent_counts: Iterable[int] = DEFAULT_AGENT_COUNTS, tier: str = "normal") -> pd.DataFrame:
    """(ablation, diagnostic, num_agents) cells where an ablation must fail, from the catalogue's claims.

    `tier`: "normal", "hard" (a `<name>_hard` variant claims its base's skills) or "all"."""
    from cogames_lib.diagnostics import REGISTRY, TIERS

    if tier not in TIERS:
        raise ParameterError(f"claimed_cells(tier=...): {tier!r} is not one of {list(TIERS)}")
    rows = []
    for ablation in ABLATIONS:
        skill = SKILL_OF_ABLATION[ablation]
        for name in TIERS[tier]:
            diagnostic = REGISTRY[name]
            if skill not in diagnostic.skills:
                continue
            for count in agent_counts:
                if count in diagnostic.allowed_agent_counts and _claim_applies(ablation, count):
                    rows.append((ablation, name, count))
    return pd.DataFrame(rows, columns=["ablation", "diagnostic", "num_agents"])


def _policy_name(ablation: str) -> str:
    if ablation == CEILING:
        return CEILING
    return "scripted" if ablation == BASELINE else f"scripted:-{ablation}"


def ablation_matrix(
    ablations: Sequence[str] | None = None,
    diagnostics: Sequence[str] | None = None,
    agent_counts: Sequence[int] = DEFAULT_AGENT_COUNTS,
    seeds: int | Sequence[int] = 10,
    include_baseline: bool = True,
    progress: bool = False,
    include_ceiling: bool = False,
) -> pd.DataFrame:
    """Pass rate of every (ablation, diagnostic, agent count) cell, by playing the episodes.

    `ablations` defaults to all of `ABLATIONS` (plus the full policy as ablation "none" when
    `include_baseline`, and the oracle as "oracle" when `include_ceiling`: scripted against the ceiling);
    `seeds` is a count (seeds 0..k-1) or explicit seeds; agent counts a diagnostic
    does not allow are skipped. Returns a tidy DataFrame with `MATRIX_COLUMNS`.
    """
    from cogames_lib.diagnostics import DIAGNOSTICS, get_diagnostic
    from cogames_lib.sweep.episode import run_episode

    chosen = list(ABLATIONS if ablations is None else ablations)
    unknown = [a for a in chosen if a not in ABLATIONS and a not in (BASELINE, CEILING)]
    if unknown:
        raise ParameterError(f"ablation_matrix(ablations=...): unknown {unknown}; known: {list(ABLATIONS)}")
    if include_baseline and BASELINE not in chosen:
        chosen.insert(0, BASELINE)
    if include_ceiling and CEILING not in chosen:
        chosen.insert(0, CEILING)
    records = [get_diagnostic(d) for d in (list(DIAGNOSTICS) if diagnostics is None else diagnostics)]
    names = [record.name for record in records]
    allowed = {record.name: record.allowed_agent_counts for record in records}
    if not names:
        raise ParameterError("ablation_matrix(diagnostics=...): need at least one diagnostic (None = all)")
    seed_list = seeding.seed_list(seeds, "ablation_matrix(seeds=...)")
    cells = [
        (ablation, name, count)
        for ablation in chosen
        for name in names
        for count in agent_counts
        if count in allowed[name]
    ]
    if progress:
        from tqdm.auto import tqdm

        cells = tqdm(cells, desc="capability matrix", unit="cell")
    rows = []
    for ablation, name, count in cells:
        spec = resolve_policy(_policy_name(ablation))
        wins = sum(bool(run_episode(spec, name, count, seed)["success"]) for seed in seed_list)
        rows.append((ablation, name, count, wins / len(seed_list), len(seed_list)))
    return pd.DataFrame(rows, columns=list(MATRIX_COLUMNS))


def failed_claims(matrix: pd.DataFrame, fail_at_most: float = FAIL_AT_MOST) -> pd.DataFrame:
    """The claimed cells (present in `matrix`, either tier) where the ablation passed more than `fail_at_most`."""
    claims = claimed_cells(sorted(matrix["num_agents"].unique()), tier="all")
    merged = claims.merge(matrix, on=["ablation", "diagnostic", "num_agents"], how="inner")
    return merged[merged["pass_rate"] > fail_at_most].reset_index(drop=True)


def matrix_table(matrix: pd.DataFrame) -> pd.DataFrame:
    """Wide view for reading: rows (diagnostic, num_agents), one pass-rate column per ablation."""
    table = matrix.pivot_table(
        index=["diagnostic", "num_agents"], columns="ablation", values="pass_rate", sort=False
    )
    order = [a for a in (CEILING, BASELINE, *ABLATIONS) if a in table.columns]
    return table[order]


def matrix_markdown(matrix: pd.DataFrame, digits: int = 2) -> str:
    """A Markdown table of `matrix_table(matrix)`; a claimed cell (where the ablation must fail) is
    starred, so a reader sees each claim next to its measured pass rate."""
    table = matrix_table(matrix)
    claims = set(map(tuple, claimed_cells(sorted(matrix["num_agents"].unique()), tier="all").values.tolist()))
    labels = {BASELINE: "scripted", CEILING: CEILING}
    header = ["diagnostic", "agents", *(labels.get(a, f"-{a}") for a in table.columns)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for (diagnostic, count), row in table.iterrows():
        cells = []
        for ablation, rate in row.items():
            text = "" if pd.isna(rate) else f"{rate:.{digits}f}"
            cells.append(f"{text}*" if (ablation, diagnostic, count) in claims else text)
        lines.append(f"| {diagnostic.removeprefix('diagnostic_')} | {count} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
