"""The probe page's two sources, each labelled: the committed reference study and the live smoke run.

A reader must never take a smoke run's flat lines for a finding, nor wonder which numbers came from where:
every figure and headline carries its source ("reference study: <epochs>, <seeds>, <world>, <date>", its
command printed beside it, or "live smoke run: ...") and, when the curves cannot show learning, the reason (`learning_verdict`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from cogames_lib.finding import Finding
from cogames_lib.paths import CLONE_ROOT, STAGHUNT_REFERENCE_DIR, needs_clone


def load_reference_study(path: str | Path | None = None) -> tuple[Any, str]:
    """(the study, "") from `path` (default: `data/staghunt_reference/`), or (None, a plain sentence saying
    it is missing). A folder that is there but broken raises its one-line `DataFileError`."""
    from cogames_lib.staghunt.study_tables import STUDY_FILE, load_probe_study

    folder = Path(path) if path is not None else STAGHUNT_REFERENCE_DIR
    if path is None and CLONE_ROOT is None:
        where = needs_clone("data/staghunt_reference/")
        return None, f"The reference study is not here: {where}. This page shows only the live smoke run."
    if not (folder / STUDY_FILE).is_file():
        return None, (
            f"The reference study is missing: no {STUDY_FILE} in {folder}. It is written by `cogames-lib probe "
            "study` and committed under data/staghunt_reference/; until it is there, this page shows only the "
            "live smoke run below."
        )
    return load_probe_study(folder), ""


def smoke_run_label(training: pd.DataFrame, probe_folder: str | Path | None = None) -> str:
    """'live smoke run: N epochs, K seeds per condition' from the run's own training table, or what was read
    instead when the notebook analysed an existing `probe_folder`."""
    from cogames_lib.plots.style import plural

    if probe_folder is not None:
        return f"probe folder {probe_folder} (read, not trained now)"
    if training.empty or "epoch" not in training:
        return "live smoke run (no training table)"
    seeds = (
        training.groupby("condition")["seed"].nunique().max() if {"condition", "seed"} <= set(training) else 1
    )
    return f"live smoke run: {plural(int(training['epoch'].max()), 'epoch')}, {plural(int(seeds), 'seed')} per condition"


def as_study_table(frame: pd.DataFrame) -> pd.DataFrame:
    """A probe or training table with `condition` and `seed` (sorrel folders have neither: one run, 'all')."""
    if "condition" not in frame.columns:
        frame = frame.assign(condition="all")
    if "seed" not in frame.columns:
        frame = frame.assign(seed=frame["run_id"].astype(str) if "run_id" in frame.columns else 0)
    return frame.assign(condition=frame["condition"].astype(str))


def study_figures(
    training: pd.DataFrame,
    intention: pd.DataFrame,
    multistep: pd.DataFrame,
    random_policy_stag_rate: Any,
    label: str,
    random_policy_return: Any = None,
) -> dict[str, Any]:
    """The study's figures by file name: learning curves vs random play (when there is a training table),
    intention P(stag) and multi-step result by partner kind (KindA focal), the partner-effect forest.
    Baselines: one number or a dict per condition (`ProbeStudy.random_stag_rates`, `.random_returns`)."""
    from cogames_lib import plots
    from cogames_lib.staghunt import social
    from cogames_lib.staghunt.study_summary import learning_verdict

    has_training = not training.empty and "epsilon" in training.columns
    training = as_study_table(training) if has_training else training
    verdict = learning_verdict(training, random_policy_stag_rate) if has_training else ""
    intention, multistep = as_study_table(intention), as_study_table(multistep)
    figures: dict[str, Any] = {}
    if has_training:
        curves = social.learning_curves(training)
        figures["learning_curves"] = plots.study_learning_curves(
            curves, random_policy_stag_rate, label, verdict
        )
    figures["intention_by_partner"] = plots.partner_preference_curves(
        social.partner_curves(intention), label=label, verdict=verdict
    )
    figures["behaviour_by_partner"] = plots.partner_preference_curves(
        social.partner_curves(multistep, "result"), value_label="multi-step result (1 stag, 0 hare)",
        label=label, verdict=verdict,
    )  # fmt: skip
    figures["partner_effect"] = plots.partner_effect_forest(social.partner_effect(intention), label, verdict)
    return figures


def labelled_findings(findings: Sequence[Finding], prefix: str, label: str) -> list[Finding]:
    """A study's findings as one of the probe page's two sources shows them: key and figure prefixed
    (`reference` / `smoke`, as the page saves its figures), the text led by the source's label."""
    return [
        replace(
            finding,
            key=f"{prefix} {finding.key}",
            text=f"{label[:1].upper()}{label[1:]}. {finding.text}",
            figure=f"{prefix}_{finding.figure}" if finding.figure else None,
        )
        for finding in findings
    ]
