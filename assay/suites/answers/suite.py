"""The answers suite: any table of inputs and outputs, with optional references, contexts and
group labels, judged by reference-free metrics and, where a reference is given, correctness."""

from __future__ import annotations

from assay.schemas import JsonObject, LoadedDataset
from assay.suites.answers import dataset, metrics, summary
from assay.suites.answers.importing import AnswersImporter
from assay.suites.answers.schema import AnswerCase, AnswerGeneration
from assay.suites.answers.summary import AnswersSummary
from assay.suites.kit import (
    CaseContext,
    CaseView,
    DatasetFunctions,
    ReplayContext,
    Suite,
    SummaryFunctions,
    labelled,
)


class AnswersSuite(Suite[AnswerCase, AnswerGeneration, AnswersSummary]):
    name = "answers"
    title = "Any table of answers"
    seed = "—"  # no seed system: a suite of assay's own
    description = (
        "Reference-free: faithfulness to the retrieved contexts (claim by claim), answer relevancy, context "
        "relevance; correctness and completeness where a reference is given. Per case, per group and overall."
    )
    group_label = "group"
    importer = AnswersImporter()  # `assay import answers FILE`
    # a criterion reading `contexts` is shown the retrieved texts, numbered, as rag_qa's judges are
    derived_fields = {"contexts": lambda case, generation: [c.text for c in generation.contexts]}
    dataset_functions = DatasetFunctions(dataset.load_answers_dataset, dataset.validation_frames,
                                         dataset.validation_parameters)
    families = metrics.FAMILIES
    summary_functions = SummaryFunctions(summary.aggregate, summary.report_sections)

    def live_replay(self, cases: list[AnswerCase], data: LoadedDataset, ctx: ReplayContext) -> list[JsonObject]:
        from assay.suites.answers.live import target_generations

        return target_generations(cases, ctx)

    def case_view(self, case: AnswerCase, generation: AnswerGeneration | None) -> CaseView:
        meta = "\n".join(f"{k}: {v}" for k, v in case.metadata.items())
        inputs = labelled(("input", case.input), ("reference", case.reference), ("metadata", meta))
        if generation is None:
            return CaseView(group=case.group, inputs=inputs)
        contexts = [CaseContext(title=f"{rank}. {c.source}" if c.source else f"{rank}.", text=c.text, score=c.score)
                    for rank, c in enumerate(generation.contexts, start=1)]
        outputs = labelled(("output", generation.output or "(empty)"), ("error", generation.error))
        return CaseView(group=case.group, inputs=inputs, outputs=outputs, contexts=contexts)
