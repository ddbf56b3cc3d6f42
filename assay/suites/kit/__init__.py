"""The suite kit: what a suite is and the parts every suite shares.

- ``Suite[CaseT, GenT, SummaryT]``: records, dataset reading, rules, families, aggregate, report;
  ``DatasetFunctions`` and ``SummaryFunctions`` declare the functions its defaults call.
- ``AutomaticFamily`` / ``JuryFamily`` / ``JuryPrompt``: metric families, declared.
- ``Summary``, ``MetricStats``, ``JurySummary`` and helpers: typed summaries and the jury section.
- ``ScoreRows``: the score rows ``aggregate`` reads, part by part.
- ``charts``: bar charts as deterministic PNG bytes.
- ``CaseView`` (``Suite.case_view``): how a case reads in the report's explorer.
"""

from assay.rendering.case_view import CaseContext, CaseField, CaseView, as_text, default_case_view, labelled
from assay.rendering.sections import ReportSection
from assay.schemas import LoadedDataset
from assay.suites.kit.families import AutomaticFamily, JuryFamily, JuryPrompt, missing_generation
from assay.suites.kit.rows import RowSpool, ScoreRows, as_score_rows
from assay.suites.kit.suite import (
    AggregateResult,
    DatasetFunctions,
    MetricContext,
    MetricFamily,
    ProgressFn,
    ReplayContext,
    Suite,
    SummaryFunctions,
)
from assay.suites.kit.summary import (
    Disagreement,
    JurySummary,
    JuryTally,
    MetricStats,
    Summary,
    ensemble,
    group_means,
    jury_section,
    jury_summary,
    metric_stats,
    scores_frame,
    value_index,
)

__all__ = [
    "AggregateResult",
    "AutomaticFamily",
    "CaseContext",
    "CaseField",
    "CaseView",
    "DatasetFunctions",
    "as_text",
    "default_case_view",
    "labelled",
    "Disagreement",
    "JuryFamily",
    "JuryPrompt",
    "JurySummary",
    "JuryTally",
    "LoadedDataset",
    "MetricContext",
    "MetricFamily",
    "MetricStats",
    "ProgressFn",
    "ReplayContext",
    "ReportSection",
    "RowSpool",
    "ScoreRows",
    "Suite",
    "Summary",
    "SummaryFunctions",
    "ensemble",
    "group_means",
    "jury_section",
    "jury_summary",
    "metric_stats",
    "missing_generation",
    "scores_frame",
    "value_index",
    "as_score_rows",
]
