"""Moved to ``assay.suites.clinical.formulas.rules``; this path stays importable (``from assay.metrics.clinical_rules import load_rules``).

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

if TYPE_CHECKING:
    from assay.suites.clinical.formulas.rules import (
        RULE_FILES,
        RULES_DIR,
        AggregateConfig,
        ClinicalRules,
        Condition,
        Contraindications,
        Cues,
        Drug,
        FlagDef,
        Lexicon,
        Measure,
        Names,
        Range,
        Rule,
        RulesError,
        Scoring,
        Severity,
        Status,
        Test,
        ViolationIf,
        When,
        load_rules,
    )

__all__ = [
    "RULE_FILES", "RULES_DIR", "AggregateConfig", "ClinicalRules", "Condition", "Contraindications",
    "Cues", "Drug", "FlagDef", "Lexicon", "load_rules", "Measure", "Names", "Range", "Rule",
    "RulesError", "Scoring", "Severity", "Status", "Test", "ViolationIf", "When",
]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.clinical.formulas.rules", __all__)
