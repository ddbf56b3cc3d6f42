"""clinical metric families (seed 002): SFS, CSP, CUS and perplexity from the rules; the jury's
faithfulness and answer relevance."""

from __future__ import annotations

import math
from collections.abc import Mapping

from pydantic import BaseModel

from assay.schemas import JsonObject, ScoreRow
from assay.suites.clinical.formulas.scores import evaluate_answer
from assay.suites.clinical.schema import ClinicalAnswer, ClinicalCase
from assay.suites.kit import AutomaticFamily, JuryFamily, JuryPrompt, MetricContext, MetricFamily

PROMPT = "clinical_answer"
CHECKS, JURY = "checks", "jury"
CHECK_METRICS = {"sfs": "0-1", "csp": "0-1", "cus": "0-1", "hallucinations": "count", "violations": "count"}
# Perplexity exists only for a generator that reports token log-probabilities (seed §4.1); a turn
# without them has no perplexity row at all, and the aggregate names it as dropped.
PERPLEXITY = ("perplexity", "ppl")
JURY_METRICS = ("faithfulness", "answer_relevance")
MAX_TEXT = 400


def check_rows(case: ClinicalCase, gen: ClinicalAnswer, ctx: MetricContext) -> list[ScoreRow]:
    if gen.error:
        reason = f"generation failed: {gen.error}"
        return [ScoreRow.unscored(case.id, m, CHECKS, s, reason) for m, s in CHECK_METRICS.items()]
    result = evaluate_answer(gen.answer, case.question, case.slots_truth.slots(), case.required_slots)
    facts = [f.model_dump(exclude={"sentence"}) | {"sentence": f.sentence[:MAX_TEXT]} for f in result.facts]
    rules = [r.model_dump() for r in result.rules if r.applicable]
    slots = [s.model_dump() for s in result.slots]

    def row(metric: str, value: float | None, details: JsonObject, why: str = "") -> ScoreRow:
        if value is None:
            return ScoreRow.unscored(case.id, metric, CHECKS, CHECK_METRICS[metric], why, details=details)
        return ScoreRow(case_id=case.id, metric=metric, family=CHECKS, value=float(value),
                        scale=CHECK_METRICS[metric], details=details)

    rows = [
        row("sfs", result.sfs, {"facts": facts}),
        row("csp", result.csp, {"rules": rules}),
        row("cus", result.cus, {"slots": slots}, "the turn requires no slot"),
        row("hallucinations", len(result.hallucinations), {"facts": [f.text for f in result.hallucinations]}),
        row("violations", len(result.violations), {"rules": [r.id for r in result.violations]}),
    ]
    ppl = perplexity(gen.token_logprobs)
    if ppl is not None:
        rows.append(ScoreRow(case_id=case.id, metric=PERPLEXITY[0], family=CHECKS, value=ppl, scale=PERPLEXITY[1],
                             details={"tokens": len(gen.token_logprobs or [])}))
    return rows


def perplexity(logprobs: list[float] | None) -> float | None:
    """exp(−mean log-probability) of the answer's tokens; None without log-probabilities."""
    if not logprobs:
        return None
    return math.exp(-sum(logprobs) / len(logprobs))


def patient_text(case: ClinicalCase) -> str:
    lines = []
    for key, value in case.slots_truth.slots().items():
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        elif isinstance(value, list):
            value = "; ".join(" ".join(str(x) for x in v.values() if x) if isinstance(v, dict) else str(v) for v in value)
        lines.append(f"{key}: {value}")
    return "\n".join(lines)


def dialogues(cases: list[ClinicalCase], generations: Mapping[str, ClinicalAnswer]) -> dict[str, list[tuple[int, str, str]]]:
    """patient -> its turns in order as (turn, question, the run's answer)."""
    out: dict[str, list[tuple[int, str, str]]] = {}
    for case in sorted(cases, key=lambda c: (c.patient_id, c.turn)):
        gen = generations.get(case.id)
        answer = gen.answer if gen is not None and not gen.error else "(답변 없음)"
        out.setdefault(case.patient_id, []).append((case.turn, case.question, answer))
    return out


def dialogue_before(case: ClinicalCase, talks: dict[str, list[tuple[int, str, str]]]) -> list[str]:
    """Earlier turns of the same patient as "Q: …" and "A: …" lines, from the run's own answers."""
    turns = talks.get(case.patient_id, [])
    return [line for turn, q, a in turns if turn < case.turn for line in (f"Q: {q}", f"A: {a}")]


def judge_input(case: ClinicalCase, gen: ClinicalAnswer, talks: dict[str, list[tuple[int, str, str]]]) -> BaseModel:
    from assay.judges.prompts import get_prompt

    return get_prompt(PROMPT).input_model.model_validate(
        {"question": case.question, "answer": gen.answer, "patient": patient_text(case),
         "dialogue": dialogue_before(case, talks)}
    )


def _jury_compute(cases: list[ClinicalCase], generations: Mapping[str, ClinicalAnswer], ctx: MetricContext) -> list[ScoreRow]:
    """The jury family over the batch, each judge input carrying its patient's dialogue so far
    (this run's answers), built once per batch."""
    talks = dialogues(cases, generations)
    family: MetricFamily[ClinicalCase, ClinicalAnswer] = JuryFamily(
        JURY, [JuryPrompt(PROMPT, details=verdict_details)], lambda case, gen, _ctx: judge_input(case, gen, talks))
    return family.compute(cases, generations, ctx)


def verdict_details(metric: str, verdict: JsonObject) -> JsonObject:
    return {
        "reasoning": str(verdict.get("reasoning", ""))[:MAX_TEXT],
        "unsupported_claims": [str(x)[:MAX_TEXT] for x in (verdict.get("unsupported_claims") or [])[:8]],
    }


FAMILIES = [
    AutomaticFamily(CHECKS, CHECK_METRICS, check_rows,
                    "slot factuality (SFS), contraindication penalty (CSP), context utilisation (CUS), perplexity"),
    MetricFamily(JURY, _jury_compute, uses_jury=True, description="jury: faithfulness and answer relevance (1-5)"),
]
