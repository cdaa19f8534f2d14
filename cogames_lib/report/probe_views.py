"""The probe page's derived tables: the training table to draw (the study's numbers are
`staghunt.study_findings`, seeds as the unit).

Pure functions (tidy in, tidy out), so the notebook stays one call per cell and the selection rules are
tested here rather than buried in a notebook.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def probe_source(probe_folder: str | Path | None, runs_dir: str | Path) -> pd.DataFrame:
    """The training table to draw: our combined `training_all.csv` when we trained, else one found in the
    probe folder (ours), else an empty table (sorrel's folders hold probe CSVs only)."""
    folder = Path(probe_folder) if probe_folder is not None else Path(runs_dir)
    combined = folder / "training_all.csv"
    if combined.is_file():
        return pd.read_csv(combined)
    frames = []
    for path in sorted(folder.rglob("training.csv")):
        frame = pd.read_csv(path)
        if "condition" not in frame.columns:  # a single run: name it by its folders (<condition>/seed_<n>)
            frame.insert(0, "condition", path.parent.parent.name)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["epoch"])
