"""`make docs-figures`: the README's study pictures are drawn from a study folder's tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from cogames_lib.report.docs_figures import FIGURES, main
from tests.staghunt_study_helpers import tiny_trained_study


@pytest.mark.slow
def test_every_study_picture_is_written_from_a_study_folder(tmp_path: Path) -> None:
    study = tiny_trained_study(tmp_path / "study")
    out = tmp_path / "docs"
    out.mkdir()
    assert main([str(study), str(out)]) == 0
    written = sorted(path.name for path in out.iterdir())
    assert written == sorted(FIGURES.values())  # and no temporary file left behind
    for name in written:
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
