"""rag_answer: the offline jury's rules (seed 003, scale 1-5).

rag_answer (1-5), K = reference units not in the question, N = coverage(K, answer),
P = coverage(answer units not in the question, reference + contexts), Q = coverage(question
without interrogatives, answer). Seed 003: a wrong answer has accuracy 1, and 5 is only for
perfect answers, so a wrong answer's relevance is capped at 4.

    ===========================================  ==========  ===============  ============
    signal                                       accuracy    completeness     relevance
    ===========================================  ==========  ===============  ============
    empty answer, or a refusal ("찾을 수 없")       1           1                2
    refusal, and the reference says the           5           5                5
    documents hold no answer
    an answer where the reference says none       1           1                3
    Latin-script answer to a Hangul reference     figures, Latin names and lexicon concepts
                                                  (claims.py): findings cap; else concept
                                                  share ≥ .7 → 5, ≥ .34 → 4, else 3 (≥ 4 when
                                                  all of ≥ 2 figures and names are there; ≤ 3 while
                                                  under half of the reference's figures and
                                                  names are there, ≤ 2 with none; ≥ 4 when
                                                  some are there and every figure the answer
                                                  states is the reference's; a figure left out
                                                  costs completeness)
    wrong: conflict level 2, or N < WRONG_N      1           2 if Q ≥ .6      min(band, 4)
                                                             else 1
    conflict level 1 (some figures wrong)        2           band(N)          band
    otherwise, S = (N + P) / 2                   S ≥ .8 → 5, ≥ .6 → 4, ≥ .4 → 3, else 2
    completeness band(N)                         N ≥ .8 → 5, ≥ .6 → 4, ≥ .4 → 3, ≥ .2 → 2, else 1
    relevance band(max(Q, N))                    ≥ .6 → 5, ≥ .4 → 4, ≥ .25 → 3, ≥ .1 → 2, else 1
    every reference figure and entity present,   ≥ 4         ≥ 4
    no finding (a paraphrase); N < WRONG_N is
    then not "wrong"
    claims agree: no finding, no conflict, every ≥ 4 (≥ 5    ≥ 3; relevance ≥ 4
    figure the answer states is the reference's   if M ≥ .7)
    or the question's (it may leave some out:
    that is completeness, not accuracy), M ≥ .3
    of the reference's claim tokens said (M =
    claims.meaning_coverage, any wording); N <
    WRONG_N is then not "wrong"
    claims agree in the clauses about the        ≥ 4 (the rubric's "unverifiable extra"), the
    reference, the other clauses share nothing   aside quoted in the feedback
    with it (``claims.split_digression``)
    claim findings (``claims.py``: debunk,       capped at the strongest finding's cap (1 or 2);
    substitutions, yes-no, polarity, reversed    accuracy 1 caps completeness at 2 and relevance at 4;
    condition, rate period, no answer,           a reversed claim (polarity, reversed-condition)
    misplaced figure, closed list, even-if,      caps completeness at 2;
    payer, deduction, hedge)
                                                 no-answer as a keyword list (no predicate)
                                                 or an echo of the question only:
                                                 completeness 1, relevance ≤ 2
    ===========================================  ==========  ===============  ============

These are the rules' scores. Unless the judge runs on rules alone (``fitted=False``), its fitted
stage (``offline/fitted.py``) then reads them with the signals above and gives the final
scores; the rules' notes stay in the feedback.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from assay.judges.offline import answer_core, fitted
from assay.judges.offline import claims as cl
from assay.judges.offline import text as tx
from assay.judges.offline.scoring import band, pct
from assay.judges.offline.suite_rules import RuleSet
from assay.judges.prompts import RagAnswerInput
from assay.schemas import JsonObject


class RagRules(RuleSet):
    """Rules of one prompt family; mixed into ``OfflineJudge``, which supplies the signals
    (``units``, ``conflicts``, ``coverage``…) and the thresholds they use."""

    signal: ClassVar[str]
    fitted: bool  # set by ``OfflineJudge``: run the fitted stage after the rules

    def rag_answer(self, item: RagAnswerInput) -> JsonObject:
        """The rules' verdict, then (unless the judge runs on rules only) the fitted stage's.
        A reference in a language with a pack and no hand rules (English) goes to the generic
        answer core instead, with no fitted stage (it was fitted on Korean answers)."""
        code = answer_core.handles(item.reference_answer, item.generated_answer)
        if code is not None:
            return answer_core.rag_verdict(
                item.question, item.generated_answer, item.reference_answer, item.contexts, code,
                CORE_VIEWS.get(self.signal, "stems"), f"[{self.signal}]",
            )
        # text appended for the grader, JSON verdicts and sentences in another script are not
        # part of the answer: they can lower its score, never raise it
        kept, aside = answer_core.judged_in_own_language(item.generated_answer, "ko")
        if aside:
            item = item.model_copy(update={"generated_answer": kept})
        verdict, signals = self.rag_rule_verdict(item)
        if self.fitted:
            verdict = fitted.refine(self.signal, verdict, signals)
        if aside:
            note = answer_core.pack("ko").say("stripped", what="; ".join(answer_core.short(a) for a in aside))
            verdict = {**verdict, "feedback": f"{verdict['feedback']} {note}."}
        return verdict

    def rag_rule_verdict(self, item: RagAnswerInput) -> tuple[JsonObject, RagSignals | None]:
        """The rules' verdict and the signals it was read from (None for the shortcuts: empty
        answer, refusal, an answer where the reference has none, another script)."""
        question, answer, reference = item.question, item.generated_answer, item.reference_answer
        tag = f"[{self.signal}]"
        if not tx.normalize(answer):
            return _verdict(tag, ["답변이 비어 있음: 질문에 답하지 않았으므로 오답으로 처리"], 1, 1, 2), None
        ref_refuses = cl.reference_refuses(reference)
        if cl.refuses(answer, reference, question) and not cl.debunks(answer, reference):
            if ref_refuses:
                return _verdict(tag, ["참조도 문서에 답이 없다고 함: 올바른 답변 거부"], 5, 5, 5), None
            if cl.reference_refuses_beside(reference):
                return _verdict(
                    tag, ["참조도 문서에 답이 없다고 하고 수치는 곁에 덧붙인 문서 내용뿐: 올바른 답변 거부"], 5, 5, 5
                ), None
            return _verdict(tag, ["답변을 거부했으나 참조에는 답이 있음: 오답으로 처리"], 1, 1, 2), None
        if ref_refuses:
            return _verdict(
                tag, ["참조는 문서에 답이 없다고 하는데 답변은 내용을 제시함: 근거 없는 답변"], 1, 1, 3
            ), None
        if cl.cross_language(answer, reference):
            return self._rag_cross_language(tag, question, answer, reference), None
        sig = self.rag_signals(item)
        n, p, q, level, reasons = sig.n, sig.p, sig.q, sig.level, sig.reasons
        findings, meaning, agrees, all_facts = sig.findings, sig.meaning, sig.agrees, sig.all_facts
        digression, aside = bool(sig.aside), sig.aside
        wrong = level >= 2 or (n < self.WRONG_N and not all_facts and not agrees and not digression)
        completeness = band(n, self.COMP_CUTS, 1)
        relevance = band(max(q, n), self.REL_CUTS, 1)
        notes = [
            f"참조 답변의 핵심 내용 {pct(n)}가 답변에 포함됨",
            f"답변 내용의 {pct(p)}가 참조/문맥으로 뒷받침됨",
        ]
        if sig.clock_read:
            notes.append(f"오전·오후 없는 시각을 질문·참조의 오후 시각으로 읽음({', '.join(sig.clock_read)})")
        if sig.facts_total:
            notes.append(f"참조의 수치·개체 {sig.facts_in}/{sig.facts_total}개가 답변에 있음")
        if sig.meaning_size:
            notes.append(f"참조가 말하는 개념(동의어·어간 기준) {pct(meaning)}가 답변에 있음")
        if wrong:
            accuracy = 1
            notes.append(
                "오답으로 판정(정확도 1): "
                + ("; ".join(reasons) if level >= 2 else "참조 답변의 핵심 내용이 없음")
            )
        elif level == 1:
            accuracy = 2
            notes.append("일부 수치가 참조와 다름: " + "; ".join(reasons))
        else:
            accuracy = band((n + p) / 2, self.ACC_CUTS, 2)
            if all_facts and not findings:
                accuracy = max(accuracy, 4)
                completeness = max(completeness, 4)
            if agrees:
                accuracy = max(accuracy, band(meaning, AGREE_CUTS, 4))
                completeness = max(completeness, band(meaning, AGREE_CUTS, 3))
                relevance = max(relevance, 4)
                notes.append("수치·개체·부정 여부가 모두 참조와 일치: 다른 표현의 같은 답변으로 인정")
            if digression:
                accuracy = max(accuracy, 4)
                completeness = max(completeness, band(meaning, AGREE_CUTS, 3))
                notes.append(f"참조에 관한 문장은 참조와 일치, 나머지는 확인할 수 없는 곁가지: '{aside[:40]}'")
        if findings:
            accuracy = min(accuracy, findings[0].cap)
            notes.extend(f.note() for f in findings)
        if accuracy <= 1:
            completeness = min(completeness, 2 if q >= 0.6 else 1)
            relevance = min(relevance, 4)
        elif findings and findings[0].rule in REVERSING_RULES:
            # the words of a reversed claim are not its point: an answer that says the opposite
            # of the reference has not covered it, however many of its words it repeats
            completeness = min(completeness, 2)
        if any(f.rule == "no-answer" for f in findings) and (not cl.has_predicate(answer) or cl.only_echoes(answer)):
            # a list of the question's words is on topic but is no answer at all, nor is a text
            # that only says the question was asked (a sentence that echoes a yes/no question
            # may still answer it, so not every repetition)
            completeness, relevance = 1, min(relevance, 2)
        notes.append(f"질문 핵심어 포함률 {pct(q)}")
        return _verdict(tag, notes, accuracy, completeness, relevance), sig

    def rag_signals(self, item: RagAnswerInput) -> RagSignals:
        """What this judge reads off an answer that is neither empty, a refusal, an answer where
        the reference has none, nor in another script: the coverages and the claim checks."""
        question, reference = item.question, item.reference_answer
        context = "\n".join(item.contexts)
        answer, clock_read = cl.clock_in_context(item.generated_answer, question + "\n" + reference)
        ctx = self.prepare([question, answer, reference, *item.contexts])
        u_q = self.units(question, ctx)
        u_qcore = self.units(tx.strip_fillers(question), ctx)
        u_a = self.units(answer, ctx)
        u_r = self.units(reference, ctx)
        # Each retrieved chunk on its own: chunks recur across cases (one knowledge base), so
        # their analysis is memoised once instead of once per case's joined context.
        u_cs = [self.units(chunk, ctx) for chunk in item.contexts if chunk.strip()]
        key = self.minus(u_r, u_q) or u_r
        n = self.coverage(key, u_a) or 0.0
        new = self.minus(u_a, u_q)
        p = self.coverage_any(new, u_r, *u_cs)
        q = self.coverage(u_qcore, u_a)
        known = reference + ("\n" + context if context else "")
        level, reasons = self.conflicts(cl.checkable_figures(answer, known, question), known, question)
        findings = cl.rag_findings(answer, reference, question)
        facts_in, facts_total = cl.key_facts_present(answer, reference, question)
        meaning, meaning_size = cl.meaning_coverage(answer, reference, question)
        # Every checkable claim agrees: no finding, no contradicted figure, no figure the
        # reference lacks, and a good part of what the reference is about said (any wording).
        agrees = (
            not findings
            and level == 0
            and cl.figures_all_supported(answer, reference, question)
            and meaning_size > 0
            and meaning >= AGREE_MEANING
        )
        # A right answer with side remarks the reference cannot verify (rubric: 4): the
        # sentences about the reference agree, and the rest share nothing with it.
        aside = ""
        if not agrees and not findings and meaning_size > 0 and meaning >= AGREE_MEANING:
            core, aside = cl.split_digression(answer, reference, question)
            if aside and not (
                cl.figures_all_supported(core, reference, question)
                and self.conflicts(cl.checkable_figures(core, known, question), known, question)[0] == 0
            ):
                aside = ""
        return RagSignals(
            n=n, p=1.0 if p is None else p, q=1.0 if q is None else q, level=level, reasons=tuple(reasons),
            findings=tuple(findings), facts_in=facts_in, facts_total=facts_total, meaning=meaning,
            meaning_size=meaning_size, agrees=agrees, aside=aside, clock_read=tuple(clock_read),
        )

    def _rag_cross_language(self, tag: str, question: str, answer: str, reference: str) -> JsonObject:
        """A Latin-script answer to a Hangul reference: figures (in any notation), Latin
        names, and the bilingual lexicon's concepts with their polarity."""
        findings = cl.rag_findings(answer, reference, question)
        present, total = cl.key_facts_present(answer, reference, question, latin_only=True)
        meaning, size = cl.meaning_coverage(answer, reference, question, cross_language=True)
        figures_ok = cl.figures_all_present(answer, reference, question)
        notes = ["답변이 참조와 다른 언어(라틴 문자): 수치·라틴 고유명과 이중 언어 사전의 개념으로 대조"]
        if total:
            notes.append(f"참조의 수치·고유명 {present}/{total}개가 답변에 있음")
        if size:
            notes.append(f"참조가 말하는 개념 {pct(meaning)}가 답변에 있음")
        if findings:
            notes.extend(f.note() for f in findings)
            return _verdict(tag, notes, findings[0].cap, 2, 3)
        if total == 0 and size == 0:
            notes.append("대조할 수치·고유명·개념이 참조에 없음: 정확도를 확인할 수 없음(중간 점수)")
            return _verdict(tag, notes, 3, 3, 4)
        share = present / total if total else 1.0
        accuracy = band(meaning, CROSS_LANGUAGE_CUTS, 3) if size else 4
        if total >= 2 and present == total:
            # every figure and name of the reference is there and nothing contradicts it: the
            # words between them are what does not translate, not what is wrong
            accuracy = max(accuracy, 4)
            notes.append("참조의 수치·고유명이 모두 있고 모순 없음: 정확도 4 이상")
        elif present and cl.figures_all_supported(answer, reference, question):
            # what it says is the reference's and nothing contradicts it: what it leaves out is
            # incompleteness (the completeness band), not a wrong claim — as for a Korean answer
            accuracy = max(accuracy, 4)
            notes.append("답변의 수치는 모두 참조와 같고 모순 없음(빠진 내용은 완전성에서 감점): 정확도 4 이상")
        # A figure left out is incomplete, not wrong (as for a Korean answer): accuracy is
        # capped only while most of the reference's figures and names are not there to check.
        if share < 0.5:
            accuracy = min(accuracy, 3 if share > 0 else 2)
        if not figures_ok:
            notes.append("참조의 수치 일부가 답변에 없음: 완전성에서 감점")
        completeness = band(min(share, meaning if size else 1.0), self.COMP_CUTS, 1)
        if accuracy >= 4 and completeness < 4 and (not size or meaning >= CROSS_LANGUAGE_CUTS[-1][0]):
            # Across languages coverage is read off the figures, names and the lexicon's concepts
            # only: once those agree, nothing contradicts and a third of the concepts is said, the
            # concepts the lexicon lacks are untranslated words, not missing content (a Korean
            # paraphrase is judged the same way); an answer saying few of them stays incomplete
            completeness = 4
            notes.append("확인할 수 있는 내용이 모두 참조와 일치: 사전에 없는 말은 빠진 내용이 아님(완전성 4 이상)")
        return _verdict(tag, notes, accuracy, max(completeness, 2), 4)


