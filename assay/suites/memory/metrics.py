"""memory metric families (seed 001): deterministic fact checks and the judged criteria."""

from __future__ import annotations

from pydantic import BaseModel

from assay.metrics import memory as mm
from assay.schemas import JsonObject, ScoreRow
from assay.suites.kit import AutomaticFamily, JuryFamily, JuryPrompt, MetricContext
from assay.suites.memory.schema import MemoryCase, MemoryGeneration

PROMPT = "memory_usefulness"
CRITERIA = mm.CRITERIA  # relevance, completeness, accuracy, noise (0-10; noise lower is better)
FACTS, JURY = "facts", "jury"
FACT_METRICS = {"fact_recall": "0-1", "stale_as_current": "count", "noise_ratio": "0-1", "memory_length": "count"}
MAX_ITEMS, MAX_TEXT = 10, 400


def stored_text(gen: MemoryGeneration) -> str:
    """What the checks read: the memory and its entities (both are stored memory)."""
    return "\n".join([gen.memory, *gen.entities])


def fact_rows(case: MemoryCase, gen: MemoryGeneration, ctx: MetricContext) -> list[ScoreRow]:
    if gen.error:
        reason = f"summarizer failed: {gen.error}"
        return [ScoreRow.unscored(case.id, m, FACTS, s, reason) for m, s in FACT_METRICS.items()]
    text = stored_text(gen)
    expected = [f.to_fact() for f in case.expected_facts]
    recall = mm.fact_recall(text, expected)
    stale = mm.stale_as_current(text, [f.to_fact() for f in case.stale_facts])
    noise = mm.noise_ratio(gen.memory, expected)

    def row(metric: str, value: float | None, details: JsonObject, why: str = "") -> ScoreRow:
        if value is None:
            return ScoreRow.unscored(case.id, metric, FACTS, FACT_METRICS[metric], why, details=details)
        return ScoreRow(case_id=case.id, metric=metric, family=FACTS, value=float(value),
                        scale=FACT_METRICS[metric], details=details)

    return [
        row("fact_recall", recall.recall, {"found": list(recall.found), "missing": list(recall.missing)},
            "the query lists no expected facts"),
        row("stale_as_current", len(stale), {"stale_facts": stale, "checked": [f.fact for f in case.stale_facts]}),
        row("noise_ratio", noise, {"sentences": len(mm.sentences(gen.memory))},
            "empty memory or no expected facts to measure against"),
        row("memory_length", len(gen.memory), {"entities": len(gen.entities)}),
    ]


def judge_input(case: MemoryCase, gen: MemoryGeneration, ctx: MetricContext) -> BaseModel:
    from assay.judges.prompts import get_prompt

    return get_prompt(PROMPT).input_model.model_validate(
        {"query": case.query, "memory": gen.memory, "entities": gen.entities}
    )


def verdict_details(metric: str, verdict: JsonObject) -> JsonObject:
    """Why: the judge's reasons, what helped, what was missing, its one-line summary."""
    return {
        "reasoning": str(verdict.get("reasoning", ""))[:MAX_TEXT],
        "helpful_info": [str(x)[:MAX_TEXT] for x in (verdict.get("helpful_info") or [])[:MAX_ITEMS]],
        "missing_info": [str(x)[:MAX_TEXT] for x in (verdict.get("missing_info") or [])[:MAX_ITEMS]],
        "summary": str(verdict.get("summary", ""))[:MAX_TEXT],
    }


FAMILIES = [
    AutomaticFamily(FACTS, FACT_METRICS, fact_rows,
                    "expected-fact recall, stale facts stated as current, noise ratio, memory length"),
    JuryFamily(JURY, [JuryPrompt(PROMPT, details=verdict_details)], judge_input,
               "jury: relevance, completeness, accuracy, noise (0-10)"),
]
