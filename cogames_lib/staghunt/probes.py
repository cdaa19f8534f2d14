"""Probe tests on frozen agents: one-step intention from Q-values, multi-step behaviour from the first attack.

Probe protocol (what an agent object must offer; bring your own):
- `q_values(obs) -> array of 5` for ONE flat observation (see `engine.observation_size`), required;
- `act(obs, epsilon) -> int`, optional: the multi-step probe calls it with epsilon 0; without it the
  probe takes `argmax(q_values(obs))` (ties to the lowest action index);
- `frozen_copy()`, optional: returns the object the probe tests; without it the probe uses
  `copy.deepcopy(agent)`. Probes never call anything else, never touch a training RNG, and never step a
  training environment, so training with and without probes gives identical parameters.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cogames_lib.errors import ParameterError
from cogames_lib.staghunt.engine import StagHuntEngine
from cogames_lib.staghunt.maps import (
    INTENTION_MAP_NAMES,
    MULTI_STEP_MAP_NAME,
    ORIENTATION_FILE_NAME,
    STAGHUNT_MAPS_DIR,
    StagHuntMap,
    load_stag_hunt_map,
    shipped_map_path,
)
from cogames_lib.staghunt.probe_cases import (
    NO_PARTNER_SIDE,
    IntentionCase,
    MultiStepCase,
    counterbalanced_intention_cases,
    counterbalanced_multistep_cases,
    sorrel_intention_cases,
    sorrel_multistep_cases,
    stag_and_hare_actions,
    validate_suite,
)
from cogames_lib.staghunt.rules import AGENT_KINDS, PARTNER_KINDS, RESOURCES, Action, AgentSpec
from cogames_lib.staghunt.world_config import StagHuntConfig
from cogames_lib.tables import PROBE_INTENTION, PROBE_MULTISTEP

# The tables' contracts live in `cogames_lib.tables` (the spec's columns, then the optional extras).
INTENTION_COLUMNS: tuple[str, ...] = PROBE_INTENTION.columns
MULTISTEP_COLUMNS: tuple[str, ...] = PROBE_MULTISTEP.columns
# Extra columns written after the spec's columns, in this order (when known).
EXTRA_COLUMNS: tuple[str, ...] = tuple(PROBE_INTENTION.optional)
RESULT_BY_TARGET: dict[str, float] = {"stag": 1.0, "hare": 0.0, "none": 0.5}


@dataclass(frozen=True)
class ProbeSettings:
    """Where the probe maps live and how the multi-step test is staged.

    `suite`: `sorrel` (its 4 intention maps and orientation file, its multi-step staging) or
    `counterbalanced` (`probe_cases`: mirrored cases, partners on the stag side, the hare side and
    equidistant; `intention_maps`, `orientation_file`, `focal_orientation` and `partner_orientation` are
    then unused). Sorrel's multi-step staging: the map's two spawns sorted by (row, col), the upper one is
    the fake partner (facing South toward the stag), the lower one the focal (facing West).
    `max_test_steps` is 15 by default.
    """

    maps_dir: str = str(STAGHUNT_MAPS_DIR)
    intention_maps: tuple[str, ...] = INTENTION_MAP_NAMES
    multi_step_map: str = MULTI_STEP_MAP_NAME
    orientation_file: str = ORIENTATION_FILE_NAME
    max_test_steps: int = 15
    focal_orientation: int = 3
    partner_orientation: int = 2
    partner_kinds: tuple[str, ...] = PARTNER_KINDS
    attack_range: int = 2
    view_radius: int = 4
    attack_shape: str = "line"
    position_embedding: bool = False
    wounded_stag_channel: bool = True
    suite: str = "sorrel"

    def __post_init__(self) -> None:
        validate_suite(self.suite)
        if self.max_test_steps < 1:
            raise ParameterError(f"max_test_steps must be >= 1, got {self.max_test_steps}")
        unknown = set(self.partner_kinds) - set(PARTNER_KINDS)
        if unknown:
            raise ParameterError(f"unknown partner kinds {sorted(unknown)}; known: {list(PARTNER_KINDS)}")


__all__ = ["IntentionCase", "MultiStepCase", "stag_and_hare_actions"]  # re-exported from probe_cases


@dataclass
class ProbeSuite:
    """Probe cases loaded and checked once (reused by every probe round)."""

    settings: ProbeSettings
    intention_cases: list[IntentionCase] = field(default_factory=list)
    multi_step_grid: StagHuntMap | None = None
    multistep_cases: list[MultiStepCase] = field(default_factory=list)


def load_probe_suite(settings: ProbeSettings | None = None) -> ProbeSuite:
    """Read the probe maps (and sorrel's orientation reference) of `settings.suite`; files are only read."""
    settings = settings or ProbeSettings()
    maps_dir = Path(settings.maps_dir)
    grid = load_stag_hunt_map(shipped_map_path(settings.multi_step_map, maps_dir))
    if settings.suite == "counterbalanced":
        return ProbeSuite(settings, counterbalanced_intention_cases(maps_dir), grid,
                          counterbalanced_multistep_cases(grid))  # fmt: skip
    cases = sorrel_intention_cases(maps_dir, settings.intention_maps, settings.orientation_file)
    staging = sorrel_multistep_cases(grid, settings.focal_orientation, settings.partner_orientation)
    return ProbeSuite(settings, cases, grid, staging)


def frozen(agent: Any) -> Any:
    """What a probe tests: `agent.frozen_copy()` if it has one, else a deep copy."""
    return agent.frozen_copy() if hasattr(agent, "frozen_copy") else copy.deepcopy(agent)


def _specs(agents: Sequence[Any], population: Sequence[AgentSpec] | None) -> list[AgentSpec]:
    if population is None:
        return [AgentSpec(AGENT_KINDS[0])] * len(agents)
    if len(population) != len(agents):
        raise ParameterError(f"population has {len(population)} entries for {len(agents)} agents")
    return list(population)


def _case_columns(spec: AgentSpec, partner_kind: str, stag_action: Action, side: str) -> dict[str, Any]:
    """The extra columns every probe row carries: who the focal is and which counterbalanced case it is."""
    return {"agent_kind": spec.kind, "partner_relation": _relation(spec.kind, partner_kind),
            "stag_action": stag_action.name.lower(),
            "partner_side": side if partner_kind != "no_partner" else NO_PARTNER_SIDE,
            "agent_can_hunt": spec.can_hunt}  # fmt: skip


def _relation(focal_kind: str, partner_kind: str) -> str:
    if partner_kind == "no_partner":
        return "none"
    return "same" if partner_kind == focal_kind else "different"


def _engine(
    focal_kind: str, partner_kind: str, settings: ProbeSettings, grid: StagHuntMap,
    cells: Sequence[tuple[int, int]], orientations: Sequence[int], turns: int = 1,
) -> StagHuntEngine:  # fmt: skip
    """A one-world engine staged on `grid`: the focal agent (index 0) at `cells[0]` and, unless there is no
    partner, the partner (`can_hunt=True`) at `cells[1]`; observations are taken at the turn's start."""
    population = [AgentSpec(focal_kind)]
    if partner_kind != "no_partner":
        population.append(AgentSpec(partner_kind, can_hunt=True))
    world = StagHuntConfig(attack_range=settings.attack_range, view_radius=settings.view_radius,
                           attack_shape=settings.attack_shape, position_embedding=settings.position_embedding,
                           wounded_stag_channel=settings.wounded_stag_channel)  # fmt: skip
    engine = StagHuntEngine(population, world, grid=grid)
    count = len(population)
    engine.load_state(
        0, grid.resources, np.array(cells[:count]), np.array(orientations[:count]), max_turns=turns
    )
    return engine


def softmax(values: np.ndarray) -> np.ndarray:
    """Softmax with temperature 1, max-subtracted for stability."""
    shifted = np.exp(values - np.max(values))
    return shifted / shifted.sum()


def _with_extras(rows: list[dict], columns: Sequence[str], extra: Mapping[str, Any] | None) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    for key, value in (extra or {}).items():
        frame[key] = value
    ordered = (
        list(columns)
        + [c for c in EXTRA_COLUMNS if c in frame]
        + [c for c in frame if c not in columns and c not in EXTRA_COLUMNS]
    )
    return frame.reindex(columns=ordered)


def run_intention_probe(
    agents: Sequence[Any],
    epoch: int,
    population: Sequence[AgentSpec] | None = None,
    suite: ProbeSuite | None = None,
    extra: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """One row per (agent, map, version, partner kind): Q-values by action name and the softmax weights of
    the stag-facing and hare-facing step actions. Columns: `INTENTION_COLUMNS`, then `agent_kind`,
    `partner_relation` (none/same/different), `stag_action`, `partner_side`, `agent_can_hunt` and any
    `extra` constants (e.g. condition, seed, run_id). `population` gives the agents' kinds and abilities
    (default: all AgentKindA). A case is probed with the partner kinds it lists (`IntentionCase`)."""
    suite = suite or load_probe_suite()
    settings = suite.settings
    specs = _specs(agents, population)
    rows: list[dict] = []
    for agent_id, (agent, spec) in enumerate(zip(agents, specs, strict=True)):
        probe_agent, kind = frozen(agent), spec.kind
        for case in suite.intention_cases:
            for partner_kind in (k for k in settings.partner_kinds if k in case.partner_kinds):
                engine = _engine(kind, partner_kind, settings, case.grid, [case.focal.row_col, case.partner.row_col],
                                 [case.focal.initial, case.partner.initial])  # fmt: skip
                observation = engine.observe_dense(np.zeros(1, dtype=np.int64))[0]
                q_values = np.asarray(probe_agent.q_values(observation), dtype=np.float64).reshape(-1)
                if q_values.shape != (len(Action),):
                    raise ParameterError(
                        f"agent {agent_id}: q_values must return {len(Action)} values, got {q_values.shape}"
                    )
                weights = softmax(q_values)
                row = {"epoch": epoch, "agent_id": agent_id, "map_name": case.map_name, "partner_kind": partner_kind,
                       "version": case.version}  # fmt: skip
                row.update({f"q_val_{action.name.lower()}": float(q_values[action]) for action in Action})
                row["weight_facing_stag"] = float(weights[case.stag_action])
                row["weight_facing_hare"] = float(weights[case.hare_action])
                row.update(_case_columns(spec, partner_kind, case.stag_action, case.partner_side))
                rows.append(row)
    return _with_extras(rows, INTENTION_COLUMNS, extra)


@dataclass(frozen=True)
class MultiStepOutcome:
    """One multi-step episode: what the first decisive attack hit, when, and the fake partner's trace."""

    first_attack_target: str
    result: float
    turn_of_first_attack: int
    focal_actions: tuple[int, ...]
    partner_states: tuple[tuple[int, int, int], ...]  # (row, col, orientation) after every turn


def run_multistep_episode(
    agent: Any, focal_kind: str, partner_kind: str, suite: ProbeSuite, case: MultiStepCase | None = None
) -> MultiStepOutcome:
    """The focal acts greedily, one action per turn; the fake partner never acts. The first attack whose
    beam covers a stag or hare decides (the nearest one if both); turns are counted from 1. `case`: the
    staging (default: the suite's first, sorrel's one staging in the `sorrel` suite)."""
    settings = suite.settings
    case = case or suite.multistep_cases[0]
    grid, partner_cell = case.grid, case.partner_cell
    engine = _engine(focal_kind, partner_kind, settings, grid, [case.focal_cell, case.partner_cell],
                     [case.focal_orientation, case.partner_orientation], settings.max_test_steps)  # fmt: skip
    focal = np.zeros(1, dtype=np.int64)
    choose = agent.act if hasattr(agent, "act") else None
    actions: list[int] = []
    partner_states: list[tuple[int, int, int]] = []
    for turn in range(1, settings.max_test_steps + 1):
        obs = engine.observe_dense(focal)[0]
        action = int(choose(obs, 0.0)) if choose else int(np.argmax(agent.q_values(obs)))
        if not 0 <= action < len(Action):
            raise ParameterError(f"act() returned {action}, not an action index 0..{len(Action) - 1}")
        actions.append(action)
        engine.begin_turn(order=np.arange(engine.num_agents)[None])  # only the focal acts
        code = int(engine.act(focal, np.array([action]))[0])
        engine.end_turn()
        target = RESOURCES[code].name if code in RESOURCES else None
        if engine.num_agents > 1:  # the fake partner's state (it never acts), or its empty spot
            (row, col), facing = engine.positions[0, 1], engine.orientations[0, 1]
        else:
            (row, col), facing = partner_cell, case.partner_orientation
        partner_states.append((int(row), int(col), int(facing)))
        if action == Action.ATTACK and target is not None:
            return MultiStepOutcome(
                target, RESULT_BY_TARGET[target], turn, tuple(actions), tuple(partner_states)
            )
    return MultiStepOutcome("none", 0.5, settings.max_test_steps, tuple(actions), tuple(partner_states))


def run_multistep_probe(
    agents: Sequence[Any],
    epoch: int,
    population: Sequence[AgentSpec] | None = None,
    suite: ProbeSuite | None = None,
    extra: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """One row per (agent, staging, partner kind): `first_attack_target` (stag/hare/none), `result` (1.0
    stag, 0.0 hare, 0.5 no attack) and `turn_of_first_attack` (1-based; `max_test_steps` when none).
    Columns: `MULTISTEP_COLUMNS`, then `agent_kind`, `partner_relation`, `stag_action`, `partner_side`,
    `agent_can_hunt` and any `extra` constants."""
    suite = suite or load_probe_suite()
    specs = _specs(agents, population)
    rows: list[dict] = []
    for agent_id, (agent, spec) in enumerate(zip(agents, specs, strict=True)):
        probe_agent = frozen(agent)
        for case in suite.multistep_cases:
            for partner_kind in (k for k in suite.settings.partner_kinds if k in case.partner_kinds):
                outcome = run_multistep_episode(probe_agent, spec.kind, partner_kind, suite, case)
                rows.append({
                    "epoch": epoch, "agent_id": agent_id, "partner_kind": partner_kind,
                    "first_attack_target": outcome.first_attack_target, "result": outcome.result,
                    "turn_of_first_attack": outcome.turn_of_first_attack,
                    **_case_columns(spec, partner_kind, case.stag_action, case.partner_side),
                })  # fmt: skip
    return _with_extras(rows, MULTISTEP_COLUMNS, extra)
