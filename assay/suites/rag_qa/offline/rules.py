"""rag_answer (1-5): the offline jury's rules for a Korean answer against its reference.

N = coverage(reference units not in the question, answer), P = coverage(answer units not in the
question, reference + contexts), Q = coverage(question without interrogatives, answer), M = the
share of the reference's concepts said (``claims.meaning_coverage``). Shortcuts first (empty,
refusal, an answer where the reference has none, a Latin-script answer), then a base verdict
(``_rag_base``) and the ordered scoring steps of ``RAG_STEPS``: agreement raises, then the claim
findings of ``claims.py`` and the caps. Unless the judge runs on rules alone, the fitted stage
(``stage.py``) reads these scores with the signals and gives the final ones. An answer
to a reference in another language with a pack (English) goes to ``answer_core`` instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from assay.judges.offline import answer_core, fitted
from assay.judges.offline import claims as cl
from assay.judges.offline import text as tx
from assay.judges.offline.messages import Msg, joined, say, tagged
from assay.judges.offline.scoring import band, pct
from assay.judges.offline.suite_rules import RuleSet
from assay.judges.prompts import RagAnswerInput
from assay.schemas import JsonObject
from assay.suites.rag_qa.offline.stage import STAGE


class RagRules(RuleSet):
    """The rag_answer rules, read off the judge's signals (``units``, ``coverage``…)."""

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
            verdict = fitted.refine(STAGE, self.signal, verdict, signals)
        if aside:
            note = say("core.stripped", what="; ".join(answer_core.short(a) for a in aside))
            verdict = {**verdict, "feedback": joined((verdict["feedback"], note), " ", ".")}
        return verdict

    def rag_rule_verdict(self, item: RagAnswerInput) -> tuple[JsonObject, RagSignals | None]:
        """The rules' verdict and the signals it was read from (None for the shortcuts: empty
        answer, refusal, an answer where the reference has none, another script)."""
        question, answer, reference = item.question, item.generated_answer, item.reference_answer
        tag = f"[{self.signal}]"
        shortcut = _shortcut(question, answer, reference)
        if shortcut is not None:
            return _verdict(tag, *shortcut), None
        if cl.cross_language(answer, reference):
            return self._rag_cross_language(tag, question, answer, reference), None
        sig = self.rag_signals(item)
        scores, notes, judged = self._rag_base(sig)
        case = RagCase(sig, answer, judged)
        for step in RAG_STEPS:
            notes += step(case, scores)
        notes.append(say("rag.question_words", share=pct(sig.q)))
        return _verdict(tag, notes, scores["accuracy"], scores["completeness"], scores["relevance"]), sig

    def _rag_base(self, sig: RagSignals) -> tuple[dict[str, float], list[Msg], bool]:
        """Accuracy from the figure conflicts and coverage (1 when wrong, 2 when some figures
        differ, else band((N + P) / 2)); completeness band(N); relevance band(max(Q, N)); and
        whether the answer is neither wrong nor off in a figure (the agreement steps may raise it)."""
        wrong = sig.level >= 2 or (sig.n < self.WRONG_N and not sig.all_facts and not sig.agrees and not sig.aside)
        notes: list[Msg] = [say("rag.coverage", share=pct(sig.n)), say("rag.support", share=pct(sig.p))]
        if sig.clock_read:
            notes.append(say("rag.clock_read", hours=joined(sig.clock_read, ", ")))
        if sig.facts_total:
            notes.append(say("rag.facts", said=sig.facts_in, total=sig.facts_total))
        if sig.meaning_size:
            notes.append(say("rag.concepts", share=pct(sig.meaning)))
        if wrong:
            accuracy = 1
            why = joined(sig.reasons, "; ") if sig.level >= 2 else say("rag.no_key_content")
            notes.append(say("rag.wrong", why=why))
        elif sig.level == 1:
            accuracy = 2
            notes.append(say("rag.some_figures_differ", why=joined(sig.reasons, "; ")))
        else:
            accuracy = band((sig.n + sig.p) / 2, self.ACC_CUTS, 2)
        scores = {
            "accuracy": accuracy,
            "completeness": band(sig.n, self.COMP_CUTS, 1),
            "relevance": band(max(sig.q, sig.n), self.REL_CUTS, 1),
        }
        return scores, notes, not wrong and sig.level != 1

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
        # each chunk on its own: chunks recur across cases, so their analysis is memoised
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
        # every checkable claim agrees, and a good part of what the reference is about is said
        said = meaning_size > 0 and meaning >= AGREE_MEANING
        agrees = not findings and level == 0 and cl.figures_all_supported(answer, reference, question) and said
        aside = self._aside(answer, reference, question, known) if said and not agrees and not findings else ""
        return RagSignals(
            n=n, p=1.0 if p is None else p, q=1.0 if q is None else q, level=level, reasons=tuple(reasons),
            findings=tuple(findings), facts_in=facts_in, facts_total=facts_total, meaning=meaning,
            meaning_size=meaning_size, agrees=agrees, aside=aside, clock_read=tuple(clock_read),
        )

    def _aside(self, answer: str, reference: str, question: str, known: str) -> str:
        """The side remark of a right answer (rubric: 4): the sentences about the reference
        agree with it, the rest share nothing with it; "" when there is none."""
        core, aside = cl.split_digression(answer, reference, question)
        if not aside or not cl.figures_all_supported(core, reference, question):
            return ""
        return aside if self.conflicts(cl.checkable_figures(core, known, question), known, question)[0] == 0 else ""

    def _rag_cross_language(self, tag: str, question: str, answer: str, reference: str) -> JsonObject:
        """A Latin-script answer to a Hangul reference: figures (in any notation), Latin
        names, and the bilingual lexicon's concepts with their polarity."""
        findings = cl.rag_findings(answer, reference, question)
        present, total = cl.key_facts_present(answer, reference, question, latin_only=True)
        meaning, size = cl.meaning_coverage(answer, reference, question, cross_language=True)
        notes = [say("rag.cross_language")]
        if total:
            notes.append(say("rag.cross_facts", said=present, total=total))
        if size:
            notes.append(say("rag.cross_concepts", share=pct(meaning)))
        if findings:
            notes.extend(f.note() for f in findings)
            return _verdict(tag, notes, findings[0].cap, 2, 3)
        if total == 0 and size == 0:
            notes.append(say("rag.cross_nothing_to_check"))
            return _verdict(tag, notes, 3, 3, 4)
        share = present / total if total else 1.0
        accuracy = _cross_language_accuracy(answer, reference, question, present, total, meaning if size else None, notes)
        if not cl.figures_all_present(answer, reference, question):
            notes.append(say("rag.cross_figures_missing"))
        completeness = band(min(share, meaning if size else 1.0), self.COMP_CUTS, 1)
        if accuracy >= 4 and completeness < 4 and (not size or meaning >= CROSS_LANGUAGE_CUTS[-1][0]):
            # once figures, names and a third of the lexicon's concepts agree, the concepts the
            # lexicon lacks are untranslated words, not missing content
            completeness = 4
            notes.append(say("rag.cross_all_agree"))
        return _verdict(tag, notes, accuracy, max(completeness, 2), 4)


