"""Where the data shipped with the library lives (the repository's top-level `maps/` and `data/`)."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
MAPS_DIR = Path(os.environ.get("COGAMES_MAPS_DIR", PROJECT_ROOT / "maps"))
DIAGNOSTIC_MAPS_DIR = MAPS_DIR / "diagnostics"
STAGHUNT_MAPS_DIR = MAPS_DIR / "staghunt"
DATA_DIR = PROJECT_ROOT / "data"
# The committed stag-hunt reference study (`cogames-lib probe study`); the probe page shows it by default.
STAGHUNT_REFERENCE_DIR = DATA_DIR / "staghunt_reference"
NOTEBOOKS_DIR = PROJECT_ROOT / "notebooks"
BENCHMARKS_DIR = PROJECT_ROOT / "benchmarks"
