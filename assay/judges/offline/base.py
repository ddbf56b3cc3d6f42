"""The offline judge scaffold: one rule set per prompt family, parameterised by a judge's signals.

An offline judge answers the same prompts, with the same verdict schema, as an LLM judge,
deterministically and without a network. Each concrete judge supplies its *signal*:

- ``units(text, ctx)`` — the text as weighted units (morphemes, character n-grams, or
  word stems and quantities), ``{unit: weight}``;
- ``conflicts(answer, reference, question)`` — (level, reasons): 0 none, 1 part of the
  answer's figures contradict the reference, 2 the answer's figures contradict it outright;
- thresholds (class attributes) that say how much overlap counts as support.

From these, ``coverage(target, source)`` is the weighted share of the target's units that
occur in the source and ``similarity(a, b)`` the weighted cosine. The family rules below turn
those signals into the verdict's scale; each judge's docstring tabulates its own cut-offs.

Shared rules (all judges):

rag_answer (1-5), K = reference units not in the question, N = coverage(K, answer),
P = coverage(answer units not in the question, reference + contexts), Q = coverage(question
without interrogatives, answer). Seed 003: a wrong answer has accuracy 1, and 5 is only for
perfect answers, so a wrong answer's relevance is capped at 4.

    ===========================================  ==========  ===============  ============
    signal                                       accuracy    completeness     relevance
    ===========================================  ==========  ===============  ============
    empty answer or refusal ("찾을 수 없")         1           1                2
    wrong: conflict level 2, or N < WRONG_N      1           2 if Q ≥ .6      min(band, 4)
                                                             else 1
    conflict level 1 (some figures wrong)        2           band(N)          band
    otherwise, S = (N + P) / 2                   S ≥ .8 → 5, ≥ .6 → 4, ≥ .4 → 3, else 2
    completeness band(N)                         N ≥ .8 → 5, ≥ .6 → 4, ≥ .4 → 3, ≥ .2 → 2, else 1
    relevance band(max(Q, N))                    ≥ .6 → 5, ≥ .4 → 4, ≥ .25 → 3, ≥ .1 → 2, else 1
    ===========================================  ==========  ===============  ============

report_* (0-10): sentences with a ``[SOURCE:N]`` tag or a figure are *claims*. A cited claim
is supported when every tag names an existing source, coverage(claim, cited sources) ≥
SUPPORT, and none of its figures is contradicted by or missing from the cited sources; its
tags are then correct. An uncited claim is supported when its figures occur in some source.

- factual: 10·(0.5·supported claims + 0.3·correct tags + 0.2·cited claims) − 1.5 per cited
  claim with a wrong figure − 1 per uncited claim with unsourced figures − 0.5 per
  exaggeration word the sources do not use (each penalty counted at most 3 times).
- coherence: 2 each for structure (≥ 4 headers), a conclusion section, connectives (≥ 1 in
  4 sentences), cohesion (adjacent-sentence similarity / COHESION_REF), a grounded conclusion
  (coverage(conclusion, body) / 0.5, 0 if its growth/decline direction opposes the body's);
  −1 if the sections average < 1.5 sentences.
- relevance: 10·(0.55·Q + 0.15·format + 0.15·recommendations + 0.15·specifics), Q =
  coverage(query topic, report); at most 2 if the title covers ≤ TITLE_MIN of the topic
  and Q < 0.6 (off topic).
- hallucination: one case per claim with an invalid tag (citation_inaccuracy, 2), per cited
  claim its sources do not support (citation_inaccuracy, 2), per uncited claim with
  unsourced figures (unfounded_claims, 2), per sentence with an exaggeration word the
  sources do not use (exaggeration, 1); count = cases, citation_accuracy = correct tags /
  tags (1.0 without tags).

memory_usefulness (0-10): Q = coverage(query without interrogatives, memory + entities),
T = the answer type the query needs (an amount for 얼마/비용/예산…, a date for 언제…) is present.

    ============================================  =========  ============  ========
    signal                                        relevance  completeness  accuracy
    ============================================  =========  ============  ========
    memory empty / "(메모리 없음)"                   0          0             0
    Q ≥ .5 and T (or no type needed)              10         9             9
    Q ≥ .5, type needed but absent                6          4             6
    0 < Q < .5 and T                              8          7             9
    0 < Q < .5, T absent                          4          3             6
    Q = 0                                         2          1             5
    two values for one subject, no update cue     −1         −3            4
    two values for one subject with an update cue              −1           8
    ============================================  =========  ============  ========

noise: segments (clauses) that share nothing with the query and carry no needed figure,
plus greetings/system text and resolved/stale items: 0 → 0, 1 → 2, 2 → 4, 3 → 5, 4 → 6,
≥ 5 → 7; +2 when one subject carries conflicting values; capped at 10.

agent_intent: empty or error message → FAILED; greeting or unrelated (label OTHER, target
coverage T < .2) → FAILED; clarifying question → PARTIAL if T ≥ .3 else WEAK; action class
of request vs message: same 1, related (MOVE/UPDATE, ADD/UPDATE) or unknown 0.5, different
0 → RELATED_BUT_WRONG (FAILED if T ≤ .2); else s = 0.5·action + 0.4·T + 0.1·scope (share of
the request's figures repeated): s ≥ .9 PERFECT, ≥ .65 GOOD, ≥ .5 PARTIAL, ≥ .3 WEAK, else
RELATED_BUT_WRONG; a request with two or more actions of which the message performs only
some is at most PARTIAL. ``intent_label`` is the message's action class by cue words.

The cut-offs were set by reading the seeds' rubrics and then adjusted on
``datasets/judgments/labelled.jsonl``; ``bench/jury_agreement.py`` reports the agreement
(in-sample for that file).
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from pydantic import BaseModel

from assay.judges.base import JudgeResult, Usage
from assay.judges.offline import text as tx
from assay.judges.prompts import (
    AgentIntentInput,
    MemoryInput,
    Prompt,
    RagAnswerInput,
    ReportInput,
    get_prompt,
)

Units = dict[str, float]


def band(value: float, cuts: tuple[tuple[float, float], ...], floor: float) -> float:
    """The score of the first cut-off ``value`` reaches, else ``floor``."""
    for threshold, score in cuts:
        if value >= threshold - 1e-12:
            return score
    return floor


def pct(x: float) -> str:
    return f"{round(100 * x)}%"


class OfflineJudge:
    """Base of the offline judges (see the module docstring for the shared rules)."""

    name: str = "offline"
    model: str = "offline/base"
    offline: bool = True
    signal: ClassVar[str] = ""

    # thresholds (overridden per judge)
    WRONG_N: ClassVar[float] = 0.15
    SUPPORT: ClassVar[float] = 0.5
    COHESION_REF: ClassVar[float] = 0.3
    SEGMENT_OVERLAP: ClassVar[float] = 0.01
    TITLE_MIN: ClassVar[float] = 0.0
    ACC_CUTS: ClassVar[tuple[tuple[float, float], ...]] = ((0.8, 5), (0.6, 4), (0.4, 3))
    COMP_CUTS: ClassVar[tuple[tuple[float, float], ...]] = ((0.8, 5), (0.6, 4), (0.4, 3), (0.2, 2))
    REL_CUTS: ClassVar[tuple[tuple[float, float], ...]] = ((0.6, 5), (0.4, 4), (0.25, 3), (0.1, 2))

    def __init__(self, weight: float = 1.0, name: str | None = None) -> None:
        if weight < 0 or not math.isfinite(weight):
            raise ValueError("weight must be a finite non-negative number")
        self.weight = float(weight)
        if name is not None:
            self.name = name

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, weight={self.weight})"

    # -- signal primitives (overridden) --------------------------------------------------------

    def prepare(self, texts: list[str]) -> Any:
        """Per-call context built from every text of one judgment (e.g. IDF); default none."""
        return None

    def units(self, text: str, ctx: Any = None) -> Units:
        raise NotImplementedError

    def conflicts(self, answer: str, reference: str, question: str = "") -> tuple[int, list[str]]:
        raise NotImplementedError

    def unsupported_figures(self, text: str, reference: str, question: str = "") -> list[str]:
        """Figures of ``text`` (not in ``question``) that ``reference`` does not contain."""
        raise NotImplementedError

    # -- derived measures -------------------------------------------------------------------------

    @staticmethod
    def coverage(target: Units, source: Units) -> float | None:
        """Weighted share of ``target``'s units present in ``source`` (None if target is empty)."""
        total = sum(target.values())
        if total <= 0:
            return None
        return sum(w for u, w in target.items() if u in source) / total

    @staticmethod
    def similarity(a: Units, b: Units) -> float:
        dot = sum(w * b[u] for u, w in a.items() if u in b)
        na = math.sqrt(sum(w * w for w in a.values()))
        nb = math.sqrt(sum(w * w for w in b.values()))
        return dot / (na * nb) if na and nb else 0.0

    @staticmethod
    def minus(a: Units, b: Units) -> Units:
        return {u: w for u, w in a.items() if u not in b}

    @staticmethod
    def union(*parts: Units) -> Units:
        out: Units = {}
        for part in parts:
            for u, w in part.items():
                out[u] = max(out.get(u, 0.0), w)
        return out

    # -- the Judge protocol ---------------------------------------------------------------------

    async def ajudge(
        self, prompt: Prompt | str, item: BaseModel | Mapping[str, Any], case_id: str
    ) -> JudgeResult:
        return self.judge_sync(prompt, item, case_id)

    def judge_sync(
        self, prompt: Prompt | str, item: BaseModel | Mapping[str, Any], case_id: str
    ) -> JudgeResult:
        started = time.perf_counter()
        prompt_id = prompt.id if isinstance(prompt, Prompt) else str(prompt)
        base = {
            "judge": self.name,
            "model": self.model,
            "prompt_id": prompt_id,
            "case_id": case_id,
            "attempts": 1,
        }
        try:
            prompt_obj = get_prompt(prompt)
            data = prompt_obj.coerce_input(item)
            rule = self._rules().get(prompt_obj.id)
            if rule is None:
                raise KeyError(f"{self.name} has no rule for prompt {prompt_obj.id!r}")
            verdict = prompt_obj.verdict_model.model_validate(rule(data))
            raw = json.dumps(verdict.model_dump(mode="json"), ensure_ascii=False)
        except Exception as exc:  # a bug or an unusable input: permanent, never retried
            return JudgeResult(
                **base,
                error=f"{type(exc).__name__}: {exc}",
                error_kind="permanent",
                latency_s=time.perf_counter() - started,
            )
        return JudgeResult(
            **base,
            verdict=verdict.model_dump(mode="json"),
            raw_text=raw,
            usage=Usage(),
            latency_s=time.perf_counter() - started,
        )

    def verdict(self, prompt: Prompt | str, item: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
        """The validated verdict as a dict (raises on failure); convenient for scripts."""
        result = self.judge_sync(prompt, item, case_id="-")
        if result.verdict is None:
            raise RuntimeError(result.error)
        return result.verdict

    def _rules(self) -> dict[str, Callable[[Any], dict[str, Any]]]:
        return {
            "rag_answer": self.rag_answer,
            "report_factual_accuracy": self.report_factual_accuracy,
            "report_coherence": self.report_coherence,
            "report_relevance": self.report_relevance,
            "report_hallucination": self.report_hallucination,
            "memory_usefulness": self.memory_usefulness,
            "agent_intent": self.agent_intent,
        }

    def supports(self, prompt_id: str) -> bool:
        return prompt_id in self._rules()

    # -- rag_answer -------------------------------------------------------------------------------

    def rag_answer(self, item: RagAnswerInput) -> dict[str, Any]:
        question, answer, reference = item.question, item.generated_answer, item.reference_answer
        context = "\n".join(item.contexts)
        tag = f"[{self.signal}]"
        if not tx.normalize(answer) or tx.is_refusal(answer):
            return {
                "feedback": f"{tag} 답변이 비어 있거나 답변을 거부함: 질문에 답하지 않았으므로 오답으로 처리.",
                "accuracy": 1,
                "completeness": 1,
                "relevance": 2,
            }
        ctx = self.prepare([question, answer, reference, *item.contexts])
        u_q = self.units(question, ctx)
        u_qcore = self.units(tx.strip_fillers(question), ctx)
        u_a = self.units(answer, ctx)
        u_r = self.units(reference, ctx)
        u_c = self.units(context, ctx) if context else {}
        key = self.minus(u_r, u_q) or u_r
        n = self.coverage(key, u_a) or 0.0
        new = self.minus(u_a, u_q)
        p = self.coverage(new, self.union(u_r, u_c))
        p = 1.0 if p is None else p
        q = self.coverage(u_qcore, u_a)
        q = 1.0 if q is None else q
        level, reasons = self.conflicts(answer, reference + ("\n" + context if context else ""), question)
        wrong = level >= 2 or n < self.WRONG_N
        completeness = band(n, self.COMP_CUTS, 1)
        relevance = band(max(q, n), self.REL_CUTS, 1)
        notes = [
            f"참조 답변의 핵심 내용 {pct(n)}가 답변에 포함됨",
            f"답변 내용의 {pct(p)}가 참조/문맥으로 뒷받침됨",
        ]
        if wrong:
            accuracy = 1
            completeness = 2 if q >= 0.6 else 1
            relevance = min(relevance, 4)
            notes.append(
                "오답으로 판정(정확도 1): "
                + ("; ".join(reasons) if level >= 2 else "참조 답변의 핵심 내용이 없음")
            )
        elif level == 1:
            accuracy = 2
            notes.append("일부 수치가 참조와 다름: " + "; ".join(reasons))
        else:
            accuracy = band((n + p) / 2, self.ACC_CUTS, 2)
        notes.append(f"질문 핵심어 포함률 {pct(q)}")
        return {
            "feedback": f"{tag} " + ". ".join(notes) + ".",
            "accuracy": accuracy,
            "completeness": completeness,
            "relevance": relevance,
        }

    # -- report family ----------------------------------------------------------------------------

    def _report_claims(self, item: ReportInput) -> dict[str, Any]:
        """Per-sentence analysis shared by the four report rules."""
        sources = {s.number: s for s in item.sources}
        all_sources = "\n".join(f"{s.title}\n{s.content}" for s in item.sources)
        sents = [s for s in tx.sentences(item.report) if not tx.HEADER_RE.match(s)]
        ctx = self.prepare([*sents, *(s.content for s in item.sources), item.query])
        source_units = {n: self.units(f"{s.title}\n{s.content}", ctx) for n, s in sources.items()}
        claims = []
        for idx, sent in enumerate(sents, 1):
            tags = tx.citations(sent)
            figures = tx.quantities(sent)
            if not tags and not figures:
                continue
            body = tx.strip_citations(sent)
            text = _clean(body)
            valid = [n for n in tags if n in sources]
            invalid = [n for n in tags if n not in sources]
            claim = {"index": idx, "text": text, "tags": tags, "valid": valid, "invalid": invalid}
            if tags:
                # A cited claim must be covered by the sources it cites, figures included.
                if valid:
                    ref_text = "\n".join(sources[n].content for n in dict.fromkeys(valid))
                    ref_units = self.union(*(source_units[n] for n in valid))
                else:
                    ref_text, ref_units = "", {}
                cov = self.coverage(self.units(body, ctx), ref_units) or 0.0
                level, reasons = self.conflicts(body, ref_text, item.query) if valid else (0, [])
                missing = self.unsupported_figures(body, ref_text, item.query) if valid else []
                if missing and level == 0:
                    level, reasons = 1, [f"인용한 출처에 없는 수치: {', '.join(missing)}"]
                supported = bool(valid) and not invalid and cov >= self.SUPPORT and level == 0
                claim.update(
                    coverage=cov, level=level, reasons=reasons, supported=supported, uncited_figure=False
                )
            else:
                # An uncited figure must at least appear somewhere in the sources.
                missing = self.unsupported_figures(body, all_sources, item.query)
                claim.update(
                    coverage=1.0 if not missing else 0.0,
                    level=0,
                    reasons=[f"출처에 없는 수치: {', '.join(missing)}"] if missing else [],
                    supported=not missing,
                    uncited_figure=bool(missing),
                )
            claims.append(claim)
        exaggerations = []
        for idx, sent in enumerate(sents, 1):
            for cue in tx.EXAGGERATION_CUES:
                if cue in sent and cue not in all_sources:
                    exaggerations.append({"index": idx, "text": _clean(tx.strip_citations(sent)), "cue": cue})
                    break
        return {
            "sentences": sents,
            "claims": claims,
            "exaggerations": exaggerations,
            "ctx": ctx,
            "sources": sources,
        }

    def report_factual_accuracy(self, item: ReportInput) -> dict[str, Any]:
        a = self._report_claims(item)
        claims = a["claims"]
        issues: list[str] = []
        tags_total = sum(len(c["tags"]) for c in claims)
        tags_ok = sum(len(c["tags"]) for c in claims if c["supported"])
        if claims:
            supported = sum(c["supported"] for c in claims) / len(claims)
            cited = sum(bool(c["tags"]) for c in claims) / len(claims)
        else:
            supported, cited = 0.5, 0.0
            issues.append("수치나 출처 인용이 있는 주장이 없음")
        cit_acc = tags_ok / tags_total if tags_total else (1.0 if not claims else supported)
        contradicted = sum(1 for c in claims if c["level"] >= 1)
        uncited = sum(1 for c in claims if c["uncited_figure"])
        exag = len(a["exaggerations"])
        score = 10 * (0.5 * supported + 0.3 * cit_acc + 0.2 * cited)
        score -= 1.5 * min(contradicted, 3) + 1.0 * min(uncited, 3) + 0.5 * min(exag, 3)
        score = round(min(max(score, 0.0), 10.0))
        for c in claims:
            if c["invalid"]:
                issues.append(
                    f"문장 {c['index']}: 존재하지 않는 출처 "
                    + ", ".join(f"[SOURCE:{n}]" for n in c["invalid"])
                )
            elif c["level"] >= 1:
                issues.append(f"문장 {c['index']}: 출처와 다른 수치 — " + "; ".join(c["reasons"]))
            elif c["uncited_figure"]:
                issues.append(f"문장 {c['index']}: 출처 없는 수치 — {c['text'][:60]}")
            elif not c["supported"]:
                issues.append(f"문장 {c['index']}: 인용된 출처로 뒷받침되지 않음 ({pct(c['coverage'])})")
        for e in a["exaggerations"]:
            issues.append(f"문장 {e['index']}: 과장 표현 '{e['cue']}'")
        reasoning = (
            f"[{self.signal}] 주장 {len(claims)}개 중 {pct(supported)} 출처로 뒷받침됨, "
            f"인용 정확도 {pct(cit_acc)}, 인용 비율 {pct(cited)}, 상충 수치 {contradicted}건, "
            f"출처 없는 수치 {uncited}건, 과장 {exag}건."
        )
        return {"score": score, "reasoning": reasoning, "issues": issues}

    def report_coherence(self, item: ReportInput) -> dict[str, Any]:
        report = item.report
        heads = tx.headers(report)
        sents = [s for s in tx.sentences(report) if not tx.HEADER_RE.match(s)]
        ctx = self.prepare(sents)
        structure = min(len(heads) / 4, 1.0)
        concl_idx = next((i for i, h in enumerate(heads) if tx.has_any(h, tx.CONCLUSION_CUES)), None)
        body_text, concl_text = _split_conclusion(report)
        has_conclusion = 1.0 if (concl_idx is not None and concl_text.strip()) else 0.0
        conn = sum(1 for s in sents if tx.has_any(s, tx.CONNECTIVES))
        connectives = min(conn / max(len(sents) * 0.25, 1.0), 1.0)
        unit_list = [self.units(s, ctx) for s in sents]
        sims = [self.similarity(a, b) for a, b in zip(unit_list, unit_list[1:], strict=False)]
        cohesion = min((sum(sims) / len(sims)) / self.COHESION_REF, 1.0) if sims else 0.0
        grounded = 0.0
        opposite = False
        if has_conclusion:
            cov = self.coverage(self.units(concl_text, ctx), self.units(body_text, ctx)) or 0.0
            grounded = min(cov / 0.5, 1.0)
            body_dir, concl_dir = tx.direction(body_text), tx.direction(concl_text)
            if body_dir and concl_dir and body_dir != concl_dir:
                grounded, opposite = 0.0, True
        n_sections = max(len(heads) - 1, 1)
        thin = len(heads) >= 2 and len(sents) / n_sections < 1.5
        score = 2 * (structure + has_conclusion + connectives + cohesion + grounded) - (1.0 if thin else 0.0)
        score = round(min(max(score, 0.0), 10.0))
        strengths, weaknesses = [], []
        (strengths if structure >= 1 else weaknesses).append(f"섹션 헤더 {len(heads)}개")
        (strengths if has_conclusion else weaknesses).append(
            "결론 섹션 " + ("있음" if has_conclusion else "없음")
        )
        (strengths if connectives >= 0.5 else weaknesses).append(f"접속 표현이 있는 문장 {conn}/{len(sents)}")
        (strengths if cohesion >= 0.5 else weaknesses).append(f"인접 문장 연결성 {pct(cohesion)}")
        if opposite:
            weaknesses.append("결론의 방향(성장/감소)이 본문과 상반됨")
        elif has_conclusion:
            (strengths if grounded >= 0.5 else weaknesses).append(f"결론의 본문 근거 {pct(grounded)}")
        if thin:
            weaknesses.append("섹션당 문장이 너무 적음")
        reasoning = (
            f"[{self.signal}] 구조 {structure:.2f}, 결론 {has_conclusion:.0f}, 접속 표현 {connectives:.2f}, "
            f"연결성 {cohesion:.2f}, 결론 근거 {grounded:.2f}" + (", 섹션이 빈약함(−1)" if thin else "") + "."
        )
        return {"score": score, "reasoning": reasoning, "strengths": strengths, "weaknesses": weaknesses}

    def report_relevance(self, item: ReportInput) -> dict[str, Any]:
        report = item.report
        ctx = self.prepare([item.query, *tx.sentences(report)])
        topic = _query_topic(item.query)
        u_topic = self.units(topic, ctx)
        u_report = self.units(report, ctx)
        heads = tx.headers(report)
        title = heads[0] if heads else (tx.sentences(report) or [""])[0]
        q = self.coverage(u_topic, u_report)
        q = 0.0 if q is None else q
        in_title = self.coverage(u_topic, self.units(title, ctx)) or 0.0
        wants_report = "보고서" in item.query or "report" in item.query.lower()
        has_conclusion = any(tx.has_any(h, tx.CONCLUSION_CUES) for h in heads)
        fmt = (0.5 if (len(heads) >= 3 or not wants_report) else 0.0) + (0.5 if has_conclusion else 0.0)
        _, concl = _split_conclusion(report)
        recommendations = 1.0 if tx.has_any(concl or report, tx.RECOMMENDATION_CUES) else 0.0
        specifics = min(
            (0.5 if tx.quantities(report) else 0.0) + (0.5 if tx.has_any(report, tx.EXAMPLE_CUES) else 0.0),
            1.0,
        )
        score = 10 * (0.55 * q + 0.15 * fmt + 0.15 * recommendations + 0.15 * specifics)
        off_topic = in_title <= self.TITLE_MIN and q < 0.6
        if off_topic:
            score = min(score, 2.0)
        score = round(min(max(score, 0.0), 10.0))
        fulfilled, missing = [], []
        (fulfilled if q >= 0.6 else missing).append(f"요청 주제 반영 ({pct(q)}): {topic}")
        (fulfilled if fmt >= 1 else missing).append("요청 형식(섹션 구성과 결론)")
        (fulfilled if recommendations else missing).append("실행 가능한 제언")
        (fulfilled if specifics >= 0.5 else missing).append("구체적 수치·사례")
        reasoning = (
            f"[{self.signal}] 주제 포함률 {pct(q)} (제목 {pct(in_title)}), 형식 {fmt:.1f}, 제언 {recommendations:.0f}, "
            f"구체성 {specifics:.1f}"
            + (": 제목에 요청 주제가 없어 주제 불일치로 판단(최대 2점)" if off_topic else "")
            + "."
        )
        return {
            "score": score,
            "reasoning": reasoning,
            "fulfilled_requirements": fulfilled,
            "missing_requirements": missing,
        }

    def report_hallucination(self, item: ReportInput) -> dict[str, Any]:
        a = self._report_claims(item)
        cases: list[dict[str, Any]] = []
        tags_total = tags_ok = 0
        for c in a["claims"]:
            tags_total += len(c["tags"])
            if c["supported"]:
                tags_ok += len(c["tags"])
            loc = f"문장 {c['index']}"
            if c["invalid"]:
                tags = ", ".join(f"[SOURCE:{n}]" for n in c["invalid"])
                cases.append(_case("citation_inaccuracy", loc, f"{c['text']} — {tags}는 출처 목록에 없음", 2))
            elif c["tags"] and not c["supported"]:
                why = "; ".join(c["reasons"]) or f"출처 내용과의 일치도 {pct(c['coverage'])}"
                cases.append(
                    _case("citation_inaccuracy", loc, f"{c['text']} — 인용한 출처와 불일치({why})", 2)
                )
            elif c["uncited_figure"]:
                cases.append(_case("unfounded_claims", loc, f"{c['text']} — 출처에 없는 수치", 2))
        for e in a["exaggerations"]:
            cases.append(
                _case("exaggeration", f"문장 {e['index']}", f"{e['text']} — 과장 표현 '{e['cue']}'", 1)
            )
        citation_accuracy = round(tags_ok / tags_total, 4) if tags_total else 1.0
        return {
            "hallucination_count": len(cases),
            "hallucinations": cases,
            "citation_accuracy": citation_accuracy,
        }

    # -- memory_usefulness ------------------------------------------------------------------------

    def memory_usefulness(self, item: MemoryInput) -> dict[str, Any]:
        tag = f"[{self.signal}]"
        if tx.is_empty_memory(item.memory) and not item.entities:
            return {
                "relevance": 0, "completeness": 0, "accuracy": 0, "noise": 0,
                "reasoning": f"{tag} 저장된 메모리가 없음.", "helpful_info": [],
                "missing_info": [f"'{item.query}'에 답할 정보"], "summary": "메모리 없음: 쿼리에 쓸 수 없음",
            }  # fmt: skip
        memory = item.memory if not tx.is_empty_memory(item.memory) else ""
        full = "\n".join([memory, *item.entities])
        segs = tx.segments(memory)
        ctx = self.prepare([item.query, *segs, *item.entities])
        core = tx.strip_fillers(item.query)
        u_q = self.units(core, ctx)
        u_m = self.units(full, ctx)
        q = self.coverage(u_q, u_m)
        q = 0.0 if q is None else q
        needs_amount = tx.has_any(item.query, tx.QUESTION_CUE_NUMBER)
        needs_time = tx.has_any(item.query, tx.QUESTION_CUE_TIME)
        figures = tx.quantities(memory)
        if needs_time:
            typed = any(f.unit in {"년", "월", "일", "시", "분", "주"} for f in figures)
        elif needs_amount:
            typed = any(f.unit not in {"년", "월", "일", "시", "분", "주"} for f in figures)
        else:
            typed = q > 0
        needed = needs_amount or needs_time
        if q >= 0.5 and (typed or not needed):
            rel, comp, acc = 10, 9, 9
        elif q >= 0.5:
            rel, comp, acc = 6, 4, 6
        elif q > 0 and typed:
            rel, comp, acc = 8, 7, 9
        elif q > 0:
            rel, comp, acc = 4, 3, 6
        else:
            rel, comp, acc = 2, 1, 5
        conflicts = _value_conflicts(memory)
        updated = bool(conflicts) and tx.has_any(memory, tx.UPDATE_CUES)
        notes = [
            f"쿼리 핵심어 포함률 {pct(q)}",
            "필요한 정보 유형(수치/날짜) " + ("있음" if typed else "없음"),
        ]
        if conflicts and updated:
            comp, acc = max(comp - 1, 0), 8
            notes.append("같은 항목의 값이 갱신됨: " + ", ".join(conflicts))
        elif conflicts:
            rel, comp, acc = max(rel - 1, 0), max(comp - 3, 0), 4
            notes.append("같은 항목에 상충하는 값: " + ", ".join(conflicts))
        irrelevant, helpful = [], []
        boiler = stale = False
        for seg in segs:
            if tx.has_any(seg, tx.GREETING_CUES):
                boiler = True
                irrelevant.append(seg)
                continue
            if tx.has_any(seg, tx.STALE_CUES):
                stale = True
                irrelevant.append(seg)
                continue
            seg_cov = self.coverage(u_q, self.units(seg, ctx)) or 0.0
            has_type = bool(tx.quantities(seg)) and needed
            if seg_cov >= self.SEGMENT_OVERLAP or has_type:
                helpful.append(seg)
            else:
                irrelevant.append(seg)
        noise = (0, 2, 4, 5, 6)[len(irrelevant)] if len(irrelevant) < 5 else 7
        noise = min(noise + (2 if conflicts else 0), 10)
        notes.append(
            f"무관한 조각 {len(irrelevant)}/{len(segs)}"
            + (" (인사말/안내 문구 포함)" if boiler else "")
            + (" (해결되었거나 오래된 정보 포함)" if stale else "")
        )
        missing = (
            [] if (typed or not needed) else ["쿼리가 묻는 " + ("날짜/시점" if needs_time else "금액/수치")]
        )
        if q < 0.5:
            missing.append(f"'{core}'에 관한 직접적인 정보")
        return {
            "relevance": rel,
            "completeness": comp,
            "accuracy": acc,
            "noise": noise,
            "reasoning": f"{tag} " + ". ".join(notes) + ".",
            "helpful_info": helpful[:5],
            "missing_info": missing,
            "summary": "쿼리에 "
            + ("유용한" if rel >= 7 else "부분적으로 관련된" if rel >= 4 else "거의 무관한")
            + " 메모리",
        }

    # -- agent_intent -----------------------------------------------------------------------------

    def agent_intent(self, item: AgentIntentInput) -> dict[str, Any]:
        tag = f"[{self.signal}]"
        message = tx.normalize(item.assistant_message)
        label = tx.message_intent(message)
        if label == "ERROR":
            return {
                "verdict": "FAILED",
                "intent_label": "ERROR",
                "reasoning": f"{tag} 응답이 없거나 오류/실패 메시지.",
            }
        request = item.query + ("\n" + item.expected_result if item.expected_result.strip() else "")
        ctx = self.prepare([request, message])
        target = self.units(tx.strip_action_words(item.query), ctx)
        t = self.coverage(target, self.units(message, ctx))
        t = 1.0 if t is None else t
        wanted = tx.intent_of(item.query)
        figures = tx.quantities(item.query)
        scope = (
            (sum(any(tx.same_quantity(f, g) for g in tx.quantities(message)) for f in figures) / len(figures))
            if figures
            else 1.0
        )
        why = f"요청 의도 {wanted or '불명'}, 메시지 의도 {label}, 대상 포함률 {pct(t)}, 범위(수치) {pct(scope)}"
        if label in {"OTHER"} and t < 0.2:
            return {
                "verdict": "FAILED",
                "intent_label": label,
                "reasoning": f"{tag} {why}: 요청과 무관한 응답.",
            }
        if label == "CLARIFY":
            verdict = "PARTIAL" if t >= 0.3 else "WEAK"
            return {"verdict": verdict, "intent_label": label, "reasoning": f"{tag} {why}: 되묻기 응답."}
        if wanted is None or label == "OTHER":
            action = 0.5
        elif wanted == label:
            action = 1.0
        elif frozenset({wanted, label}) in tx.NEAR_INTENTS:
            action = 0.5
        else:
            action = 0.0
        if action == 0.0:
            verdict = "RELATED_BUT_WRONG" if t > 0.2 else "FAILED"
            return {"verdict": verdict, "intent_label": label, "reasoning": f"{tag} {why}: 요청과 다른 동작."}
        s = 0.5 * action + 0.4 * t + 0.1 * scope
        verdict = (
            "PERFECT"
            if s >= 0.9
            else "GOOD"
            if s >= 0.65
            else "PARTIAL"
            if s >= 0.5
            else "WEAK"
            if s >= 0.3
            else "RELATED_BUT_WRONG"
        )
        asked, done = tx.intents_in(item.query), tx.intents_in(message)
        note = ""
        if len(asked) >= 2 and not asked <= done and verdict in {"PERFECT", "GOOD"}:
            verdict = "PARTIAL"
            note = f", 요청한 동작 {'/'.join(sorted(asked))} 중 {'/'.join(sorted(asked & done)) or '없음'}만 수행"
        return {"verdict": verdict, "intent_label": label, "reasoning": f"{tag} {why}, 종합 {s:.2f}{note}."}


def _clean(text: str) -> str:
    return re.sub(r"\s+([.,])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


def _case(kind: str, location: str, description: str, severity: int) -> dict[str, Any]:
    return {"type": kind, "location": location, "description": description, "severity": severity}


def _split_conclusion(report: str) -> tuple[str, str]:
    """(body, conclusion section text); conclusion is empty when there is no such header."""
    lines = tx.normalize(report).splitlines()
    for i, line in enumerate(lines):
        m = tx.HEADER_RE.match(line)
        if m and tx.has_any(m.group(1), tx.CONCLUSION_CUES):
            end = next((j for j in range(i + 1, len(lines)) if tx.HEADER_RE.match(lines[j])), len(lines))
            body = "\n".join(lines[:i] + lines[end:])
            return body, "\n".join(lines[i + 1 : end])
    return tx.normalize(report), ""


def _query_topic(query: str) -> str:
    """The query without request words ("…보고서를 작성해주세요")."""
    words = tx.normalize(query).split()
    drop = (
        "보고서",
        "작성",
        "해주세요",
        "해줘",
        "주세요",
        "부탁",
        "분석",
        "방안",
        "전략",
        "동향",
        "가이드",
        "관한",
        "대한",
        "및",
    )
    kept = [w for w in words if not w.startswith(drop)]
    return " ".join(kept) or query


def _value_conflicts(memory: str) -> list[str]:
    """Subjects (the word right before a figure) that carry two different values."""
    seen: dict[str, list[tx.Quantity]] = {}
    for seg in tx.segments(memory):
        figures = tx.quantities(seg)
        if not figures:
            continue
        before = seg[: seg.find(figures[0].text)] if figures[0].text in seg else seg
        words = tx.stems(before)
        if not words:
            continue
        subject = words[-1]
        seen.setdefault(subject, []).append(figures[0])
    out = []
    for subject, values in seen.items():
        distinct: list[tx.Quantity] = []
        for v in values:
            if not any(tx.same_quantity(v, d) for d in distinct):
                distinct.append(v)
        if len(distinct) > 1:
            out.append(f"{subject}: " + " / ".join(v.text for v in distinct))
    return out
