"""The README's pictures of the committed reference study, regenerated from its tables.

`python -m cogames_lib.report.docs_figures [STUDY_DIR] [OUT_DIR]` (or `make docs-figures`) draws the
study's learning curves, intention by partner kind and partner-effect forest into `docs/` as PNGs, from
`data/staghunt_reference/` by default. Every number in them is computed from the committed tables.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cogames_lib.paths import PROJECT_ROOT, STAGHUNT_REFERENCE_DIR

FIGURES = {
    "learning_curves": "staghunt_reference_learning.png",
    "intention_by_partner": "staghunt_reference_intention.png",
    "partner_effect": "staghunt_reference_partner_effect.png",
}


def write_docs_figures(
    study_dir: Path = STAGHUNT_REFERENCE_DIR, out_dir: Path = PROJECT_ROOT / "docs"
) -> list[Path]:
    """Draw the reference study's figures into `out_dir`; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    from cogames_lib import io
    from cogames_lib.report.display import figure_png
    from cogames_lib.report.study_views import study_figures
    from cogames_lib.staghunt.study_tables import load_probe_study

    study = load_probe_study(study_dir)
    figures = study_figures(study.training, study.intention, study.multistep, study.random_stag_rates,
                            study.label, study.random_returns)  # fmt: skip
    return [
        io.write_bytes(out_dir / name, figure_png(figures[key]))
        for key, name in FIGURES.items()
        if key in figures
    ]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    study_dir = Path(args[0]) if args else STAGHUNT_REFERENCE_DIR
    out_dir = Path(args[1]) if len(args) > 1 else PROJECT_ROOT / "docs"
    for path in write_docs_figures(study_dir, out_dir):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
