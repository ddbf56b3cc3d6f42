"""The report suite's formulas moved into its folder: ``assay.suites.report.formulas``.

This path stays importable (``from assay.metrics.report import grade``) as a thin lazy re-export:
each name is imported from the suite on first use, so importing this module imports no suite.
Code inside the project imports the suite's module.
"""

from __future__ import annotations

from typing import Any

# The names this module exported before the move (linters cannot see lazy names in __all__).
_MOVED = (
    "CitationCheck",
    "DEFAULT_SOURCE_SCORE",
    "GRADES",
    "JUDGE_FIXES",
    "MAX_SOURCE_TYPES",
    "MIN_REPORT_CHARS",
    "MIN_SECTIONS",
    "OPTIMAL_SECTIONS",
    "SourceStats",
    "SuccessLevel",
    "TaskSuccess",
    "WEIGHTS",
    "citation_check",
    "completeness_score",
    "efficiency_score",
    "fix_for",
    "grade",
    "hallucination_score",
    "item_kind",
    "item_topic",
    "markdown_headers",
    "output_quality_score",
    "overall_score",
    "redundant_steps",
    "requirement_covered",
    "section_completeness",
    "section_headers",
    "source_quality",
    "source_stats",
    "strengths_weaknesses_recommendations",
    "task_success",
)
__all__ = list(_MOVED)


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        from assay.suites.report import formulas

        return getattr(formulas, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(_MOVED)
