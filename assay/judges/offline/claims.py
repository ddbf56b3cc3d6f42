"""Claim-level checks of an answer against its reference, shared by every offline judge.

The judges' signals (morphemes, n-grams, stems) measure how much of the reference an answer
covers; they cannot see that one date was swapped for another, that a name was replaced, that
the answer calls the reference false, or that it merely repeats the question. These checks read
the answer as claims — figures with units, entities, polarity — and return *findings*, each a
cap on accuracy with its evidence, which the rag rules apply after the signal score.

    ====================  ====  ===========================================================
    finding               cap   when
    ====================  ====  ===========================================================
    debunk                1     the answer calls a statement false (사실이 아닙니다, 틀렸습니다,
                                not true, is false…) and the reference does not
    figure-substitution   1     a reference figure (not in the question) is missing from the
                                answer and the answer states another of the same unit
                                (a wrong date beside a right amount is caught: each unit
                                is compared on its own)
    entity-substitution   1     a reference entity is missing and the answer names another
                                entity of the same kind (…은행, …점, proper noun, Latin name)
    key-entity-missing    2     who/which/where questions: the reference's first entity not
                                in the question is absent from the answer
    polarity              2     an answer clause and its closest reference clause differ
                                in negation (않/없/못/아니/불가/금지, not/never/no/cannot)
    no-answer             1     the answer has no sentence (no predicate) or ≥ 70 % of its
                                words repeat the question, and it holds no reference figure
    ====================  ====  ===========================================================

Refusals: ``reference_refuses`` says the reference itself states the documents do not hold
the answer; a refusal then is correct. ``cross_language`` says the answer is written in Latin
script against a Hangul reference; such answers are scored on figures and Latin names only
(words cannot be compared across languages here, and names are not transliterated).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from assay.judges.offline import text as tx

# Entity-like words: a name ending in one of these is an organisation, branch or place.
ENTITY_SUFFIXES = tuple(
    "은행 전자 카드 보험 증권 생명 화재 점 지점 본점 센터 지사 사무소 구청 시청 군청 도청 주민센터 병원 의원 "
    "대학교 학교 공항 역 터미널 호텔 팀 본부 부서 재단 공사 공단 그룹 마트 몰".split()
)
WH_CUES = ("누구", "어느", "어떤", "어디", "무엇", "뭐", "who", "which", "where", "what")
NEG_WORDS_EN = re.compile(r"\b(?:not|never|no|cannot|can't|don't|doesn't|isn't|aren't|won't|without)\b", re.I)
NEG_PREFIXES = ("불가", "금지", "불포함", "제외", "불가능", "미포함", "비대상")
_EN_MONTHS = {
    m: i
    for i, m in enumerate(
        "january february march april may june july august september october november december".split(), 1
    )
}
_EN_MONTH_RE = re.compile(
    r"\b(" + "|".join(_EN_MONTHS) + r")\s+(\d{1,2})(?:st|nd|rd|th)?(?:,\s*(\d{4}))?", re.I
)
_EN_UNITS = (
    (re.compile(r"\s*\b(?:KRW|won)\b", re.I), "원"),
    (re.compile(r"\s*\b(?:percent|per cent)\b", re.I), "%"),
    (re.compile(r"\s*\b(?:days?)\b", re.I), "일"),
    (re.compile(r"\s*\b(?:months?)\b", re.I), "개월"),
    (re.compile(r"\s*\b(?:years?)\b", re.I), "년"),
    (re.compile(r"\s*\b(?:hours?)\b", re.I), "시간"),
    (re.compile(r"\s*\b(?:people|persons?|employees|staff|members)\b", re.I), "명"),
    (re.compile(r"\s*\b(?:times)\b", re.I), "회"),
    (re.compile(r"\s*\b(?:cases)\b", re.I), "건"),
)
_EN_MAG = re.compile(r"(\d+(?:\.\d+)?)\s*(million|billion|thousand)\b", re.I)


@dataclass(frozen=True)
class Finding:
    rule: str
    cap: int
    evidence: str

    def note(self) -> str:
        return f"{self.rule}(정확도 ≤ {self.cap}): {self.evidence}"


# The reference says the documents hold no answer (not merely that something cannot be done).
NO_ANSWER_IN_DOCS = (
    "정보가 없", "정보는 없", "내용이 없", "나와 있지 않", "포함되어 있지 않", "언급되어 있지 않", "명시되어 있지 않",
    "찾을 수 없", "확인되지 않", "no information", "not mentioned", "not in the", "does not contain", "doesn't contain",
)


def reference_refuses(reference: str) -> bool:
    """The reference itself says the documents do not hold the answer (and states no figure)."""
    return tx.has_any(reference, NO_ANSWER_IN_DOCS) and not tx.quantities(reference)


NO_ANSWER_RE = re.compile(r"^\s*(?:아니요|아뇨|아닙니다|no\b)", re.I)


def debunks(answer: str, reference: str) -> list[str]:
    """Cues in the answer that call a statement false, unless the reference uses them too or
    itself answers "no" (then saying "that is not true" may be the right answer)."""
    if NO_ANSWER_RE.match(tx.normalize(reference)):
        return []
    return [c for c in tx.DEBUNK_CUES if tx.has_any(answer, (c,)) and not tx.has_any(reference, (c,))]


def refuses(answer: str, reference: str, question: str = "") -> bool:
    """The answer declines to answer: a refusal cue that the reference does not itself use,
    in an answer that states none of the reference's figures or entities."""
    cues = [c for c in tx.REFUSAL_CUES if tx.has_any(answer, (c,))]
    if not cues or all(tx.has_any(reference, (c,)) for c in cues) and not reference_refuses(reference):
        return False
    present, _ = key_facts_present(answer, reference, question)
    return present == 0


