"""Moved to ``assay.suites.report.prompts`` (the report suite's own prompts); this path stays importable.

Lazily (``assay.reexport``): importing this module imports no suite; type checkers read the import below.
"""

from typing import TYPE_CHECKING

from assay.reexport import lazy_reexport

if TYPE_CHECKING:
    from assay.suites.report.prompts import (
        COHERENCE_EN,
        COHERENCE_KO,
        EN_SYSTEM,
        EXAMPLE_INPUT,
        FACTUAL_EN,
        FACTUAL_KO,
        HALLUCINATION_EN,
        HALLUCINATION_KO,
        KO_SYSTEM,
        RELEVANCE_EN,
        RELEVANCE_KO,
        REPORT_COHERENCE,
        REPORT_FACTUAL_ACCURACY,
        REPORT_HALLUCINATION,
        REPORT_RELEVANCE,
        SCORE_0_10,
        CoherenceVerdict,
        FactualAccuracyVerdict,
        HallucinationCase,
        HallucinationType,
        HallucinationVerdict,
        RelevanceVerdict,
        ReportInput,
        ReportSource,
        format_sources,
        render_report,
    )

__all__ = [
    "COHERENCE_EN", "COHERENCE_KO", "CoherenceVerdict", "EN_SYSTEM", "EXAMPLE_INPUT", "FACTUAL_EN",
    "FACTUAL_KO", "FactualAccuracyVerdict", "format_sources", "HALLUCINATION_EN",
    "HALLUCINATION_KO", "HallucinationCase", "HallucinationType", "HallucinationVerdict",
    "KO_SYSTEM", "RELEVANCE_EN", "RELEVANCE_KO", "RelevanceVerdict", "render_report",
    "REPORT_COHERENCE", "REPORT_FACTUAL_ACCURACY", "REPORT_HALLUCINATION", "REPORT_RELEVANCE",
    "ReportInput", "ReportSource", "SCORE_0_10",
]
__getattr__, __dir__ = lazy_reexport(__name__, "assay.suites.report.prompts", __all__)
