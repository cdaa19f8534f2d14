"""Where the data shipped with the library lives (the repository's top-level `maps/` and `data/`)."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
MAPS_DIR = Path(os.environ.get("COGAMES_MAPS_DIR", PROJECT_ROOT / "maps"))
DIAGNOSTIC_MAPS_DIR = MAPS_DIR / "diagnostics"
STAGHUNT_MAPS_DIR = MAPS_DIR / "staghunt"
DATA_DIR = PROJECT_ROOT / "data"
NOTEBOOKS_DIR = PROJECT_ROOT / "notebooks"
BENCHMARKS_DIR = PROJECT_ROOT / "benchmarks"
