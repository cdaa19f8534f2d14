"""Larger test layouts for the scripted baseline, drawn from a seed, and one episode on such a layout.

Each family keeps the rules of a shipped diagnostic (its `env_config`) and changes only the map and the
step budget, in the ways the hard tier will: larger rooms, longer corridors, a target just outside the
first view, walls between the agent and the chargers, long radial arms. Budgets are generous walks of
the layout (a full-knowledge tour times a factor), so a failure is the policy's, not the budget's.
Used by `tests/test_scripted_layouts.py` (a few seeds) and `benchmarks/scripted_robustness.py` (many).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from cogames_lib.cvc import CogsVsClipsEnv, parse_map_text
from cogames_lib.cvc.maps import OBJECT_GLYPHS
from cogames_lib.diagnostics import DIAGNOSTICS
from cogames_lib.policies import ScriptedPolicy
from cogames_lib.sweep.seeds import agent_seed

Rows = list[list[str]]
LEGEND = "\n".join(f'  "{glyph}": {name}' for name, glyph in OBJECT_GLYPHS.items())


def room(height: int, width: int) -> Rows:
    """A walled room of this size, all floor inside."""
    rows = [["#"] * width]
    rows += [["#", *["."] * (width - 2), "#"] for _ in range(height - 2)]
    return [*rows, ["#"] * width]


def solid(height: int, width: int) -> Rows:
    return [["#"] * width for _ in range(height)]


def play(rows: Rows, diagnostic: str, num_agents: int, seed: int, max_steps: int) -> tuple[bool, int]:
    """One episode of the scripted baseline on `rows` with `diagnostic`'s rules: (success, steps)."""
    body = "\n".join("  " + "".join(row) for row in rows)
    grid_map = parse_map_text(f"map_data: |-\n{body}\nchar_to_map_name:\n{LEGEND}\n", source="layout")
    env = CogsVsClipsEnv(grid_map, num_agents, max_steps, DIAGNOSTICS[diagnostic].env_config(num_agents))
    observations, _ = env.reset(seed=seed)
    policies = [ScriptedPolicy() for _ in range(num_agents)]
    for index, policy in enumerate(policies):
        policy.reset(index, num_agents, agent_seed(seed, index))
    steps = 0
    while env.agents:
        actions = {f"agent_{i}": p.act(observations[f"agent_{i}"]) for i, p in enumerate(policies)}
        observations, *_ = env.step(actions)
        steps += 1
    return bool(env.unwrapped.world.succeeded), steps


def _spawns(rows: Rows, cells: list[tuple[int, int]]) -> None:
    for r, c in cells:
        rows[r][c] = "@"


