"""Tiny hand-written scenarios for rule tests: build a world from ASCII rows and address agents by letter."""

from __future__ import annotations

from cogames_lib.cvc import EnvConfig, World, parse_map_text, rules
from cogames_lib.cvc.maps import OBJECT_GLYPHS

SPAWN_LETTERS = "abcd"
LEGEND = {glyph: name for name, glyph in OBJECT_GLYPHS.items() if name != "agent.agent"}
LEGEND.update(dict.fromkeys(SPAWN_LETTERS, "agent.agent"))


class Scenario:
    """A world whose agents are named by the letter of their spawn cell in the ASCII rows."""

    def __init__(
        self,
        rows: list[str],
        config: EnvConfig | None = None,
        seed: int = 0,
        items: dict[str, dict[str, int]] | None = None,
    ) -> None:
        legend = "\n".join(f'  "{char}": {name}' for char, name in LEGEND.items())
        body = "\n".join("  " + row for row in rows)
        grid_map = parse_map_text(f"map_data: |-\n{body}\nchar_to_map_name:\n{legend}\n", source="scenario")
        letters = {
            (r, c): ch for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in SPAWN_LETTERS
        }
        self.world = World(grid_map, len(letters), config or EnvConfig())
        self.world.reset(seed)
        self.agent = {letters[(a.row, a.col)]: a for a in self.world.agents}
        # Seeds in EnvConfig go by agent index and spawns are drawn at random, so a scenario that needs
        # "the agent at b holds X" sets the starting items after reset.
        for letter, held in (items or {}).items():
            self.agent[letter].items = [held.get(name, 0) for name in rules.ITEMS]

    def act(self, **actions: str) -> dict[str, bool]:
        """One step; unnamed agents noop. Returns whether each named agent's action succeeded."""
        chosen = [rules.NOOP] * self.world.num_agents
        for letter, action in actions.items():
            chosen[self.agent[letter].index] = rules.ACTION_INDEX[action]
        self.world.step(chosen)
        return {letter: bool(self.agent[letter].last_success) for letter in actions}

    def vibe(self, letter: str, vibe: str) -> None:
        assert self.act(**{letter: f"change_vibe_{vibe}"})[letter]

    def items(self, letter: str) -> dict[str, int]:
        agent = self.agent[letter]
        return {name: agent.items[i] for i, name in enumerate(rules.ITEMS) if agent.items[i]}

    def station(self, row: int, col: int):
        return self.world.stations[self.world.to_position(row, col)]
