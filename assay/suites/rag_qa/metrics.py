"""rag_qa metric families: retrieval (pure, seed 003 §3) and answer quality (jury, seed 003 §4)."""

from __future__ import annotations

from pydantic import BaseModel

from assay.metrics import retrieval as r
from assay.schemas import ScoreRow
from assay.suites.base import MetricContext
from assay.suites.rag_qa.schema import RagCase, RagGeneration, normalize_source

ANSWER_METRICS = ("accuracy", "completeness", "relevance")
ANSWER_PROMPT = "rag_answer"


def retrieval_metric_names(k: int) -> list[str]:
    return ["reciprocal_rank", f"ndcg@{k}", f"precision@{k}", f"recall@{k}", "keyword_coverage"]


def compute_retrieval(
    cases: list[BaseModel], generations: dict[str, BaseModel], ctx: MetricContext
) -> list[ScoreRow]:
    """Per case: RR, nDCG@k, P@k, R@k (document-id based) and keyword coverage of the top-k texts."""
    k = int(ctx.params.get("k", 10))
    rows: list[ScoreRow] = []
    for case in cases:
        assert isinstance(case, RagCase)
        gen = generations.get(case.id)
        names = retrieval_metric_names(k)
        if gen is None:
            rows += [ScoreRow.unscored(case.id, m, "retrieval", "0-1", "no generation recorded for this case") for m in names]
            continue
        assert isinstance(gen, RagGeneration)
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
        for metric, value in values.items():
            rows.append(
                ScoreRow(
                    case_id=case.id,
                    metric=metric,
                    family="retrieval",
                    value=value,
                    scale="0-1",
                    details={**common, **extra.get(metric, {})},
                )
            )
    return rows


def compute_answers(cases: list[BaseModel], generations: dict[str, BaseModel], ctx: MetricContext) -> list[ScoreRow]:
    """Per case and judge: accuracy, completeness, relevance (1-5) from the rag_answer prompt."""
    from assay.judges.prompts import get_prompt

    prompt = get_prompt(ANSWER_PROMPT)
    rows: list[ScoreRow] = []
    items = []
    for case in cases:
        assert isinstance(case, RagCase)
        gen = generations.get(case.id)
        if gen is None or (isinstance(gen, RagGeneration) and gen.error):
            reason = "no generation recorded for this case" if gen is None else f"generation failed: {gen.error}"
            rows += [ScoreRow.unscored(case.id, m, "answer", "1-5", reason) for m in ANSWER_METRICS]
            continue
        assert isinstance(gen, RagGeneration)
        item = prompt.input_model.model_validate(
            {
                "question": case.question,
                "generated_answer": gen.answer,
                "reference_answer": case.reference_answer,
                "contexts": [chunk.text for chunk in gen.retrieved[: int(ctx.params.get("k", 10))]],
            }
        )
        items.append((case.id, item))
    if not items:
        return rows
    run = ctx.jury.run(prompt, items)
    ctx.jury_runs.append(run)
    for case_id, results in run.results.items():
        for result in results:
            for metric in ANSWER_METRICS:
                common = {
                    "case_id": case_id,
                    "metric": metric,
                    "family": "answer",
                    "scale": "1-5",
                    "judge": result.judge,
                }
                if result.verdict is None:
                    reason = f"judge {result.judge} failed ({result.error_kind}): {result.error}"
                    rows.append(ScoreRow(value=None, unscored_reason=reason, details={"request_key": result.request_key}, **common))
                else:
                    details = {
                        "request_key": result.request_key,
                        "cached": result.cached,
                        "feedback": str(result.verdict.get("feedback", ""))[:500],
                    }
                    rows.append(ScoreRow(value=float(result.verdict[metric]), details=details, **common))
    return rows
