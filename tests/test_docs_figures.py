"""`make docs-figures`: the README's study pictures are drawn from a study folder's tables."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cogames_lib.report.docs_figures import FIGURES, MANIFEST_FILE, README_FIGURES, data_version, main
from tests.staghunt_study_helpers import tiny_trained_study


@pytest.mark.slow
def test_every_study_picture_is_written_from_a_study_folder(tmp_path: Path) -> None:
    study = tiny_trained_study(tmp_path / "study")
    out = tmp_path / "docs"
    out.mkdir()
    assert main([str(study), str(out)]) == 0
    written = sorted(path.name for path in out.iterdir())
    # every study picture (the acting-partner forest only when the study has acting partners), no temporary file
    assert set(FIGURES.values()) - {"staghunt_reference_acting.png"} <= set(written) <= set(FIGURES.values())
    for name in written:
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


README = Path(__file__).resolve().parent.parent / "README.md"
DOCS = README.parent / "docs"


def test_every_readme_picture_is_drawn_from_data_no_newer_than_its_recorded_version() -> None:
    shown = set(re.findall(r"\(docs/([\w.-]+\.png)\)", README.read_text(encoding="utf-8")))
    assert shown and shown <= set(README_FIGURES), (
        f"a README picture with no recorded data: {shown - set(README_FIGURES)}"
    )
    manifest = json.loads((DOCS / MANIFEST_FILE).read_text(encoding="utf-8"))
    stale = [
        f"{name} (drawn from data version {manifest.get(name, {}).get('data_version')}, the data is now "
        f"{data_version(README_FIGURES[name])}: run `make docs-figures`)"
        for name in sorted(set(README_FIGURES))  # the README's and the docs' recorded pictures
        if manifest.get(name, {}).get("data_version") != data_version(README_FIGURES[name])
    ]
    assert stale == []


def test_a_change_to_the_data_changes_its_version(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "study"
    folder.mkdir(parents=True)
    (folder / "table.csv").write_text("a\n1\n")
    before = data_version(["data/study"], tmp_path)
    assert data_version(["data/study"], tmp_path) == before  # the same bytes, the same version
    (folder / "table.csv").write_text("a\n2\n")
    assert data_version(["data/study"], tmp_path) != before
    (folder / "table.csv").write_text("a\n1\n")
    (folder / "new.csv").write_text("")
    assert data_version(["data/study"], tmp_path) != before  # a file added
    after = data_version(["data/study"], tmp_path)
    (folder / "README.md").write_text("what the tables hold")
    assert data_version(["data/study"], tmp_path) == after  # prose about the data is not data


def test_the_learned_figures_are_drawn_from_the_committed_run(tmp_path: Path) -> None:
    from cogames_lib.report.docs_figures import (
        LEARNED_EMERGENCE,
        LEARNED_FAMILIES,
        LEARNED_MIRROR,
        LEARNED_SYMMETRY,
        write_learned_figures,
    )

    paths = write_learned_figures(tmp_path)
    names = [LEARNED_EMERGENCE, LEARNED_FAMILIES, LEARNED_MIRROR, LEARNED_SYMMETRY]
    assert paths == [tmp_path / name for name in names]
    assert all(path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for path in paths)
