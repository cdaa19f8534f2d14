"""Write `data/cvc_tiers/`'s tables from a tier sweep's output folder.

Run the tier sweep (docs/cvc_variants.md, "The tier sweep"), then
`python benchmarks/cvc_tier_tables.py OUT [OUT2 ...] data/cvc_tiers` and `make docs-figures` (which draws the
difficulty figures from these tables and records their data version)
(several folders: the same sweep seed and seeds, a different policy set in each; their episodes are joined):
- `pass_rates.csv`: `summarise(episodes, by=[tier, policy, num_agents])` (Wilson 95% intervals);
- `scripted_failures.csv`: scripted's failed episodes;
- `hard_instances.csv`: `sweep.instances.instances_frame(OUT)` (each hard episode's bound / budget and a
  searcher's certified need / budget);
- `difficulty.csv`: `sweep.difficulty.difficulty_table(episodes, instances)` (bins of bound / budget);
- `difficulty_need.csv`: the same by bins of the searcher's need (`share="need_share"`);
- `sweep.json`: what ran (each folder's policies, sweep seed, seed count, code version and start time, from
  its manifest). The folders must share the sweep seed, the seeds and the diagnostics.
Rates are rounded to 4 places; every file is written atomically.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from cogames_lib import io, outdir
from cogames_lib.sweep.difficulty import DIFFICULTY_COLUMNS, difficulty_table
from cogames_lib.sweep.instances import INSTANCE_COLUMNS, instances_frame
from cogames_lib.sweep.summary import summarise

PASS_COLUMNS = ["tier", "policy", "num_agents", "n", "successes", "rate", "ci_low", "ci_high", "timed_out",
                "run_errors"]  # fmt: skip
FAILURE_COLUMNS = ["diagnostic", "num_agents", "seed", "episode_seed", "status", "steps", "max_steps"]
RATES = ["rate", "ci_low", "ci_high"]
POLICY_ORDER = ["scripted", "oracle", "random"]  # the tables' column order: the baseline, its ceiling, chance


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "out", type=Path, nargs="+", help="the tier sweep's output folder(s), one per policy set"
    )
    parser.add_argument("dest", type=Path, help="where the tables go (data/cvc_tiers)")
    args = parser.parse_args()
    parts = [(pd.read_parquet(out / "episodes.parquet"), instances_frame(out)) for out in args.out]
    seen: set[str] = set()
    for out, (part, _) in zip(args.out, parts, strict=True):
        twice = seen & set(part.policy)
        if twice:
            parser.error(f"{out}: policy {sorted(twice)} also in an earlier folder (it would count twice)")
        seen |= set(part.policy)
    runs = []
    for out in args.out:
        manifest = outdir.read_manifest(out) or {}
        parameters = manifest.get("parameters") or {}
        runs.append(
            {
                "folder": out.name,
                "policies": parameters.get("policies"),
                "sweep_seed": parameters.get("sweep_seed"),
                "seeds": len(parameters.get("seeds") or []),
                "agent_counts": parameters.get("agent_counts"),
                "diagnostics": len(parameters.get("diagnostics") or []),
                "code_version": manifest.get("code_version"),
                "created": manifest.get("created"),
            }
        )
    for key in ("sweep_seed", "seeds", "agent_counts", "diagnostics"):
        if len({str(run[key]) for run in runs}) > 1:
            parser.error(
                f"the folders differ in {key}: {[run[key] for run in runs]} (one tier sweep, please)"
            )
    episodes = pd.concat([part for part, _ in parts], ignore_index=True)
    instances = pd.concat([rows for _, rows in parts], ignore_index=True)
    passes = summarise(episodes, by=["tier", "policy", "num_agents"])[PASS_COLUMNS]
    failures = episodes[(episodes.policy == "scripted") & ~episodes.success.astype(bool)][FAILURE_COLUMNS]
    hard = instances[list(INSTANCE_COLUMNS)].round({"bound_share": 4, "need_share": 4})
    order = sorted(seen, key=lambda p: (POLICY_ORDER.index(p) if p in POLICY_ORDER else len(POLICY_ORDER), p))
    difficulty = difficulty_table(episodes, instances, policies=order)[list(DIFFICULTY_COLUMNS)]
    need = difficulty_table(episodes, instances, policies=order, share="need_share")[list(DIFFICULTY_COLUMNS)]
    for name, frame in (("pass_rates", passes), ("scripted_failures", failures), ("hard_instances", hard),
                        ("difficulty", difficulty), ("difficulty_need", need)):  # fmt: skip
        rounded = frame.round({column: 4 for column in RATES if column in frame.columns})
        io.write_with(args.dest / f"{name}.csv", lambda path, f=rounded: f.to_csv(path, index=False))
    record = {"episodes": len(episodes), "sweep_seed": runs[0]["sweep_seed"], "runs": runs}
    io.write_json(args.dest / "sweep.json", record, inline_depth=2)
    print(passes.to_string(index=False))
    print(f"{len(failures)} scripted failures of {len(episodes)} episodes")


if __name__ == "__main__":
    main()
