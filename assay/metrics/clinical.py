"""Moved to ``assay.suites.clinical.formulas.scores``: the names users import from here still work.

A lazy re-export: the suites sit above the metrics layer, so the suite's module is imported on
first use of one of these names, never when this module is (type checkers read the import below).
"""

from typing import TYPE_CHECKING

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
    "AggregateScore", "AnswerEvaluation", "EPSILON", "Fact", "RuleCheck", "SEVERITY_WEIGHTS", "SlotUse",
    "USAGE_SCORES", "aggregate_score", "context_utilization", "contraindication_penalty",
    "evaluate_answer", "normalize", "slot_factuality",
]


def __getattr__(name: str) -> object:
    if name in __all__:
        from assay.suites.clinical.formulas import scores

        return getattr(scores, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
