"""Reference-free RAG metrics as one metric family any suite with questions, answers and
retrieved contexts can declare: ``GroundingFamily(name, read)``.

- ``faithfulness`` (0-1): each judge lists the answer's claims (``faithfulness_claims``); the
  claims of every judge, de-duplicated, are the case's claims; each judge then gives a verdict
  per claim against the contexts (``faithfulness_verdict``, one call per claim). A judge's score
  is the share of claims it found supported; the jury's ensemble rule combines the judges.
  Every claim, with each judge's verdict and reason, is kept in the per-judge row's details.
- ``answer_relevancy`` (1-5): does the answer address the question (``answer_relevancy``).
- ``context_relevance`` (0-1): each retrieved chunk judged relevant or not to the question
  (``context_relevance``, one call per chunk); the relevant share, precision without a reference.

Only LLM judges answer these prompts: in a mixed jury the offline judges sit them out. With no
LLM judge at all, the three are unscored with the reason (never a made-up score) and the family
adds ``figure_support``: the offline figure check (``assay.metrics.grounding``), labelled as such.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from assay.judges.ensemble import normalize_claim
from assay.metrics import grounding as g
from assay.schemas import JsonObject, ScoreRow
from assay.suites.kit.families import missing_generation, verdict_rows
from assay.suites.kit.suite import FamilyCaseT, FamilyGenT, MetricContext, MetricFamily

if TYPE_CHECKING:
    from assay.judges.base import JudgeResult
    from assay.judges.runner import JuryRunner

FAITHFULNESS, ANSWER_RELEVANCY, CONTEXT_RELEVANCE = "faithfulness", "answer_relevancy", "context_relevance"
FIGURE_SUPPORT = "figure_support"
JUDGED_SCALES = {FAITHFULNESS: "0-1", ANSWER_RELEVANCY: "1-5", CONTEXT_RELEVANCE: "0-1"}
OFFLINE_SCALES = {**JUDGED_SCALES, FIGURE_SUPPORT: "0-1"}
GROUNDING_METRICS = tuple(OFFLINE_SCALES)

NEEDS_LLM = "needs an LLM judge (the offline jury cannot judge claims or relevance; run with --judge MODEL)"
NO_CONTEXTS = "no retrieved contexts for this case"
NO_CLAIMS = "the judges found no factual claim in the answer"
EMPTY_ANSWER = "the answer is empty"
NO_FIGURES = "offline figure check: the answer has no figures, dates or names to look for in the contexts"
FIGURE_CHECK = (
    "offline figure check: share of the answer's sentences with figures, dates or names whose every "
    "figure and name occurs in the contexts (not a reading of meaning)"
)


@dataclass(frozen=True)
class Grounded:
    """What the grounding judges read of one case: the question, the answer, the contexts."""

    question: str
    answer: str
    contexts: list[str] = field(default_factory=list)


def GroundingFamily(  # noqa: N802 - reads as a declaration, like a class
    name: str,
    read: Callable[[FamilyCaseT, FamilyGenT, MetricContext], Grounded],
    description: str = "reference-free: faithfulness, answer relevancy, context relevance",
) -> MetricFamily[FamilyCaseT, FamilyGenT]:
    def compute(
        cases: list[FamilyCaseT], generations: Mapping[str, FamilyGenT], ctx: MetricContext
    ) -> list[ScoreRow]:
        runner = llm_runner(ctx.jury)
        scales = OFFLINE_SCALES if runner is None else JUDGED_SCALES
        rows: list[ScoreRow] = []
        items: list[tuple[str, Grounded]] = []
        for case in cases:
            gen = generations.get(case.id)
            reason = missing_generation(gen)
            if reason:
                rows += [ScoreRow.unscored(case.id, m, name, s, reason) for m, s in scales.items()]
            elif gen is not None:  # always so without a reason; the check tells the type checker
                items.append((case.id, read(case, gen, ctx)))
        if runner is None:
            return rows + [row for cid, item in items for row in offline_rows(name, cid, item)]
        jury = _Jury(ctx, runner)
        return rows + relevancy_rows(name, items, jury) + context_rows(name, items, jury) + faithfulness_rows(name, items, jury)

    return MetricFamily(name, compute, uses_jury=True, description=description,
                        metrics=lambda spec: list(GROUNDING_METRICS))


def llm_runner(jury: JuryRunner | None) -> JuryRunner | None:
    """The run's jury runner limited to its LLM judges (same store, retries and budget); None
    when it has none. Offline judges have no rule for these prompts."""
    if jury is None:
        return None
    judges = [j for j in jury.judges if not j.offline]
    if not judges:
        return None
    if len(judges) == len(jury.judges):
        return jury
    runner = copy.copy(jury)
    runner.judges = judges
    return runner


class _Jury:
    """Runs one prompt over a batch and records the run for lineage; keeps the budget shared."""

    def __init__(self, ctx: MetricContext, runner: JuryRunner) -> None:
        self.ctx, self.runner = ctx, runner

    def run(self, prompt_id: str, items: list[tuple[str, BaseModel]]) -> dict[str, list[JudgeResult]]:
        if not items:
            return {}
        from assay.judges.prompts import get_prompt

        run = self.runner.run(get_prompt(prompt_id), items)
        self.ctx.jury_runner().spent_usd = self.runner.spent_usd  # the run's whole budget, not the LLM judges' share
        self.ctx.jury_runs.append(run)
        self.ctx.progress(f"jury: {prompt_id} done ({len(items)} items)")
        return run.results


def offline_rows(family: str, case_id: str, item: Grounded) -> list[ScoreRow]:
    """No LLM judge: the judged metrics say why they are unscored; the figure check runs."""
    rows = [ScoreRow.not_applicable(case_id, m, family, s, NEEDS_LLM) for m, s in JUDGED_SCALES.items()]
    if not item.contexts:
        return rows + [ScoreRow.not_applicable(case_id, FIGURE_SUPPORT, family, "0-1", NO_CONTEXTS)]
    checks = g.figure_checks(item.answer, item.contexts, item.question)
    if not checks:
        return rows + [ScoreRow.not_applicable(case_id, FIGURE_SUPPORT, family, "0-1", NO_FIGURES)]
    value = sum(c.found for c in checks) / len(checks)
    details = {"check": FIGURE_CHECK, "sentences": [
        {"sentence": c.sentence[:300], "checked": list(c.checked), "missing": list(c.missing)} for c in checks]}
    return rows + [ScoreRow(case_id=case_id, metric=FIGURE_SUPPORT, family=family, value=value, scale="0-1",
                            details=details)]


def relevancy_rows(family: str, items: list[tuple[str, Grounded]], jury: _Jury) -> list[ScoreRow]:
    from assay.judges.prompts import ANSWER_RELEVANCY as prompt

    inputs = [(cid, prompt.input_model(question=i.question, answer=i.answer)) for cid, i in items]
    rows = []
    for case_id, results in jury.run(prompt.id, inputs).items():
        for result in results:
            rows += verdict_rows(family, case_id, result, prompt, {ANSWER_RELEVANCY: ANSWER_RELEVANCY},
                                 {ANSWER_RELEVANCY: "1-5"}, _reason)
    return rows


def context_rows(family: str, items: list[tuple[str, Grounded]], jury: _Jury) -> list[ScoreRow]:
    """Each chunk judged on its own (``case#chunkN``); a judge's score is its relevant share."""
    from assay.judges.prompts import CONTEXT_RELEVANCE as prompt

    rows = [ScoreRow.not_applicable(cid, CONTEXT_RELEVANCE, family, "0-1", NO_CONTEXTS) for cid, i in items if not i.contexts]
    inputs = [(f"{cid}#chunk{n}", prompt.input_model(question=i.question, context=text))
              for cid, i in items for n, text in enumerate(i.contexts, 1)]
    results = jury.run(prompt.id, inputs)
    for cid, item in items:
        if item.contexts:
            per_chunk = [results[f"{cid}#chunk{n}"] for n in range(1, len(item.contexts) + 1)]
            rows += _share_rows(family, cid, CONTEXT_RELEVANCE, per_chunk, "chunk", "relevant", g.relevant_share)
    return rows


def faithfulness_rows(family: str, items: list[tuple[str, Grounded]], jury: _Jury) -> list[ScoreRow]:
    """Claims from every judge (de-duplicated), then every judge's verdict on every claim."""
    from assay.judges.prompts import FAITHFULNESS_CLAIMS as extract
    from assay.judges.prompts import FAITHFULNESS_VERDICT as verdict
    from assay.judges.prompts.grounding import MAX_CLAIMS

    rows: list[ScoreRow] = []
    judged = []
    for cid, item in items:
        reason = NO_CONTEXTS if not item.contexts else EMPTY_ANSWER if not item.answer.strip() else None
        if reason:
            rows.append(ScoreRow.not_applicable(cid, FAITHFULNESS, family, "0-1", reason))
        else:
            judged.append((cid, item))
    extracted = jury.run(extract.id, [(cid, extract.input_model(question=i.question, answer=i.answer)) for cid, i in judged])
    claims: dict[str, list[str]] = {}
    for cid, _ in judged:
        answered = [r.verdict for r in extracted[cid] if r.verdict is not None]
        if not answered:
            rows += [_failed(family, cid, FAITHFULNESS, r, "listing the claims") for r in extracted[cid]]
            continue
        claims[cid] = merged_claims([verdict["claims"] for verdict in answered], MAX_CLAIMS)
        if not claims[cid]:
            rows.append(ScoreRow.not_applicable(cid, FAITHFULNESS, family, "0-1", NO_CLAIMS))
    contexts = dict(judged)
    inputs = [(f"{cid}#claim{n}", verdict.input_model(claim=claim, contexts=contexts[cid].contexts))
              for cid, listed in claims.items() for n, claim in enumerate(listed, 1)]
    results = jury.run(verdict.id, inputs)
    for cid, listed in claims.items():
        if listed:
            per_claim = [results[f"{cid}#claim{n}"] for n in range(1, len(listed) + 1)]
            keys = {r.judge: r.request_key for r in extracted[cid]}
            rows += _share_rows(family, cid, FAITHFULNESS, per_claim, "claim", "supported", g.supported_share,
                                texts=listed, first_keys=keys)
    return rows


def merged_claims(lists: list[list[str]], limit: int) -> list[str]:
    """The judges' claims in judge order, each once (compared without case, spacing or
    punctuation), at most ``limit``."""
    seen: set[str] = set()
    out: list[str] = []
    for claims in lists:
        for claim in claims:
            key = normalize_claim(claim)
            if key and key not in seen and len(out) < limit:
                seen.add(key)
                out.append(claim.strip())
    return out


def _share_rows(
    family: str, case_id: str, metric: str, per_item: list[list[Any]], unit: str, field_name: str,
    share: Callable[[list[bool]], float | None], texts: list[str] | None = None,
    first_keys: Mapping[str, str | None] | None = None,
) -> list[ScoreRow]:
    """One row per judge: the share of items it said yes to, each item's verdict as evidence;
    unscored for a judge that failed on any item (a share of what it happened to answer would
    not be its score)."""
    rows = []
    judges = [r.judge for r in per_item[0]]
    for j, judge in enumerate(judges):
        results = [item[j] for item in per_item]
        failed = next((n for n, r in enumerate(results, 1) if r.verdict is None), None)
        if failed is not None:
            rows.append(_failed(family, case_id, metric, results[failed - 1], f"{unit} {failed}"))
            continue
        evidence = [
            {unit: n, **({"text": texts[n - 1]} if texts else {}), field_name: bool(r.verdict[field_name]),
             "reason": str(r.verdict.get("reason", ""))[:500], "request_key": r.request_key}
            for n, r in enumerate(results, 1)
        ]
        key = (first_keys or {}).get(judge) or results[0].request_key
        rows.append(ScoreRow(
            case_id=case_id, metric=metric, family=family, scale="0-1", judge=judge,
            value=share([e[field_name] for e in evidence]),
            details={"request_key": key, "cached": all(r.cached for r in results), "model": results[0].model,
                     f"{unit}s": evidence},
        ))
    return rows


def _failed(family: str, case_id: str, metric: str, result: Any, where: str) -> ScoreRow:
    reason = f"judge {result.judge} failed on {where} ({result.error_kind}): {result.error}"
    return ScoreRow(case_id=case_id, metric=metric, family=family, scale="0-1", judge=result.judge, value=None,
                    unscored_reason=reason, details={"request_key": result.request_key, "error_kind": result.error_kind})


def _reason(metric: str, verdict: JsonObject) -> JsonObject:
    return {"reason": str(verdict.get("reason", ""))[:500]}
