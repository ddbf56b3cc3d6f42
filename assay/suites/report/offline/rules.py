"""report_*: the offline jury's rules (seed 000, scale 0-10).

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
"""

from __future__ import annotations

import re

from assay.judges.offline import text as tx
from assay.judges.offline.scoring import pct
from assay.judges.offline.suite_rules import RuleSet
from assay.judges.prompts import ReportInput
from assay.schemas import JsonObject


class ReportRules(RuleSet):
    """Rules of one prompt family; mixed into ``OfflineJudge``, which supplies the signals
    (``units``, ``conflicts``, ``coverage``…) and the thresholds they use."""


    def _report_claims(self, item: ReportInput) -> JsonObject:
        """Per-sentence analysis shared by the four report rules."""
        sources = {s.number: s for s in item.sources}
        all_sources = "\n".join(f"{s.title}\n{s.content}" for s in item.sources)
        sents, in_recommendations = _body_sentences(item.report)
        ctx = self.prepare([*sents, *(s.content for s in item.sources), item.query])
        source_units = {n: self.units(f"{s.title}\n{s.content}", ctx) for n, s in sources.items()}
        claims = []
        for idx, sent in enumerate(sents, 1):
            tags = tx.citations(sent)
            # Label numbers (stages, ordinals, frequencies, age groups) and numbers inside
            # names are not figures; an uncited plan or target proposes, it does not claim.
            body = tx.strip_citations(sent)
            facts = tx.mask_labels(body)
            figures = tx.quantities(facts)
            proposes = tx.has_any(body, tx.PROPOSAL_CUES) or (idx in in_recommendations and _directs(body))
            if not tags and (not figures or proposes):
                continue
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
                level, reasons = self.conflicts(facts, ref_text, item.query) if valid else (0, [])
                missing = self.unsupported_figures(facts, ref_text, item.query) if valid else []
                if missing and level == 0:
                    level, reasons = 1, [f"인용한 출처에 없는 수치: {', '.join(missing)}"]
                supported = bool(valid) and not invalid and cov >= self.SUPPORT and level == 0
                claim.update(
                    coverage=cov, level=level, reasons=reasons, supported=supported, uncited_figure=False
                )
            else:
                # An uncited figure must at least appear somewhere in the sources.
                missing = self.unsupported_figures(facts, all_sources, item.query)
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

    def report_factual_accuracy(self, item: ReportInput) -> JsonObject:
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

    def report_coherence(self, item: ReportInput) -> JsonObject:
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
        # Phrased findings; the figure in parentheses is the evidence.
        def finding(ok: bool, strength: str, weakness: str) -> None:
            (strengths if ok else weaknesses).append(strength if ok else weakness)

        finding(structure >= 1, f"섹션 헤더로 구조가 나뉘어 있습니다 (헤더 {len(heads)}개)",
                f"섹션 구조가 부족합니다 (헤더 {len(heads)}개)")
        finding(bool(has_conclusion), "결론 섹션이 있습니다", "결론 섹션이 없습니다")
        finding(connectives >= 0.5, f"접속 표현으로 문장이 이어집니다 ({conn}/{len(sents)}문장)",
                f"접속 표현이 적어 흐름이 끊깁니다 ({conn}/{len(sents)}문장)")
        finding(cohesion >= 0.5, f"인접 문장이 같은 주제로 잘 이어집니다 (연결성 {pct(cohesion)})",
                f"인접 문장 사이의 연결이 약합니다 (연결성 {pct(cohesion)})")
        if opposite:
            weaknesses.append("결론의 방향(성장/감소)이 본문과 상반됩니다")
        elif has_conclusion:
            finding(grounded >= 0.5, f"결론이 본문의 분석에 근거합니다 (근거 {pct(grounded)})",
                    f"결론이 본문의 분석에 충분히 근거하지 않습니다 (근거 {pct(grounded)})")
        if thin:
            weaknesses.append("섹션당 문장이 너무 적습니다")
        reasoning = (
            f"[{self.signal}] 구조 {structure:.2f}, 결론 {has_conclusion:.0f}, 접속 표현 {connectives:.2f}, "
            f"연결성 {cohesion:.2f}, 결론 근거 {grounded:.2f}" + (", 섹션이 빈약함(−1)" if thin else "") + "."
        )
        return {"score": score, "reasoning": reasoning, "strengths": strengths, "weaknesses": weaknesses}

    def report_relevance(self, item: ReportInput) -> JsonObject:
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

    def report_hallucination(self, item: ReportInput) -> JsonObject:
        a = self._report_claims(item)
        cases: list[JsonObject] = []
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
                cases.append(_case("unfounded_claims", loc, f"{c['text']} — {c['reasons'][0]}", 2))
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


# Section headings under which a report advises. There an uncited sentence that directs
# ("… 두 곳 이상의 공급업체와 거래하여 리스크를 분산한다") proposes; its count is no factual claim.
# A sentence that predicts an effect ("… 15%를 절감할 수 있다") or reports the past still claims.
# Only sections (## and deeper) count: the title ("… 전략 보고서") names the whole report.
RECOMMENDATION_HEADINGS = (
    "추천",
    "권고",
    "권장",
    "제언",
    "제안",
    "실행 계획",
    "향후 과제",
    "recommend",
    "next step",
    "action plan",
)
DIRECTIVE_END = re.compile(
    r"(?:한다|해야 한다|하여야 한다|하자|바람직하다|필요가 있다|권장한다|권고한다|검토한다"
    r"|should [^.]*|we recommend [^.]*)[.!]?$",
    re.IGNORECASE,
)


def _directs(sentence: str) -> bool:
    return bool(DIRECTIVE_END.search(sentence.strip()))


def _body_sentences(report: str) -> tuple[list[str], set[int]]:
    """The report's sentences without headings, and the 1-based numbers of those that sit in a
    recommendations section."""
    sents: list[str] = []
    advising = False
    in_recommendations: set[int] = set()
    for sent in tx.sentences(report):
        heading = tx.HEADER_RE.match(sent)
        if heading:
            if not sent.lstrip().startswith("# "):
                advising = any(word in heading.group(1).lower() for word in RECOMMENDATION_HEADINGS)
            continue
        sents.append(sent)
        if advising:
            in_recommendations.add(len(sents))
    return sents, in_recommendations


def _clean(text: str) -> str:
    return re.sub(r"\s+([.,])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


def _case(kind: str, location: str, description: str, severity: int) -> JsonObject:
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
