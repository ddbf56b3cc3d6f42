"""rag_qa metric families: retrieval (pure, seed 003 §3) and answer quality (jury): against the
reference where a case has one (seed 003 §4), reference-free otherwise (``kit.grounding``)."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from assay.judges.prompts.rag import RAG_ANSWER
from assay.schemas import JsonObject, ScoreRow
from assay.spec import RunSpec
from assay.suites.kit import (
    AutomaticFamily,
    JuryFamily,
    JuryPrompt,
    MetricContext,
    MetricFamily,
    missing_generation,
)
from assay.suites.kit.grounding import GROUNDING_METRICS, Grounded, GroundingFamily
from assay.suites.rag_qa import retrieval_metrics as r
from assay.suites.rag_qa.schema import RagCase, RagGeneration, normalize_source

ANSWER_METRICS = ("accuracy", "completeness", "relevance")
ANSWER_PROMPT = RAG_ANSWER.id  # the shared prompt the answers suite judges with too
RETRIEVAL, ANSWER = "retrieval", "answer"


def retrieval_metric_names(k: int) -> list[str]:
    return ["reciprocal_rank", f"ndcg@{k}", f"precision@{k}", f"recall@{k}", "keyword_coverage"]


def _retrieval_scales(spec: RunSpec) -> dict[str, str]:
    return dict.fromkeys(retrieval_metric_names(spec.k), "0-1")


NO_LABELS = "no relevance labels: the case lists no source_docs"
NO_SOURCES = "the retrieved contexts carry no document ids to match against source_docs"
NO_KEYWORDS = "no keywords for this case"
NO_REFERENCE = "no reference answer: this case is judged reference-free (faithfulness, answer relevancy, context relevance)"


def retrieval_rows(case: RagCase, gen: RagGeneration, ctx: MetricContext) -> list[ScoreRow]:
    """RR, nDCG@k, P@k, R@k (document-id based) and keyword coverage of the top-k texts.

    Without relevance labels (``source_docs``), or contexts without document ids, the four
    ranking metrics are unscored with the reason; without keywords, so is keyword coverage.
    Never 0 for a missing label: 0 would read as a retriever that found nothing.
    """
    k = ctx.spec.k
    if gen.error and not gen.retrieved:  # the system failed before it returned any context
        reason = missing_generation(gen) or ""
        return [ScoreRow.unscored(case.id, m, RETRIEVAL, "0-1", reason) for m in retrieval_metric_names(k)]
    sources = [normalize_source(chunk.source) for chunk in gen.retrieved]
    relevant = [normalize_source(doc) for doc in case.source_docs]
    top_texts = [chunk.text for chunk in gen.retrieved[:k]]
    common = {"n_retrieved": len(sources)}
    rows: list[ScoreRow] = []
    ranking = ["reciprocal_rank", f"ndcg@{k}", f"precision@{k}", f"recall@{k}"]
    unlabelled = NO_LABELS if not relevant else NO_SOURCES if sources and not any(sources) else None
    if unlabelled:
        rows += [ScoreRow.not_applicable(case.id, m, RETRIEVAL, "0-1", unlabelled, details=common) for m in ranking]
    else:
        first_hit = next((i for i, s in enumerate(sources, 1) if s in set(relevant)), None)
        values = {
            "reciprocal_rank": r.reciprocal_rank(sources, relevant),
            f"ndcg@{k}": r.ndcg_at_k(sources, relevant, k),
            f"precision@{k}": r.precision_at_k(sources, relevant, k),
            f"recall@{k}": r.recall_at_k(sources, relevant, k),
        }
        extra = {f"recall@{k}": {"found_docs": sorted(set(relevant) & set(sources[:k])), "relevant_docs": relevant}}
        rows += [
            ScoreRow(case_id=case.id, metric=metric, family=RETRIEVAL, value=value, scale="0-1",
                     details={**common, "first_relevant_rank": first_hit, **extra.get(metric, {})})
            for metric, value in values.items()
        ]
    if not case.keywords:
        rows.append(ScoreRow.not_applicable(case.id, "keyword_coverage", RETRIEVAL, "0-1", NO_KEYWORDS, details=common))
    else:
        found = r.keywords_found(top_texts, case.keywords)
        rows.append(ScoreRow(
            case_id=case.id, metric="keyword_coverage", family=RETRIEVAL, value=r.keyword_coverage(top_texts, case.keywords),
            scale="0-1", details={**common, "found": found, "missing": [kw for kw in case.keywords if kw not in found]},
        ))
    return rows


def answer_input(case: RagCase, gen: RagGeneration, ctx: MetricContext) -> BaseModel:
    """What the rag_answer judges read: the question, the answer, the reference, the top-k contexts."""
    return RAG_ANSWER.input_model.model_validate(
        {
            "question": case.question,
            "generated_answer": gen.answer,
            "reference_answer": case.reference_answer,
            "contexts": [chunk.text for chunk in gen.retrieved[: ctx.spec.k]],
        }
    )


def _feedback(metric: str, verdict: JsonObject) -> JsonObject:
    return {"feedback": str(verdict.get("feedback", ""))[:500]}


def grounded(case: RagCase, gen: RagGeneration, ctx: MetricContext) -> Grounded:
    return Grounded(question=case.question, answer=gen.answer, contexts=[c.text for c in gen.retrieved[: ctx.spec.k]])


def _answer_family() -> MetricFamily[RagCase, RagGeneration]:
    """A case with a reference answer: the rag_answer jury, as seed 003 judges it. A case without
    one: the reference-free grounding metrics instead (its rag_answer metrics are not applicable).
    A dataset where every case has a reference sends exactly the calls it always did."""
    judged = JuryFamily(ANSWER, [JuryPrompt(ANSWER_PROMPT, details=_feedback)], answer_input)
    reference_free = GroundingFamily(ANSWER, grounded)

    def compute(cases: list[RagCase], generations: Mapping[str, RagGeneration], ctx: MetricContext) -> list[ScoreRow]:
        with_reference = [c for c in cases if c.reference_answer]
        without = [c for c in cases if not c.reference_answer]
        rows = judged.compute(with_reference, generations, ctx) if with_reference else []
        rows += [ScoreRow.not_applicable(c.id, m, ANSWER, "1-5", NO_REFERENCE) for c in without for m in ANSWER_METRICS]
        return rows + (reference_free.compute(without, generations, ctx) if without else [])

    return MetricFamily(ANSWER, compute, uses_jury=True, description=(
        "jury: accuracy, completeness, relevance against the reference; without one: faithfulness, "
        "answer relevancy, context relevance"), metrics=lambda spec: [*ANSWER_METRICS, *GROUNDING_METRICS])


JUDGED_GROUNDING = tuple(m for m in GROUNDING_METRICS if m != "figure_support")

FAMILIES = [
    AutomaticFamily(RETRIEVAL, _retrieval_scales, retrieval_rows, "MRR, nDCG@k, P@k, R@k, keyword coverage"),
    _answer_family(),
]
