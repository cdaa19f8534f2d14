"""The README's pictures, regenerated from committed data, each with the version of the data it shows.

`python -m cogames_lib.report.docs_figures [STUDY_DIR] [OUT_DIR] [PREFIX]` draws a study's learning
curves, intention by partner kind, partner-effect forests (every position, the partner on the stag side)
and the acting-partner forest into `OUT_DIR` as `PREFIX_<figure>.png`; without arguments it draws every
committed study (`COMMITTED_STUDIES`: the reference study and the 50,000-epoch study) into `docs/`;
`make docs-figures` also screenshots a fresh quick report's index (`docs/report_index.png`) and then runs
`python -m cogames_lib.report.docs_figures --record-only` to record it. Every picture's entry in
`docs/figures.json` holds the data version it was drawn from (a content hash of the committed files it
shows, `data_version`); a test fails when the data changed after its picture was drawn.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from cogames_lib.paths import DATA_DIR, PROJECT_ROOT, STAGHUNT_REFERENCE_DIR

# A study's pictures, `<prefix>_<suffix>` in docs/ (the prefix names the study, `COMMITTED_STUDIES`).
FIGURE_SUFFIXES = {
    "learning_curves": "learning.png",
    "intention_by_partner": "intention.png",
    "partner_effect": "partner_effect.png",
    "partner_effect_stag_side": "partner_sides.png",  # the partner on the stag side
    "acting_partners": "acting.png",  # when the study has acting-partner episodes
}
REFERENCE_PREFIX = "staghunt_reference"
# The committed stag-hunt studies the README shows: picture prefix -> study folder.
COMMITTED_STUDIES: dict[str, Path] = {
    REFERENCE_PREFIX: STAGHUNT_REFERENCE_DIR,
    "staghunt_50k": DATA_DIR / "staghunt_50k",  # the same plan at 50,000 epochs
}


def study_figure_names(prefix: str) -> dict[str, str]:
    """Figure key -> file name of one study's pictures."""
    return {key: f"{prefix}_{suffix}" for key, suffix in FIGURE_SUFFIXES.items()}


FIGURES = study_figure_names(REFERENCE_PREFIX)
LEARNED_EMERGENCE = "cvc_learned_emergence.png"  # the learned-agents reference run's heatmap
LEARNED_FAMILIES = "cvc_learned_families.png"  # and its pass rate by capability family (docs/cvc_learned.md)
LEARNED_MIRROR = "cvc_learned_mirror.png"  # its final checkpoints on mirrored maps (the mirror control)
LEARNED_SYMMETRY = (
    "cvc_learned_symmetry.png"  # the previous reference beside its run on mirrors, by map group
)
# The hard tier's pictures in docs/cvc_variants.md, drawn from the tier tables (data/cvc_tiers/)
HARD_DIFFICULTY = "cvc_hard_difficulty.png"  # bound and need per instance, feasibility over seeds 0-99
HARD_PASS_BY_BOUND = "cvc_hard_pass_by_difficulty.png"  # the tier sweep's pass rate by bound bin
HARD_PASS_BY_NEED = "cvc_hard_pass_by_need.png"  # and by the searcher's need
MANIFEST_FILE = "figures.json"
REPORT_INDEX = "report_index.png"
# Every README picture and the committed data it shows (folders relative to the project root). The report
# index also shows live sweeps, which the code computes from fixed seeds: its data is the committed inputs.
README_FIGURES: dict[str, tuple[str, ...]] = {
    **{
        name: (folder.relative_to(PROJECT_ROOT).as_posix(),)
        for prefix, folder in COMMITTED_STUDIES.items()
        for name in study_figure_names(prefix).values()
    },
    LEARNED_EMERGENCE: ("data/cvc_learned/emergence.csv",),
    LEARNED_FAMILIES: ("data/cvc_learned/emergence.csv",),
    LEARNED_MIRROR: ("data/cvc_learned/mirror_control.csv",),
    LEARNED_SYMMETRY: (
        "data/cvc_learned_6m/mirror_control.csv",
        "data/cvc_learned_mirrored/mirror_control.csv",
        "data/cvc_learned_mirrored/mirror_control_6m.csv",
    ),
    HARD_DIFFICULTY: ("data/cvc_tiers/hard_feasibility_seeds0-99.csv",),
    HARD_PASS_BY_BOUND: ("data/cvc_tiers/difficulty.csv",),
    HARD_PASS_BY_NEED: ("data/cvc_tiers/difficulty_need.csv",),
    REPORT_INDEX: ("data/staghunt_reference", "cogames_lib/data/mindcraft_sample"),
}


def data_version(sources: Iterable[str], root: Path = PROJECT_ROOT) -> str:
    """A short content hash of every file under `sources` (names and bytes, in a fixed order): it changes
    whenever the data a picture shows changes, whatever the clock or the checkout says. A folder's Markdown
    files (its README: prose about the data) are not data, so editing them leaves the version alone."""
    digest = hashlib.sha256()
    for source in sorted(sources):
        base = root / source
        files = (
            sorted(p for p in base.rglob("*") if p.is_file() and p.suffix != ".md")
            if base.is_dir()
            else [base]
        )
        for path in files:
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def record(names: Iterable[str], out_dir: Path, root: Path = PROJECT_ROOT) -> Path:
    """Write each picture's data and data version into `out_dir/figures.json` (others are kept)."""
    from cogames_lib import io

    path = out_dir / MANIFEST_FILE
    manifest = io.read_json_object(path) or {}
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    for name in names:
        sources = README_FIGURES[name]
        manifest[name] = {"data": list(sources), "data_version": data_version(sources, root), "drawn": today}
    return io.write_text(path, json.dumps(dict(sorted(manifest.items())), indent=2) + "\n")


