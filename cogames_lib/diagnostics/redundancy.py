"""Redundancy analysis: do two diagnostics pass and fail together?

For every pair of diagnostics, compare their pass/fail outcomes on the cells both were run on, a cell
being (policy, agent count, seed index). Two diagnostics that agree on nearly every shared cell measure
nothing the other does not, on the policies at hand.

The rule: a pair is **redundant** when it agrees on >= 95% of at least 20 shared cells
(`REDUNDANT_AGREEMENT`, `MIN_SHARED_CELLS`). Why these numbers: 20 cells is the smallest design that can
carry the claim (two policies x 10 seeds at one agent count, the document's default seeds); below it a
single lucky seed moves the rate by more than 5 points. 0.95 tolerates one disagreement in 20 (one flaky
seed) but not two. At 20/20 the Wilson 95% lower bound of the agreement is 0.84, so each row also carries
its interval (ci_low, ci_high) for a stricter reading, and Cohen's kappa (agreement beyond what the two
pass rates give by chance).

Read it with care: agreement is only informative when the policies differ in what they can do. With
only scripted, random and noop, every pair "agrees" because each policy passes or fails nearly
everything; run it on the scripted ablations (the capability matrix) to separate diagnostics. Episodes
that ended in RUN_ERROR say nothing about the diagnostic and are left out.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from cogames_lib.errors import ParameterError

REDUNDANT_AGREEMENT = 0.95
MIN_SHARED_CELLS = 20
CELL = ("policy", "num_agents", "seed")
PAIR_COLUMNS = (
    "diagnostic_a",
    "diagnostic_b",
    "n_shared",
    "agreements",
    "agreement",
    "ci_low",
    "ci_high",
    "both_pass",
    "both_fail",
    "only_a",
    "only_b",
    "kappa",
    "redundant",
)
# `pair_agreement(..., cluster=...)`: how many clusters (e.g. training seeds) share a cell of the pair, and
# the Student-t interval of the mean per-cluster agreement over them.
CLUSTER_COLUMNS = ("n_clusters", "cluster_ci_low", "cluster_ci_high")


def _diagnostic_order(column: pd.Series) -> list[str]:
    """Category order if the column has one, else the registry's order, then unknown names sorted."""
    present = set(column.astype(str))
    if isinstance(column.dtype, pd.CategoricalDtype):
        return [str(name) for name in column.cat.categories if str(name) in present]
    from cogames_lib.diagnostics.registry import REGISTRY

    known = [name for name in REGISTRY if name in present]
    return known + sorted(present - set(known))


def outcome_matrix(episodes: pd.DataFrame) -> pd.DataFrame:
    """Cells (policy, num_agents, seed) x diagnostics: 1.0 pass, 0.0 fail, NaN not run (or RUN_ERROR)."""
    missing = [
        column for column in [*CELL, "diagnostic", "success", "status"] if column not in episodes.columns
    ]
    if missing:
        raise ParameterError(f"redundancy: the episodes table has no column(s) {missing}")
    usable = episodes[episodes["status"].astype(str) != "RUN_ERROR"]
    keys = [*CELL, "diagnostic"]
    frame = usable.assign(
        policy=usable["policy"].astype(str),
        diagnostic=usable["diagnostic"].astype(str),
        outcome=usable["success"].astype(bool).astype(float),
    )
    duplicated = frame.duplicated(keys)
    if duplicated.any():
        example = frame.loc[duplicated, keys].iloc[0].to_dict()
        raise ParameterError(
            f"redundancy: {int(duplicated.sum())} duplicate episodes, e.g. {example}; pass the table of one sweep"
        )
    matrix = frame.pivot(index=list(CELL), columns="diagnostic", values="outcome")
    return matrix.reindex(columns=_diagnostic_order(episodes["diagnostic"]))


def _kappa(a: np.ndarray, b: np.ndarray, agreement: float) -> float:
    rate_a, rate_b = a.mean(), b.mean()
    chance = rate_a * rate_b + (1 - rate_a) * (1 - rate_b)
    return float("nan") if chance >= 1 else float((agreement - chance) / (1 - chance))


def redundancy(
    episodes: pd.DataFrame,
    threshold: float = REDUNDANT_AGREEMENT,
    min_shared: int = MIN_SHARED_CELLS,
) -> pd.DataFrame:
    """One row per unordered pair of diagnostics (a before b in catalogue order); see PAIR_COLUMNS.

    agreement = agreements / n_shared (NaN when no cell is shared), Wilson 95% interval, the 2x2 counts,
    Cohen's kappa (NaN when both diagnostics give one constant, equal outcome), and `redundant`
    (agreement >= threshold and n_shared >= min_shared).
    """
    return pair_agreement(outcome_matrix(episodes), threshold, min_shared)


