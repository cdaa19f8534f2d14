"""SYNTHETIC Mindcraft agent logs: the bytes of one log, shaped like Mindcraft's `memory.json` copies.

The conversation is invented from a few template lines; the verdict turns follow the final messages of
each era (`verdicts.py`), and `shape` gives the broken variants a real tree holds (truncated, not UTF-8,
empty, a bare list of turns, the wrong shape, a user quoting a score line).
"""

from __future__ import annotations

import json
import random
from typing import Any

from cogames_lib.errors import ParameterError

AGENT_NAMES: tuple[str, ...] = ("Andy", "Jill", "Bob", "Sally", "Mike")
CHAT_LINES: tuple[str, ...] = (
    "Hey {other}, I have {item} in my inventory. What do you have?",
    "I can give you what you need, coming over now.",
    '!givePlayer("{other}", "{item}", 1)',
    '!collectBlocks("{item}", 1)',
    '!craftRecipe("{item}", 1)',
    '!goToPlayer("{other}", 3)',
    "Thanks! I will craft it at the table.",
    "!inventory",
)
SYSTEM_LINES: tuple[str, ...] = (
    "Code output:\nYou have reached {other}.",
    "Code output:\nSuccessfully crafted {item}, you now have 1 {item}.",
    "Code output:\nCollected 1 {item}.",
)
BASE_TASK_START_MS = 1_742_300_000_000


def js_number(value: float | str) -> str:
    """A number as JavaScript prints it (`1`, `57.14285714285714`, `NaN`)."""
    if isinstance(value, str):
        return value
    return str(int(value)) if float(value).is_integer() else repr(float(value))


# Verdict kind -> the turns it writes, as (role, template); templates take the verdict's arguments.
VERDICT_TURNS: dict[str, tuple[tuple[str, str], ...]] = {
    "score": (("system", "Task ended with score : {0}"),),
    "typo": (("system", "Task ended in score: {0}"),),
    "legacy": (("system", "{0} ended with code : {1}"),),
    "stale": (
        ("system", "Task ended with score : {0}"),
        ("user", "Jill_0: wait, let me try once more"),
        ("system", "Task ended with score : {1}"),
    ),
}


def verdict_turns(verdict: tuple[Any, ...] | None) -> list[dict[str, str]]:
    """Turns for one verdict spec: ("score", n), ("typo", n), ("legacy", phrase, code), ("stale", a, b)."""
    if verdict is None:
        return []
    if verdict[0] not in VERDICT_TURNS:
        raise ParameterError(f"verdict: unknown kind {verdict[0]!r} (known: {', '.join(VERDICT_TURNS)})")
    arguments = [js_number(value) for value in verdict[1:]]
    return [
        {"role": role, "content": template.format(*arguments)} for role, template in VERDICT_TURNS[verdict[0]]
    ]