def write_docs_figures(
    study_dir: Path = STAGHUNT_REFERENCE_DIR,
    out_dir: Path = PROJECT_ROOT / "docs",
    prefix: str = REFERENCE_PREFIX,
) -> list[Path]:
    """Draw a study's figures into `out_dir` as `<prefix>_<figure>.png`; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    from cogames_lib import io, plots
    from cogames_lib.report.display import figure_png
    from cogames_lib.report.study_views import as_study_table, study_figures
    from cogames_lib.staghunt import social
    from cogames_lib.staghunt.study_tables import load_probe_study

    study = load_probe_study(study_dir)
    figures = study_figures(study.training, study.intention, study.multistep, study.random_stag_rates,
                            study.label, study.random_returns)  # fmt: skip
    effects = social.partner_effect(as_study_table(study.intention))
    figures["partner_effect_stag_side"] = plots.partner_effect_forest(effects, study.label, side="stag")
    if study.acting_partners is not None and len(study.acting_partners):
        acting = social.acting_partner_effect(study.acting_partners)
        figures["acting_partners"] = plots.acting_partner_forest(acting, study.label)
    return [
        io.write_bytes(out_dir / name, figure_png(figures[key]))
        for key, name in study_figure_names(prefix).items()
        if key in figures
    ]


def write_learned_figures(out_dir: Path = PROJECT_ROOT / "docs") -> list[Path]:
    """Draw the learned-agents reference run's emergence heatmap, family curves and mirror control
    (data/cvc_learned/), and the mirror controls of the previous reference (data/cvc_learned_6m/) and of the
    run trained on its maps' mirrors side by side."""
    import pandas as pd

    from cogames_lib import io
    from cogames_lib.learn.emergence import with_first_reliable_step
    from cogames_lib.learn.emergence_reference import emergence_source
    from cogames_lib.learn.emergence_summary import emergence_grid, family_curves
    from cogames_lib.learn.mirror_control import (
        GROUP_ORDER,
        POLICY_ORDER,
        by_map_group,
        committed_run_controls,
        runs_by_map_group,
    )
    from cogames_lib.plots import learned
    from cogames_lib.report.display import figure_png

    source = emergence_source(None, None, out_dir)
    table = with_first_reliable_step(source.table)
    mirror = pd.read_csv(PROJECT_ROOT / README_FIGURES[LEARNED_MIRROR][0])
    seeds = mirror.loc[mirror["policy"] == "learned", "training_seed"].nunique()
    title = source.label.split(":")[0]
    return [
        io.write_bytes(out_dir / LEARNED_EMERGENCE,
                       figure_png(learned.emergence_heatmap(emergence_grid(table), title=title))),
        io.write_bytes(out_dir / LEARNED_FAMILIES,
                       figure_png(learned.family_curves(family_curves(table), title=title))),
        io.write_bytes(out_dir / LEARNED_MIRROR, figure_png(learned.mirror_heatmap(
            by_map_group(mirror), GROUP_ORDER, POLICY_ORDER,
            f"Mirror control: final checkpoints ({seeds} training seeds, pooled) "
            "on the curriculum's maps, their 3 mirrors and 4 transposes"))),
        io.write_bytes(out_dir / LEARNED_SYMMETRY, figure_png(learned.map_group_comparison(
            *runs_by_map_group(committed_run_controls() or {}),
            GROUP_ORDER, "Trained on the shipped maps, or on them and their mirrors; transposes never trained on"))),
    ]  # fmt: skip


def write_hard_tier_figures(out_dir: Path = PROJECT_ROOT / "docs") -> list[Path]:
    """Draw the hard tier's difficulty distribution (feasibility, seeds 0-99) and the tier sweep's pass rate
    by difficulty bin (bound and need) from the committed tables (data/cvc_tiers/)."""
    import pandas as pd

    from cogames_lib import io
    from cogames_lib.plots.difficulty import bound_share_distribution, difficulty_rates
    from cogames_lib.report.display import figure_png

    def table(name: str) -> pd.DataFrame:
        return pd.read_csv(PROJECT_ROOT / README_FIGURES[name][0])

    figures = {
        HARD_DIFFICULTY: bound_share_distribution(
            table(HARD_DIFFICULTY), "Hard tier, seeds 0-99: share of the budget"
        ),
        HARD_PASS_BY_BOUND: difficulty_rates(table(HARD_PASS_BY_BOUND), share="bound_share"),
        HARD_PASS_BY_NEED: difficulty_rates(table(HARD_PASS_BY_NEED), share="need_share"),
    }
    return [io.write_bytes(out_dir / name, figure_png(figure)) for name, figure in figures.items()]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--record-only"]:  # after `make docs-figures` took the report's screenshot
        print(record([REPORT_INDEX], PROJECT_ROOT / "docs"))
        return 0
    if args:  # one study folder, drawn where asked; nothing recorded
        out_dir = Path(args[1]) if len(args) > 1 else PROJECT_ROOT / "docs"
        prefix = args[2] if len(args) > 2 else REFERENCE_PREFIX
        for path in write_docs_figures(Path(args[0]), out_dir, prefix):
            print(path)
        return 0
    out_dir = PROJECT_ROOT / "docs"  # every committed picture, each recorded with its data's version
    written = [
        path
        for prefix, folder in COMMITTED_STUDIES.items()
        for path in write_docs_figures(folder, out_dir, prefix)
    ]
    written += write_learned_figures(out_dir) + write_hard_tier_figures(out_dir)
    for path in written:
        print(path)
    print(record([path.name for path in written], out_dir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
