"""Each rule of spec/cogs_vs_clips.md "Rules" as a small scenario on a hand-written map."""

from __future__ import annotations

import pytest

from cogames_lib.cvc import EnvConfig, ExtractorOverride, rules
from tests.cvc_helpers import Scenario

NO_REFILL = {"energy_refill": False}


# -- moves -----------------------------------------------------------------------------------------
def test_move_costs_two_energy_and_moves() -> None:
    s = Scenario(["#####", "#a..#", "#..=#", "#####"], EnvConfig(energy_refill=False, initial_energy=10))
    assert s.act(a="move_east") == {"a": True}
    assert (s.agent["a"].row, s.agent["a"].col, s.agent["a"].energy) == (1, 2, 8)


@pytest.mark.parametrize(
    ("rows", "action", "energy"),
    [
        (["#####", "#a..#", "#..=#", "#####"], "move_north", 10),  # wall
        (["#####", "#ab.#", "#..=#", "#####"], "move_east", 10),  # another agent
        (["#####", "#a..#", "#..=#", "#####"], "move_east", 1),  # below 2 energy
    ],
    ids=["wall", "agent", "no-energy"],
)
def test_blocked_moves_fail_and_cost_nothing(rows: list[str], action: str, energy: int) -> None:
    s = Scenario(rows, EnvConfig(energy_refill=False, initial_energy=energy))
    before = (s.agent["a"].row, s.agent["a"].col)
    assert s.act(a=action) == {"a": False}
    assert (s.agent["a"].row, s.agent["a"].col) == before
    assert s.agent["a"].energy == energy


def test_generous_refill_restores_energy_and_its_off_switch() -> None:
    refill = Scenario(["#####", "#a..#", "#..=#", "#####"], EnvConfig(initial_energy=40))
    refill.act(a="move_east")
    assert refill.agent["a"].energy == rules.ENERGY_CAPACITY
    no_refill = Scenario(
        ["#####", "#a..#", "#..=#", "#####"], EnvConfig(initial_energy=40, energy_refill=False)
    )
    no_refill.act(a="move_east")
    no_refill.act(a="noop")
    assert no_refill.agent["a"].energy == 38


def test_vibe_change_always_succeeds_and_is_free() -> None:
    s = Scenario(["#####", "#a..#", "#..=#", "#####"], EnvConfig(energy_refill=False, initial_energy=0))
    for vibe in rules.VIBES:
        s.vibe("a", vibe)
        assert rules.VIBES[s.agent["a"].vibe] == vibe
    assert s.agent["a"].energy == 0


# -- extractors --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("glyph", "resource", "output", "max_uses"),
    [("C", "carbon", 2, 25), ("O", "oxygen", 10, 5), ("G", "germanium", 2, 5), ("S", "silicon", 15, 10)],
)
def test_extractor_output_and_max_uses(glyph: str, resource: str, output: int, max_uses: int) -> None:
    s = Scenario(["#####", f"#a{glyph}.#", "#..=#", "#####"])
    successes = [s.act(a="move_east")["a"] for _ in range(max_uses + 3)]
    assert successes == [True] * max_uses + [False] * 3  # exhausted: refuses
    assert s.items("a") == {resource: output * max_uses}
    assert s.station(1, 2).uses_left == 0


def test_extractor_overrides() -> None:
    config = EnvConfig(extractor_overrides={"carbon": ExtractorOverride(output=7, max_uses=1)})
    s = Scenario(["#####", "#aC.#", "#..=#", "#####"], config)
    assert [s.act(a="move_east")["a"] for _ in range(2)] == [True, False]
    assert s.items("a") == {"carbon": 7}


@pytest.mark.parametrize(("extra_agents", "expected"), [(0, 2), (1, 3), (2, 4), (3, 5)])
def test_germanium_bonus_per_extra_adjacent_agent_capped_at_five(extra_agents: int, expected: int) -> None:
    # a uses G from the west; b, c, d stand on other cells around G (diagonals count).
    rows = ["######", "#.b..#", "#aG.=#", "#dc..#", "######"]
    letters = "bcd"[:extra_agents]
    rows = [row.translate({ord(ch): "." for ch in "bcd" if ch not in letters}) for row in rows]
    s = Scenario(rows)
    s.act(a="move_east")
    assert s.items("a") == {"germanium": expected}


def test_silicon_costs_twenty_energy_and_fails_below() -> None:
    s = Scenario(["#####", "#aS.#", "#..=#", "#####"], EnvConfig(energy_refill=False, initial_energy=39))
    assert s.act(a="move_east") == {"a": True}
    assert s.agent["a"].energy == 19
    assert s.act(a="move_east") == {"a": False}
    assert s.agent["a"].energy == 19 and s.items("a") == {"silicon": 15}


def test_charger_gives_fifty_energy_per_use() -> None:
    s = Scenario(["#####", "#a+.#", "#..=#", "#####"], EnvConfig(energy_refill=False, initial_energy=10))
    assert s.act(a="move_east") == {"a": True}
    assert s.agent["a"].energy == 10 - rules.STATION_USE_ENERGY_COST + rules.CHARGER_ENERGY_GAIN
    for _ in range(10):
        s.act(a="move_east")
    assert s.agent["a"].energy == rules.ENERGY_CAPACITY


