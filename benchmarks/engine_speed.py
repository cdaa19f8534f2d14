"""Engine speed: env-steps/s with uniformly random actions, observations built for every agent every step.

One process. Usage: python benchmarks/engine_speed.py [--steps N]
Targets (issue 2) on the 2-core reference machine, extract_lab: >= 50,000 (1 agent), >= 35,000 (2), >= 20,000 (4).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from cogames_lib.cvc import CogsVsClipsEnv, rules

MAPS = Path(__file__).resolve().parent.parent / "cogames_lib" / "maps" / "diagnostics"
CASES = [("extract_lab", "diagnostic_extract_lab.map"), ("radial", "diagnostic_radial.map")]
TARGETS = {("extract_lab", 1): 50_000, ("extract_lab", 2): 35_000, ("extract_lab", 4): 20_000}


def measure(map_file: str, num_agents: int, steps: int, seed: int = 0) -> float:
    env = CogsVsClipsEnv(MAPS / map_file, num_agents=num_agents, max_steps=10**9)
    rng = np.random.default_rng(seed)
    actions = rng.integers(0, len(rules.ACTIONS), size=(steps, num_agents)).tolist()
    names = env.possible_agents
    env.reset(seed=seed)
    start = time.perf_counter()
    for row in actions:
        env.step(dict(zip(names, row, strict=True)))
        if not env.agents:  # a random walk that deposits a heart ends the episode: start another
            env.reset(seed=seed)
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000)
    args = parser.parse_args()
    print(f"{'map':<12} {'agents':>6} {'env-steps/s':>12} {'target':>8}  ok")
    for label, map_file in CASES:
        for num_agents in (1, 2, 4):
            best = max(measure(map_file, num_agents, args.steps, seed) for seed in range(3))
            target = TARGETS.get((label, num_agents))
            verdict = "-" if target is None else ("yes" if best >= target else "NO")
            print(f"{label:<12} {num_agents:>6} {best:>12,.0f} {target or '':>8}  {verdict}")


if __name__ == "__main__":
    main()
