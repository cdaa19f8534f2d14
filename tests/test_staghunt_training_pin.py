"""Training results are pinned: short runs of the training loop, recorded once, must come out the same.

The fixture `tests/fixtures/staghunt/training_pin.json` was recorded when the learner was settled (dense
autograd updates, issue 20 step 1); refactors of the engine, the loop or the learner must reproduce it
(counts exactly, floats to 1e-5 relative), so the reference study's numbers stay reproducible from the code.
The `sorrel_e3` case is unchanged since then; the default-world case was re-recorded once, when turn-start
observers began to see the last turn's beams (the loop had cleared them before observing; commit 879db5b).
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
    """The training rows, the final networks (parameter sums and Q-values on fixed observations), and the
    sorrel probe suite's Q-values and multi-step outcomes of the final agents, keyed by case."""
    from cogames_lib.staghunt.maps import INTENTION_MAP_NAMES
    from cogames_lib.staghunt.probes import load_probe_suite, run_intention_probe, run_multistep_probe
    from cogames_lib.staghunt.train import probe_settings_for, train

    result = train(config, EPOCHS, probe_every=0, seed=5, progress=False)  # type: ignore[arg-type]
    members = result.population.members
    observations = np.random.default_rng(0).integers(0, 2, size=(4, members[0].population.observation_size))
    suite = load_probe_suite(probe_settings_for(config))  # type: ignore[arg-type]
    population = config.agents  # type: ignore[attr-defined]
    intention = run_intention_probe(members, EPOCHS, population, suite)
    intention = intention[intention["map_name"].isin(INTENTION_MAP_NAMES)]
    keys = ["agent_id", "map_name", "partner_kind", "version"]
    q_columns = [f"q_val_{name}" for name in ("forward", "backward", "step_left", "step_right", "attack")]
    multistep = run_multistep_probe(members, EPOCHS, population, suite)
    return {
        "training": {name: result.training[name].tolist() for name in COUNTS + FLOATS},
        "parameter_sums": [float(p.detach().abs().sum()) for p in result.population.network.parameters()],
        "q_values": [member.q_values(observations.astype(np.float32)[i]).tolist() for i, member in enumerate(members)],
        "probe_q_values": {"|".join(str(v) for v in row[keys]): row[q_columns].tolist() for _, row in intention.iterrows()},
        "multistep": {f"{row.agent_id}|{row.partner_kind}": [row.first_attack_target, int(row.turn_of_first_attack)]
                      for row in multistep.itertuples()},
    }  # fmt: skip


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
    np.testing.assert_allclose(got["q_values"], expected["q_values"], rtol=1e-5, atol=1e-6)
    assert sorted(got["probe_q_values"]) == sorted(expected["probe_q_values"])
    for key, values in expected["probe_q_values"].items():
        np.testing.assert_allclose(got["probe_q_values"][key], values, rtol=1e-5, atol=1e-6, err_msg=key)
    assert got["multistep"] == expected["multistep"]
    assert sum(got["training"]["updates"]) > 0


if __name__ == "__main__" and "--record" in sys.argv:
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps({name: _record(config) for name, config in _cases().items()}) + "\n")
    print(f"wrote {FIXTURE}")
