"""Moved to ``assay.suites.clinical.formulas.checks``; this path stays importable (``from assay.metrics.clinical_checks import answer_text``).

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

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
    "ALIASES", "answer_text", "as_list", "canonical_slot", "check_rules", "Fact", "fold", "med_name",
    "Mention", "patient_flags", "question_flags", "Reader", "Rule", "RuleCheck", "slot_uses", "SlotUse",
    "Usage",
]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.clinical.formulas.checks", __all__)
