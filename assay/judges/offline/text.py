"""Text signals shared by the offline judges: Korean morphemes, character n-grams, quantities,
citation tags, sentences, and cue lists (the Korean pack's table ``lang/ko.text.yaml``).

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

from assay.judges.offline import lang
from assay.metrics.figure_forms import UNIT_FACTORS, canonical_figures  # noqa: F401  (re-exported)
from assay.metrics.quantities import (  # noqa: F401  (re-exported: the judges' text toolkit)
    CITATION_RE,
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

# The Korean cue lists (each described in the table).
KO = lang.cues("ko", "text")
STOP_LEMMAS, NEGATION_LEMMAS = KO.stop_lemmas, KO.negation_lemmas
REFUSAL_CUES, DEBUNK_CUES, FAILURE_CUES, GREETING_CUES = KO.refusal_cues, KO.debunk_cues, KO.failure_cues, KO.greeting_cues
CLARIFY_CUES, INTENT_CUES, NEAR_INTENTS = KO.clarify_cues, KO.intent_cues, set(KO.near_intents)
PROPOSAL_CUES, EXAGGERATION_CUES, CONNECTIVES = KO.proposal_cues, KO.exaggeration_cues, KO.connectives
CONCLUSION_CUES, RECOMMENDATION_CUES, EXAMPLE_CUES = KO.conclusion_cues, KO.recommendation_cues, KO.example_cues
UP_CUES, DOWN_CUES, STALE_CUES, UPDATE_CUES, EMPTY_MEMORY = KO.up_cues, KO.down_cues, KO.stale_cues, KO.update_cues, KO.empty_memory

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


# -- eojeol tokens (no analyser) -------------------------------------------------------------

_JOSA = sorted(KO.particles, key=len, reverse=True)
_ENDINGS = sorted(KO.verb_endings, key=len, reverse=True)
_FUNCTION_WORDS = set(_JOSA) | set(_ENDINGS) | set(KO.function_words)
_EOJEOL_RE = re.compile(r"[0-9A-Za-z가-힣]+(?:[.,][0-9]+)*")


_QUANTITY_TEXT = re.compile(
    r"\d+(?:,\d{3})*(?:\.\d+)?\s*(?:조|억|천만|백만|십만|만|천|백)?\s*(?:"
    + "|".join(re.escape(u) for u in UNITS)
    + r")?"
)


@lru_cache(maxsize=65536)
def strip_suffix(word: str, keep: int = 2) -> str:
    """Remove one trailing verb ending, then one particle, keeping at least ``keep`` characters."""
    for suffixes in (_ENDINGS, _JOSA):
        for suffix in suffixes:
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
            for i in range(len(padded) - n + 1):  # none when the word is shorter than n
                gram = padded[i : i + n]
                if gram.strip():
                    grams[gram] += 1
    return grams


# -- cue search and intents ----------------------------------------------------------------------


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
    found = [(low.find(cue), label) for label, cues in INTENT_CUES.items() for cue in cues if cue in low]
    # the earliest cue; of cues at one place, the first listed
    return min(found, key=lambda place: place[0])[1] if found else None


def intents_in(text: str) -> set[str]:
    """Every action class with a cue in the text."""
    low = normalize(text)
    return {label for label, cues in INTENT_CUES.items() if any(cue in low for cue in cues)}


def message_intent(message: str) -> str:
    """Intent label of an agent message (seed 004's ADD..OTHER)."""
    text = normalize(message)
    if not text or has_any(text, FAILURE_CUES):
        return "ERROR"
    if has_any(text, GREETING_CUES) and not intent_of(text):
        return "OTHER"
    if text.rstrip().endswith("?") or has_any(text, CLARIFY_CUES[:5]):
        return "CLARIFY"
    found = intent_of(text)
    if found:
        return found
    return "VIEW" if KO.statement_end.search(text) else "OTHER"


def is_empty_memory(text: str) -> bool:
    return normalize(text).lower() in EMPTY_MEMORY


# -- query fillers, direction words ---------------------------------------------------------------

_FILLER_PREFIXES = tuple(KO.filler_prefixes)


def strip_fillers(text: str) -> str:
    """The request without interrogatives and request verbs ("AWS 비용 얼마야?" → "AWS 비용")."""
    words = normalize(text).replace("?", " ").split()
    return " ".join(w for w in words if not w.startswith(_FILLER_PREFIXES))


def strip_action_words(text: str) -> str:
    """The request without the action verb words (for the agent's target terms)."""
    cues = tuple(c.strip() for cues in INTENT_CUES.values() for c in cues)
    return " ".join(w for w in strip_fillers(text).split() if not any(c in w for c in cues))


def direction(text: str) -> int:
    """+1 if growth words dominate, -1 if decline words dominate, 0 otherwise."""
    up = sum(normalize(text).count(c) for c in UP_CUES)
    down = sum(normalize(text).count(c) for c in DOWN_CUES)
    return (up > down) - (down > up)
