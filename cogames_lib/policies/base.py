"""The policy protocol, loading a user's policy by import path, and the one policy-name resolver.

Accepted policy names (everywhere: sweeps, the CLI, notebooks):

- ``"noop"``: always the no-op action;
- ``"random"``: uniformly random actions from the seed given to ``reset``;
- ``"scripted"``: the decentralized baseline with every skill on;
- ``"oracle"``: the full-knowledge reference planner (reads the world state; a ceiling, not a baseline);
- ``"scripted:-chorus"`` or ``"scripted:-chorus,-memory"``: the baseline with those skills switched off
  (the skills are `ABLATIONS`; order and repetition do not matter, the canonical name lists them in
  `ABLATIONS` order);
- ``"learned:<checkpoint path>"``: a trained network (`cogames_lib.policies.learned`), sampling its action
  with the agent's seed; ``"learned:<path>#greedy"`` takes the most likely action instead;
- ``"package.module:Class"``: a user's policy class, instantiated without arguments for every agent.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from cogames_lib.errors import PolicyLoadError, UnknownNameError

# The skills of the scripted policy that can be switched off, one ablation each.
ABLATIONS: tuple[str, ...] = ("memory", "explore", "pathfinding", "chorus", "recharge", "unclip")

BUILTIN_POLICIES: dict[str, str] = {
    "noop": "cogames_lib.policies.simple:NoopPolicy",
    "random": "cogames_lib.policies.simple:RandomPolicy",
    "scripted": "cogames_lib.policies.scripted:ScriptedPolicy",
    # The full-knowledge reference ceiling: it reads the world state, so it lives with the diagnostics.
    "oracle": "cogames_lib.diagnostics.oracle:OraclePolicy",
}
LEARNED_PREFIX = "learned:"
GREEDY_SUFFIX = "#greedy"
LEARNED_POLICY = "cogames_lib.policies.learned:LearnedPolicy"
ACCEPTED_FORMS = (
    "'noop', 'random', 'scripted', 'oracle', 'scripted:-SKILL[,-SKILL...]' with SKILL in "
    f"{', '.join(ABLATIONS)}, 'learned:<checkpoint path>[#greedy]', or an import path 'package.module:Class'"
)


@runtime_checkable
class Policy(Protocol):
    """One agent's controller. It sees only its own observations (never the environment's state)."""

    def reset(self, agent_id: int, num_agents: int, seed: int) -> None:
        """Start an episode as agent `agent_id` of `num_agents`; every random choice flows from `seed`."""

    def act(self, observation: dict[str, Any]) -> int:
        """The action index for this step, given `{"grid": uint8 (C, 11, 11), "self": uint8 (9,)}`."""


def _import_class(path: str) -> type:
    module_name, sep, class_name = path.partition(":")
    if not sep or not module_name or not class_name:
        raise PolicyLoadError(f"policy path {path!r} must look like 'package.module:Class'")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or module_name
        raise PolicyLoadError(f"policy path {path!r}: module {missing!r} not found") from None
    except Exception as error:  # the module exists but fails to import: say so, with its own error
        raise PolicyLoadError(
            f"policy path {path!r}: importing module {module_name!r} failed: {type(error).__name__}: {error}"
        ) from None
    try:
        cls = getattr(module, class_name)
    except AttributeError:
        raise PolicyLoadError(f"policy path {path!r}: module {module_name!r} has no {class_name!r}") from None
    if not (callable(getattr(cls, "reset", None)) and callable(getattr(cls, "act", None))):
        raise PolicyLoadError(f"policy path {path!r}: {class_name!r} lacks reset(...) and act(observation)")
    return cls


def load_policy(path: str, **kwargs: Any) -> Policy:
    """Instantiate the policy class at `"package.module:Class"` with `kwargs`."""
    cls = _import_class(path)
    try:
        return cls(**kwargs)
    except TypeError as error:
        raise PolicyLoadError(f"policy path {path!r}: cannot instantiate {cls.__name__}: {error}") from None


@dataclass(frozen=True)
class PolicySpec:
    """A resolved policy name: picklable (strings only), `.make()` gives a fresh instance per agent."""

    name: str
    path: str
    kwargs: tuple[tuple[str, Any], ...] = ()

    def make(self) -> Policy:
        return load_policy(self.path, **dict(self.kwargs))


def parse_ablations(text: str) -> tuple[str, ...]:
    """`"-chorus,-memory"` -> `("memory", "chorus")` (ABLATIONS order, no repeats)."""
    disabled = set()
    for part in text.split(","):
        part = part.strip()
        if not part.startswith("-") or part[1:] not in ABLATIONS:
            raise UnknownNameError(
                f"unknown scripted ablation {part!r} in 'scripted:{text}'; accepted: {ACCEPTED_FORMS}"
            )
        disabled.add(part[1:])
    return tuple(skill for skill in ABLATIONS if skill in disabled)


def resolve_policy(spec: str | PolicySpec) -> PolicySpec:
    """The one resolver of policy names (see the module docstring for the accepted forms)."""
    if isinstance(spec, PolicySpec):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise UnknownNameError(
            f"policy name must be a non-empty string, got {spec!r}; accepted: {ACCEPTED_FORMS}"
        )
    spec = spec.strip()
    if spec in BUILTIN_POLICIES:
        return PolicySpec(spec, BUILTIN_POLICIES[spec])
    if spec.startswith(LEARNED_PREFIX):
        return learned_spec(spec[len(LEARNED_PREFIX) :])
    head, sep, tail = spec.partition(":")
    if head == "scripted" and sep:
        disabled = parse_ablations(tail)
        name = "scripted:" + ",".join(f"-{skill}" for skill in disabled)
        return PolicySpec(name, BUILTIN_POLICIES["scripted"], (("disabled", disabled),))
    if sep:
        _import_class(spec)  # fail now, with the path named, rather than inside a worker
        return PolicySpec(spec, spec)
    raise UnknownNameError(f"unknown policy {spec!r}; accepted: {ACCEPTED_FORMS}")


def learned_spec(text: str) -> PolicySpec:
    """`learned:<path>[#greedy]`: the checkpoint is read now (a one-line error names a missing or foreign
    file here, not inside a worker); the name keeps the path as given."""
    from cogames_lib.policies.learned import read_learned_checkpoint

    path, greedy = text.strip(), False
    if path.endswith(GREEDY_SUFFIX):
        path, greedy = path[: -len(GREEDY_SUFFIX)], True
    if not path:
        raise UnknownNameError(f"policy 'learned:' needs a checkpoint path; accepted: {ACCEPTED_FORMS}")
    read_learned_checkpoint(path)
    name = LEARNED_PREFIX + path + (GREEDY_SUFFIX if greedy else "")
    return PolicySpec(name, LEARNED_POLICY, (("checkpoint", path), ("greedy", greedy)))


def ablation_specs() -> list[str]:
    """`["scripted:-memory", "scripted:-explore", ...]`: one single-skill ablation per skill."""
    return [f"scripted:-{skill}" for skill in ABLATIONS]