@dataclass(frozen=True)
class RagSignals:
    """What one judge reads off a rag answer before scoring it (``RagRules.rag_signals``).

    n, p, q: the coverages of the table above; level: the figure-conflict level (0, 1, 2) with
    its reasons; findings: the claim checks' findings, strongest first; facts_in/facts_total:
    the reference's figures and entities the answer states; meaning/meaning_size: the share of
    the reference's concepts said, and how many there are; agrees: every checkable claim
    agrees; aside: the side remark of a right answer with an unverifiable extra ("" if none).
    """

    n: float
    p: float
    q: float
    level: int
    reasons: tuple[str, ...]
    findings: tuple[cl.Finding, ...]
    facts_in: int
    facts_total: int
    meaning: float
    meaning_size: int
    agrees: bool
    aside: str
    clock_read: tuple[str, ...]

    @property
    def all_facts(self) -> bool:
        """A paraphrase that keeps every figure and entity of the reference is not "missing
        the key content", whatever its wording."""
        return self.facts_total > 0 and self.facts_in == self.facts_total


# How each judge matches words in the generic answer core (``answer_core``).
CORE_VIEWS: dict[str, str] = {"lexical": "stems", "ngram": "ngrams", "numeric": "figures"}

# Findings that say the answer states the reference's claim the other way round.
REVERSING_RULES = frozenset({"polarity", "reversed-condition"})
# Share of the reference's concepts an agreeing answer says: ≥ .7 → 5, ≥ .3 → 4. A third is
# enough once nothing contradicts: a paraphrase shares few words, and an answer that leaves
# part out is incomplete, not wrong (its completeness band still says so).
AGREE_MEANING = 0.3
AGREE_CUTS: tuple[tuple[float, float], ...] = ((0.7, 5), (0.3, 4))
# Across languages only the lexicon's concepts can match, so a third of them is evidence
# enough once figures, names and polarity agree (a finding still caps the score).
CROSS_LANGUAGE_CUTS: tuple[tuple[float, float], ...] = ((0.7, 5), (0.34, 4))


def _verdict(tag: str, notes: list[str], accuracy: float, completeness: float, relevance: float) -> JsonObject:
    return {
        "feedback": f"{tag} " + ". ".join(notes) + ".",
        "accuracy": accuracy,
        "completeness": completeness,
        "relevance": relevance,
    }
