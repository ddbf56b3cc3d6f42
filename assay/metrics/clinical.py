"""Moved to ``assay.suites.clinical.formulas.scores``; this path stays importable (``from assay.metrics.clinical import aggregate_score``).

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

if TYPE_CHECKING:
    from assay.suites.clinical.formulas.scores import (
        EPSILON,
        SEVERITY_WEIGHTS,
        USAGE_SCORES,
        AggregateScore,
        AnswerEvaluation,
        Fact,
        RuleCheck,
        SlotUse,
        aggregate_score,
        context_utilization,
        contraindication_penalty,
        evaluate_answer,
        normalize,
        slot_factuality,
    )

__all__ = [
    "EPSILON", "SEVERITY_WEIGHTS", "USAGE_SCORES", "aggregate_score", "AggregateScore",
    "AnswerEvaluation", "context_utilization", "contraindication_penalty", "evaluate_answer", "Fact",
    "normalize", "RuleCheck", "slot_factuality", "SlotUse",
]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.clinical.formulas.scores", __all__)
