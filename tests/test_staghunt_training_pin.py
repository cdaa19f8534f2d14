"""Training results are pinned: short runs of the training loop, recorded once, must come out the same.

The fixture `tests/fixtures/staghunt/training_pin.json` was recorded when the learner was settled (dense
autograd updates, issue 20 step 1); refactors of the engine, the loop or the learner must reproduce it
(counts exactly, floats to 1e-5 relative), so the reference study's numbers stay reproducible from the code.
Re-record only for a deliberate change of the results, and say so in the commit:
`python tests/test_staghunt_training_pin.py --record`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "staghunt" / "training_pin.json"
EPOCHS = 60
COUNTS = ("epoch", "stags_killed", "hares_killed", "updates")
FLOATS = ("epsilon", "mean_return", "mean_loss")


def _cases() -> dict[str, object]:
    from cogames_lib.staghunt.learner import DQNConfig
    from cogames_lib.staghunt.train import preset
    from cogames_lib.staghunt.world_config import world_config

    tiny = DQNConfig(hidden_sizes=(16,), batch_size=16, learning_starts=50, buffer_size=2_000, n_step=3,
                     replay_ratio=1.0, target_update_every=10)  # fmt: skip
    return {
        "sorrel_e3": preset("all_can_hunt", world="sorrel_e3", learner=tiny, worlds=4, epsilon_decay_epochs=20,
                            env=world_config("sorrel_e3", max_turns=12)),
        "default_world_two_worlds": preset("not_all_can_hunt", learner=tiny, worlds=2, epsilon_decay_epochs=20,
                                           env=world_config("default", max_turns=12)),
    }  # fmt: skip


def _record(config: object) -> dict:
    from cogames_lib.staghunt.train import train

    result = train(config, EPOCHS, probe_every=EPOCHS, seed=5, progress=False)  # type: ignore[arg-type]
    final = result.intention[result.intention["epoch"] == EPOCHS]
    return {
        "training": {name: result.training[name].tolist() for name in COUNTS + FLOATS},
        "parameter_sums": [float(p.detach().abs().sum()) for p in result.population.network.parameters()],
        "final_probe_q_values": final[[c for c in final.columns if c.startswith("q_val_")]]
        .to_numpy()
        .tolist(),
        "final_multistep_results": result.multistep[result.multistep["epoch"] == EPOCHS]["result"].tolist(),
    }


@pytest.mark.parametrize("name", ["sorrel_e3", "default_world_two_worlds"])
def test_training_reproduces_the_pinned_trajectory(name: str) -> None:
    expected = json.loads(FIXTURE.read_text())[name]
    got = _record(_cases()[name])
    for column in COUNTS:
        assert got["training"][column] == expected["training"][column], column
    for column in FLOATS:
        np.testing.assert_allclose(
            got["training"][column], expected["training"][column], rtol=1e-5, atol=1e-7
        )
    np.testing.assert_allclose(got["parameter_sums"], expected["parameter_sums"], rtol=1e-5)
    np.testing.assert_allclose(
        got["final_probe_q_values"], expected["final_probe_q_values"], rtol=1e-5, atol=1e-6
    )
    assert got["final_multistep_results"] == expected["final_multistep_results"]
    assert sum(got["training"]["updates"]) > 0


if __name__ == "__main__" and "--record" in sys.argv:
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(
        json.dumps({name: _record(config) for name, config in _cases().items()}) + "\n"
    )
    print(f"wrote {FIXTURE}")