# -- clipping ----------------------------------------------------------------------------------------
def test_clipped_extractor_refuses_and_a_decoder_unclips_it() -> None:
    config = EnvConfig(clipped={"carbon"}, inventory_seeds=({"decoder": 1},))
    s = Scenario(["#####", "#aC.#", "#..=#", "#####"], config)
    extractor = s.station(1, 2)
    assert extractor.clipped
    assert s.act(a="move_east") == {"a": True}  # the unclipping use
    assert not extractor.clipped and s.items("a") == {}  # decoder consumed, nothing extracted
    assert extractor.uses_left == 25  # the unclipping use does not count
    assert s.act(a="move_east") == {"a": True}
    assert s.items("a") == {"carbon": 2}


def test_clipped_extractor_without_decoder_refuses() -> None:
    s = Scenario(["#####", "#aC.#", "#..=#", "#####"], EnvConfig(clipped={"carbon"}))
    assert s.act(a="move_east") == {"a": False}
    assert s.items("a") == {}


# -- heart chest ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("vibe", "deposits"), [("default", True), ("heart_b", True), ("heart_a", False), ("gear", False)]
)
def test_heart_chest_deposit_vibes(vibe: str, deposits: bool) -> None:
    s = Scenario(["#####", "#a=.#", "#####"], EnvConfig(inventory_seeds=({"heart": 1},)))
    s.vibe("a", vibe)
    assert s.act(a="move_east") == {"a": deposits}
    assert s.world.succeeded is deposits
    assert s.world.rewards[s.agent["a"].index] == (1.0 if deposits else 0.0)


def test_heart_chest_capacity_one_refuses_when_full_and_keeps_the_heart() -> None:
    s = Scenario(["#####", "#a=.#", "#####"], items={"a": {"heart": 2}})
    chest = s.station(1, 2)
    assert chest.capacity == rules.HEART_CHEST_CAPACITY == 1
    assert s.act(a="move_east") == {"a": True}
    assert chest.hearts == 1 and s.items("a") == {"heart": 1}  # only the free capacity is deposited
    full = Scenario(["#####", "#a=.#", "#####"], items={"a": {"heart": 1}})
    full.station(1, 2).hearts = 1  # a chest that already holds its one heart
    assert full.act(a="move_east") == {"a": False}  # refused, and the heart is not destroyed
    assert full.items("a") == {"heart": 1} and not full.world.succeeded


def test_no_agent_acts_after_the_heart_lands() -> None:
    # b's move west is always possible, so b stays put only when it came after a's winning deposit.
    b_moved = set()
    for seed in range(20):
        s = Scenario(["######", "#a=.b#", "######"], items={"a": {"heart": 1}}, seed=seed)
        s.act(a="move_east", b="move_west")
        assert s.world.succeeded
        b_moved.add(s.agent["b"].col == 3)
    assert b_moved == {True, False}


def test_heart_chest_with_no_heart_refuses() -> None:
    s = Scenario(["#####", "#a=.#", "#####"])
    assert s.act(a="move_east") == {"a": False}
    assert not s.world.succeeded


# -- resource chests ------------------------------------------------------------------------------------
def test_resource_chest_withdraw_and_deposit_by_vibe() -> None:
    config = EnvConfig(resource_chest_stock={"carbon": 5}, inventory_seeds=({"oxygen": 3},))
    s = Scenario(["######", "#a12.#", "#..=.#", "######"], config)
    assert s.act(a="move_east") == {"a": False}  # default vibe: nothing
    s.vibe("a", "carbon_a")
    assert s.act(a="move_east") == {"a": True}
    assert s.items("a") == {"carbon": 5, "oxygen": 3} and s.station(1, 2).stock == 0
    assert s.act(a="move_east") == {"a": False}  # empty chest
    s.vibe("a", "carbon_b")
    assert s.act(a="move_east") == {"a": True}
    assert s.items("a") == {"oxygen": 3} and s.station(1, 2).stock == 5
    s.vibe("a", "oxygen_b")  # the oxygen chest is not next to a; the carbon chest ignores oxygen vibes
    assert s.act(a="move_east") == {"a": False}


# -- assembler ------------------------------------------------------------------------------------------
RECIPE = {"carbon": 2, "oxygen": 2, "germanium": 1, "silicon": 3}
ASSEMBLER_ROWS = ["#######", "#.c...#", "#a&b..#", "#.d.=.#", "#######"]


def assembler_scenario(items: dict[str, dict[str, int]], letters: str, chorus: int | None = None) -> Scenario:
    rows = [row.translate({ord(ch): "." for ch in "abcd" if ch not in letters}) for row in ASSEMBLER_ROWS]
    return Scenario(rows, EnvConfig(chorus_size=chorus), items=items)


