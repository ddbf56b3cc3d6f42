"""Text signals shared by the offline judges: Korean morphemes, character n-grams, quantities,
citation tags, sentences, and small cue lists.

Everything is deterministic and local. The Kiwi analyser is created once per process
(lazily, under a lock) and morpheme analyses are memoised by text.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from assay.metrics.figure_forms import UNIT_FACTORS, canonical_figures  # noqa: F401  (re-exported)
from assay.metrics.quantities import (  # noqa: F401  (re-exported: the judges' text toolkit)
    CITATION_RE,
    DATE_UNITS,
    EXACT_UNITS,
    UNITS,
    Quantity,
    is_date,
    label_spans,
    mask_labels,
    normalize,
    quantities,
    quantity_check,
    same_quantity,
    strip_citations,
)

# -- normalisation and sentences -------------------------------------------------------------

HEADER_RE = re.compile(r"^\s{0,3}#{1,6}\s+(.*)$")


def citations(text: str) -> list[int]:
    """Source numbers of every ``[SOURCE:N]`` tag, in order (repeats kept)."""
    return [int(n) for n in CITATION_RE.findall(text or "")]


def sentences(text: str) -> list[str]:
    """Sentences and lines; markdown headers and list markers are kept as their own items."""
    return list(_sentences(text))


@lru_cache(maxsize=8192)
def _sentences(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for line in normalize(text).splitlines():
        line = line.strip()
        if not line:
            continue
        if HEADER_RE.match(line):
            out.append(line)
            continue
        line = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", line)
        parts = _SENTENCE_END_RE.split(line)
        # Keep a trailing citation tag with the sentence it closes.
        merged: list[str] = []
        for part in parts:
            if merged and CITATION_RE.fullmatch(part.strip().rstrip(".")):
                merged[-1] += " " + part
            else:
                merged.append(part)
        out.extend(p.strip() for p in merged if p.strip())
    return tuple(out)


# A sentence ends at . ! ? and a space, not after a title or a company's abbreviation ("Mr. Sato",
# "Hokkaido Mill Co., contact …").
_SENTENCE_END_RE = re.compile(
    r"(?<=[.!?])(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bDr\.)(?<!\bCo\.)(?<!\bInc\.)(?<!\bLtd\.)(?<!\bSt\.)\s+(?=\S)"
)


def headers(text: str) -> list[str]:
    return [m.group(1).strip() for line in normalize(text).splitlines() if (m := HEADER_RE.match(line))]


def segments(text: str) -> list[str]:
    """Finer pieces than sentences (clauses split on , ; · / and line breaks), for memory noise."""
    return list(_segments(text))


# (a dash between two clauses, "no table charge — kids under five get in free", parts them too)
_SEGMENT_BREAK = re.compile(r"[.!?;·\n]+|,\s+|\s/\s|\s[—–]\s")


@lru_cache(maxsize=8192)
def _segments(text: str) -> tuple[str, ...]:
    return tuple(piece for piece, _, _ in segment_spans(text))


@lru_cache(maxsize=8192)
def segment_spans(text: str) -> tuple[tuple[str, int, int], ...]:
    """``segments`` with their (start, end) offsets in ``normalize(text)``."""
    norm = normalize(text)
    out: list[tuple[str, int, int]] = []
    pos = 0
    for brk in [*_SEGMENT_BREAK.finditer(norm), None]:
        end = brk.start() if brk else len(norm)
        piece = norm[pos:end]
        if len(piece.strip()) >= 2:
            lead = len(piece) - len(piece.lstrip())
            out.append((piece.strip(), pos + lead, pos + lead + len(piece.strip())))
        pos = brk.end() if brk else end
    return tuple(out)


# -- quantities: assay.metrics.quantities (shared with the memory metrics) ----------------------

DIGITS_RE = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")


@lru_cache(maxsize=8192)
def digit_strings(text: str, years: bool | None = None) -> frozenset[str]:
    """Digit sequences as written (thousands separators removed), citation tags ignored;
    ``years`` True/False keeps only / drops 4-digit years (1900-2099)."""
    # Digits inside names ("코로나19", "GPT-4") are not figures: read them from the quantities,
    # as values (1만 원 → 10000, 2주 → 14), so one value written two ways gives one string.
    out = frozenset(f"{comparable_value(q):.10g}" for q in quantities(text))
    if years is None:
        return out
    return frozenset(d for d in out if bool(re.fullmatch(r"(19|20)\d\d", d)) == years)


# -- Kiwi morphemes ----------------------------------------------------------------------------

_KIWI: Any = None
_KIWI_LOCK = threading.Lock()


def kiwi() -> Any:
    """The process-wide Kiwi analyser (created on first use)."""
    global _KIWI
    if _KIWI is None:
        with _KIWI_LOCK:
            if _KIWI is None:
                from kiwipiepy import Kiwi

                _KIWI = Kiwi()
    return _KIWI


STOP_LEMMAS = set(
    "것 수 등 때 중 경우 이번 해당 정도 내용 부분 관련 대하 통하 위하 있다 없다 하다 되다 이다 않다 같다 주다 보다 가다 오다 받다 지다".split()
)
NEGATION_LEMMAS = {"않다", "못", "안", "없다", "아니다", "못하다"}


@dataclass(frozen=True)
class Morph:
    lemma: str
    tag: str
    start: int = 0  # character offset in strip_citations(normalize(text))


@lru_cache(maxsize=8192)
def analyse(text: str) -> tuple[Morph, ...]:
    """All morphemes as (lemma, tag); verb and adjective lemmas end in 다."""
    out: list[Morph] = []
    for tok in kiwi().tokenize(strip_citations(normalize(text))):
        tag = tok.tag.split("-")[0]
        lemma = getattr(tok, "lemma", tok.form) or tok.form
        if tag in {"VV", "VA", "VX", "VCN"} and not lemma.endswith("다"):
            lemma += "다"
        out.append(Morph(lemma, tag, tok.start))
    return tuple(out)


def number_token(q: Quantity) -> str:
    """``#value``, durations in their smallest unit (2주 → #14, 1시간 → #60)."""
    return f"#{comparable_value(q):.6g}"


