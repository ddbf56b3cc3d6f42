"""The rag_qa suite (seed 003): retrieval metrics and a judged answer score per case."""

from __future__ import annotations

from assay.schemas import JsonObject, LoadedDataset
from assay.spec import RunSpec
from assay.suites.kit import (
    CaseContext,
    CaseView,
    DatasetFunctions,
    ReplayContext,
    Suite,
    SummaryFunctions,
    labelled,
)
from assay.suites.kit.grounding import GROUNDING_METRICS
from assay.suites.rag_qa import dataset, metrics, summary
from assay.suites.rag_qa.importing import RagImporter
from assay.suites.rag_qa.schema import RagCase, RagGeneration
from assay.suites.rag_qa.summary import RagSummary


class RagQASuite(Suite[RagCase, RagGeneration, RagSummary]):
    name = "rag_qa"
    title = "RAG question answering"
    seed = "003"
    description = (
        "Retrieval (MRR, nDCG@k, P@k, R@k, keyword coverage) and answers (jury: accuracy, completeness, "
        "relevance 1-5), per case, per category and overall."
    )
    group_label = "category"
    importer = RagImporter()  # `assay import rag_qa FILE`
    # a criterion may read `contexts`: the retrieved chunks' texts, best first
    derived_fields = {"contexts": lambda case, generation: [chunk.text for chunk in generation.retrieved]}
    dataset_functions = DatasetFunctions(dataset.load_rag_dataset, dataset.rag_validation_frames,
                                         dataset.rag_validation_parameters)
    families = metrics.FAMILIES
    summary_functions = SummaryFunctions(summary.aggregate, summary.report_sections, summary.charts)

    def live_replay(self, cases: list[RagCase], data: LoadedDataset, ctx: ReplayContext) -> list[JsonObject]:
        from assay.suites.rag_qa.live import live_generations

        return live_generations(cases, data.root / "kb", ctx)

    def metric_names(self, spec: RunSpec) -> list[str]:
        # a case without a reference is scored on the reference-free grounding metrics instead
        return [*metrics.retrieval_metric_names(spec.k), *metrics.ANSWER_METRICS, *GROUNDING_METRICS]

    def case_view(self, case: RagCase, generation: RagGeneration | None) -> CaseView:
        inputs = labelled(("question", case.question), ("reference answer", case.reference_answer),
                          ("keywords", ", ".join(case.keywords)), ("source documents", "\n".join(case.source_docs)))
        if generation is None:
            return CaseView(group=case.category, inputs=inputs)
        contexts = [CaseContext(title=f"{rank}. {chunk.source}", text=chunk.text, score=chunk.score)
                    for rank, chunk in enumerate(generation.retrieved, start=1)]
        outputs = labelled(("answer", generation.answer or "(empty)"), ("error", generation.error))
        return CaseView(group=case.category, inputs=inputs, outputs=outputs, contexts=contexts)
