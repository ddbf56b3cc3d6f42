"""The report suite (seed 000): long reports of a multi-agent RAG system, six weighted metrics,
a three-judge ensemble, grades A+..F and strengths/weaknesses/recommendations per query."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel

from assay.schemas import ScoreRow
from assay.suites.base import AggregateResult, LoadedDataset, MetricFamily, ReportSection, Suite
from assay.suites.report import dataset, metrics, summary
from assay.suites.report.schema import ReportCase, ReportGeneration

# §1.8 grade bands for the distribution chart: (lower bound, upper bound, letter, shade).
_BANDS = [
    (9.5, 10.0, "A+", "#1a9850"), (9.0, 9.5, "A", "#66bd63"), (8.5, 9.0, "B+", "#a6d96a"),
    (8.0, 8.5, "B", "#d9ef8b"), (7.5, 8.0, "C+", "#fee08b"), (7.0, 7.5, "C", "#fdae61"),
    (6.0, 7.0, "D", "#f46d43"), (0.0, 6.0, "F", "#d73027"),
]  # fmt: skip


class ReportSuite(Suite):
    name = "report"
    title = "Multi-agent RAG reports"
    seed = "000"
    description = (
        "Long reports of a multi-agent RAG system: task success, output quality (jury), completeness, "
        "hallucination (jury), efficiency, source quality; overall score, grade A+..F, strengths, "
        "weaknesses and recommendations per query, per team type and overall."
    )
    case_model = ReportCase
    generation_model = ReportGeneration
    default_params = {"disagreement_threshold": 3.0}

    def load_dataset(self, root: Path) -> LoadedDataset:
        return dataset.load_report_dataset(root)

    def validation_frames(self, data: LoadedDataset) -> dict[str, pd.DataFrame]:
        return dataset.report_validation_frames(data)

    def validation_parameters(self, data: LoadedDataset) -> dict[str, Any]:
        return dataset.report_validation_parameters(data)

    def parse_cases(self, data: LoadedDataset, skip_ids: set[str] = frozenset()) -> list[BaseModel]:  # type: ignore[assignment]
        return dataset.parse_report_cases(data, set(skip_ids))  # type: ignore[return-value]

    def metric_families(self) -> list[MetricFamily]:
        return [
            MetricFamily(
                "automatic", metrics.compute_automatic,
                description="task success, completeness, efficiency, source quality, invalid [SOURCE:N] tags",
            ),
            MetricFamily(
                "jury", metrics.compute_jury, uses_jury=True,
                description="jury: factual accuracy, coherence, relevance (0-10); hallucination count, citation accuracy",
            ),
        ]

    def aggregate(self, rows: list[ScoreRow], cases: list[BaseModel], params: dict[str, Any]) -> AggregateResult:
        return summary.aggregate(rows, cases, params)  # type: ignore[arg-type]

    def report_sections(
        self, scores: pd.DataFrame, summary_: dict[str, Any], cases: list[BaseModel], generations: dict[str, BaseModel]
    ) -> list[ReportSection]:
        return summary.report_sections(scores, summary_, cases, generations)  # type: ignore[arg-type]

    def charts(self, summary_: dict[str, Any]) -> dict[str, bytes]:
        """Metric means (0-10), overall score per team type, and the distribution of overall
        scores over the grade bands. The default charts plot 0-1 and 1-5 scales only."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from assay.report.render import _png
        from assay.report.tables import fmt

        charts: dict[str, bytes] = {}
        means = {m: summary_["overall"][m]["mean"] for m in [*summary_["six_metrics"], "overall"]}
        means = {m: v for m, v in means.items() if v is not None}
        if means:
            fig, ax = plt.subplots(figsize=(8, 4))
            names = list(means)
            colors = ["#DD8452" if n == "overall" else "#4C72B0" for n in names]
            ax.bar(names, [means[n] for n in names], color=colors)
            for i, n in enumerate(names):
                ax.text(i, means[n] + 0.15, fmt(means[n], 2), ha="center", fontsize=8)
            ax.set_ylim(0, 10.8)
            ax.axhline(8.0, color="gray", linestyle="--", alpha=0.6, label="B (8.0)")
            ax.set_title("Metric means (0-10)")
            ax.tick_params(axis="x", rotation=20)
            ax.legend(loc="lower right")
            charts["metric_means"] = _png(fig, plt)

        teams = {t: i["means"].get("overall") for t, i in summary_["by_team_type"].items()}
        teams = {t: v for t, v in teams.items() if v is not None}
        if teams:
            fig, ax = plt.subplots(figsize=(7, 0.5 * len(teams) + 1.4))
            items = sorted(teams.items(), key=lambda kv: kv[1])
            ax.barh([k for k, _ in items], [v for _, v in items], color="#4C72B0")
            ax.set_xlim(0, 10)
            ax.axvline(8.0, color="gray", linestyle="--", alpha=0.6)
            ax.set_xlabel("mean overall score (0-10)")
            ax.set_title("Overall score by team type")
            charts["overall_by_team_type"] = _png(fig, plt)

        overall = [c["overall"] for c in summary_["cases"] if c.get("overall") is not None]
        if overall:
            from matplotlib.ticker import MaxNLocator

            low = min(5.0, float(int(min(overall))))
            fig, ax = plt.subplots(figsize=(9, 4))
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
            charts["overall_distribution"] = _png(fig, plt)
        return charts
