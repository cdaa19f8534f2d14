"""Every figure, drawn from edge-case tables (one row, all values equal, NaN, one group), renders without
failing, leaves no empty panel and sets no text under 9 pt; drawn from a full-profile-sized sweep, every
diagnostics figure fits a report page at 96 dpi, so no browser scales its 9 pt text down."""

from __future__ import annotations

from collections.abc import Callable

import matplotlib

matplotlib.use("Agg")

import itertools
from io import BytesIO

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.patches import PathPatch
from matplotlib.text import Text

from cogames_lib import plots
from cogames_lib.diagnostics import DIAGNOSTICS
from cogames_lib.diagnostics.redundancy import redundancy
from cogames_lib.plots.style import PAGE_WIDTH_IN, POLICY_ORDER, SCREEN_DPI
from cogames_lib.sweep.compare import compare_policies
from tests.test_plots import make_episodes, make_intention, make_multistep, make_runs

MIN_POINTS = 9.0


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _rates(frame: pd.DataFrame) -> pd.DataFrame:
    return frame


def _one_row(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.head(1).reset_index(drop=True)


def _one_group(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    first = frame[column].iloc[0]
    return frame[frame[column] == first].reset_index(drop=True)


def _all_equal(frame: pd.DataFrame, **values: object) -> pd.DataFrame:
    return frame.assign(**values)


def _with_nan(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    out = frame.copy()
    out.loc[out.index[::2], column] = np.nan
    return out


EPISODES = make_episodes()
RUNS = make_runs()
INTENTION = make_intention()
MULTISTEP = make_multistep()
PAIRS = pd.DataFrame(
    dict(
        epoch=[0, 0, 100, 100, 100],
        partner_kind=["no_partner"] * 5,
        p_stag_intention=[0.9, 0.2, 0.8, 0.6, 0.3],
        result=[1.0, 0.0, 0.0, 1.0, 0.5],
        agrees=[True, True, False, True, None],
    )
)
RATES = pd.DataFrame(
    dict(task_type=["cooking", "techtree"], n=[4, 4], successes=[1, 3], rate=[0.25, 0.75],
         ci_low=[0.05, 0.3], ci_high=[0.7, 0.95])
)  # fmt: skip
REDUNDANCY = pd.DataFrame(
    dict(diagnostic_a=["diagnostic_x", "diagnostic_x", "diagnostic_y"],
         diagnostic_b=["diagnostic_y", "diagnostic_z", "diagnostic_z"],
         agreement=[0.96, 0.2, 0.3], n_shared=[25, 25, 25], redundant=[True, False, False])
)  # fmt: skip
CURVES = pd.DataFrame(dict(epoch=range(20), mean_return=np.arange(20.0), epsilon=np.linspace(1, 0.05, 20)))

LEARNING = pd.DataFrame(
    dict(condition=["all_can_hunt"] * 4 + ["not_all_can_hunt"] * 4,
         metric=["stags_killed", "stags_killed", "mean_return", "mean_return"] * 2, epoch=[50, 100] * 4,
         n_seeds=5, mean=[0.2, 0.6, 10.0, 25.0] * 2, ci_low=[0.1, 0.5, 8.0, 22.0] * 2,
         ci_high=[0.3, 0.7, 12.0, 28.0] * 2)
)  # fmt: skip
PARTNER_CURVES = pd.DataFrame(
    dict(condition="not_all_can_hunt", agent_kind="AgentKindA", partner_kind=["no_partner", "AgentKindA", "AgentKindB"] * 2,
         epoch=[0, 0, 0, 100, 100, 100], n_seeds=5, mean=[0.5, 0.5, 0.5, 0.6, 0.7, 0.4],
         ci_low=[0.45, 0.4, 0.4, 0.5, 0.6, 0.3], ci_high=[0.55, 0.6, 0.6, 0.7, 0.8, 0.5])
)  # fmt: skip
EFFECTS = pd.DataFrame(
    dict(effect=["difference", "difference", "difference_in_differences"],
         condition=["all_can_hunt", "not_all_can_hunt", "not_all_can_hunt - all_can_hunt"], n_seeds=5,
         estimate=[0.01, 0.2, 0.19], ci_low=[-0.02, 0.15, 0.12], ci_high=[0.04, 0.25, 0.26],
         p_sign_flip=[0.7, 0.0625, 0.0625], scale="p_stag", partner_side="all", design="paired within seed",
         p_wilcoxon=0.0625, wilcoxon_note="", seeds_positive=5)
)  # fmt: skip


def _one_seed(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(n_seeds=1, ci_low=np.nan, ci_high=np.nan)


Case = tuple[str, Callable[[], plt.Figure]]


def _cases() -> list[Case]:
    episode_figures = {
        "pass_rate_heatmap": plots.pass_rate_heatmap,
        "outcome_rates": plots.outcome_rates,
        "steps_to_success": plots.steps_to_success,
        "capability_matrix": plots.capability_matrix,
        "status_count_bars": plots.status_count_bars,
    }
    episode_tables = {
        "one row": _one_row(EPISODES),
        "one policy": _one_group(EPISODES, "policy"),
        "all pass": _all_equal(EPISODES, success=True, status="SUCCESS", steps=30),
        "all fail": _all_equal(EPISODES, success=False, status="TIMED_OUT", steps=250),
    }
    cases: list[Case] = []
    for (name, figure), (label, table) in (
        (f, t) for f in episode_figures.items() for t in episode_tables.items()
    ):
        cases.append((f"{name} / {label}", lambda figure=figure, table=table: figure(table)))
    run_tables = {
        "one row": _one_row(RUNS),
        "one task type": _one_group(RUNS, "task_type"),
        "all success": _all_equal(RUNS, overall_completion_status="SUCCESS", overall_raw_score=1.0,
                                  overall_is_successful=True),
        "NaN scores": _with_nan(RUNS, "overall_raw_score"),
    }  # fmt: skip
    for label, table in run_tables.items():
        cases.append((f"status_breakdown / {label}", lambda table=table: plots.status_breakdown(table)))
        cases.append((f"construction_scores / {label}", lambda table=table: plots.construction_scores(table)))
    for label, table in {
        "one row": _one_row(RATES),
        "all equal": _all_equal(RATES, rate=0.5, successes=2),
    }.items():
        cases.append(
            (f"success_rates / {label}", lambda table=table: plots.success_rates(table, "task_type"))
        )
    comparison = pd.DataFrame(
        {
            "group": ["overall", "task_type", "task_type", "agent_count"],
            "value": ["all", "cooking", "techtree", "2"],
            "n_tasks": [6, 4, 2, 1],
            "difference": [0.17, 0.25, 0.0, 1.0],
            "ci_low": [-0.33, -0.5, 0.0, float("nan")],  # zero width; none from n = 1
            "ci_high": [0.67, 1.0, 0.0, float("nan")],
            "mcnemar_p": [1.0, 1.0, 1.0, 1.0],
        }
    )
    for label, table in {
        "default": comparison,
        "one row": _one_row(comparison),
        "no paired task": comparison.assign(n_tasks=0),
    }.items():
        cases.append((f"model_difference / {label}", lambda table=table: plots.model_difference(table)))
    intention_tables = {
        "one row": _one_row(INTENTION),
        "one seed": _one_group(INTENTION, "seed"),
        "all equal": _all_equal(INTENTION, weight_facing_stag=0.2, weight_facing_hare=0.2),
        "NaN weights": _with_nan(INTENTION, "weight_facing_stag"),
    }
    for label, table in intention_tables.items():
        cases.append((f"intention_weights / {label}", lambda table=table: plots.intention_weights(table)))
        cases.append((f"intention_ratio / {label}", lambda table=table: plots.intention_ratio(table)))
    multistep_tables = {
        "one row": _one_row(MULTISTEP),
        "one seed": _one_group(MULTISTEP, "seed"),
        "all equal": _all_equal(MULTISTEP, result=0.0, first_attack_target="hare"),
    }
    for label, table in multistep_tables.items():
        cases.append((f"multistep_results / {label}", lambda table=table: plots.multistep_results(table)))
    for label, table in {"one row": _one_row(PAIRS), "all equal": _all_equal(PAIRS, p_stag_intention=0.5,
                                                                              result=1.0, agrees=True)}.items():  # fmt: skip
        cases.append((f"alignment / {label}", lambda table=table: plots.alignment(table)))
    for label, table in {
        "one row": _one_row(CURVES),
        "all equal": _all_equal(CURVES, mean_return=3.0),
    }.items():
        cases.append(
            (f"training_curves / {label}", lambda table=table: plots.training_curves(table, ["mean_return"]))
        )
    for label, table in {
        "one pair": _one_row(REDUNDANCY),
        "all equal": _all_equal(REDUNDANCY, agreement=1.0),
    }.items():
        cases.append((f"redundancy_heatmap / {label}", lambda table=table: plots.redundancy_heatmap(table)))
    for label, table in {"one row": _one_row(LEARNING), "one seed": _one_seed(LEARNING),
                         "all equal": _all_equal(LEARNING, mean=0.0, ci_low=0.0, ci_high=0.0)}.items():  # fmt: skip
        cases.append((f"study_learning_curves / {label}",
                      lambda table=table: plots.study_learning_curves(table, 0.27, "a label", "too short")))  # fmt: skip
    for label, table in {"one row": _one_row(PARTNER_CURVES), "one seed": _one_seed(PARTNER_CURVES),
                         "all equal": _all_equal(PARTNER_CURVES, mean=0.5)}.items():  # fmt: skip
        cases.append((f"partner_preference_curves / {label}",
                      lambda table=table: plots.partner_preference_curves(table)))  # fmt: skip
    for label, table in {"one row": _one_row(EFFECTS), "one seed": _one_seed(EFFECTS).assign(p_sign_flip=np.nan),
                         "all equal": _all_equal(EFFECTS, estimate=0.0, ci_low=0.0, ci_high=0.0)}.items():  # fmt: skip
        cases.append(
            (f"partner_effect_forest / {label}", lambda table=table: plots.partner_effect_forest(table))
        )
    baselines = {"all_can_hunt": 0.27, "not_all_can_hunt": 0.1}
    cases.append(("study_learning_curves / per-condition baselines",
                  lambda: plots.study_learning_curves(LEARNING, baselines, "a label", "", {"all_can_hunt": 5.0})))  # fmt: skip
    cases.append(("pass_rate_heatmap / default", lambda: plots.pass_rate_heatmap(EPISODES)))
    profile = compare_policies(EPISODES, "scripted", "noop", n_resamples=50).profile_table()
    for label, table in {
        "default": profile,
        "all equal": _all_equal(profile, fraction=1.0, low=1.0, high=1.0),
    }.items():
        cases.append((f"performance_profile / {label}", lambda table=table: plots.performance_profile(table)))
    cases.append(("capability_matrix / default", lambda: plots.capability_matrix(EPISODES)))
    return cases


def _visible_texts(figure: plt.Figure) -> list[Text]:
    return [
        text
        for text in figure.findobj(Text)
        if isinstance(text, Text) and text.get_visible() and text.get_text().strip()
    ]


def _is_empty(axes: plt.Axes) -> bool:
    drawn = axes.lines or axes.patches or axes.collections or axes.images or axes.texts or axes.tables
    return not drawn


@pytest.mark.parametrize(("name", "draw"), _cases(), ids=[name for name, _ in _cases()])
def test_figure_renders_readably_from_edge_case_data(name: str, draw: Callable[[], plt.Figure]) -> None:
    figure = draw()
    figure.canvas.draw()  # the layout engine and tick labels run here
    empty = [axes.get_title() or f"axes {i}" for i, axes in enumerate(figure.axes)
             if axes.get_visible() and axes.axison and _is_empty(axes)]  # fmt: skip
    assert not empty, f"{name}: empty panel(s) {empty}"
    small = sorted({(round(t.get_fontsize(), 1), t.get_text()[:30]) for t in _visible_texts(figure)
                    if t.get_fontsize() < MIN_POINTS})  # fmt: skip
    assert not small, f"{name}: text under {MIN_POINTS} pt: {small[:5]}"


def test_redundancy_heatmap_stretches_colours_over_the_values_present():
    figure = plots.redundancy_heatmap(REDUNDANCY.assign(agreement=[0.96, 0.90, 0.93]))
    image = figure.axes[0].images[0]
    assert image.get_clim() == pytest.approx((0.90, 1.0))  # the diagonal is 1.00; not 0..1 (a solid panel)


def test_steps_to_success_draws_points_below_five_values_and_boxes_from_five():
    episodes = make_episodes()
    few = episodes[episodes["num_agents"] == 1].assign(success=True, status="SUCCESS")
    boxes = [p for p in plots.steps_to_success(few).axes[0].patches if isinstance(p, PathPatch)]
    assert not boxes  # three successes per cell: points only
    many = pd.concat([few] * 5, ignore_index=True)
    assert [p for p in plots.steps_to_success(many).axes[0].patches if isinstance(p, PathPatch)]


def test_partner_effect_forest_does_not_blow_up_a_negligible_difference():
    tiny = EFFECTS.assign(estimate=[0.0001, 0.0003, 0.0002], ci_low=np.nan, ci_high=np.nan, n_seeds=1)
    low, high = plots.partner_effect_forest(tiny).axes[0].get_xlim()
    assert low <= -0.05 and high >= 0.05


def _full_profile_episodes() -> pd.DataFrame:
    """Every policy and ablation x every diagnostic x 1/2/4 agents x 3 seeds, mixed outcomes."""
    random = np.random.default_rng(0)
    rows = []
    for policy, diagnostic, agents, seed in itertools.product(POLICY_ORDER, DIAGNOSTICS, (1, 2, 4), range(3)):
        if agents in DIAGNOSTICS[diagnostic].allowed_agent_counts:
            success = bool(random.random() < 0.5)
            rows.append(dict(policy=policy, diagnostic=diagnostic, num_agents=agents, seed=seed, success=success,
                             status="SUCCESS" if success else "TIMED_OUT", steps=30 if success else 250))  # fmt: skip
    frame = pd.DataFrame(rows)
    frame["policy"] = pd.Categorical(frame["policy"], categories=list(POLICY_ORDER), ordered=True)
    frame["diagnostic"] = pd.Categorical(frame["diagnostic"], categories=list(DIAGNOSTICS), ordered=True)
    return frame


@pytest.mark.parametrize(
    "name",
    [
        "pass_rate_heatmap",
        "capability_matrix",
        "outcome_rates",
        "status_count_bars",
        "steps_to_success",
        "redundancy_heatmap",
    ],
)
def test_full_profile_figures_fit_a_report_page_unscaled(name: str) -> None:
    episodes = _full_profile_episodes()
    figure = (
        plots.redundancy_heatmap(redundancy(episodes, 0.95))
        if name == "redundancy_heatmap"
        else getattr(plots, name)(episodes)
    )
    buffer = BytesIO()
    figure.savefig(buffer, format="png", dpi=SCREEN_DPI, bbox_inches="tight")  # as `report.display.show`
    width = plt.imread(BytesIO(buffer.getvalue())).shape[1]
    assert width <= PAGE_WIDTH_IN * SCREEN_DPI, f"{name} is {width} px wide: a page would shrink its text"


def test_an_all_equal_redundancy_map_is_a_note_not_a_solid_panel():
    figure = plots.redundancy_heatmap(REDUNDANCY.assign(agreement=1.0))
    assert not [axes for axes in figure.axes if axes.images]
    assert "agree on 1.00" in " ".join(t.get_text() for t in figure.findobj(Text))