def comparable_value(q: Quantity) -> float:
    """The value in the smallest unit, months as 30 days ("한 달" and "30일" are one value;
    a year is 12 months)."""
    return q.value * _DAYS_FACTORS.get(q.unit, 1.0)


# UNIT_FACTORS with months as 30 days: 주 → 7, 개월 → 30, 년 → 12 × 30, 시간 → 60 (분).
_DAYS_FACTORS = {
    unit: factor * (30.0 if smaller == "개월" else 1.0) for unit, (smaller, factor) in UNIT_FACTORS.items()
} | {"개월": 30.0}


POS_WEIGHTS = {"NNP": 2.0, "SL": 2.0, "SH": 2.0, "NNG": 1.0, "XR": 1.0, "VV": 0.5, "VA": 0.5}


@lru_cache(maxsize=8192)
def weighted_lemmas(text: str) -> dict[str, float]:
    """Content lemmas weighted by part of speech (proper nouns, Latin and numbers 2, common
    nouns and roots 1, verbs and adjectives 0.5); the highest weight wins for repeats."""
    out: dict[str, float] = {}
    for m in analyse(text):
        w = POS_WEIGHTS.get(m.tag)
        if w is None or m.lemma in STOP_LEMMAS:
            continue
        out[m.lemma] = max(out.get(m.lemma, 0.0), w)
    for q in quantities(text):
        out[number_token(q)] = 2.0
    return out


@lru_cache(maxsize=8192)
def number_tokens(text: str, dates: bool | None = None) -> frozenset[str]:
    """``#value`` tokens of the text's quantities; ``dates`` True/False keeps only dates/non-dates."""
    return frozenset(number_token(q) for q in quantities(text) if dates is None or is_date(q) == dates)


def negations(text: str) -> int:
    return sum(1 for m in analyse(text) if m.lemma in NEGATION_LEMMAS and m.tag in {"VX", "VA", "VCN", "MAG"})


# -- eojeol tokens (no analyser) -------------------------------------------------------------

