"""rag_qa metric families: retrieval (pure, seed 003 §3) and answer quality (jury, seed 003 §4)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from assay.metrics import retrieval as r
from assay.schemas import ScoreRow
from assay.spec import RunSpec
from assay.suites.kit import AutomaticFamily, JuryFamily, JuryPrompt, MetricContext
from assay.suites.rag_qa.schema import RagCase, RagGeneration, normalize_source

ANSWER_METRICS = ("accuracy", "completeness", "relevance")
ANSWER_PROMPT = "rag_answer"
RETRIEVAL, ANSWER = "retrieval", "answer"


def retrieval_metric_names(k: int) -> list[str]:
    return ["reciprocal_rank", f"ndcg@{k}", f"precision@{k}", f"recall@{k}", "keyword_coverage"]


def _retrieval_scales(spec: RunSpec) -> dict[str, str]:
    return dict.fromkeys(retrieval_metric_names(spec.k), "0-1")


def retrieval_rows(case: RagCase, gen: RagGeneration, ctx: MetricContext) -> list[ScoreRow]:
    """RR, nDCG@k, P@k, R@k (document-id based) and keyword coverage of the top-k texts."""
    k = ctx.spec.k
    sources = [normalize_source(chunk.source) for chunk in gen.retrieved]
    relevant = [normalize_source(doc) for doc in case.source_docs]
    top_texts = [chunk.text for chunk in gen.retrieved[:k]]
    found = r.keywords_found(top_texts, case.keywords)
    first_hit = next((i for i, s in enumerate(sources, 1) if s in set(relevant)), None)
    common = {"n_retrieved": len(sources), "first_relevant_rank": first_hit}
    values = {
        "reciprocal_rank": r.reciprocal_rank(sources, relevant),
        f"ndcg@{k}": r.ndcg_at_k(sources, relevant, k),
        f"precision@{k}": r.precision_at_k(sources, relevant, k),
        f"recall@{k}": r.recall_at_k(sources, relevant, k),
        "keyword_coverage": r.keyword_coverage(top_texts, case.keywords),
    }
    extra = {
        f"recall@{k}": {"found_docs": sorted(set(relevant) & set(sources[:k])), "relevant_docs": relevant},
        "keyword_coverage": {"found": found, "missing": [kw for kw in case.keywords if kw not in found]},
    }
    return [
        ScoreRow(case_id=case.id, metric=metric, family=RETRIEVAL, value=value, scale="0-1",
                 details={**common, **extra.get(metric, {})})
        for metric, value in values.items()
    ]


def answer_input(case: RagCase, gen: RagGeneration, ctx: MetricContext) -> BaseModel:
    """What the rag_answer judges read: the question, the answer, the reference, the top-k contexts."""
    from assay.judges.prompts import get_prompt

    return get_prompt(ANSWER_PROMPT).input_model.model_validate(
        {
            "question": case.question,
            "generated_answer": gen.answer,
            "reference_answer": case.reference_answer,
            "contexts": [chunk.text for chunk in gen.retrieved[: ctx.spec.k]],
        }
    )


def _feedback(metric: str, verdict: dict[str, Any]) -> dict[str, Any]:
    return {"feedback": str(verdict.get("feedback", ""))[:500]}


FAMILIES = [
    AutomaticFamily(RETRIEVAL, _retrieval_scales, retrieval_rows, "MRR, nDCG@k, P@k, R@k, keyword coverage"),
    JuryFamily(ANSWER, [JuryPrompt(ANSWER_PROMPT, details=_feedback)], answer_input,
               "jury: accuracy, completeness, relevance"),
]
