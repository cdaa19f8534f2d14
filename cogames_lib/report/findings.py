"""Headline findings of each capability, in words, computed from the tables a notebook wrote.

The report's index is a summary of findings: for each capability one or two sentences, each number with its
n and its interval, next to the figure it comes from. Every sentence is computed here from the notebook's
output files (the contract between a notebook and the index), by pure functions over tidy tables that the
tests call directly; nothing is typed in by hand.

Intervals: binary rates carry Wilson 95% intervals (`stats.rate_table`); means across seeds a bootstrap over
seeds (`probe_views.last_epoch_table`), and none below two seeds ("n = 1 seed: no interval").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from cogames_lib.stats import rate_table


@dataclass(frozen=True)
class Finding:
    """One headline finding: a sentence, and the figure (a PNG in the notebook's folder) it reads from."""

    text: str
    figure: str | None = None


def rate_text(row: object) -> str:
    """A `rate_table` row as "0.59 [0.47, 0.71] (n = 64)" (Wilson 95%)."""
    rate, low, high, n = (getattr(row, name) for name in ("rate", "ci_low", "ci_high", "n"))
    return f"{rate:.2f} [{low:.2f}, {high:.2f}] (n = {int(n)})"


def _apart(better: object, worse: object) -> bool:
    """The intervals do not overlap: the difference is not one of chance at this n."""
    return float(getattr(worse, "ci_high")) < float(getattr(better, "ci_low"))  # noqa: B009


def _short(diagnostic: object) -> str:
    return str(diagnostic).removeprefix("diagnostic_")


# --- Cogs vs Clips diagnostics ----------------------------------------------------------------------------


def diagnostics_findings(episodes: pd.DataFrame) -> list[Finding]:
    """Pass rate per policy and where the best policy is weakest (pass-rate heatmap); what each ablation
    switches off (capability matrix)."""
    if episodes.empty:
        return [Finding("The sweep holds no episodes.")]
    frame = episodes.assign(
        policy=episodes["policy"].astype(str), diagnostic=episodes["diagnostic"].astype(str)
    )
    present = set(frame["policy"])
    order = (
        [str(p) for p in episodes["policy"].cat.categories if str(p) in present]
        if isinstance(episodes["policy"].dtype, pd.CategoricalDtype)
        else sorted(present)
    )
    rates = rate_table(frame, "policy", "success").set_index("policy").reindex(order)
    listed = "; ".join(
        f"{policy} {rate_text(row)}" for policy, row in zip(order, rates.itertuples(), strict=True)
    )
    best = str(rates["rate"].idxmax())
    cells = rate_table(frame[frame["policy"] == best], ["diagnostic", "num_agents"], "success")
    weakest = next(cells.sort_values(["rate", "n"], ascending=[True, False]).head(1).itertuples(index=False))
    if weakest.rate >= 1.0:
        where = f"{best}, the best policy, passes every diagnostic at every agent count."
    else:
        agents = int(weakest.num_agents)
        where = (
            f"{best}, the best policy, is weakest on {_short(weakest.diagnostic)} with {agents} "
            f"agent{'s' if agents != 1 else ''}: {rate_text(weakest)}."
        )
    heatmap = Finding(
        f"Pass rate over all diagnostics and agent counts (Wilson 95%): {listed}. {where}",
        "pass_rate_heatmap.png",
    )
    return [heatmap, Finding(_ablation_text(frame), "capability_matrix.png")]


def _ablation_text(frame: pd.DataFrame) -> str:
    policies = list(dict.fromkeys(frame["policy"]))
    ablations = [p for p in policies if ":-" in p and p.split(":-")[0] in policies]
    if not ablations:
        return (
            "No ablation in this sweep (a policy such as scripted:-chorus switches one skill off), so the "
            "capability matrix compares whole policies only."
        )
    by_diagnostic = rate_table(frame, ["policy", "diagnostic"], "success").set_index(["policy", "diagnostic"])
    sentences = []
    for ablation in ablations:
        base, skill = ablation.split(":-")
        drops = []
        for diagnostic in dict.fromkeys(frame["diagnostic"]):
            if (base, diagnostic) in by_diagnostic.index and (ablation, diagnostic) in by_diagnostic.index:
                full, cut = by_diagnostic.loc[(base, diagnostic)], by_diagnostic.loc[(ablation, diagnostic)]
                if cut["rate"] < full["rate"]:
                    drops.append((full["rate"] - cut["rate"], diagnostic, full, cut))
        compared = sum(1 for d in dict.fromkeys(frame["diagnostic"]) if (ablation, d) in by_diagnostic.index)
        if not drops:
            sentences.append(
                f"Switching off {skill} ({ablation}) lowers no diagnostic's pass rate (of {compared}): "
                "none of these diagnostics needs that skill."
            )
            continue
        drops.sort(key=lambda item: (-item[0], item[1]))
        _, diagnostic, full, cut = drops[0]
        clear = sum(1 for _, _, f, c in drops if _apart(f, c))
        separation = (
            f"intervals apart on {clear} of them"
            if clear
            else "the intervals overlap on all of them: more seeds are needed to call any drop clear"
        )
        sentences.append(
            f"Switching off {skill} ({ablation}) lowers the pass rate on {len(drops)} of {compared} diagnostics "
            f"({separation}); the largest drop is on {_short(diagnostic)}: {base} "
            f"{rate_text(_row(full))}, {ablation} {rate_text(_row(cut))}."
        )
    return " ".join(sentences)


def _row(series: pd.Series) -> object:
    return next(series.to_frame().T.itertuples(index=False))


# --- Mindcraft ----------------------------------------------------------------------------------------------


def mindcraft_findings(runs: pd.DataFrame) -> list[Finding]:
    """Success and the commonest failure status by task type (models pooled); the models compared."""
    if runs.empty:
        return [Finding("No Mindcraft task folders were found.")]
    frame = runs.assign(task_type=runs["task_type"].astype("string").fillna("unknown"))
    by_type = rate_table(frame, "task_type", "success_for_rate")
    listed = "; ".join(f"{row.task_type} {rate_text(row)}" for row in by_type.itertuples(index=False))
    status = frame["overall_completion_status"].astype(str)
    failures = status[status != "SUCCESS"]
    failure = (
        f" The commonest outcome other than success is {failures.value_counts().index[0]} "
        f"({failures.value_counts().iloc[0]} of {len(status)} task folders)."
        if len(failures)
        else " Every task folder succeeded."
    )
    findings = [
        Finding(
            f"Success rate by task type (Wilson 95%, models pooled): {listed}.{failure}",
            "status_breakdown.png",
        )
    ]
    models = frame.assign(model_name=frame["model_name"].astype("string").fillna("unknown"))
    if models["model_name"].nunique() > 1:
        overall = rate_table(models, "model_name", "success_for_rate").sort_values("rate", ascending=False)
        listed = "; ".join(f"{row.model_name} {rate_text(row)}" for row in overall.itertuples(index=False))
        top, bottom = (
            next(overall.head(1).itertuples(index=False)),
            next(overall.tail(1).itertuples(index=False)),
        )
        verdict = (
            f"{top.model_name} is clearly ahead of {bottom.model_name} (the intervals do not overlap)."
            if _apart(top, bottom)
            else "The intervals overlap: this sample does not separate the models."
        )
        findings.append(
            Finding(f"Overall success by model (Wilson 95%): {listed}. {verdict}", "success_by_task_type.png")
        )
    return findings


# --- Stag-hunt probes ---------------------------------------------------------------------------------------


def _mean_text(row: object, with_interval: bool) -> str:
    estimate, low, high = (getattr(row, name) for name in ("estimate", "low", "high"))
    return f"{estimate:.2f} [{low:.2f}, {high:.2f}]" if with_interval else f"{estimate:.2f}"


def _by_condition(table: pd.DataFrame, value: str, what: str) -> str:
    """ "At the last probe (epoch E), <what>: <condition>: <partner> v [low, high]; ... (n = K seeds each)"."""
    from cogames_lib.report.probe_views import last_epoch_table
    from cogames_lib.staghunt.rules import PARTNER_KINDS

    keys = ["condition", "partner_kind"] if "condition" in table.columns else ["partner_kind"]
    summary = last_epoch_table(table, value, keys)
    rank = {kind: index for index, kind in enumerate(PARTNER_KINDS)}
    summary = summary.sort_values(keys, key=lambda c: c.map(rank) if c.name == "partner_kind" else c)
    counts = sorted(set(summary["n"].astype(int)))
    unit = str(summary["unit"].iloc[0])
    with_interval = counts[0] >= 2
    n_text = "/".join(map(str, counts))
    sample = (
        f"n = {n_text} {unit}s each, bootstrap 95% over {unit}s"
        if with_interval
        else f"n = {n_text} {unit}{'' if counts == [1] else 's'} each: no interval"
    )
    groups = summary.groupby(keys[0], sort=False) if len(keys) == 2 else [("", summary)]
    parts = []
    for condition, group in groups:
        values = ", ".join(
            f"{row.partner_kind} {_mean_text(row, with_interval)}" for row in group.itertuples(index=False)
        )
        spread = group["estimate"].max() - group["estimate"].min()
        same = " (no difference between partners)" if len(group) > 1 and spread < 0.01 else ""
        parts.append(f"{condition + ': ' if condition else ''}{values}{same}")
    return (
        f"At the last probe (epoch {int(table['epoch'].max())}), {what}: "
        + "; ".join(parts)
        + f" ({sample})."
    )


def probe_findings(intention: pd.DataFrame, multistep: pd.DataFrame) -> list[Finding]:
    """Intention (share of the stag-facing weight) and behaviour (first attack) by condition and partner,
    at the last probe, with a bootstrap interval over seeds."""
    findings = []
    if len(intention):
        share = intention.assign(
            stag_share=intention["weight_facing_stag"]
            / (intention["weight_facing_stag"] + intention["weight_facing_hare"])
        )
        findings.append(
            Finding(
                _by_condition(
                    share,
                    "stag_share",
                    "the share of intention weight on the stag-facing step (0.5 = no preference) is",
                ),
                "intention_ratio.png",
            )
        )
    if len(multistep):
        findings.append(
            Finding(
                _by_condition(
                    multistep,
                    "result",
                    "the multi-step probe's first attack scores (1 stag, 0 hare, 0.5 no attack)",
                ),
                "multistep_results.png",
            )
        )
    return findings or [Finding("The probe folder holds no probe results.")]


# --- reading a notebook's folder ----------------------------------------------------------------------------


def _read_table(folder: Path, name: str) -> pd.DataFrame | None:
    for suffix, read in ((".parquet", pd.read_parquet), (".csv", pd.read_csv)):
        path = folder / f"{name}{suffix}"
        if path.is_file():
            return read(path)
    return None


def _diagnostics(folder: Path) -> list[Finding]:
    episodes = _read_table(folder, "episodes")
    return [] if episodes is None else diagnostics_findings(episodes)


def _mindcraft(folder: Path) -> list[Finding]:
    runs = _read_table(folder, "mindcraft_runs")
    return [] if runs is None else mindcraft_findings(runs)


# The probe notebook's figures of the same quantities for the reference study (`report.study_views`).
REFERENCE_FIGURES = {
    "intention_ratio.png": "reference_intention_by_partner.png",
    "multistep_results.png": "reference_behaviour_by_partner.png",
}


def partner_effect_text(effects: pd.DataFrame) -> str:
    """`staghunt.social.partner_effect` in one sentence: every estimate with its interval, n and p."""
    parts = []
    for row in effects.itertuples(index=False):
        interval = "no interval" if pd.isna(row.ci_low) else f"[{row.ci_low:+.3f}, {row.ci_high:+.3f}]"
        p_value = "" if pd.isna(row.p_sign_flip) else f", sign-flip p = {row.p_sign_flip:.2g}"
        name = row.condition if row.effect == "difference" else f"difference in differences ({row.condition})"
        parts.append(f"{name}: {row.estimate:+.3f} {interval} (n = {int(row.n_seeds)} seeds{p_value})")
    return (
        "Partner effect, P(stag | KindA partner) - P(stag | KindB partner) of KindA focals in the final 10% of "
        "training (bootstrap 95% over seeds): " + "; ".join(parts) + "."
    )


def reference_findings(study_folder: str | Path) -> list[Finding]:
    """The committed reference study's findings, each sentence starting with the study's label."""
    from cogames_lib.staghunt.social import partner_effect
    from cogames_lib.staghunt.study_tables import load_probe_study

    study = load_probe_study(study_folder)
    findings = [
        Finding(
            f"{study.label[:1].upper()}{study.label[1:]}. {finding.text}",
            REFERENCE_FIGURES.get(finding.figure or ""),
        )
        for finding in probe_findings(study.intention, study.multistep)
    ]
    effects = partner_effect(study.intention)
    if len(effects):
        findings.append(
            Finding(f"Reference study. {partner_effect_text(effects)}", "reference_partner_effect.png")
        )
    return findings


def _probes(folder: Path) -> list[Finding]:
    from cogames_lib.report.notebook_files import read_summary

    reference = (read_summary(folder) or {}).get("reference folder")
    findings = (
        reference_findings(reference) if reference and (Path(reference) / "study.json").is_file() else []
    )
    intention, multistep = _read_table(folder, "probe_intention"), _read_table(folder, "probe_multistep")
    if intention is None and multistep is None:
        return findings
    smoke = probe_findings(
        intention if intention is not None else pd.DataFrame(),
        multistep if multistep is not None else pd.DataFrame(),
    )
    # next to the reference study, the notebook's own run is a smoke run: say so in each sentence
    prefix = "Live smoke run (a check that the pipeline runs, not a result). " if findings else ""
    return findings + [Finding(prefix + finding.text, finding.figure) for finding in smoke]


READERS: dict[str, Callable[[Path], list[Finding]]] = {
    "diagnostics_sweep": _diagnostics,
    "mindcraft_outcomes": _mindcraft,
    "probe_tests": _probes,
}


def findings_for(notebook: str, folder: str | Path) -> list[Finding]:
    """The findings of a notebook's output folder (none for a notebook this module does not know). A figure
    the folder does not hold is dropped from its finding, so the index never shows a broken image."""
    reader = READERS.get(notebook)
    if reader is None:
        return []
    root = Path(folder)
    return [
        finding if finding.figure is None or (root / finding.figure).is_file() else Finding(finding.text)
        for finding in reader(root)
    ]