@dataclass(frozen=True)
class RagSignals:
    """What one judge reads off a rag answer (``RagRules.rag_signals``): N, P, Q; the figure
    conflict level (0-2) and its reasons; the claim findings, strongest first; the reference's
    figures and entities said; M and the number of concepts; agreement; a side remark."""

    n: float
    p: float
    q: float
    level: int
    reasons: tuple[Msg, ...]
    findings: tuple[cl.Finding, ...]
    facts_in: int
    facts_total: int
    meaning: float
    meaning_size: int
    agrees: bool
    aside: str
    clock_read: tuple[Msg, ...]

    @property
    def all_facts(self) -> bool:
        """Every figure and entity of the reference said (a paraphrase, whatever its wording)."""
        return self.facts_total > 0 and self.facts_in == self.facts_total


@dataclass(frozen=True)
class RagCase:
    """What the scoring steps read: the signals, the answer, and whether the base verdict left
    it open (neither wrong nor off in a figure), so that agreement may raise it."""

    sig: RagSignals
    answer: str
    judged: bool


def raise_paraphrase(case: RagCase, scores: dict[str, float]) -> list[Msg]:
    """Every figure and entity of the reference and no finding: a paraphrase, at least 4."""
    if case.judged and case.sig.all_facts and not case.sig.findings:
        scores["accuracy"] = max(scores["accuracy"], 4)
        scores["completeness"] = max(scores["completeness"], 4)
    return []


def raise_agreement(case: RagCase, scores: dict[str, float]) -> list[Msg]:
    """Every checkable claim agrees: accuracy ≥ 4 (5 with M ≥ .7), completeness ≥ 3, relevance ≥ 4."""
    if not (case.judged and case.sig.agrees):
        return []
    scores["accuracy"] = max(scores["accuracy"], band(case.sig.meaning, AGREE_CUTS, 4))
    scores["completeness"] = max(scores["completeness"], band(case.sig.meaning, AGREE_CUTS, 3))
    scores["relevance"] = max(scores["relevance"], 4)
    return [say("rag.agrees")]


def raise_digression(case: RagCase, scores: dict[str, float]) -> list[Msg]:
    """A right answer with a side remark the reference cannot verify: accuracy ≥ 4 (the rubric)."""
    if not (case.judged and case.sig.aside):
        return []
    scores["accuracy"] = max(scores["accuracy"], 4)
    scores["completeness"] = max(scores["completeness"], band(case.sig.meaning, AGREE_CUTS, 3))
    return [say("rag.digression", aside=case.sig.aside[:40])]


