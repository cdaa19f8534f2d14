"""The committed reference run's emergence (`data/cvc_learned/`): its table, the ablation-based redundancy
answer beside it, and the label every figure and finding of it carries.

`data/cvc_learned/emergence.csv` is the `emergence` table of the reference run's checkpoints
(`cogames-lib learn emergence`, command and n in docs/cvc_learned.md); `ablation_pairs.csv` is
`learn.redundancy.ablation_pairs` (scripted, its six ablations, random and noop; 10 seeds; 1/2/4 agents).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib.errors import ParameterError
from cogames_lib.learn.emergence import (
    TABLE_STEM,
    find_checkpoints,
    load_emergence,
    run_emergence,
    run_identity,
    select_checkpoints,
)
from cogames_lib.learn.learn_findings import step_words
from cogames_lib.paths import DATA_DIR

REFERENCE_DIR = DATA_DIR / "cvc_learned"
ABLATION_PAIRS_FILE = "ablation_pairs.csv"


@dataclass(frozen=True)
class EmergenceSource:
    """An emergence table with what it is: `label` opens every figure title and finding sentence."""

    table: pd.DataFrame
    ablation_pairs: pd.DataFrame | None
    label: str


def describe(table: pd.DataFrame, what: str) -> str:
    """ "<what>: 3 training seeds, 8 checkpoints each up to 2M agent-steps, 10 episodes per cell"."""
    if table.empty:
        return f"{what}: no checkpoint evaluated"
    seeds = int(table["seed"].nunique())
    per_seed = table.groupby("seed")["step"].nunique()
    checkpoints = (
        f"{int(per_seed.min())}" if per_seed.min() == per_seed.max() else f"{per_seed.min()}-{per_seed.max()}"
    )
    episodes = sorted({int(n) for n in table["n"]})
    n_text = str(episodes[0]) if len(episodes) == 1 else f"{episodes[0]}-{episodes[-1]}"
    return (
        f"{what}: {seeds} training seed{'s' if seeds != 1 else ''}, {checkpoints} checkpoints each up to "
        f"{step_words(int(table['step'].max()))} agent-steps, {n_text} held-out episodes per cell"
    )


def load_ablation_pairs(path: str | Path | None = None) -> pd.DataFrame | None:
    """The ablation pair table (None: the committed one); None when the file is absent."""
    source = Path(path) if path is not None else REFERENCE_DIR / ABLATION_PAIRS_FILE
    return pd.read_csv(source) if source.is_file() else None


def reference_emergence(folder: str | Path | None = None) -> EmergenceSource:
    """The committed reference run's emergence table (or another folder laid out like it), labelled."""
    root = Path(folder) if folder is not None else REFERENCE_DIR
    path = root / f"{TABLE_STEM}.csv"
    if not path.is_file():
        raise ParameterError(f"reference emergence: {str(path)!r} does not exist")
    table = load_emergence(path)
    name = "Committed reference run (data/cvc_learned)" if folder is None else f"Run {root.name}"
    return EmergenceSource(table, load_ablation_pairs(root / ABLATION_PAIRS_FILE), describe(table, name))


def emergence_source(
    table: str | Path | None = None,
    run_dir: str | Path | None = None,
    out_dir: str | Path | None = None,
    ablation_pairs: str | Path | None = None,
    **evaluation: Any,
) -> EmergenceSource:
    """What the learned-agents page shows: the committed reference run (the default), an emergence `table`
    (file or folder), or a training run's checkpoints evaluated now (`run_dir`, into `out_dir`, with
    `evaluation`: diagnostics, agent_counts, episodes, checkpoints_per_seed, workers)."""
    if table is not None and run_dir is not None:
        raise ParameterError("emergence_source: give a table or a run_dir, not both")
    if run_dir is not None:
        if out_dir is None:
            raise ParameterError("emergence_source: evaluating a run_dir needs an out_dir")
        per_seed = evaluation.pop("checkpoints_per_seed", None)
        chosen = select_checkpoints(find_checkpoints(run_dir), per_seed)
        evaluated = run_emergence(chosen, out_dir, run=run_identity(run_dir), progress=False, **evaluation)
        return EmergenceSource(
            evaluated, load_ablation_pairs(ablation_pairs), describe(evaluated, f"Run {run_dir}")
        )
    if table is not None:
        loaded = load_emergence(table)
        return EmergenceSource(
            loaded, load_ablation_pairs(ablation_pairs), describe(loaded, f"Table {table}")
        )
    reference = reference_emergence()
    if ablation_pairs is None:
        return reference
    return EmergenceSource(reference.table, load_ablation_pairs(ablation_pairs), reference.label)