def make_agent_log(
    agent: str,
    partner: str,
    item: str,
    rng: random.Random,
    verdict: tuple[Any, ...] | None,
    turn_count: int,
    shape: str = "object",
    task_start_ms: int | None = None,
) -> bytes:
    """The bytes of one synthetic agent log; `shape` is object, bare_list, wrong_shape, truncated,
    non_utf8, empty or user_quote (a user turn quoting a score line, no real verdict).

    `task_start_ms`: the log's `taskStart`; agents of one run start within seconds of each other, so
    callers writing a run pass close values (`TreeWriter.run_starts`). None draws one at random."""
    if shape == "empty":
        return b""
    turns: list[dict[str, str]] = [
        {"role": "system", "content": f"Respond with hello world and your name {agent}"}
    ]
    for _ in range(turn_count):
        role = rng.choice(("user", "assistant", "assistant", "system"))
        lines = SYSTEM_LINES if role == "system" else CHAT_LINES
        text = rng.choice(lines).format(other=partner, item=item)
        turns.append({"role": role, "content": f"{partner}: {text}" if role == "user" else text})
    if shape == "user_quote":
        turns.append({"role": "user", "content": f"{partner}: the log said Task ended with score : 1 for me"})
    turns.extend(verdict_turns(verdict))
    if shape == "bare_list":
        return json.dumps(turns).encode()
    document: Any = {
        "memory": f"I am {agent}. Working with {partner} on {item}.",
        "turns": turns,
        "self_prompting_state": 0,
        "self_prompt": None,
        "taskStart": task_start_ms
        if task_start_ms is not None
        else BASE_TASK_START_MS + rng.randrange(10**8),
        "last_sender": partner,
    }
    if shape == "wrong_shape":
        document = {"memory": document["memory"], "history": turns}
    data = json.dumps(document, ensure_ascii=False).encode()
    if shape == "truncated":
        return data[: len(data) * 2 // 3]
    if shape == "non_utf8":
        return data.replace(b"Working with", "Travaillé avec".encode("latin-1"), 1)
    return data


# --- long conversations (the benchmark's realistic tree) -----------------------------------------------

ASSISTANT_LINES: tuple[str, ...] = (
    "Let me check what I have first. !inventory",
    'I\'ll gather the wood we need, then meet you at the crafting table. !collectBlocks("oak_log", 4)',
    "I don't have the recipe for {item}, could you send me the ingredients? I can craft the rest.",
    "Okay, I recommended splitting the work: you mine the iron and I'll smelt it once the furnace is up.",
    'Going to you now. !goToPlayer("{other}", 3)',
    "I think the plan has to change: the chest is empty and we extended the search twice already.",
    'Crafting the planks now. !craftRecipe("oak_planks", 2)',
    'Here you go! !givePlayer("{other}", "{item}", 1)',
    'Hmm, that didn\'t work. Let me search nearby for a crafting table. !searchForBlock("crafting_table", 32)',
)
CODE_OUTPUTS: tuple[str, ...] = (
    "Code output:\nCollected 4 oak_log.\n",
    "Code output:\nYou have reached {other}.\n",
    "Code output:\nSuccessfully crafted oak_planks, you now have 8 oak_planks.\n",
    "Code output:\nCould not find any crafting_table in 32 blocks.\n",
    "INVENTORY\n- oak_planks: 8\n- stick: 4\n- {item}: 1\n- wheat: 3\n- cobblestone: 17\nWEARING: Nothing\n",
    "STATS\n- Position: x: 12.50, y: 64.00, z: -31.50\n- Gamemode: survival\n- Health: 20 / 20\n"
    "- Hunger: 18 / 20\n- Biome: plains\n- Weather: Clear\n- Time: Morning\n- Current Action: Idle\n",
    "Agent action stopped: the requested item is not in your inventory \u2014 try !inventory first. \u00e9t\u00e9 \U0001f642\n",
)


def _long_text(rng: random.Random, lines: tuple[str, ...], size: int, other: str, item: str) -> str:
    parts: list[str] = []
    length = 0
    while length < size:
        part = rng.choice(lines).format(other=other, item=item)
        parts.append(part)
        length += len(part) + 1
    return "\n".join(parts)


def make_conversation_log(
    agent: str,
    partner: str,
    item: str,
    rng: random.Random,
    verdict: tuple[Any, ...] | None,
    size_bytes: int,
    task_start_ms: int,
) -> bytes:
    """A SYNTHETIC log of about `size_bytes` shaped like a whole LLM conversation: a long system prompt,
    then user, assistant and system turns (chat, commands, code output, inventories; a little non-ASCII)
    of 100 bytes to a few KB each, written as Mindcraft writes it (`JSON.stringify(data, null, 2)`:
    indented, UTF-8 unescaped), the verdict last."""
    prompt = _long_text(rng, ASSISTANT_LINES + CODE_OUTPUTS, 3000, partner, item)
    turns: list[dict[str, str]] = [
        {"role": "system", "content": f"You are {agent}, a Minecraft bot.\n{prompt}"}
    ]
    length = len(prompt)
    while length < size_bytes:
        role = rng.choice(("user", "assistant", "assistant", "system"))
        if role == "system":
            content = _long_text(rng, CODE_OUTPUTS, rng.randint(60, 3000), partner, item)
        elif role == "user":
            content = f"{partner}: " + _long_text(rng, ASSISTANT_LINES, rng.randint(60, 600), agent, item)
        else:
            content = _long_text(rng, ASSISTANT_LINES, rng.randint(100, 2000), partner, item)
        turns.append({"role": role, "content": content})
        length += len(content) + 40
    turns.extend(verdict_turns(verdict))
    document = {
        "memory": f"I am {agent}. Working with {partner} on {item}; the plan is to split the crafting.",
        "turns": turns,
        "self_prompting_state": 0,
        "self_prompt": None,
        "taskStart": task_start_ms,
        "last_sender": partner,
    }
    return json.dumps(document, ensure_ascii=False, indent=2).encode()
