"""The one engine: hand-built scenarios for every rule (attack shapes, the stag kill, payouts, healing, the
wounded channel, the crop, spawns, turn order), and once against the recorded trajectories of the
one-world engine it replaced (`tests/fixtures/staghunt/old_engine_trajectories.npz`, recorded with that
engine of commit 90b9339 by `tests/fixtures/staghunt/record_old_engine.py` as of commit 879db5b, deleted
since: it imports the old engine)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from staghunt_scenario import Scenario

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.engine import StagHuntEngine, observation_size
from cogames_lib.staghunt.maps import random_map
from cogames_lib.staghunt.rules import CHANNEL_INDEX, HARE, PRESET_POPULATIONS, STAG, Action
from cogames_lib.staghunt.world_config import StagHuntConfig, world_config

NORTH, EAST, SOUTH, WEST = range(4)
A, F, B, L, R = Action.ATTACK, Action.FORWARD, Action.BACKWARD, Action.STEP_LEFT, Action.STEP_RIGHT
SIDE = 9  # 9x9 crop; channel c of crop cell (dr, dc) relative to the agent is index c*81 + (4+dr)*9 + (4+dc)
# Stag at (2,3), hare at (4,3); agents at (1,3) facing S and (3,3) facing N both have the stag in range.
ARENA = "WWWWWWW\nW     W\nW  1  W\nW     W\nW  2  W\nW     W\nWWWWWWW\n"
# Agent at (5,5) facing North. Area cells: rows 5,4,3 x cols 4,5,6. A wall at (4,5) sits between the
# agent and a hare at (3,5); a stag at (5,4) is beside the agent; a hare at (3,6) is ahead-right.
AREA_MAP = "\n".join(["WWWWWWWWW", "W       W", "W       W", "W    22 W", "W    W  W", "W   1   W", "W       W", "W       W", "WWWWWWWWW"])  # fmt: skip
FIXTURE = Path(__file__).parent / "fixtures" / "staghunt" / "old_engine_trajectories.npz"


def crop_index(channel: str, d_row: int, d_col: int) -> int:
    return CHANNEL_INDEX[channel] * SIDE * SIDE + (4 + d_row) * SIDE + (4 + d_col)


# --- the stag kill, healing, abilities, hares -------------------------------------------------------------


def test_lone_agent_cannot_kill_a_stag_even_hitting_every_turn() -> None:
    world = Scenario(ARENA, [(1, 3)], [SOUTH])
    for _ in range(6):
        turn = world.step([A], [0])
        assert turn.kills["stag"] == 0 and turn.rewards[0] == 0 and turn.attack_targets[0] == "stag"
    assert world.resources[2, 3] == STAG.code and world.health[2, 3] == STAG.health


def test_two_hunters_in_the_same_turn_kill_the_stag_and_share_the_reward() -> None:
    world = Scenario(ARENA, [(1, 3), (3, 3)], [SOUTH, NORTH])
    turn = world.step([A, A], [1, 0])
    assert turn.kills["stag"] == 1 and turn.rewards.tolist() == [STAG.reward / 2, STAG.reward / 2]
    assert world.resources[2, 3] == 0


def test_hits_in_consecutive_turns_by_two_agents_do_not_kill() -> None:
    world = Scenario(ARENA, [(1, 3), (3, 3)], [SOUTH, NORTH])
    world.step([A, None], [0, 1])
    assert world.observe(1)[crop_index("wounded_stag", -1, 0)] == 1.0  # the partner sees it wounded...
    assert world.step([None, A], [0, 1]).kills["stag"] == 0  # ...but it healed before this hit


def test_agent_that_cannot_hunt_does_nothing_to_a_stag() -> None:
    world = Scenario(ARENA, [(1, 3), (3, 3)], [SOUTH, NORTH], can_hunt=[True, False])
    turn = world.step([A, A], [0, 1])
    assert turn.kills["stag"] == 0 and turn.rewards.sum() == 0
    assert turn.attack_targets == ["stag", "stag"]  # the beam still covers it (the probe counts that)


def test_hare_dies_from_one_hit_and_pays_the_hitter() -> None:
    world = Scenario(ARENA, [(5, 3)], [NORTH])
    turn = world.step([A], [0])
    assert turn.kills["hare"] == 1 and turn.rewards[0] == HARE.reward and world.resources[4, 3] == 0


def test_stag_reward_is_split_among_the_agents_that_damaged_it_since_it_last_healed() -> None:
    text = "WWWWWWW\nW     W\nW  1  W\nW     W\nW     W\nWWWWWWW"
    world = Scenario(text, [(1, 3), (3, 3), (2, 2)], [SOUTH, NORTH, EAST])
    world.step([A, None, None], [0, 1, 2])  # agent 0 hits alone: the stag heals at the turn's end
    assert world.step([None, A, A], [0, 1, 2]).rewards.tolist() == [0.0, 50.0, 50.0]
    world = Scenario(text, [(1, 3), (3, 3), (2, 2)], [SOUTH, NORTH, EAST], attack_shape="area")
    turn = world.step([A, A, A], [2, 0, 1])  # the first two kill it; the third finds nothing
    assert turn.kills["stag"] == 1 and turn.rewards.tolist() == [50.0, 0.0, 50.0]


# --- attack shapes ---------------------------------------------------------------------------------------


def test_line_attack_reaches_two_cells_and_walls_stop_it() -> None:
    world = Scenario(ARENA.replace("2", " "), [(5, 3)], [NORTH])
    assert world.step([A], [0]).attack_targets[0] is None  # the stag is 3 cells away
    world = Scenario(ARENA, [(1, 1)], [NORTH])
    world.step([A], [0])
    assert not world.beam.any()


def test_area_attack_hits_the_3x3_block_and_skips_walls_while_a_line_stops_at_them() -> None:
    area = Scenario(AREA_MAP, [(5, 5)], [NORTH], attack_shape="area")
    turn = area.step([A], [0])
    assert turn.kills["hare"] == 2  # (3,5) behind the wall and (3,6) ahead-right
    assert area.health[5, 4] == STAG.health  # the stag beside it was hit (1 damage) and healed at turn end
    assert turn.attack_targets[0] == "stag"  # the nearest resource names the target
    assert area.beam[0][5, 4] and area.beam[0][5, 5] and not area.beam[0][4, 5]  # own row lit, wall skipped
    line = Scenario(AREA_MAP, [(5, 5)], [NORTH], attack_shape="line")
    turn = line.step([A], [0])
    assert turn.kills["hare"] == 0 and turn.attack_targets[0] is None  # the wall stops the beam


def test_area_attack_near_the_border_stays_inside_the_grid() -> None:
    world = Scenario(AREA_MAP, [(1, 1)], [NORTH], attack_shape="area")
    world.step([A], [0])  # forward offsets reach row -1: skipped, no wrap-around
    assert world.beam[0][1, 2] and not world.beam[0][-1].any()


# --- moves and turn order --------------------------------------------------------------------------------


def test_moves_are_intuitive_and_turn_the_agent() -> None:
    world = Scenario(ARENA, [(3, 1)], [NORTH])
    world.step([R], [0])  # own right of north is east
    assert tuple(world.positions[0]) == (3, 2) and world.orientations[0] == EAST
    world.step([L], [0])  # own left of east is north
    assert tuple(world.positions[0]) == (2, 2) and world.orientations[0] == NORTH
    world.step([B], [0])  # backward goes south and faces south
    assert tuple(world.positions[0]) == (3, 2) and world.orientations[0] == SOUTH


def test_blocked_moves_do_nothing() -> None:
    world = Scenario(ARENA, [(1, 3), (3, 3)], [SOUTH, WEST])
    world.step([F, R], [0, 1])  # into the stag; own right of west is north: the stag again
    assert tuple(world.positions[0]) == (1, 3) and world.orientations[0] == SOUTH
    assert tuple(world.positions[1]) == (3, 3) and world.orientations[1] == WEST
    world = Scenario(ARENA, [(1, 1)], [NORTH])
    world.step([F], [0])
    assert tuple(world.positions[0]) == (1, 1)


def test_turn_order_decides_who_takes_a_contested_cell() -> None:
    text = "WWWWW\nW   W\nW   W\nW   W\nWWWWW"
    for order, winner in (([0, 1], 0), ([1, 0], 1)):  # both step into (2,2): the first mover gets it
        world = Scenario(text, [(2, 1), (2, 3)], [EAST, WEST])
        world.step([F, F], order)
        assert tuple(world.positions[winner]) == (2, 2)
        assert tuple(world.positions[1 - winner]) == ((2, 1), (2, 3))[1 - winner]


def test_turn_orders_are_seeded_permutations_per_world() -> None:
    engine = StagHuntEngine(PRESET_POPULATIONS["all_can_hunt"], StagHuntConfig(), 200, seed=4)
    orders = engine.begin_turn()
    assert (np.sort(orders, axis=1) == np.arange(3)).all() and len({tuple(o) for o in orders}) == 6
    again = StagHuntEngine(PRESET_POPULATIONS["all_can_hunt"], StagHuntConfig(), 200, seed=4).begin_turn()
    assert (orders == again).all()


# --- observations: crop, wounded channel, beams, position code ----------------------------------------------


def test_observation_is_an_allocentric_crop_with_true_orientations() -> None:
    world = Scenario(ARENA, [(1, 3), (3, 3)], [EAST, WEST])
    obs = world.observe_all()
    assert obs.shape == (2, observation_size()) and obs.dtype == np.float32
    grid = obs[0, :-6].reshape(-1, 9, 9)
    assert grid[CHANNEL_INDEX["AgentKindA_east"], 4, 4] == 1  # self in the centre
    assert grid[CHANNEL_INDEX["AgentKindA_west"], 6, 4] == 1  # partner two rows south, not rotated
    assert grid[CHANNEL_INDEX["stag"], 5, 4] == 1
    assert grid[CHANNEL_INDEX["wall"], 0:4, :].all()  # above the top wall row the crop is padded with wall
    assert (grid.sum(axis=0)[:, :] >= 1).all()  # every crop cell has a channel
    assert obs[0, -6 + EAST] == 1 and obs[0, -2] == 1


@pytest.mark.parametrize("timing", ["turn_start", "before_act"])
def test_before_act_observation_shows_damage_dealt_earlier_in_the_same_turn(timing: str) -> None:
    world = Scenario(ARENA, [(1, 3), (3, 3)], [SOUTH, NORTH], observation_timing=timing)
    at_turn_start = world.observe_all()
    seen: dict[int, np.ndarray] = {}

    def choose(index: int, obs: np.ndarray) -> int:
        seen[index] = obs if timing == "before_act" else at_turn_start[index]
        return int(A)

    turn = world.step([], [0, 1], choose)
    wounded = seen[1][crop_index("wounded_stag", -1, 0)]
    assert wounded == (1.0 if timing == "before_act" else 0.0)
    assert seen[1][crop_index("stag", -1, 0)] == 1.0 - wounded
    assert turn.kills["stag"] == 1 and turn.rewards.tolist() == [50.0, 50.0]


def test_turn_start_wounded_channel_shows_last_turns_hits_and_can_be_turned_off() -> None:
    for channel_on in (True, False):
        world = Scenario(ARENA, [(1, 3)], [SOUTH], wounded_stag_channel=channel_on)
        world.step([A], [0])  # a lone hit: the stag heals at the turn's end but is shown wounded
        obs = world.observe(0)
        assert obs[crop_index("wounded_stag", 1, 0)] == float(channel_on)
        assert obs[crop_index("stag", 1, 0)] == float(not channel_on)


@pytest.mark.parametrize("timing", ["turn_start", "before_act"])
def test_a_beam_stays_until_its_attacker_acts_again(timing: str) -> None:
    world = Scenario(ARENA, [(1, 3), (5, 3)], [SOUTH, NORTH], observation_timing=timing)
    world.step([A, F], [0, 1])
    assert world.observe(1)[crop_index("attack_beam", -3, 0)] == 1.0  # agent 0's beam at (2,3), from (5,3)
    world.step([F, F], [1, 0])  # agent 1 acts first and still sees it; then agent 0 acts and it goes
    assert not world.beam[0].any()


def test_position_embedding_appends_the_sinusoidal_code_of_the_cell() -> None:
    world = Scenario(ARENA, [(1, 3)], [SOUTH], position_embedding=True)
    obs = world.observe(0)
    assert len(obs) == observation_size(4, position_embedding=True) == observation_size(4) + 12
    expected = []
    for value in (1, 3):  # row 1, col 3 of a 7x7 map
        for frequency in (1, 2, 4):
            angle = 2 * np.pi * frequency * value / 7
            expected += [np.sin(angle), np.cos(angle)]
    np.testing.assert_allclose(obs[-12:], expected, rtol=1e-6)


# --- payouts ---------------------------------------------------------------------------------------------


def test_next_act_payout_arrives_when_the_recipient_next_acts_and_at_the_episode_end() -> None:
    world = Scenario(ARENA, [(1, 3), (3, 3)], [SOUTH, NORTH], payout_timing="next_act")
    turn = world.step([A, A], [0, 1])
    assert turn.kills["stag"] == 1 and turn.rewards.tolist() == [0.0, 0.0]
    assert world.step([None, F], [0, 1]).rewards.tolist() == [0.0, 50.0]  # agent 0 did not act: not yet
    assert world.step([F, None], [0, 1]).rewards.tolist() == [50.0, 0.0]
    # A kill in an episode's last turn is paid into that turn (nothing crosses into the next episode).
    world = Scenario(ARENA, [(1, 3), (3, 3)], [SOUTH, NORTH], payout_timing="next_act", max_turns=1)
    turn = world.step([A, A], [0, 1])
    assert world.ended and turn.rewards.tolist() == [50.0, 50.0]


# --- episodes: spawns, orientations, lengths, maps ----------------------------------------------------------


def test_spawns_are_distinct_free_cells_and_sorrel_e3_starts_facing_west_with_uniform_lengths() -> None:
    engine = StagHuntEngine(PRESET_POPULATIONS["all_can_hunt"], world_config("sorrel_e3"), 300, seed=3)
    engine.reset_worlds(np.arange(300))
    assert (engine.orientations == WEST).all()
    for world in range(300):
        cells = {tuple(cell) for cell in engine.positions[world]}
        assert len(cells) == 3
        for row, col in cells:
            assert not engine.walls[row, col] and engine.resources[world, row, col] == 0
            assert engine.agent_at[world, row, col] >= 0
    assert engine.max_turns.min() >= 1 and engine.max_turns.max() <= 50 and len(set(engine.max_turns)) > 30
    fixed = StagHuntEngine(PRESET_POPULATIONS["all_can_hunt"], StagHuntConfig(), 50, seed=3)
    fixed.reset_worlds(np.arange(50))
    assert set(fixed.max_turns) == {50} and len(set(fixed.orientations.ravel())) == 4
    engine.begin_turn()
    assert set(engine.end_turn()) == set(np.flatnonzero(engine.max_turns == 1))


def test_a_fixed_map_spawns_agents_on_its_spawn_cells(tmp_path: Path) -> None:
    path = tmp_path / "spawns.txt"
    path.write_text("WWWWWW\nWA  AW\nW a  W\nWA 1 W\nWWWWWW\n")
    engine = StagHuntEngine(
        PRESET_POPULATIONS["all_can_hunt"], StagHuntConfig(map_path=str(path)), 20, seed=0
    )
    engine.reset_worlds(np.arange(20))
    spawns = {(1, 1), (1, 4), (3, 1)}
    assert all({tuple(cell) for cell in engine.positions[world]} == spawns for world in range(20))
    assert set(engine.resources[:, 2, 2]) == {STAG.code, HARE.code}  # the random cell draws per episode


def test_load_state_rejects_agents_on_occupied_cells_and_bad_orientations() -> None:
    with pytest.raises(ParameterError, match="cannot start"):
        Scenario(ARENA, [(2, 3)], [NORTH])  # on the stag
    with pytest.raises(ParameterError, match="orientations"):
        Scenario(ARENA, [(1, 1)], [4])


def test_sorrel_densities_give_the_expected_map_statistics() -> None:
    rng = np.random.default_rng(0)
    config = world_config("sorrel_e3")
    maps = [
        random_map(rng, config.size, config.resource_density, config.stag_probability) for _ in range(300)
    ]
    interior = np.concatenate([grid.resources[1:-1, 1:-1].ravel() for grid in maps])
    present = interior != 0
    assert abs(present.mean() - 0.15) < 0.01 and abs((interior[present] == STAG.code).mean() - 0.5) < 0.03
    engine = StagHuntEngine(PRESET_POPULATIONS["all_can_hunt"], config, 300, seed=0)
    engine.reset_worlds(np.arange(300))
    present = engine.resources[:, 1:-1, 1:-1] != 0
    assert abs(present.mean() - 0.15) < 0.01
    assert abs((engine.resources[:, 1:-1, 1:-1][present] == STAG.code).mean() - 0.5) < 0.03


# --- once: the one-world engine's recorded trajectories --------------------------------------------------

OPTION_SETS = {
    "default": {},
    "sorrel_e3": {"world": "sorrel_e3"},
    "area_turn_start": {"attack_shape": "area"},
    "line_before_act_next_act": {"observation_timing": "before_act", "payout_timing": "next_act"},
    "no_wounded_channel": {"world": "sorrel_e3", "wounded_stag_channel": False},
    "embedding_random_start": {"position_embedding": True, "attack_range": 3, "stag_probability": 0.6},
}
TARGETS = {0: 0, STAG.code: 1, HARE.code: 2}  # the fixture's codes: none, stag, hare


def _digest(row: np.ndarray) -> int:
    raw = hashlib.blake2b(np.ascontiguousarray(row, np.float32).tobytes(), digest_size=8).digest()
    return int.from_bytes(raw, "little") >> 1


@pytest.mark.parametrize("name", sorted(OPTION_SETS))
@pytest.mark.parametrize("condition", ["all_can_hunt", "not_all_can_hunt"])
def test_the_engine_replays_the_one_world_engines_recorded_trajectories(name: str, condition: str) -> None:
    data = np.load(FIXTURE)
    key = f"{name}/{condition}"
    options = {"resource_density": 0.3, "stag_probability": 0.7, **OPTION_SETS[name]}
    orders, actions = data[f"{key}/orders"].astype(np.int64), data[f"{key}/actions"].astype(np.int64)
    worlds, turns = orders.shape[:2]
    config = world_config(options.pop("world", "default"), episode_length="fixed", max_turns=turns, **options)
    engine = StagHuntEngine(PRESET_POPULATIONS[condition], config, worlds, seed=0)
    for world in range(worlds):
        engine.load_state(world, data[f"{key}/initial_resources"][world], data[f"{key}/initial_positions"][world],
                          data[f"{key}/initial_orientations"][world], max_turns=turns)  # fmt: skip
    every = np.arange(worlds)
    for turn in range(turns):
        seen = np.zeros((worlds, 3), dtype=np.int64)
        if not engine.before_act:
            seen[:] = np.array([_digest(row) for row in engine.observe_dense()]).reshape(worlds, 3)
        engine.begin_turn(order=orders[:, turn])
        targets = np.zeros((worlds, 3), dtype=np.int64)
        for slot in range(3):
            agents = orders[:, turn, slot]
            if engine.before_act:
                seen[every, agents] = [_digest(row) for row in engine.observe_dense(agents)]
            codes = engine.act(agents, actions[every, turn, agents])
            targets[every, agents] = [TARGETS[int(code)] for code in codes]
        engine.end_turn()
        assert (seen == data[f"{key}/observations"][:, turn]).all(), f"turn {turn}: observations"
        np.testing.assert_allclose(engine.rewards, data[f"{key}/rewards"][:, turn], err_msg=f"turn {turn}")
        kills = engine.kills[:, [STAG.code, HARE.code]]
        assert (kills == data[f"{key}/kills"][:, turn]).all(), f"turn {turn}: kills"
        for field in ("targets", "positions", "orientations", "resources", "health"):
            ours = targets if field == "targets" else getattr(engine, field)
            assert (ours == data[f"{key}/{field}"][:, turn]).all(), f"turn {turn}: {field}"
