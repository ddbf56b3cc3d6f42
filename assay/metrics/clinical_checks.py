"""Moved to ``assay.suites.clinical.formulas.checks``: the names users import from here still work.

A lazy re-export: the suites sit above the metrics layer, so the suite's module is imported on
first use of one of these names, never when this module is (type checkers read the import below).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.suites.clinical.formulas.checks import (
        ALIASES,
        Fact,
        Mention,
        Reader,
        Rule,
        RuleCheck,
        SlotUse,
        Usage,
        answer_text,
        as_list,
        canonical_slot,
        check_rules,
        fold,
        med_name,
        patient_flags,
        question_flags,
        slot_uses,
    )

__all__ = [
    "ALIASES", "Fact", "Mention", "Reader", "Rule", "RuleCheck", "SlotUse", "Usage", "answer_text",
    "as_list", "canonical_slot", "check_rules", "fold", "med_name", "patient_flags", "question_flags",
    "slot_uses",
]


def __getattr__(name: str) -> object:
    if name in __all__:
        from assay.suites.clinical.formulas import checks

        return getattr(checks, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
