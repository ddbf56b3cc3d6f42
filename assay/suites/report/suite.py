"""The report suite (seed 000): long reports of a multi-agent RAG system, six weighted metrics,
a three-judge ensemble, grades A+..F and strengths/weaknesses/recommendations per query."""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from assay.schemas import LoadedDataset
from assay.suites.kit import CaseContext, CaseView, DatasetFunctions, Suite, SummaryFunctions, labelled
from assay.suites.kit.charts import bars, group_chart, png, pyplot
from assay.suites.report import dataset, metrics, summary
from assay.suites.report.importing import ReportImporter
from assay.suites.report.prompts import (
    REPORT_COHERENCE,
    REPORT_FACTUAL_ACCURACY,
    REPORT_HALLUCINATION,
    REPORT_RELEVANCE,
)
from assay.suites.report.schema import ReportCase, ReportGeneration
from assay.suites.report.summary import ReportSummary

# §1.8 grade bands for the distribution chart: (lower bound, upper bound, letter, shade).
_BANDS = [
    (9.5, 10.0, "A+", "#1a9850"), (9.0, 9.5, "A", "#66bd63"), (8.5, 9.0, "B+", "#a6d96a"),
    (8.0, 8.5, "B", "#d9ef8b"), (7.5, 8.0, "C+", "#fee08b"), (7.0, 7.5, "C", "#fdae61"),
    (6.0, 7.0, "D", "#f46d43"), (0.0, 6.0, "F", "#d73027"),
]  # fmt: skip


class ReportSuite(Suite[ReportCase, ReportGeneration, ReportSummary]):
    name = "report"
    title = "Multi-agent RAG reports"
    seed = "000"
    description = (
        "Long reports of a multi-agent RAG system: task success, output quality (jury), completeness, "
        "hallucination (jury), efficiency, source quality; overall score, grade A+..F, strengths, "
        "weaknesses and recommendations per query, per team type and overall."
    )
    group_label = "team"
    importer = ReportImporter()  # `assay import report FILE`
    dataset_functions = DatasetFunctions(dataset.load_report_dataset, dataset.report_validation_frames,
                                         dataset.report_validation_parameters)
    families = metrics.FAMILIES
    prompts = (REPORT_FACTUAL_ACCURACY, REPORT_COHERENCE, REPORT_RELEVANCE, REPORT_HALLUCINATION)
    summary_functions = SummaryFunctions(summary.aggregate, summary.report_sections, metrics=summary.METRICS)

    def parse_cases(self, data: LoadedDataset, skip_ids: AbstractSet[str] = frozenset()) -> list[ReportCase]:
        return dataset.parse_report_cases(data, set(skip_ids))

    def case_view(self, case: ReportCase, generation: ReportGeneration | None) -> CaseView:
        inputs = labelled(("query", case.query), ("requirements", "\n".join(case.requirements)),
                          ("required sections", "\n".join(case.required_sections)))
        if generation is None:
            return CaseView(group=case.team_type, inputs=inputs)
        outputs = labelled(("report", generation.report or "(empty)"),
                           ("search queries", "\n".join(generation.search_queries)), ("error", generation.error))
        contexts = [CaseContext(title=f"[SOURCE:{s.number}] {s.title} ({s.source_type})", text=s.content, score=s.score)
                    for s in generation.sources]
        return CaseView(group=case.team_type, inputs=inputs, outputs=outputs, contexts=contexts)

    def charts(self, summary_: ReportSummary) -> dict[str, bytes]:
        """Metric means (0-10), overall score per team type, and the distribution of overall
        scores over the grade bands."""
        charts: dict[str, bytes] = {}
        means = {m: summary_.mean(m) for m in [*summary_.six_metrics, "overall"]}
        means = {m: v for m, v in means.items() if v is not None}
        if means:
            fig, ax = pyplot().subplots(figsize=(8, 4))
            colors = ["#DD8452" if n == "overall" else "#4C72B0" for n in means]
            bars(ax, means, (0, 10.8), 8.0, "Metric means (0-10)", digits=2, colors=colors, good_label="B (8.0)")
            charts["metric_means"] = png(fig)
        teams = group_chart({t: i.means for t, i in summary_.by_team_type.items()}, "overall", (0, 10), 8.0,
                            "mean overall score (0-10)", "Overall score by team type")
        if teams:
            charts["overall_by_team_type"] = teams
        overall = [c.overall for c in summary_.cases if c.overall is not None]
        if overall:
            charts["overall_distribution"] = _grade_histogram(overall)
        return charts


def _grade_histogram(overall: list[float]) -> bytes:
    from matplotlib.ticker import MaxNLocator

    low = min(5.0, float(int(min(overall))))
    fig, ax = pyplot().subplots(figsize=(9, 4))
    for lo, hi, letter, color in _BANDS:
        lo = max(lo, low)
        ax.axvspan(lo, hi, color=color, alpha=0.35, zorder=0)
        ax.text((lo + hi) / 2, 0.97, letter, transform=ax.get_xaxis_transform(), ha="center", va="top", fontsize=9)
    edges = [low] + [lo for lo, _, _, _ in reversed(_BANDS) if lo > low] + [10.0]
    counts, _, _ = ax.hist(overall, bins=edges, color="#4C72B0", edgecolor="white", zorder=2)
    ax.set_ylim(0, max(counts) + 1)  # headroom for the grade letters
    ax.set_xlim(low, 10)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("overall score (0-10); bars span the grade bands")
    ax.set_ylabel("queries")
    ax.set_title(f"Distribution of overall scores over grades ({len(overall)} queries)")
    return png(fig)
