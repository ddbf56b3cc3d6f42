"""The answers suite: any table of inputs and outputs, with optional references, contexts and
group labels, judged by reference-free metrics and, where a reference is given, correctness."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assay.schemas import JsonObject, LoadedDataset
from assay.spec import RunSpec
from assay.suites.answers import dataset, metrics, summary
from assay.suites.answers.importing import AnswersImporter
from assay.suites.answers.schema import AnswerCase, AnswerGeneration
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

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd


class AnswersSuite(Suite[AnswerCase, AnswerGeneration]):
    name = "answers"
    title = "Any table of answers"
    seed = "—"  # no seed system: a suite of assay's own
    description = (
        "Reference-free: faithfulness to the retrieved contexts (claim by claim), answer relevancy, context "
        "relevance; correctness and completeness where a reference is given. Per case, per group and overall."
    )
    case_model = AnswerCase
    generation_model = AnswerGeneration
    summary_model = summary.AnswersSummary
    group_label = "group"
    importer = AnswersImporter()  # `assay import answers FILE`
    # a criterion reading `contexts` is shown the retrieved texts, numbered, as rag_qa's judges are
    derived_fields = {"contexts": lambda case, generation: [c.text for c in generation.contexts]}

    def load_dataset(self, root: Path) -> LoadedDataset:
        return dataset.load_answers_dataset(root)

    def validation_frames(self, data: LoadedDataset) -> dict[str, pd.DataFrame]:
        return dataset.validation_frames(data)

    def validation_parameters(self, data: LoadedDataset) -> JsonObject:
        return dataset.validation_parameters(data)

    def live_replay(self, cases: list[AnswerCase], data: LoadedDataset, ctx: ReplayContext) -> list[JsonObject]:
        from assay.suites.answers.live import target_generations

        return target_generations(cases, ctx)

    def metric_families(self) -> list[MetricFamily]:
        return metrics.FAMILIES

    def aggregate(self, rows: ScoreRows, cases: list[AnswerCase], spec: RunSpec) -> AggregateResult:
        return summary.aggregate(rows, cases, spec)

    def case_view(self, case: AnswerCase, generation: AnswerGeneration | None) -> CaseView:
        meta = "\n".join(f"{k}: {v}" for k, v in case.metadata.items())
        inputs = labelled(("input", case.input), ("reference", case.reference), ("metadata", meta))
        if generation is None:
            return CaseView(group=case.group, inputs=inputs)
        contexts = [CaseContext(title=f"{rank}. {c.source}" if c.source else f"{rank}.", text=c.text, score=c.score)
                    for rank, c in enumerate(generation.contexts, start=1)]
        outputs = labelled(("output", generation.output or "(empty)"), ("error", generation.error))
        return CaseView(group=case.group, inputs=inputs, outputs=outputs, contexts=contexts)

    def report_sections(
        self, scores: pd.DataFrame, summary_: summary.AnswersSummary, cases: list[AnswerCase],  # type: ignore[override]
        generations: dict[str, AnswerGeneration],
    ) -> list[ReportSection]:
        return summary.report_sections(scores, summary_, cases, generations)
