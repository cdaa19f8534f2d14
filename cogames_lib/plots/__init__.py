"""Every figure the notebooks show: one function per figure, a tidy table in, a matplotlib Figure out.

Plots only draw; the aggregates they show come from `cogames_lib.stats` (Wilson intervals for binary
rates, bootstrap over seeds for means) via `cogames_lib.plots.summaries`. Category order and colours
are fixed tables in `cogames_lib.plots.style`, so a policy or partner keeps its colour in every figure.
"""

from __future__ import annotations

from cogames_lib.plots.comparison import performance_profile
from cogames_lib.plots.diagnostics import (
    capability_matrix,
    outcome_rates,
    pass_rate_heatmap,
    status_count_bars,
    steps_to_success,
)
from cogames_lib.plots.mindcraft import construction_scores, model_difference, status_breakdown, success_rates
from cogames_lib.plots.probes import (
    alignment,
    intention_ratio,
    intention_weights,
    multistep_results,
    training_curves,
)
from cogames_lib.plots.study import (
    acting_partner_forest,
    partner_effect_forest,
    partner_preference_curves,
    study_learning_curves,
)
from cogames_lib.plots.style import CONDITION_COLOURS, PARTNER_COLOURS, POLICY_COLOURS, STATUS_PALETTE
from cogames_lib.plots.trajectories import episode_trajectory, redundancy_heatmap

__all__ = [
    "CONDITION_COLOURS",
    "PARTNER_COLOURS",
    "POLICY_COLOURS",
    "STATUS_PALETTE",
    "acting_partner_forest",
    "alignment",
    "capability_matrix",
    "construction_scores",
    "episode_trajectory",
    "intention_ratio",
    "intention_weights",
    "model_difference",
    "multistep_results",
    "outcome_rates",
    "partner_effect_forest",
    "partner_preference_curves",
    "pass_rate_heatmap",
    "performance_profile",
    "redundancy_heatmap",
    "status_breakdown",
    "status_count_bars",
    "steps_to_success",
    "study_learning_curves",
    "success_rates",
    "training_curves",
]
