"""Training speed of today's rollout helpers against a git revision's, alternating update by update in one process.

Run: `python benchmarks/learn_interleaved.py [--base 24d1d38] [--updates 100] [--repeats 3]` (in a clone: it
reads the base revision with git; the default base is the code before these helpers were compiled).

The machine's rate drifts by a quarter between runs, more than a change of a few percent, so the two versions
share one trainer and take turns: even updates run with the base revision's `grid_features`, `self_features`
and `Shaper` (loaded from `git show BASE:cogames_lib/policies/learned.py` and `.../learn/curriculum.py`),
odd updates with today's, after two untimed updates of each (the base's kernels compile in a fresh
folder). Both must compute the same bits (the tests pin that), so the updates are the same
work whichever version runs them. Prints agent-steps/s of each and their ratio per repeat.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import cogames_lib.learn.curriculum as curriculum_now
import cogames_lib.learn.ppo as ppo
import cogames_lib.policies.learned as learned_now

WARMUP_STEPS = 200_000  # past the first builds of every world's maps and numba's cache loads


def _module_at(revision: str, path: str, name: str, folder: Path) -> ModuleType:
    source = subprocess.run(
        ["git", "show", f"{revision}:{path}"], check=True, capture_output=True, text=True
    ).stdout
    file = folder / f"{name}.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="24d1d38", help="git revision to compare against")
    parser.add_argument("--updates", type=int, default=100, help="updates per repeat (half each version)")
    parser.add_argument("--repeats", type=int, default=1, help="fresh trainers, one after another")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        learned_base = _module_at(args.base, "cogames_lib/policies/learned.py", "learned_base", Path(folder))
        curriculum_base = _module_at(
            args.base, "cogames_lib/learn/curriculum.py", "curriculum_base", Path(folder)
        )
        versions = {
            "base": (learned_base.grid_features, learned_base.self_features, curriculum_base.Shaper),
            "now": (learned_now.grid_features, learned_now.self_features, curriculum_now.Shaper),
        }
        for repeat in range(args.repeats):
            trainer = ppo.SeedTrainer(ppo.PPOConfig(total_steps=10**12), seed=1)
            while trainer.steps < WARMUP_STEPS:
                trainer.update()
            for name in (
                "base",
                "now",
                "base",
                "now",
            ):  # untimed: each version's kernels compile or load here
                ppo.grid_features, ppo.self_features, trainer.shaper.__class__ = versions[name]
                trainer.update()
            seconds = dict.fromkeys(versions, 0.0)
            steps = dict.fromkeys(versions, 0)
            for update in range(args.updates):
                name = "base" if update % 2 == 0 else "now"
                ppo.grid_features, ppo.self_features, trainer.shaper.__class__ = versions[name]
                before_steps, before_seconds = trainer.steps, trainer.seconds
                trainer.update()
                seconds[name] += trainer.seconds - before_seconds
                steps[name] += trainer.steps - before_steps
            rates = {name: steps[name] / seconds[name] for name in versions}
            print(
                f"{time.strftime('%H:%M:%S')} repeat {repeat + 1}: base {rates['base']:,.0f}, "
                f"now {rates['now']:,.0f} agent-steps/s; now / base {rates['now'] / rates['base']:.3f}"
            )
            trainer.close()


if __name__ == "__main__":
    main()
