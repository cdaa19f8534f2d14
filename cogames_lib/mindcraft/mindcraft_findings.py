"""The Mindcraft analysis's findings: every number the report shows about a log tree, computed here once.

`mindcraft_findings(tables)` reads only the public `mindcraft_runs` table (`tables["runs"]`, one row per
task folder: the unit of analysis) and, when given, the notebook's `error_folders` table; success rates
carry Wilson 95% intervals over task folders (`stats.rate_table` on `success_for_rate`, whose denominator
follows the run's `no_score_policy`). The headline comes first: overall success, models pooled.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from cogames_lib.finding import UNIT_TASKS, Finding, interval_text
from cogames_lib.tables import MINDCRAFT_RUNS

CAPABILITY = "mindcraft"
STATUS_FIGURE = "status_breakdown"
TASK_TYPE_FIGURE = "success_by_task_type"
WILSON = "Wilson score interval, 95%"
_READ = MINDCRAFT_RUNS.pick("model_name", "task_type", "overall_completion_status", "success_for_rate")


def _rate_finding(key: str, text: str, row: pd.Series, figure: str | None = None) -> Finding:
    return Finding(
        CAPABILITY,
        key,
        text,
        float(row["rate"]),
        float(row["ci_low"]),
        float(row["ci_high"]),
        int(row["n"]),
        UNIT_TASKS,
        WILSON,
        figure,
        "mindcraft_runs",
    )


def _words(row: pd.Series) -> str:
    return interval_text(
        float(row["rate"]), float(row["ci_low"]), float(row["ci_high"]), int(row["n"]), UNIT_TASKS
    )


def mindcraft_findings(tables: Mapping[str, pd.DataFrame]) -> list[Finding]:
    """Overall success (headline), success by task type and by model, the commonest outcome other than
    success, and the count of folders with errors (`tables["error_folders"]`, when given)."""
    from cogames_lib.stats import rate_table

    runs = tables["runs"]
    MINDCRAFT_RUNS.validate(runs, "mindcraft_findings", _READ)
    if runs.empty:
        return [
            Finding(CAPABILITY, "task_folders", "No Mindcraft task folders were found.", 0, unit=UNIT_TASKS)
        ]
    frame = runs.assign(
        task_type=runs["task_type"].astype("string").fillna("unknown").astype(str),
        model_name=runs["model_name"].astype("string").fillna("unknown").astype(str),
    )
    scored = frame[frame["success_for_rate"].notna()]
    findings: list[Finding] = []
    if len(scored):
        overall = rate_table(scored, None, "success_for_rate").iloc[0]
        models = scored["model_name"].nunique()
        pooled = f", {models} models pooled" if models > 1 else ""
        findings.append(
            _rate_finding(
                "success_rate",
                f"Success rate over all task folders{pooled}: {_words(overall)}.",
                overall,
                f"{STATUS_FIGURE}.png",
            )
        )
        for row in rate_table(scored, "task_type", "success_for_rate").itertuples(index=False):
            series = pd.Series(row._asdict())
            findings.append(
                _rate_finding(
                    f"success_rate[task_type={row.task_type}]",
                    f"Success rate of {row.task_type} tasks: {_words(series)}.",
                    series,
                    f"{TASK_TYPE_FIGURE}.png" if len(findings) == 1 else None,
                )
            )
        if models > 1:
            by_model = rate_table(scored, "model_name", "success_for_rate").sort_values(
                "rate", ascending=False
            )
            for row in by_model.itertuples(index=False):
                series = pd.Series(row._asdict())
                findings.append(
                    _rate_finding(
                        f"success_rate[model={row.model_name}]",
                        f"Success rate of {row.model_name}: {_words(series)}.",
                        series,
                    )
                )
    status = frame["overall_completion_status"].astype(str)
    failures = status[status != "SUCCESS"].value_counts()
    if len(failures):
        findings.append(
            Finding(
                CAPABILITY,
                "commonest_failure",
                f"The commonest outcome other than success is {failures.index[0]} ({failures.iloc[0]} of "
                f"{len(status)} task folders).",
                int(failures.iloc[0]),
                n=len(status),
                unit=UNIT_TASKS,
                method="count",
                source="mindcraft_runs",
            )
        )
    findings.append(
        Finding(
            CAPABILITY,
            "task_folders",
            f"{len(frame)} task folders read ({len(scored)} with a success verdict).",
            len(frame),
            unit=UNIT_TASKS,
            method="count",
            source="mindcraft_runs",
        )
    )
    if "error_folders" in tables:
        errors = len(tables["error_folders"])
        findings.append(
            Finding(
                CAPABILITY,
                "folders_with_errors",
                f"{errors} agent logs or folders could not be read cleanly or were skipped (listed on the page).",
                errors,
                method="count",
                source="error_folders",
            )
        )
    return findings
