"""Where the library's files live: the assets shipped inside the package, and the repository's own folders.

Package data (present in a clone and in an installed wheel alike), found through `importlib.resources`
by `shipped()`, the one lookup for the library's own assets:
    cogames_lib/maps/        diagnostic .map files and stag-hunt .txt maps (`COGAMES_MAPS_DIR` overrides)
    cogames_lib/notebooks/   the papermill notebooks `cogames-lib report` runs
    cogames_lib/data/        small sample inputs (the synthetic Mindcraft experiment tree and task files)
Repository-only (a clone has them; an installed wheel does not): `data/` (committed study results) and
`benchmarks/`, under `PROJECT_ROOT`.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

PACKAGE = "cogames_lib"


def shipped(*parts: str) -> Path:
    """A file or folder shipped inside the package (its package data), as a filesystem path."""
    root = resources.files(PACKAGE)
    # An installed wheel and a clone both hold the package as plain folders; a zipped import would not.
    base = root if isinstance(root, Path) else Path(str(root))
    return base.joinpath(*parts)


PROJECT_ROOT = Path(__file__).resolve().parent.parent
# A clone holds pyproject.toml beside the package; an installed wheel (PROJECT_ROOT = site-packages) does not.
CLONE_ROOT: Path | None = PROJECT_ROOT if (PROJECT_ROOT / "pyproject.toml").is_file() else None


def needs_clone(what: str) -> str:
    """The one line saying that `what` (a repository-only file or folder) is not in an installed package."""
    return f"{what} ships only with a clone of the cogames_lib repository, not with the installed package at {shipped()}"


MAPS_DIR = Path(os.environ["COGAMES_MAPS_DIR"]) if os.environ.get("COGAMES_MAPS_DIR") else shipped("maps")
DIAGNOSTIC_MAPS_DIR = MAPS_DIR / "diagnostics"
STAGHUNT_MAPS_DIR = MAPS_DIR / "staghunt"
NOTEBOOKS_DIR = shipped("notebooks")
SAMPLE_DATA_DIR = shipped("data")
MINDCRAFT_SAMPLE_DIR = SAMPLE_DATA_DIR / "mindcraft_sample"
# Repository-only (`needs_clone` says so where one is missing): committed results and the benchmark scripts.
DATA_DIR = PROJECT_ROOT / "data"
# The committed stag-hunt reference study (`cogames-lib probe study`); the probe page shows it by default.
STAGHUNT_REFERENCE_DIR = DATA_DIR / "staghunt_reference"
BENCHMARKS_DIR = PROJECT_ROOT / "benchmarks"
