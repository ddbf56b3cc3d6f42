"""The rag_qa suite (seed 003): retrieval metrics and a judged answer score per case."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assay.schemas import JsonObject, LoadedDataset
from assay.spec import RunSpec
from assay.suites.kit import (
    AggregateResult,
    CaseContext,
    CaseView,
    MetricFamily,
    ReplayContext,
    ReportSection,
    ScoreRows,
    Suite,
    labelled,
)
from assay.suites.rag_qa import dataset, metrics, summary
from assay.suites.rag_qa.importing import RagImporter
from assay.suites.rag_qa.schema import RagCase, RagGeneration

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd


class RagQASuite(Suite[RagCase, RagGeneration]):
    name = "rag_qa"
    title = "RAG question answering"
    seed = "003"
    description = (
        "Retrieval (MRR, nDCG@k, P@k, R@k, keyword coverage) and answers (jury: accuracy, completeness, "
        "relevance 1-5), per case, per category and overall."
    )
    case_model = RagCase
    generation_model = RagGeneration
    summary_model = summary.RagSummary
    group_label = "category"
    importer = RagImporter()  # `assay import rag_qa FILE`
    # a criterion may read `contexts`: the retrieved chunks' texts, best first
    derived_fields = {"contexts": lambda case, generation: [chunk.text for chunk in generation.retrieved]}

    def load_dataset(self, root: Path) -> LoadedDataset:
        return dataset.load_rag_dataset(root)

    def validation_frames(self, data: LoadedDataset) -> dict[str, pd.DataFrame]:
        return dataset.rag_validation_frames(data)

    def validation_parameters(self, data: LoadedDataset) -> JsonObject:
        return dataset.rag_validation_parameters(data)

    def live_replay(self, cases: list[RagCase], data: LoadedDataset, ctx: ReplayContext) -> list[JsonObject]:
        from assay.suites.rag_qa.live import live_generations

        return live_generations(cases, data.root / "kb", ctx)

    def metric_families(self) -> list[MetricFamily]:
        return metrics.FAMILIES

    def metric_names(self, spec: RunSpec) -> list[str]:
        return list(metrics.retrieval_metric_names(spec.k)) + list(metrics.ANSWER_METRICS)

    def aggregate(self, rows: ScoreRows, cases: list[RagCase], spec: RunSpec) -> AggregateResult:
        return summary.aggregate(rows, cases, spec)

    def charts(self, summary_: summary.RagSummary) -> dict[str, bytes]:  # type: ignore[override]
        return summary.charts(summary_)

    def case_view(self, case: RagCase, generation: RagGeneration | None) -> CaseView:
        inputs = labelled(("question", case.question), ("reference answer", case.reference_answer),
                          ("keywords", ", ".join(case.keywords)), ("source documents", "\n".join(case.source_docs)))
        if generation is None:
            return CaseView(group=case.category, inputs=inputs)
        contexts = [CaseContext(title=f"{rank}. {chunk.source}", text=chunk.text, score=chunk.score)
                    for rank, chunk in enumerate(generation.retrieved, start=1)]
        outputs = labelled(("answer", generation.answer or "(empty)"), ("error", generation.error))
        return CaseView(group=case.category, inputs=inputs, outputs=outputs, contexts=contexts)

    def report_sections(
        self, scores: pd.DataFrame, summary_: summary.RagSummary, cases: list[RagCase],  # type: ignore[override]
        generations: dict[str, RagGeneration],
    ) -> list[ReportSection]:
        return summary.report_sections(scores, summary_, cases, generations)
