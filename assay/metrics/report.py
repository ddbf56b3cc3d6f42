"""Moved to ``assay.suites.report.formulas``; this path stays importable (``from assay.metrics.report import citation_check``).

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

if TYPE_CHECKING:
    from assay.suites.report.formulas import (
        DEFAULT_SOURCE_SCORE,
        GRADES,
        JUDGE_FIXES,
        MAX_SOURCE_TYPES,
        MIN_REPORT_CHARS,
        MIN_SECTIONS,
        OPTIMAL_SECTIONS,
        WEIGHTS,
        CitationCheck,
        SourceStats,
        SuccessLevel,
        TaskSuccess,
        citation_check,
        completeness_score,
        efficiency_score,
        fix_for,
        grade,
        hallucination_score,
        item_kind,
        item_topic,
        markdown_headers,
        output_quality_score,
        overall_score,
        redundant_steps,
        requirement_covered,
        section_completeness,
        section_headers,
        source_quality,
        source_stats,
        strengths_weaknesses_recommendations,
        task_success,
    )

__all__ = [
    "DEFAULT_SOURCE_SCORE", "GRADES", "JUDGE_FIXES", "MAX_SOURCE_TYPES", "MIN_REPORT_CHARS",
    "MIN_SECTIONS", "OPTIMAL_SECTIONS", "WEIGHTS", "citation_check", "CitationCheck",
    "completeness_score", "efficiency_score", "fix_for", "grade", "hallucination_score", "item_kind",
    "item_topic", "markdown_headers", "output_quality_score", "overall_score", "redundant_steps",
    "requirement_covered", "section_completeness", "section_headers", "source_quality", "source_stats",
    "SourceStats", "strengths_weaknesses_recommendations", "SuccessLevel", "task_success",
    "TaskSuccess",
]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.report.formulas", __all__)