def hangul_share(text: str) -> float:
    letters = [ch for ch in tx.normalize(text) if ch.isalpha()]
    return sum("가" <= ch <= "힣" for ch in letters) / len(letters) if letters else 0.0


def cross_language(answer: str, reference: str) -> bool:
    """A Latin-script answer to a Hangul reference."""
    return hangul_share(answer) < 0.3 and hangul_share(reference) >= 0.5


def english_as_korean_figures(text: str) -> str:
    """English dates, magnitudes and units rewritten the Korean way, so figures compare:
    "January 10, 2025" → "2025년 1월 10일", "129.6 million won" → "129600000원", "15 days" → "15일"."""

    def date(m: re.Match[str]) -> str:
        year = f"{m.group(3)}년 " if m.group(3) else ""
        return f"{year}{_EN_MONTHS[m.group(1).lower()]}월 {m.group(2)}일"

    out = _EN_MONTH_RE.sub(date, tx.normalize(text))
    mags = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
    out = _EN_MAG.sub(lambda m: f"{float(m.group(1)) * mags[m.group(2).lower()]:.0f}", out)
    out = re.sub(r"(?:USD\s*|\$)(\d[\d,.]*)", r"\1달러", out)
    for pattern, unit in _EN_UNITS:
        out = pattern.sub(unit, out)
    return out


@lru_cache(maxsize=4096)
def entities(text: str) -> tuple[str, ...]:
    """Entity-like words in order: proper nouns and Latin names (Kiwi), and words ending in an
    organisation/branch/place suffix (다온은행, 강남점, 부산지점), without their particles."""
    out: list[str] = []
    for word in tx.normalize(tx.strip_citations(text)).split():
        stem = tx.strip_suffix(re.sub(r"[^\w가-힣-]", "", word))
        if len(stem) >= 3 and any(stem.endswith(s) and len(stem) > len(s) for s in ENTITY_SUFFIXES):
            out.append(stem)
    for m in tx.analyse(text):
        if m.tag == "NNP" and len(m.lemma) >= 2:
            out.append(m.lemma)
        elif m.tag == "SL" and (len(m.lemma) >= 3 or m.lemma.isupper()) and m.lemma[:1].isupper():
            out.append(m.lemma)
    return tuple(dict.fromkeys(out))


def _present(entity: str, text: str) -> bool:
    return entity.lower() in tx.normalize(text).lower()


def _kind(entity: str) -> str:
    for s in ENTITY_SUFFIXES:
        if entity.endswith(s) and len(entity) > len(s):
            return s
    return "latin" if entity.isascii() else "name"


def figure_findings(answer: str, reference: str, question: str) -> list[Finding]:
    """Per unit: a reference figure the answer lacks, replaced by another of that unit."""
    asked = tx.quantities(question)
    ref = [r for r in tx.quantities(reference) if not any(tx.same_quantity(r, q) for q in asked)]
    ans = [a for a in tx.quantities(answer) if not any(tx.same_quantity(a, q) for q in asked)]
    out = []
    for unit in dict.fromkeys(r.unit for r in ref):
        missing = [r for r in ref if r.unit == unit and not any(tx.same_quantity(r, a) for a in ans)]
        other = [a for a in ans if a.unit == unit and not any(tx.same_quantity(a, r) for r in ref)]
        if missing and other:
            out.append(
                Finding(
                    "figure-substitution",
                    1,
                    f"답변의 {', '.join(a.text for a in other)} ↔ 참조의 {', '.join(r.text for r in missing)}",
                )
            )
    return out


