"""Each figure renders on a small hand-made tidy table (SPEC data contracts) with the expected axes."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from cogames_lib import plots
from cogames_lib.errors import ParameterError
from cogames_lib.plots.style import PARTNER_COLOURS, POLICY_COLOURS, STATUS_PALETTE, ordered, palette
from cogames_lib.plots.summaries import mean_with_interval, status_fractions


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def make_episodes() -> pd.DataFrame:
    rows = []
    for policy, diagnostic, agents, seed in itertools.product(
        ["noop", "scripted"], ["diagnostic_chest_near", "diagnostic_radial"], [1, 2], range(3)
    ):
        if diagnostic == "diagnostic_chest_near" and agents == 2:
            continue  # a single-agent diagnostic: the cell is not run
        success = policy == "scripted" and not (seed == 2 and agents == 2)
        status = "SUCCESS" if success else ("RUN_ERROR" if seed == 1 and policy == "noop" else "TIMED_OUT")
        rows.append(
            dict(
                sweep_id="s",
                policy=policy,
                diagnostic=diagnostic,
                num_agents=agents,
                seed=seed,
                status=status,
                success=success,
                reward=float(success),
                steps=20 + seed if success else 250,
                max_steps=250,
                error="boom" if status == "RUN_ERROR" else "",
                duration_s=0.1,
            )
        )
    frame = pd.DataFrame(rows)
    frame["diagnostic"] = pd.Categorical(
        frame["diagnostic"], categories=["diagnostic_radial", "diagnostic_chest_near"]
    )
    return frame


def make_runs() -> pd.DataFrame:
    statuses = [
        "SUCCESS",
        "FAILED_SCORE_ZERO",
        "FAILED_PARTIAL_SCORE",
        "TIMED_OUT",
        "NO_SCORE_LOGGED",
        "LOG_FILE_ERROR",
    ]
    rows = []
    for index, status in enumerate(statuses * 2):
        task_type = ["cooking", "techtree", "construction"][index % 3]
        score = {"SUCCESS": 1.0, "FAILED_PARTIAL_SCORE": 0.4, "FAILED_SCORE_ZERO": 0.0}.get(status)
        rows.append(
            dict(
                task_id=f"t{index}",
                task_type=task_type,
                agent_count=1 + index % 3,
                overall_completion_status=status,
                overall_raw_score=score,
                overall_is_successful=status == "SUCCESS",
            )
        )
    return pd.DataFrame(rows)


def make_intention() -> pd.DataFrame:
    rows = []
    rng = np.random.default_rng(1)
    for condition, seed, epoch, agent, partner, version in itertools.product(
        ["all_can_hunt", "not_all_can_hunt"],
        [0, 1],
        [0, 100],
        [0, 1, 2],
        ["no_partner", "AgentKindA"],
        ["ver1", "ver2"],
    ):
        stag, hare = rng.uniform(0.05, 0.45, 2)
        rows.append(
            dict(
                epoch=epoch,
                agent_id=agent,
                map_name="test_intention_probe_test_1",
                partner_kind=partner,
                version=version,
                weight_facing_stag=stag,
                weight_facing_hare=hare,
                condition=condition,
                seed=seed,
            )
        )
    return pd.DataFrame(rows)


def make_multistep() -> pd.DataFrame:
    rows = []
    for condition, seed, epoch, agent, partner in itertools.product(
        ["all_can_hunt"], [0, 1], [0, 100], [0, 1, 2], ["no_partner", "AgentKindB"]
    ):
        result = [1.0, 0.0, 0.5][(seed + agent + epoch // 100) % 3]
        target = {1.0: "stag", 0.0: "hare", 0.5: "none"}[result]
        rows.append(
            dict(
                epoch=epoch,
                agent_id=agent,
                partner_kind=partner,
                first_attack_target=target,
                result=result,
                turn_of_first_attack=3,
                condition=condition,
                seed=seed,
                agent_kind="AgentKindB" if agent == 2 else "AgentKindA",
            )
        )
    return pd.DataFrame(rows)


def texts(figure: plt.Figure) -> str:
    parts = [figure._suptitle.get_text() if figure._suptitle else ""]
    for axes in figure.axes:
        parts += [axes.get_title(), axes.get_xlabel(), axes.get_ylabel()]
        parts += [t.get_text() for t in axes.texts]
        parts += [t.get_text() for t in axes.get_xticklabels() + axes.get_yticklabels()]
        legend = axes.get_legend()
        if legend is not None:
            parts += [t.get_text() for t in legend.get_texts()]
    return "\n".join(parts)


def test_pass_rate_heatmap_has_one_panel_per_policy_and_wilson_labels():
    figure = plots.pass_rate_heatmap(make_episodes())
    panels = [axes for axes in figure.axes if axes.get_title()]
    # fixed policy order, not alphabetical; a panel whose cells are all equal says so instead of a solid colour
    assert [axes.get_title() for axes in panels] == ["scripted", "noop\n(all 3 cells 0.00)"]
    content = texts(figure)
    assert "Wilson" in content and "agents" in content
    # scripted, radial, 2 agents: 2 of 3 seeds pass -> rate 0.67 with the hand-checked Wilson interval
    assert "0.67\n[0.21,0.94]\nn=3" in content
    # catalogue order of the categorical is kept on the y axis (names without the common prefix)
    assert [t.get_text() for t in panels[0].get_yticklabels()] == ["radial", "chest_near"]


def test_outcome_rates_draws_timeout_and_error_panels():
    figure = plots.outcome_rates(make_episodes())
    titles = [axes.get_title() for axes in figure.axes]
    assert titles[0].startswith("Timeout rate") and titles[1].startswith("Error rate")
    bars = [p for p in figure.axes[0].patches]
    assert {matplotlib.colors.to_hex(b.get_facecolor()) for b in bars} == {
        POLICY_COLOURS["scripted"],
        POLICY_COLOURS["noop"],
    }
    # every bar carries its own n (1 agent: 2 diagnostics x 3 seeds; 2 agents: 1 diagnostic x 3 seeds)
    for axes in figure.axes[:2]:
        labels = sorted(text.get_text() for text in axes.texts)
        assert labels == ["n=3", "n=3", "n=6", "n=6"]


def test_steps_capability_and_status_figures():
    episodes = make_episodes()
    assert "steps to success" in texts(plots.steps_to_success(episodes))
    matrix = plots.capability_matrix(episodes)
    assert matrix.axes[0].get_xlabel() == "policy / ablation" and matrix.axes[0].get_ylabel() == "diagnostic"
    # scripted on radial: 3/3 with one agent, 2/3 with two -> pooled 5/6
    assert "0.83\n[0.44,0.97]\nn=6" in texts(matrix) and "1.00\n[0.44,1.00]\nn=3" in texts(matrix)
    status = plots.status_count_bars(episodes)
    legend = [t.get_text() for t in status.axes[0].get_legend().get_texts()]
    assert legend == ["SUCCESS", "TIMED_OUT", "RUN_ERROR"]  # the fixed status order


def test_steps_to_success_without_successes_says_so():
    episodes = make_episodes().assign(success=False)
    assert "no successful episode" in texts(plots.steps_to_success(episodes))


def test_mindcraft_figures():
    runs = make_runs()
    figure = plots.status_breakdown(runs)
    assert [axes.get_xlabel() for axes in figure.axes] == ["task_type", "agent_count"]
    legend = [t.get_text() for t in figure.axes[-1].get_legend().get_texts()]
    assert legend == [
        "SUCCESS",
        "FAILED_PARTIAL_SCORE",
        "FAILED_SCORE_ZERO",
        "TIMED_OUT",
        "NO_SCORE_LOGGED",
        "LOG_FILE_ERROR",
    ]
    colours = [
        matplotlib.colors.to_hex(h.get_facecolor()) for h in figure.axes[-1].get_legend().legend_handles
    ]
    assert colours == [STATUS_PALETTE[s] for s in legend]
    rates = pd.DataFrame(
        dict(
            task_type=["cooking", "techtree"],
            n=[4, 4],
            successes=[1, 3],
            rate=[0.25, 0.75],
            ci_low=[0.05, 0.3],
            ci_high=[0.7, 0.95],
        )
    )
    figure = plots.success_rates(rates, "task_type")
    assert "Wilson" in figure.axes[0].get_title() and "1/4" in texts(figure)
    by_model = pd.concat(
        [rates.assign(model_name="m1"), rates.assign(model_name="m2", successes=[0, 4], rate=[0.0, 1.0])]
    )
    figure = plots.success_rates(by_model, "task_type")
    assert [t.get_text() for t in figure.axes[0].get_legend().get_texts()] == ["m1", "m2"]
    assert "0/4" in texts(figure) and "4/4" in texts(figure)
    figure = plots.construction_scores(runs)
    assert "(n=2, mean 0.40)" in figure.axes[0].get_title()  # two scored, two unreadable


def test_probe_figures():
    intention = make_intention()
    figure = plots.intention_weights(intention)
    assert len(figure.axes) == 2 and figure.axes[0].get_title().startswith("all_can_hunt")
    ratio = plots.intention_ratio(intention)
    dashed = [line for line in ratio.axes[0].lines if line.get_linestyle() == "--"]
    assert any(np.allclose(line.get_ydata(), 1.0) for line in dashed)
    multistep = plots.multistep_results(make_multistep())
    assert [axes.get_title() for axes in multistep.axes] == [
        "all_can_hunt / AgentKindA (n=2 seeds per point)",
        "all_can_hunt / AgentKindB (n=2 seeds per point)",
    ]
    # every interval says what it rests on: seeds, or rows of one seed (which says nothing across seeds)
    assert figure.axes[0].get_title().endswith("(95% bootstrap CI, n=2 seeds per point)")
    one_seed = plots.intention_ratio(intention[intention["seed"] == 0])
    assert one_seed.axes[0].get_title().endswith("(95% bootstrap CI, 1 seed, n=6 rows per point)")
    lines = [line for line in multistep.axes[0].lines if line.get_label() == "AgentKindB"]
    assert lines and matplotlib.colors.to_hex(lines[0].get_color()) == PARTNER_COLOURS["AgentKindB"]
    metrics = pd.DataFrame(
        dict(epoch=range(20), mean_return=np.arange(20.0), epsilon=np.linspace(1, 0.05, 20))
    )
    curves = plots.training_curves(metrics, ["mean_return", "epsilon"])
    assert [axes.get_ylabel() for axes in curves.axes] == ["mean_return", "epsilon"]
    pairs = pd.DataFrame(
        dict(
            epoch=[0, 0, 100, 100, 100],
            partner_kind=["no_partner"] * 5,
            p_stag_intention=[0.9, 0.2, 0.8, 0.6, 0.3],
            result=[1.0, 0.0, 0.0, 1.0, 0.5],
            agrees=[True, True, False, True, None],
        )
    )
    figure = plots.alignment(pairs)
    assert "n=5" in figure.axes[0].get_title() and figure.axes[1].get_ylabel() == "agreement rate"
    assert "n=4 attacks" in figure.axes[1].get_title()  # the probe without an attack is not counted
    # epoch 0: 2 of 2 attacks agree; epoch 100: 1 of 2 (the third probe never attacked)
    agreement = next(line for line in figure.axes[1].lines if line.get_label() == "no_partner")
    assert list(agreement.get_ydata()) == pytest.approx([1.0, 0.5])


def test_trajectory_and_redundancy_figures():
    cells = [["wall"] * 5, ["wall", "empty", "empty", "chest", "wall"], ["wall"] * 5]
    trace = pd.DataFrame(
        dict(step=[0, 1, 2, 0, 1], agent=[0, 0, 0, 1, 1], row=[1, 1, 1, 1, 1], col=[1, 2, 2, 2, 1])
    )
    figure = plots.episode_trajectory(trace, cells, "scripted / chest x2 / seed 0 (TIMED_OUT)")
    legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert legend == ["agent 0 (2 steps)", "agent 1 (1 step)"]  # plurals read right
    assert figure.axes[0].images[0].get_array().shape == (3, 5, 3)
    pairs = pd.DataFrame(
        dict(
            diagnostic_a=["diagnostic_x", "diagnostic_x", "diagnostic_y"],
            diagnostic_b=["diagnostic_y", "diagnostic_z", "diagnostic_z"],
            agreement=[0.96, 0.2, 0.3],
            n_shared=[25, 25, 25],
            redundant=[True, False, False],
        )
    )
    figure = plots.redundancy_heatmap(pairs)
    heatmap = figure.axes[0]
    assert sorted(t.get_text() for t in heatmap.get_xticklabels()) == ["x", "y", "z"]
    outlined = [
        p for p in heatmap.patches if isinstance(p, matplotlib.patches.Rectangle) and not p.get_fill()
    ]
    assert len(outlined) == 2  # (x, y) and (y, x)
    assert "1 pair)" in heatmap.get_title()
    # clustered: x and y (agreement 0.96) sit next to each other
    order = [t.get_text() for t in heatmap.get_yticklabels()]
    assert abs(order.index("x") - order.index("y")) == 1


def test_missing_column_is_a_one_line_error():
    with pytest.raises(
        ParameterError, match=r"pass_rate_heatmap: table is missing column\(s\) \['success'\]"
    ):
        plots.pass_rate_heatmap(make_episodes().drop(columns="success"))


def test_mean_with_interval_averages_within_seed_first():
    frame = pd.DataFrame(dict(epoch=[0] * 6, seed=[0, 0, 0, 1, 1, 1], value=[1, 1, 1, 0, 0, 0]))
    table = mean_with_interval(frame, ["epoch"], "value", unit="seed")
    assert table.loc[0, "n"] == 6 and table.loc[0, "mean"] == pytest.approx(0.5)
    # two seed means (1 and 0): the bootstrap can only produce 0, 0.5 or 1
    assert table.loc[0, "ci_low"] == pytest.approx(0.0) and table.loc[0, "ci_high"] == pytest.approx(1.0)


def test_status_fractions_sum_to_one_per_group():
    runs = make_runs()
    fractions = status_fractions(runs, "task_type", "overall_completion_status")
    sums = fractions.groupby("task_type")["fraction"].sum()
    assert np.allclose(sums.to_numpy(), 1.0)


def test_palette_is_fixed_and_deterministic_for_unknown_names():
    assert ordered(["noop", "mine", "scripted"], ["scripted", "noop"]) == ["scripted", "noop", "mine"]
    first = palette(["scripted", "zeta", "alpha"], POLICY_COLOURS)
    second = palette(["alpha", "zeta", "scripted"], POLICY_COLOURS)
    assert first == second and first["scripted"] == POLICY_COLOURS["scripted"]