def cap_findings(case: RagCase, scores: dict[str, float]) -> list[Msg]:
    """A claim finding (claims.py) caps accuracy at the strongest finding's cap."""
    if not case.sig.findings:
        return []
    scores["accuracy"] = min(scores["accuracy"], case.sig.findings[0].cap)
    return [f.note() for f in case.sig.findings]


def cap_wrong(case: RagCase, scores: dict[str, float]) -> list[Msg]:
    """A wrong answer: completeness ≤ 2 (≤ 1 unless it says the question, Q ≥ .6), relevance ≤ 4."""
    if scores["accuracy"] <= 1:
        scores["completeness"] = min(scores["completeness"], 2 if case.sig.q >= 0.6 else 1)
        scores["relevance"] = min(scores["relevance"], 4)
    return []


def cap_reversed(case: RagCase, scores: dict[str, float]) -> list[Msg]:
    """A claim said the other way round has not covered the reference, whatever words it
    repeats: completeness ≤ 2."""
    findings = case.sig.findings
    if scores["accuracy"] > 1 and findings and findings[0].rule in REVERSING_RULES:
        scores["completeness"] = min(scores["completeness"], 2)
    return []


def cap_no_answer(case: RagCase, scores: dict[str, float]) -> list[Msg]:
    """No answer as a list of the question's words (no predicate), or a text that only echoes
    the question: completeness 1, relevance ≤ 2."""
    if any(f.rule == "no-answer" for f in case.sig.findings) and (
        not cl.has_predicate(case.answer) or cl.only_echoes(case.answer)
    ):
        scores["completeness"], scores["relevance"] = 1, min(scores["relevance"], 2)
    return []


# The scoring steps after the base verdict, in order: raises first, then caps.
RAG_STEPS = (raise_paraphrase, raise_agreement, raise_digression, cap_findings, cap_wrong, cap_reversed, cap_no_answer)


def _shortcut(question: str, answer: str, reference: str) -> tuple[list[Msg], int, int, int] | None:
    """(notes, accuracy, completeness, relevance) of an empty answer, a refusal, or an answer
    where the reference says the documents hold none; None otherwise."""
    if not tx.normalize(answer):
        return [say("rag.empty")], 1, 1, 2
    ref_refuses = cl.reference_refuses(reference)
    if cl.refuses(answer, reference, question) and not cl.debunks(answer, reference):
        if ref_refuses:
            return [say("core.refusal_right")], 5, 5, 5
        if cl.reference_refuses_beside(reference):
            return [say("rag.refusal_right_beside")], 5, 5, 5
        return [say("rag.refusal_wrong")], 1, 1, 2
    if ref_refuses:
        return [say("rag.answer_without_basis")], 1, 1, 3
    return None


def _cross_language_accuracy(
    answer: str, reference: str, question: str, present: int, total: int, meaning: float | None, notes: list[Msg]
) -> int:
    """Concept share ≥ .7 → 5, ≥ .34 → 4, else 3 (4 with no concepts); ≥ 4 when all of ≥ 2
    figures and names are there or every figure stated is the reference's; ≤ 3 while under
    half of the reference's figures and names are there, ≤ 2 with none."""
    share = present / total if total else 1.0
    accuracy = band(meaning, CROSS_LANGUAGE_CUTS, 3) if meaning is not None else 4
    if total >= 2 and present == total:
        accuracy = max(accuracy, 4)
        notes.append(say("rag.cross_all_facts"))
    elif present and cl.figures_all_supported(answer, reference, question):
        # what it leaves out is incompleteness, not a wrong claim (as for a Korean answer)
        accuracy = max(accuracy, 4)
        notes.append(say("rag.cross_figures_agree"))
    if share < 0.5:
        accuracy = min(accuracy, 3 if share > 0 else 2)
    return accuracy


# How each judge matches words in the generic answer core (``answer_core``).
CORE_VIEWS: dict[str, str] = {"lexical": "stems", "ngram": "ngrams", "numeric": "figures"}
# Findings that say the answer states the reference's claim the other way round.
REVERSING_RULES = frozenset({"polarity", "reversed-condition"})
# Share of the reference's concepts an agreeing answer says: ≥ .7 → 5, ≥ .3 → 4 (a paraphrase
# shares few words; what it leaves out is incompleteness, not a wrong claim).
AGREE_MEANING = 0.3
AGREE_CUTS: tuple[tuple[float, float], ...] = ((0.7, 5), (0.3, 4))
# Across languages only the lexicon's concepts can match, so a third of them is enough.
CROSS_LANGUAGE_CUTS: tuple[tuple[float, float], ...] = ((0.7, 5), (0.34, 4))


def _verdict(tag: str, notes: list[Msg], accuracy: float, completeness: float, relevance: float) -> JsonObject:
    scores = {"accuracy": accuracy, "completeness": completeness, "relevance": relevance}
    return {"feedback": tagged(tag, notes), **scores}