def pair_agreement(
    matrix: pd.DataFrame,
    threshold: float = REDUNDANT_AGREEMENT,
    min_shared: int = MIN_SHARED_CELLS,
    cluster: str | None = None,
) -> pd.DataFrame:
    """`redundancy` over any outcome matrix: cells (rows) x diagnostics (columns), 1.0 pass, 0.0 fail, NaN
    not run. Learned agents use it with a cell per (training seed, checkpoint, agent count).

    `cluster` names an index level whose values are independent replications (e.g. training seeds) when
    the cells within one are not: each row then also carries `CLUSTER_COLUMNS`, the number of clusters
    that share a cell of the pair and a Student-t 95% interval of the mean per-cluster agreement over them,
    clipped to [0, 1] (`stats.t_interval`; none below two clusters: a percentile bootstrap over the three
    seeds a training study affords would only span their values).
    """
    from cogames_lib.stats import t_interval, wilson_interval

    if not 0 < threshold <= 1 or min_shared < 1:
        raise ParameterError(
            f"redundancy: need 0 < threshold <= 1 and min_shared >= 1, got {threshold}, {min_shared}"
        )
    if cluster is not None and cluster not in matrix.index.names:
        raise ParameterError(f"redundancy: the outcome matrix has no index level {cluster!r}")
    names = [str(name) for name in matrix.columns]
    values = matrix.to_numpy(dtype=float)
    groups = None if cluster is None else matrix.index.get_level_values(cluster).to_numpy()
    rows = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            shared = ~np.isnan(values[:, i]) & ~np.isnan(values[:, j])
            a, b = values[shared, i], values[shared, j]
            n = int(shared.sum())
            agreements = int((a == b).sum())
            agreement = agreements / n if n else float("nan")
            low, high = wilson_interval(agreements, n)
            row = {
                "diagnostic_a": names[i],
                "diagnostic_b": names[j],
                "n_shared": n,
                "agreements": agreements,
                "agreement": agreement,
                "ci_low": low,
                "ci_high": high,
                "both_pass": int(((a == 1) & (b == 1)).sum()),
                "both_fail": int(((a == 0) & (b == 0)).sum()),
                "only_a": int(((a == 1) & (b == 0)).sum()),
                "only_b": int(((a == 0) & (b == 1)).sum()),
                "kappa": _kappa(a, b, agreement) if n else float("nan"),
                "redundant": bool(n >= min_shared and agreement >= threshold),
            }
            if groups is not None:
                labels = groups[shared]
                per_cluster = [float(np.mean(a[labels == g] == b[labels == g])) for g in pd.unique(labels)]
                _, cluster_low, cluster_high = t_interval(per_cluster, bounds=(0.0, 1.0))
                row.update(
                    n_clusters=len(per_cluster), cluster_ci_low=cluster_low, cluster_ci_high=cluster_high
                )
            rows.append(row)
    columns = [*PAIR_COLUMNS, *(CLUSTER_COLUMNS if groups is not None else ())]
    return pd.DataFrame(rows, columns=columns)


def agreement_matrix(pairs: pd.DataFrame) -> pd.DataFrame:
    """The symmetric diagnostic x diagnostic agreement table of `redundancy()` (1.0 on the diagonal)."""
    names = list(dict.fromkeys([*pairs["diagnostic_a"], *pairs["diagnostic_b"]]))
    matrix = pd.DataFrame(np.nan, index=names, columns=names)
    for row in pairs.itertuples(index=False):
        matrix.loc[row.diagnostic_a, row.diagnostic_b] = row.agreement
        matrix.loc[row.diagnostic_b, row.diagnostic_a] = row.agreement
    for name in names:
        matrix.loc[name, name] = 1.0
    return matrix


def linkage_order(matrix: pd.DataFrame, method: str = "average") -> list[str]:
    """Diagnostic names in the leaf order of a hierarchical clustering on distance 1 - agreement.

    For a clustered heatmap: reindex rows and columns of `agreement_matrix()` by this order. Pairs that
    share no cell get the largest distance (1). Pure: no drawing.
    """
    from scipy.cluster.hierarchy import leaves_list, linkage
    from scipy.spatial.distance import squareform

    names = list(matrix.index)
    if list(matrix.columns) != names:
        raise ParameterError("linkage_order: need a square matrix with the same names on rows and columns")
    if len(names) < 3:  # one or two leaves have a single order
        return names
    distance = 1.0 - matrix.to_numpy(dtype=float)
    distance = np.where(np.isnan(distance), 1.0, distance)
    distance = np.clip((distance + distance.T) / 2, 0.0, 1.0)
    np.fill_diagonal(distance, 0.0)
    tree = linkage(squareform(distance, checks=False), method=method, optimal_ordering=True)
    return [names[index] for index in leaves_list(tree)]