def entity_findings(answer: str, reference: str, question: str) -> list[Finding]:
    ref_ents = [e for e in entities(reference) if not _present(e, question)]
    ans_ents = [e for e in entities(answer) if not _present(e, question) and not _present(e, reference)]
    missing = [e for e in ref_ents if not _present(e, answer)]
    out = []
    swapped = [(m, a) for m in missing for a in ans_ents if _kind(m) == _kind(a) and _kind(m) != "name"]
    swapped += [(m, a) for m in missing for a in ans_ents if _kind(m) == _kind(a) == "name"][:1]
    if swapped:
        m, a = swapped[0]
        out.append(Finding("entity-substitution", 1, f"답변의 '{a}' ↔ 참조의 '{m}'"))
    elif ref_ents and missing and missing[0] == ref_ents[0] and tx.has_any(question, WH_CUES):
        out.append(Finding("key-entity-missing", 2, f"질문이 묻는 대상인 참조의 '{ref_ents[0]}'가 답변에 없음"))
    return out


def polarity(text: str) -> int:
    """Parity of negations in a sentence (1 negative, 0 affirmative)."""
    count = tx.negations(text) + len(NEG_WORDS_EN.findall(text))
    count += sum(tx.normalize(text).count(p) for p in NEG_PREFIXES if p != "불가능")
    return count % 2


def polarity_findings(answer: str, reference: str) -> list[Finding]:
    """Clause by clause (split on punctuation and commas), so two negated clauses in one
    sentence do not cancel out."""
    ref_sents = tx.segments(reference)
    for sent in tx.segments(answer):
        words = set(tx.stems(sent))
        if len(words) < 2:
            continue
        best, best_share = None, 0.0
        for r in ref_sents:
            r_words = set(tx.stems(r))
            share = len(words & r_words) / max(1, min(len(words), len(r_words)))
            if share > best_share:
                best, best_share = r, share
        if best is not None and best_share >= 0.5 and polarity(sent) != polarity(best):
            return [Finding("polarity", 2, f"부정/긍정이 참조와 반대: '{sent[:40]}' ↔ '{best[:40]}'")]
    return []


def has_predicate(text: str) -> bool:
    """A sentence-final ending (Korean) or a finite verb (English) somewhere in the text."""
    if any(m.tag in {"EF", "VCP", "VCN"} for m in tx.analyse(text)):
        return True
    return bool(re.search(r"\b(?:is|are|was|were|has|have|had|can|will|must|should|does|do|did)\b", text, re.I))


def no_answer_findings(answer: str, reference: str, question: str) -> list[Finding]:
    words = list(tx.stems(answer))
    if len(words) < 4:
        return []
    asked = set(tx.stems(question))
    repeated = sum(w in asked for w in words) / len(words)
    ref_figs = tx.quantities(reference)
    holds_figure = any(tx.same_quantity(a, r) for a in tx.quantities(answer) for r in ref_figs)
    if holds_figure:
        return []
    if not has_predicate(answer):
        return [Finding("no-answer", 1, "문장이 아닌 핵심어 나열로, 질문에 답하지 않음")]
    if repeated >= 0.7:
        return [Finding("no-answer", 1, f"답변 단어의 {round(100 * repeated)}%가 질문의 반복")]
    return []


def rag_findings(answer: str, reference: str, question: str) -> list[Finding]:
    """Every finding for one answer, strongest first."""
    found: list[Finding] = []
    cues = debunks(answer, reference)
    if cues:
        found.append(Finding("debunk", 1, f"답변이 내용을 부정함: {', '.join(cues)}"))
    found += figure_findings(answer, reference, question)
    found += entity_findings(answer, reference, question)
    found += polarity_findings(answer, reference)
    found += no_answer_findings(answer, reference, question)
    return sorted(found, key=lambda f: f.cap)


def key_facts_present(answer: str, reference: str, question: str) -> tuple[int, int]:
    """(present, total) of the reference's figures and entities not in the question."""
    asked = tx.quantities(question)
    figs = [r for r in tx.quantities(reference) if not any(tx.same_quantity(r, q) for q in asked)]
    ans = tx.quantities(answer)
    ents = [e for e in entities(reference) if not _present(e, question)]
    present = sum(any(tx.same_quantity(r, a) for a in ans) for r in figs)
    present += sum(_present(e, answer) for e in ents)
    return present, len(figs) + len(ents)