_JOSA = sorted(
    "으로부터 에서부터 이라고 라고 에게서 으로서 으로써 에서는 에서도 으로는 까지는 부터는 이라는 라는 에서 에게 으로 부터 까지 처럼 보다 이며 이고 하고 와의 과의 에는 에도 로는 이나 이란 은 는 이 가 을 를 의 에 도 와 과 로 만 나 며 고".split(),
    key=len,
    reverse=True,
)
_ENDINGS = sorted(
    "했습니다 합니다 됩니다 입니다 습니다 되었습니다 하였습니다 있습니다 없습니다 했다 한다 된다 이다 였다 었다 았다 해요 예요 이에요 에요 했고 하며 하고 하는 되는 된 한 할 해 하여 되어 돼 다".split(),
    key=len,
    reverse=True,
)
_FUNCTION_WORDS = set(_JOSA) | set(_ENDINGS) | set("으로 예요 이에요 입니다 있다 없다 그리고 또한".split())
_EOJEOL_RE = re.compile(r"[0-9A-Za-z가-힣]+(?:[.,][0-9]+)*")


_QUANTITY_TEXT = re.compile(
    r"\d+(?:,\d{3})*(?:\.\d+)?\s*(?:조|억|천만|백만|십만|만|천|백)?\s*(?:"
    + "|".join(re.escape(u) for u in UNITS)
    + r")?"
)


@lru_cache(maxsize=65536)
def strip_suffix(word: str, keep: int = 2) -> str:
    """Remove one trailing verb ending, then one particle, keeping at least ``keep`` characters."""
    for suffix in _ENDINGS:
        if word.endswith(suffix) and len(word) - len(suffix) >= keep:
            word = word[: -len(suffix)]
            break
    for suffix in _JOSA:
        if word.endswith(suffix) and len(word) - len(suffix) >= keep:
            word = word[: -len(suffix)]
            break
    return word


@lru_cache(maxsize=8192)
def stems(text: str) -> tuple[str, ...]:
    """Whitespace words with one trailing particle or verb ending removed (length ≥ 2 kept).

    Quantities are removed first (they are compared as quantities, not words)."""
    out: list[str] = []
    bare = _QUANTITY_TEXT.sub(" ", strip_citations(normalize(text)))
    for word in _EOJEOL_RE.findall(bare):
        if any(ch.isdigit() for ch in word):
            continue  # numbers are handled as quantities
        stem = strip_suffix(word)
        if stem in _FUNCTION_WORDS:
            continue
        if len(stem) >= 2 or stem.isascii():
            out.append(stem.lower() if stem.isascii() else stem)
    return tuple(out)


# -- character n-grams ----------------------------------------------------------------------------


@lru_cache(maxsize=8192)
def char_ngrams(text: str, sizes: tuple[int, ...] = (2, 3)) -> Counter[str]:
    """Character n-grams within words, case-folded; each word loses one trailing ending and
    particle first (so "창립자는" and "창립자의" share all their grams), pure function words
    are skipped."""
    words = _EOJEOL_RE.findall(strip_citations(normalize(text)).lower())
    grams: Counter[str] = Counter()
    for word in words:
        if word in _FUNCTION_WORDS:
            continue
        word = strip_suffix(word, keep=1)
        padded = f" {word} "
        for n in sizes:
            if len(padded) < n:
                continue
            for i in range(len(padded) - n + 1):
                gram = padded[i : i + n]
                if gram.strip():
                    grams[gram] += 1
    return grams


# -- cue lists -------------------------------------------------------------------------------------

