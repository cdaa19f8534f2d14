"""The README's stag-hunt study tables are exactly what the findings path computes from the committed study."""

from __future__ import annotations

from pathlib import Path

import pytest

from cogames_lib.staghunt.study_findings import staghunt_findings
from cogames_lib.staghunt.study_tables import load_probe_study
from tools.staghunt_readme_tables import readme_tables

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.parametrize("study", ["staghunt_reference", "staghunt_50k"])
def test_readme_study_tables_match_the_committed_study(study: str) -> None:
    tables = readme_tables(staghunt_findings(load_probe_study(ROOT / "data" / study).tables))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    stale = [line for line in tables.splitlines() if line and line not in readme]
    assert not stale, (
        f"README rows differ from `python -m tools.staghunt_readme_tables data/{study}`: " + "; ".join(stale)
    )