def test_heart_with_chorus_of_one() -> None:
    s = assembler_scenario({"a": RECIPE}, "a", chorus=1)
    s.vibe("a", "heart_a")
    assert s.act(a="move_east") == {"a": True}
    assert s.items("a") == {"heart": 1}


@pytest.mark.parametrize(
    ("vibes", "chorus", "fires"),
    [
        ({"a": "heart_a", "b": "heart_a"}, 2, True),
        ({"a": "heart_a", "b": "default"}, 2, False),  # too few heart_a
        ({"a": "heart_a", "b": "heart_a", "c": "default"}, 2, True),  # a default neighbour is fine
        ({"a": "heart_a", "b": "heart_a", "c": "gear"}, 2, False),  # a non-default extra vibe breaks it
        ({"a": "heart_a", "b": "heart_a", "c": "heart_a"}, 2, False),  # too many heart_a: not exact
        ({"a": "heart_a", "b": "heart_a", "c": "heart_a", "d": "heart_a"}, 4, True),
    ],
    ids=["pair", "one-short", "default-neighbour", "gear-neighbour", "one-too-many", "quad"],
)
def test_chorus_needs_an_exact_vibe_multiset(vibes: dict[str, str], chorus: int, fires: bool) -> None:
    s = assembler_scenario({"a": RECIPE}, "".join(vibes), chorus=chorus)
    for letter, vibe in vibes.items():
        s.vibe(letter, vibe)
    assert s.act(a="move_east") == {"a": fires}
    assert (s.items("a").get("heart", 0) == 1) is fires


def test_inputs_are_pooled_and_taken_evenly() -> None:
    held = {"a": {"carbon": 4, "oxygen": 1, "silicon": 3}, "b": {"oxygen": 1, "germanium": 1, "silicon": 3}}
    s = assembler_scenario(held, "ab", 2)
    s.vibe("a", "heart_a")
    s.vibe("b", "heart_a")
    assert s.act(a="move_east") == {"a": True}
    a, b = s.items("a"), s.items("b")
    assert a == {"carbon": 2, "silicon": 1, "heart": 1} or a == {"carbon": 2, "silicon": 2, "heart": 1}
    assert a.get("silicon", 0) + b.get("silicon", 0) == 3  # 6 - 3, split as evenly as possible
    assert abs(a.get("silicon", 0) - b.get("silicon", 0)) <= 1
    assert "oxygen" not in a and "oxygen" not in b and "germanium" not in b


def test_output_goes_to_first_matched_agent_clockwise_when_the_actor_is_not_matched() -> None:
    # chorus 1: only c (north of the assembler) shows heart_a; a (west) uses it with vibe default.
    # Clockwise from a (west): north-west, north (c) ... so c receives the heart.
    s = assembler_scenario({"a": RECIPE}, "abc", chorus=1)
    s.vibe("c", "heart_a")
    assert s.act(a="move_east") == {"a": True}
    assert s.items("c").get("heart") == 1 and "heart" not in s.items("a")


def test_failed_assembly_costs_nothing() -> None:
    s = Scenario(
        [*ASSEMBLER_ROWS[:2], "#a&...#", "#...=.#", "#######"], EnvConfig(chorus_size=1, energy_refill=False)
    )
    s.vibe("a", "heart_a")
    energy = s.agent["a"].energy
    assert s.act(a="move_east") == {"a": False}  # cannot pay the recipe
    assert s.agent["a"].energy == energy


@pytest.mark.parametrize(
    ("held", "consumed"),
    [
        ({"carbon": 1, "oxygen": 1, "germanium": 1, "silicon": 1}, {"oxygen", "germanium", "silicon"}),
        ({"carbon": 1, "germanium": 1, "silicon": 1}, {"carbon", "germanium", "silicon"}),
        ({"carbon": 1, "oxygen": 1, "silicon": 1}, {"carbon", "oxygen", "silicon"}),
        ({"carbon": 1, "oxygen": 1, "germanium": 1}, {"carbon", "oxygen", "germanium"}),
    ],
)
def test_decoder_crafting_order(held: dict[str, int], consumed: set[str]) -> None:
    s = assembler_scenario({"a": held}, "a")
    s.vibe("a", "gear")
    assert s.act(a="move_east") == {"a": True}
    expected = {k: v for k, v in held.items() if k not in consumed}
    assert s.items("a") == {**expected, "decoder": 1}


def test_decoder_needs_three_different_resources() -> None:
    s = assembler_scenario({"a": {"carbon": 5, "oxygen": 5}}, "a")
    s.vibe("a", "gear")
    assert s.act(a="move_east") == {"a": False}


# -- turn order ---------------------------------------------------------------------------------------
def test_agents_act_in_a_seeded_random_order() -> None:
    # a and b both try to step into the same cell; who wins depends on the seeded order, both outcomes occur.
    winners = set()
    for seed in range(20):
        s = Scenario(["#####", "#a.b#", "#..=#", "#####"], seed=seed)
        result = s.act(a="move_east", b="move_west")
        assert sum(result.values()) == 1
        winners.add(next(k for k, v in result.items() if v))
    assert winners == {"a", "b"}
