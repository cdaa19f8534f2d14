"""One diagnostic episode: build the env, one policy instance per agent, play to the end, report.

`run_episode` is the unit every sweep, the capability matrix and the CLI share. A policy or engine
exception does not escape: it becomes a `RUN_ERROR` result whose `error` is the traceback's last line
(what a user reads first), so a sweep over many cells goes on. A user mistake that is not about the
episode itself (an unknown diagnostic, an agent count the diagnostic does not allow, a policy path that
does not import) is raised before the episode starts.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from cogames_lib.cvc import rules
from cogames_lib.outcomes import CompletionStatus
from cogames_lib.sweep.seeds import agent_seed
from cogames_lib.tables import TRACE_STEP_COLUMNS

# One trace row per agent per step (`cogames_lib.tables.TRACES` without the episode key).
TRACE_COLUMNS: tuple[str, ...] = tuple(column for column, _ in TRACE_STEP_COLUMNS)
_NUM_ACTIONS = len(rules.ACTIONS)


class InvalidActionError(RuntimeError):
    """A policy returned something that is not an action index (an episode error, not a user mistake)."""


def resolve_policy_spec(policy_spec: Any) -> Any:
    """A PolicySpec from a spec string ("scripted", "pkg.module:Class") or a PolicySpec itself."""
    if isinstance(policy_spec, str):
        from cogames_lib.policies import resolve_policy

        return resolve_policy(policy_spec)
    return policy_spec


def last_traceback_line(error: BaseException) -> str:
    """`ValueError: boom`: the last line of the traceback, on one line."""
    lines = traceback.format_exception_only(type(error), error)
    return " ".join(lines[-1].split()) if lines else type(error).__name__


def run_episode(
    policy_spec: Any,
    diagnostic: Any,
    num_agents: int,
    seed: int,
    record_trace: bool = False,
    on_frame: Callable[[int, str], None] | None = None,
) -> dict[str, Any]:
    """Play one episode of `diagnostic` with `num_agents` copies of the policy; the env is seeded with `seed`.

    `diagnostic` is a name (either tier) or a `Diagnostic` record such as a custom variant
    (`Diagnostic.variant(map=...)`). Returns a dict: policy, diagnostic (the record's name: `<base>_hard`,
    `<base>@<map>` for variants), tier, num_agents, episode_seed, status, success, reward (the episode
    return summed over agents: 1.0 or 0.0), steps, max_steps, error ("" unless RUN_ERROR), duration_s,
    `bound` (hard tier only: the oracle's lower bound on steps of the episode's certified map), and `trace`
    (a dict of equal-length columns, see TRACE_COLUMNS) when `record_trace` is true.
    The built-in `oracle` (a reference ceiling) gets the engine state through `attach_world(world)`; no other
    policy does, whatever methods it has.
    Agent i's policy is reset with `agent_seed(seed, i)`. `on_frame(step, text)`, when given, receives
    the env's ASCII render (render mode "ansi") after the reset (step 0) and after every step.
    """
    from cogames_lib.diagnostics import get_diagnostic

    started = time.perf_counter()
    spec = resolve_policy_spec(policy_spec)
    record = get_diagnostic(diagnostic)  # the short name "memory" reports as "diagnostic_memory"
    if on_frame is None:
        env = _reusable_env(record, num_agents, seed)
    else:
        from cogames_lib.diagnostics import make_env

        env = make_env(record, num_agents, seed=seed, render_mode="ansi")
    world = env.unwrapped.world
    world.record_events = record_trace
    trace = _empty_trace() if record_trace else None
    steps, reward, error = 0, 0.0, ""
    try:
        observations, _ = env.reset(seed=seed)
        if trace is not None:
            _record_positions(trace, world, 0, None)
        if on_frame is not None:
            on_frame(0, env.render())
        policies = [spec.make() for _ in range(num_agents)]
        full_knowledge = _is_oracle(spec)
        for index, policy in enumerate(policies):
            if (
                full_knowledge
            ):  # the reference ceiling reads the world; every other policy sees observations only
                policy.attach_world(world)
            policy.reset(index, num_agents, agent_seed(seed, index))
        names = list(env.possible_agents)
        while env.agents:
            chosen = [
                _checked_action(policy.act(observations[name]))
                for name, policy in zip(names, policies, strict=True)
            ]
            observations, rewards, _, _, _ = env.step(dict(zip(names, chosen, strict=True)))
            steps += 1
            reward += float(sum(rewards.values()))
            if trace is not None:
                _record_positions(trace, world, steps, chosen)
            if on_frame is not None:
                on_frame(steps, env.render())
        status = CompletionStatus.SUCCESS if world.succeeded else CompletionStatus.TIMED_OUT
    except Exception as exception:  # a policy or engine failure is a result, not a crash of the sweep
        status, error = CompletionStatus.RUN_ERROR, last_traceback_line(exception)
    if trace is not None:
        _attach_events(trace, world.events)
    result: dict[str, Any] = {
        "policy": str(spec.name),
        "diagnostic": record.name,
        "tier": record.tier,
        "num_agents": int(num_agents),
        "episode_seed": int(seed),
        "status": status.value,
        "success": status is CompletionStatus.SUCCESS,
        "reward": reward,
        "steps": steps,
        "max_steps": int(env.max_steps),
        "error": error,
        "duration_s": time.perf_counter() - started,
    }
    if record.hard is not None:
        evidence = hard_evidence(record, num_agents, seed)
        result["bound"], result["search_steps"] = evidence if evidence is not None else (None, None)
    if trace is not None:
        result["trace"] = trace
    return result


def hard_evidence(record: Any, num_agents: int, seed: int) -> tuple[int, int] | None:
    """(oracle lower bound, searcher's granted steps) of a hard episode's certified map (cached with the
    map; None when the map could not be drawn, an episode the sweep reports as RUN_ERROR)."""
    from cogames_lib.diagnostics.hard_maps import certified_map
    from cogames_lib.errors import MapError

    try:
        certificate = certified_map(record, seed, num_agents)
        return certificate.bound, certificate.search_steps
    except MapError:
        return None


def _is_oracle(spec: Any) -> bool:
    from cogames_lib.policies.base import BUILTIN_POLICIES

    return getattr(spec, "path", None) == BUILTIN_POLICIES["oracle"]


_ENV_CACHE_SIZE = 32
_local = threading.local()  # one cache per thread: a Dask worker may run two episodes at once


def _reusable_env(record: Any, num_agents: int, seed: int) -> Any:
    """An env for (diagnostic, num_agents), built once per thread and reused across episodes.

    Building the engine costs about as much as a short episode of a fast policy; `reset(seed)`
    rebuilds every piece of episode state, so a reused env plays exactly the episode a fresh one would
    (a test checks this). A hard-tier map depends on the seed, so its env is keyed by the seed too.
    """
    from cogames_lib.diagnostics import make_env

    cache: OrderedDict = _local.__dict__.setdefault("envs", OrderedDict())
    per_seed = seed if record.hard is not None else None
    key = (record.name, int(num_agents), record.grid_map, per_seed)
    env = cache.pop(key, None)
    if env is None:
        env = make_env(record, num_agents, seed=None if per_seed is None else seed)
    cache[key] = env
    if len(cache) > _ENV_CACHE_SIZE:
        cache.popitem(last=False)
    return env


def _checked_action(action: Any) -> int:
    try:
        index = int(action)
    except (TypeError, ValueError):
        raise InvalidActionError(f"policy returned {action!r}, not an action index") from None
    if not 0 <= index < _NUM_ACTIONS or index != action:
        raise InvalidActionError(
            f"policy returned action {action!r}, not an integer in 0..{_NUM_ACTIONS - 1}"
        )
    return index


def _empty_trace() -> dict[str, list]:
    return {column: [] for column in TRACE_COLUMNS}


def _record_positions(trace: dict[str, list], world: Any, step: int, chosen: list[int] | None) -> None:
    """One row per agent: where it stands and what it shows after `step` (step 0 = after reset)."""
    for index, agent in enumerate(world.agents):
        trace["step"].append(step)
        trace["agent"].append(index)
        trace["row"].append(int(agent.row))
        trace["col"].append(int(agent.col))
        trace["vibe"].append(rules.VIBES[agent.vibe])
        trace["action"].append("" if chosen is None else rules.ACTIONS[chosen[index]])
        trace["action_success"].append(None)
        trace["event"].append("")


def _attach_events(trace: dict[str, list], events: list) -> None:
    """Fill action success and event details from the engine's event log, matched by (step, agent).

    An agent that did not get its turn (the episode ended mid-step) keeps action_success None.
    """
    row_of = {
        (step, agent): i for i, (step, agent) in enumerate(zip(trace["step"], trace["agent"], strict=True))
    }
    for event in events:
        row = row_of.get((event.step, event.agent))
        if row is None:
            continue
        if event.action == "event":
            previous = trace["event"][row]
            trace["event"][row] = f"{previous}; {event.detail}" if previous else event.detail
        else:
            trace["action_success"][row] = bool(event.success)
