"""answers metric families: correctness against the reference (rag_qa's answer judge) where a
case has one, and the reference-free grounding metrics for every case."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from assay.judges.prompts.rag import RAG_ANSWER
from assay.schemas import JsonObject, ScoreRow
from assay.suites.answers.schema import AnswerCase, AnswerGeneration
from assay.suites.kit import JuryFamily, JuryPrompt, MetricContext, MetricFamily
from assay.suites.kit.grounding import Grounded, GroundingFamily

CORRECTNESS, GROUNDING = "correctness", "grounding"
ANSWER_PROMPT = RAG_ANSWER.id  # the shared prompt rag_qa judges with too
# rag_answer's accuracy is correctness against the reference; its relevance is left out here:
# answer_relevancy (reference-free) is this suite's relevance.
CORRECTNESS_METRICS = {"correctness": "accuracy", "completeness": "completeness"}
NO_REFERENCE = "no reference answer for this case"


def correctness_input(case: AnswerCase, gen: AnswerGeneration, ctx: MetricContext) -> BaseModel:
    return RAG_ANSWER.input_model.model_validate({
        "question": case.input, "generated_answer": gen.output, "reference_answer": case.reference or "",
        "contexts": [c.text for c in gen.contexts[: ctx.spec.k]],
    })


def grounded(case: AnswerCase, gen: AnswerGeneration, ctx: MetricContext) -> Grounded:
    return Grounded(question=case.input, answer=gen.output, contexts=[c.text for c in gen.contexts[: ctx.spec.k]])


def _feedback(metric: str, verdict: JsonObject) -> JsonObject:
    return {"feedback": str(verdict.get("feedback", ""))[:500]}


def _correctness_family() -> MetricFamily[AnswerCase, AnswerGeneration]:
    """The rag_answer jury over the cases with a reference; the others are not applicable."""
    judged = JuryFamily(CORRECTNESS, [JuryPrompt(ANSWER_PROMPT, CORRECTNESS_METRICS, _feedback)], correctness_input)

    def compute(cases: list[AnswerCase], generations: Mapping[str, AnswerGeneration], ctx: MetricContext) -> list[ScoreRow]:
        without = [c for c in cases if not c.reference]
        rows = [ScoreRow.not_applicable(c.id, m, CORRECTNESS, "1-5", NO_REFERENCE) for c in without for m in CORRECTNESS_METRICS]
        with_reference = [c for c in cases if c.reference]
        return rows + (judged.compute(with_reference, generations, ctx) if with_reference else [])

    return MetricFamily(CORRECTNESS, compute, uses_jury=True,
                        description="jury: correctness and completeness against the reference (rag_answer)",
                        metrics=lambda spec: list(CORRECTNESS_METRICS))


FAMILIES = [
    _correctness_family(),
    GroundingFamily(GROUNDING, grounded),
]