# -- families: seed -> (rows, diagnostic, max_steps) ---------------------------------------------------------
def walled_room(seed: int, station: str = "chest") -> tuple[Rows, str, int]:
    """A 24-40 x 30-60 room cut by 2-4 walls with gaps; four spawns in one corner region, the target
    (`station`: chest, or assembler plus chest) far from them."""
    rng = random.Random(seed)
    height, width = rng.randint(24, 40), rng.randint(30, 60)
    rows = room(height, width)
    for _ in range(rng.randint(2, 4)):
        if rng.random() < 0.5:
            c = rng.randint(6, width - 7)
            gap = rng.randint(2, height - 4)
            for r in range(1, height - 1):
                if abs(r - gap) > 1:
                    rows[r][c] = "#"
        else:
            r = rng.randint(6, height - 7)
            gap = rng.randint(2, width - 4)
            for c in range(1, width - 1):
                if abs(c - gap) > 1:
                    rows[r][c] = "#"
    free = [(r, c) for r in range(1, height - 1) for c in range(1, width - 1) if rows[r][c] == "."]
    corner = rng.choice(free)
    reach = _reachable(rows, corner)  # walls may close off a pocket: place everything in reach
    free = sorted((cell for cell in free if cell in reach), key=lambda cell: _manhattan(cell, corner))
    _spawns(rows, free[:4])
    if station != "chest":  # a chorus of four needs the assembler's whole ring free
        free = [cell for cell in free if _open_around(rows, cell)]
    target = free[-1 - rng.randrange(min(10, len(free) // 4))]
    if station == "chest":
        rows[target[0]][target[1]] = "="
        return rows, "diagnostic_chest_deposit_search", height * width // 2 + 100
    rows[target[0]][target[1]] = "&"
    spot = next(cell for cell in reversed(free) if 3 <= _manhattan(cell, target) <= 5)
    rows[spot[0]][spot[1]] = "="
    return rows, "diagnostic_assemble_seeded_search", height * width // 2 + 150


def _manhattan(a: tuple[int, int], b: tuple[int, int]) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def _open_around(rows: Rows, cell: tuple[int, int]) -> bool:
    return all(rows[cell[0] + dr][cell[1] + dc] == "." for dr in (-1, 0, 1) for dc in (-1, 0, 1))


def _reachable(rows: Rows, start: tuple[int, int]) -> set[tuple[int, int]]:
    seen, stack = {start}, [start]
    while stack:
        r, c = stack.pop()
        for cell in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if cell not in seen and rows[cell[0]][cell[1]] == ".":
                seen.add(cell)
                stack.append(cell)
    return seen


def corridor_tree(seed: int) -> tuple[Rows, str, int]:
    """A tree of 1-wide corridors (10-16 branches of 6-20 cells, carved from a seed); the spawn at the
    root, the chest at a random dead end. Budget: three times every corridor walked out and back."""
    rng = random.Random(seed)
    size = 70
    rows = solid(size, size)
    root = (size // 2, size // 2)
    rows[root[0]][root[1]] = "."
    tips = [root]
    leaves = []
    for _ in range(rng.randint(10, 16)):
        r, c = rng.choice(tips)
        dr, dc = rng.choice(((-1, 0), (1, 0), (0, -1), (0, 1)))
        length = 0
        for _ in range(rng.randint(6, 20)):
            nr, nc = r + 2 * dr, c + 2 * dc
            if not (2 <= nr < size - 2 and 2 <= nc < size - 2) or rows[nr][nc] == ".":
                break
            rows[r + dr][c + dc] = rows[nr][nc] = "."
            r, c, length = nr, nc, length + 2
        if length:
            tips.append((r, c))
            leaves.append((r, c))
    leaf = rng.choice(leaves)
    rows[leaf[0]][leaf[1]] = "="
    rows[root[0]][root[1]] = "@"
    floor = sum(row.count(".") for row in rows)
    return rows, "diagnostic_chest_deposit_search", 3 * 2 * floor + 50


def chest_aside(seed: int) -> tuple[Rows, str, int]:
    """The chest 6-8 cells to one side of the spawn, just outside the first view, at the end of a short
    corridor; two long corridors (25-45 cells) lead the other ways."""
    rng = random.Random(seed)
    rows = solid(100, 100)
    r, c = 50, 50
    short = rng.randint(6, 8)
    directions = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    rng.shuffle(directions)
    for index, (dr, dc) in enumerate(directions[:3]):
        length = short if index == 0 else rng.randint(25, 45)
        for k in range(1, length + 1):
            rows[r + k * dr][c + k * dc] = "."
        if index == 0:
            rows[r + short * dr][c + short * dc] = "="
    rows[r][c] = "@"
    return rows, "diagnostic_chest_deposit_search", 250


def charger_maze(seed: int) -> tuple[Rows, str, int]:
    """Energy 60, no regen (charge_up's rules): the chest 70-100 cells away; a charger just behind a
    wall next to the spawn (near by straight line, far by path), another further off in the open, and
    chargers along the way every 15-25 cells, each with a wall stub beside it."""
    rng = random.Random(seed)
    length = rng.randint(70, 100)
    rows = room(16, length + 12)
    rows[1][1] = "@"
    for r in range(1, 14):
        rows[r][3] = "#"
    rows[1][4] = "+"
    rows[rng.randint(4, 8)][rng.randint(1, 2)] = "+"
    col = 5
    while col < length:
        col += rng.randint(15, 25)
        if col >= length:
            break
        r = rng.randint(2, 13)
        rows[r][col] = "+"
        for k in range(rng.randint(2, 6)):
            if r - 1 - k >= 1 and rows[r - 1 - k][col + 1] == ".":
                rows[r - 1 - k][col + 1] = "#"
    rows[rng.randint(2, 13)][length + 8] = "="
    return rows, "diagnostic_charge_up", 6 * length


def long_radial(seed: int) -> tuple[Rows, str, int]:
    """A 7x7 hub (assembler, chest, spawns) and four arms of 20-40 cells with one extractor at each end
    (radial's rules). Budget: 1.5 x every arm walked out and back."""
    rng = random.Random(seed)
    arms = [rng.randint(20, 40) for _ in range(4)]
    size = 2 * max(arms) + 9
    rows = solid(size, size)
    mid = size // 2
    for r in range(mid - 3, mid + 4):
        for c in range(mid - 3, mid + 4):
            rows[r][c] = "."
    glyphs = ["O", "S", "G", "C"]
    rng.shuffle(glyphs)
    for (dr, dc), arm, glyph in zip(((-1, 0), (1, 0), (0, -1), (0, 1)), arms, glyphs, strict=True):
        for k in range(4, arm + 4):
            rows[mid + k * dr][mid + k * dc] = "."
        rows[mid + (arm + 4) * dr][mid + (arm + 4) * dc] = glyph
    rows[mid - 2][mid - 2], rows[mid - 2][mid + 2] = "&", "="
    _spawns(rows, [(mid + 1, mid - 1), (mid + 1, mid + 1), (mid + 2, mid), (mid + 1, mid)])
    return rows, "diagnostic_radial", int(1.5 * 2 * sum(arms)) + 100


FAMILIES: dict[str, tuple[Callable[[int], tuple[Rows, str, int]], tuple[int, ...]]] = {
    "walled_room_chest": (walled_room, (1,)),
    "walled_room_assembler": (lambda seed: walled_room(seed, "assembler"), (1, 2, 4)),
    "corridor_tree": (corridor_tree, (1,)),
    "chest_aside": (chest_aside, (1,)),
    "charger_maze": (charger_maze, (1,)),
    "long_radial": (long_radial, (1, 2, 4)),
}


def play_family(task: tuple[str, int, int]) -> tuple[str, int, int, bool, int, int]:
    """(family, num_agents, seed) -> (family, num_agents, seed, success, steps, max_steps); picklable."""
    family, num_agents, seed = task
    rows, diagnostic, max_steps = FAMILIES[family][0](seed)
    success, steps = play(rows, diagnostic, num_agents, seed, max_steps)
    return family, num_agents, seed, success, steps, max_steps
