"""The README's two stag-hunt study tables, printed from a study folder's `staghunt_findings` records.

    python -m tools.staghunt_readme_tables data/staghunt_reference

Every number comes from the one findings path (`cogames_lib.staghunt.study_findings`); this script only lays
the records out as the README's Markdown tables (`tests/test_readme_study_tables.py` checks that the README
shows exactly what it prints for the committed study).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from cogames_lib.finding import Finding, interval_text
from cogames_lib.staghunt.study_findings import staghunt_findings
from cogames_lib.staghunt.study_tables import load_probe_study

# Row labels: the condition and its population (the README's shorthand; a trailing "-" cannot hunt).
POPULATIONS = {
    "all_can_hunt": "A A B, all hunt",
    "not_all_can_hunt": "A A B-, B cannot hunt",
    "roles_swapped": "B B A-, A cannot hunt",
    "two_of_each": "A A B- B-",
    "kind_shuffled": "A A- B B-, the label says nothing",
}
SCALES = (("p_stag", 4), ("q_gap", 4), ("argmax", 3))
RANDOM_PLAY = re.compile(r"\((?P<rate>[\d.]+ \+- [\d.]+) per episode")
SIGN_FLIP_P = re.compile(r"sign-flip p = (?P<p>[\d.e-]+)")
EXPECTATION = re.compile(r"pre-registered expectation: (?P<expected>\w+)")


def _number(finding: Finding, digits: int) -> str:
    assert finding.estimate is not None
    return interval_text(finding.estimate, finding.low, finding.high, digits=digits)


def _match(pattern: re.Pattern[str], finding: Finding, group: str) -> str:
    found = pattern.search(finding.text)
    if found is None:
        raise ValueError(f"{finding.key}: {pattern.pattern!r} not in {finding.text!r}")
    return found[group]


def readme_tables(findings: Sequence[Finding]) -> str:
    """The learning table and the partner-effect table, as the README shows them."""
    by_key = {finding.key: finding for finding in findings}
    lines = [
        "| condition (population) | stag kills / episode | x random play | worst seed x random |",
        "|---|---|---|---|",
    ]
    for condition, population in POPULATIONS.items():
        kills = by_key[f"learning.{condition}.stags_per_episode"]
        ratio = by_key[f"learning.{condition}.stags_vs_random"]
        worst = by_key[f"learning.{condition}.worst_seed_vs_random"]
        assert worst.estimate is not None
        lines.append(
            f"| `{condition}` ({population}) | {_number(kills, 2)} | {_number(ratio, 1)} "
            f"(random {_match(RANDOM_PLAY, ratio, 'rate')}) | {worst.estimate:.1f} |"
        )
    lines += [
        "",
        "| partner effect, same-kind - other-kind partner | P(stag) | Q gap | argmax | acting: attacked a stag "
        "| pre-registered |",
        "|---|---|---|---|---|---|",
    ]
    for condition in ("all_can_hunt", "not_all_can_hunt", "roles_swapped", "two_of_each", "kind_shuffled"):
        cells = []
        for scale, digits in SCALES:
            effect = by_key[f"partner_effect.{condition}.{scale}"]
            cells.append(f"{_number(effect, digits)}, p = {_match(SIGN_FLIP_P, effect, 'p')}")
        acting = by_key[f"acting_partners.{condition}.attacked_stag"]
        expected = _match(EXPECTATION, by_key[f"partner_effect.{condition}.p_stag"], "expected")
        lines.append(f"| `{condition}` | {' | '.join(cells)} | {_number(acting, 3)} | {expected} |")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    study = load_probe_study(argv[0])
    print(readme_tables(staghunt_findings(study.tables)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
