"""Checkpoint sizes of probe training per `--checkpoints` mode (bytes per file), and the float16 alternative.

One run per mode, same seed, so every mode saves the same networks. Also prints how far float16 rounding of
the online networks would move the intention weights (the reason probe checkpoints stay float32).
Usage: python benchmarks/staghunt_checkpoint_size.py [--epochs N]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np

from cogames_lib.staghunt import preset, run_intention_probe, run_multistep_probe, train
from cogames_lib.staghunt.checkpoints import checkpoint_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=300)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; not_all_can_hunt, seed 1, {args.epochs} epochs")
    with tempfile.TemporaryDirectory() as folder:
        for mode in ("last", "all"):
            config = preset("not_all_can_hunt", checkpoints=mode)
            result = train(
                config, args.epochs, probe_every=0, seed=1, out_dir=Path(folder) / mode, progress=False
            )
            size = checkpoint_path(result.run_dir, args.epochs).stat().st_size
            print(f"{mode:>5}: {size / 1e6:.2f} MB per checkpoint")
    population, agents = result.population, config.agents
    live = run_intention_probe(population.members, 0, agents)
    live_steps = run_multistep_probe(population.members, 0, agents)
    state = population.network.state_dict()
    population.network.load_state_dict({name: value.half().float() for name, value in state.items()})
    rounded = run_intention_probe(population.members, 0, agents)
    rounded_steps = run_multistep_probe(population.members, 0, agents)
    moved = np.abs(live["weight_facing_stag"] - rounded["weight_facing_stag"]).max()
    same = (live_steps["result"].to_numpy() == rounded_steps["result"].to_numpy()).all()
    print(f"float16 networks: intention weights move by up to {moved:.1e}; multi-step results equal: {same}")


if __name__ == "__main__":
    main()
