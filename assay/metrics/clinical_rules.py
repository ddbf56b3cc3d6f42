"""Moved to ``assay.suites.clinical.formulas.rules``: the names users import from here still work.

A lazy re-export: the suites sit above the metrics layer, so the suite's module is imported on
first use of one of these names, never when this module is (type checkers read the import below).
"""

from typing import TYPE_CHECKING

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
    "AggregateConfig", "ClinicalRules", "Condition", "Contraindications", "Cues", "Drug", "FlagDef",
    "Lexicon", "Measure", "Names", "RULES_DIR", "RULE_FILES", "Range", "Rule", "RulesError", "Scoring",
    "Severity", "Status", "Test", "ViolationIf", "When", "load_rules",
]


def __getattr__(name: str) -> object:
    if name in __all__:
        from assay.suites.clinical.formulas import rules

        return getattr(rules, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