REFUSAL_CUES = (
    "찾을 수 없",
    "알 수 없",
    "모르겠",
    "답변할 수 없",
    "답변드리기 어렵",
    "정보가 없",
    "확인할 수 없",
    "제공할 수 없",
    "포함되어 있지 않",
    "언급되어 있지 않",
    "don't know",
    "do not know",
    "cannot answer",
    "no information",
    "나와 있지 않",
    "나와있지 않",
    "명시되어 있지 않",
    "확인되지 않",
    "찾지 못",
    "포함되지 않",
    "not mentioned",
    "not contain",
    "doesn't contain",
    "not provided",
    "cannot find",
    "can't find",
    "could not find",
    "unable to find",
    "not specified",
    "정보는 없",
    "내용이 없",
    "내용은 없",
    # "…강습 프로그램 이야기는 없어요", "안내는 없습니다"
    "이야기는 없",
    "이야기가 없",
    "안내는 없",
    "안내가 없",
    "문서에 없",
    "문서에는 없",
    "자료에 없",
    "자료에는 없",
    "안내되어 있지 않",
    "기재되어 있지 않",
    "나와 있지 않",
    "do not say",
    "does not say",
    "don't say",
    "doesn't say",
    "not stated",
    "not state",
    "not mention",
    "no details",
    "not available in the",
    "n't mention",
    "n't say",
    "n't state",
    "n't specify",
    "n't provide",
    "n't include",
    # contracted and colloquial forms of "not found / not stated" (couldn't find, 안 나와 있어서)
    "n't find",
    "n't tell",
    "n't locate",
    "안 나와 있",
    "안 나와있",
    "나오지 않",
    "알려 드릴 수 없",
    "알려드릴 수 없",
    # the documents "have no explanation / notice" of it, and "hard to say" (말씀드리기 어렵)
    "설명이 없",
    "설명은 없",
    "안내가 없",
    "안내는 없",
    "말씀드리기 어렵",
    "말씀드릴 수 없",
)
# The answer calls a statement false ("다음은 사실이 아닙니다: … 모두 틀렸습니다").
DEBUNK_CUES = (
    "사실이 아닙",
    "사실이 아니",
    "사실과 다릅",
    "사실과 다르",
    "틀렸",
    "틀린 내용",
    "틀린 정보",
    "잘못된 정보",
    "잘못된 내용",
    "거짓",
    "오보",
    "not true",
    "untrue",
    "is false",
    "are false",
    "was false",
    "is incorrect",
    "are incorrect",
    "is wrong",
    "are wrong",
    "misinformation",
    "not correct",
    "not accurate",
    "inaccurate",
    "not the case",
    "a myth",
    "사실무근",
    "잘못 알려진",
    "잘못되었",
    "잘못된 안내",
    "오해입니다",
)
# Plans and targets a report proposes: their figures are proposals, not factual claims.
PROPOSAL_CUES = ("목표", "계획", "예정", "타깃", "KPI", "이내", "유지", "달성", "단계", "측정")
FAILURE_CUES = (
    "오류가 발생",
    "에러가 발생",
    "실패했습니다",
    "실패하였습니다",
    "처리할 수 없",
    "처리하지 못",
    "다시 시도",
    "문제가 발생",
    "요청을 완료하지 못",
    "error",
    "failed",
)
GREETING_CUES = ("안녕하세요", "무엇을 도와드릴까요", "도움이 필요하시면", "도와드릴게요", "감사합니다")
EXAGGERATION_CUES = (
    "급증",
    "폭증",
    "폭발적",
    "급등",
    "폭등",
    "급감",
    "폭락",
    "압도적",
    "획기적",
    "혁명적",
    "전례 없는",
    "사상 최대",
    "사상 최고",
    "모든 소비자",
    "누구나",
    "반드시",
    "확실히",
    "완전히",
    "절대",
    "유일한",
)
CONNECTIVES = (
    "따라서",
    "그러므로",
    "그러나",
    "하지만",
    "또한",
    "이에",
    "이에 따라",
    "결과적으로",
    "반면",
    "특히",
    "즉",
    "한편",
    "이처럼",
    "이를 통해",
    "때문에",
    "그 결과",
    "나아가",
    "아울러",
    "요약하면",
    "종합하면",
    "먼저",
    "다음으로",
)
CONCLUSION_CUES = tuple("결론 요약 제언 시사점 종합 맺음 conclusion summary".split())
RECOMMENDATION_CUES = tuple(
    "해야 필요하다 필요가 필요합니다 권장 제언 제안 추진 도입 강화 방안 전략 실행 검토할 개선".split()
)
EXAMPLE_CUES = ("예를 들어", "예컨대", "사례", "예시", "실제로")
STALE_CUES = (
    "이전에 해결",
    "해결됨",
    "해결된",
    "해결 완료",
    "예전",
    "과거에",
    "더 이상 유효하지",
    "(구)",
    "지난해",
)
UPDATE_CUES = (
    "늘었",
    "줄었",
    "변경",
    "갱신",
    "조정",
    "상향",
    "하향",
    "수정",
    "으로 바뀌",
    "업데이트",
    "현재",
    # a renewed contract with its new value ("25.9.1 재계약: 월세 52만 원으로 인상")
    "재계약",
    "인상",
    "인하",
)
EMPTY_MEMORY = ("", "(메모리 없음)", "메모리 없음", "없음", "(없음)", "(no memory)", "none", "n/a")
QUESTION_CUE_NUMBER = tuple("얼마 몇 비용 금액 예산 수치 비율 커버리지 규모 매출 가격".split())
QUESTION_CUE_TIME = ("언제", "며칠", "몇 시", "날짜", "일정", "시점")

INTENT_CUES: dict[str, tuple[str, ...]] = {
    "DELETE": ("삭제", "제거", "지우", "지워", "없애", "빼 줘", "빼줘", "뺐"),
    "MOVE": ("이동", "옮기", "옮겨", "옮겼", "넘겨", "넘기", "넘겼"),
    "ADD": ("추가", "등록", "생성", "만들", "만들어", "신설", "게시", "새로 "),
    "UPDATE": tuple("수정 변경 바꾸 바꿔 바꿨 업데이트 갱신 지정 설정 반영".split()),
    "VIEW": tuple("보여 조회 알려 확인 불러 목록 검색 찾아".split()),
}
NEAR_INTENTS = {frozenset({"MOVE", "UPDATE"}), frozenset({"ADD", "UPDATE"})}
CLARIFY_CUES = (
    "시겠어요",
    "할까요",
    "하시겠습니까",
    "말씀해 주",
    "알려주시겠",
    "선택해 주",
    "어떤 ",
    "어느 ",
)


def has_any(text: str, cues: tuple[str, ...] | set[str]) -> bool:
    low = lowered(text)
    return any(cue.lower() in low for cue in cues)


@lru_cache(maxsize=8192)
def lowered(text: str) -> str:
    """The text normalised and case-folded, typographic apostrophes made plain (for cue search)."""
    return normalize(text).lower().replace("\u2019", "'")


def intent_of(text: str) -> str | None:
    """First action cue found in the text (by position), or None."""
    low = normalize(text)
    best: tuple[int, str] | None = None
    for label, cues in INTENT_CUES.items():
        for cue in cues:
            idx = low.find(cue)
            if idx >= 0 and (best is None or idx < best[0]):
                best = (idx, label)
    return best[1] if best else None


def intents_in(text: str) -> set[str]:
    """Every action class with a cue in the text."""
    low = normalize(text)
    return {label for label, cues in INTENT_CUES.items() if any(cue in low for cue in cues)}


def message_intent(message: str) -> str:
    """Intent label of an agent message (seed 004's ADD..OTHER)."""
    text = normalize(message)
    if not text:
        return "ERROR"
    if has_any(text, FAILURE_CUES):
        return "ERROR"
    if has_any(text, GREETING_CUES) and not intent_of(text):
        return "OTHER"
    if text.rstrip().endswith("?") or has_any(text, CLARIFY_CUES[:5]):
        return "CLARIFY"
    found = intent_of(text)
    if found:
        return found
    return "VIEW" if re.search(r"(니다|어요|예요|에요)[.!]?\s*$|:\s", text) else "OTHER"


def is_refusal(text: str) -> bool:
    return has_any(text, REFUSAL_CUES)


def is_empty_memory(text: str) -> bool:
    return normalize(text).lower() in EMPTY_MEMORY


# -- query fillers, direction words ---------------------------------------------------------------

_FILLER_PREFIXES = tuple(
    "얼마 언제 어디 누구 무엇 뭐 몇 어떻 어떤 어느 왜 지난번 아까 처음에 말한 말했 다시 설명 알려 됐어 됐 였지 이었지 였더라 해줘 해주세요 주세요 인가요 나요 있나요 혹시 보여 관계".split()
)


def strip_fillers(text: str) -> str:
    """The request without interrogatives and request verbs ("AWS 비용 얼마야?" → "AWS 비용")."""
    words = normalize(text).replace("?", " ").split()
    return " ".join(w for w in words if not w.startswith(_FILLER_PREFIXES))


def strip_action_words(text: str) -> str:
    """The request without the action verb words (for the agent's target terms)."""
    cues = tuple(c.strip() for cues in INTENT_CUES.values() for c in cues)
    return " ".join(w for w in strip_fillers(text).split() if not any(c in w for c in cues))


UP_CUES = ("성장", "증가", "상승", "확대", "늘", "호조", "높아", "가능성이 크", "유망")
DOWN_CUES = tuple("감소 하락 축소 줄 낮 위축 부진 어렵 둔화".split())


def direction(text: str) -> int:
    """+1 if growth words dominate, -1 if decline words dominate, 0 otherwise."""
    up = sum(normalize(text).count(c) for c in UP_CUES)
    down = sum(normalize(text).count(c) for c in DOWN_CUES)
    return (up > down) - (down > up)
