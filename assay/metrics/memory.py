"""Memory usefulness (seed 001): the overall formula and the deterministic fact checks.

The judge scores relevance, completeness and accuracy (0-10, higher is better) and noise
(0-10, lower is better); the overall score is the seed's weighted sum on 0-100. Beside the
judge, three checks need no model, so a judge can be compared with the facts:

- expected-fact recall: the share of the query's expected facts present in the memory; a
  fact is present when every keyword is, numbers compared by value (1.2억 = 120,000,000원 =
  1억 2천만 원) and text ignoring case and spacing;
- stale facts presented as current: a superseded value (예산 1억 after it became 1.5억) that
  the memory states without marking it as old or changed;
- noise ratio: the share of the memory's sentences that carry none of the expected facts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from assay.metrics.quantities import normalize, quantities, same_quantity

WEIGHTS = {"relevance": 0.35, "completeness": 0.30, "accuracy": 0.25, "noise": 0.10}
CRITERIA = tuple(WEIGHTS)

# A sentence that marks a value as old or changed does not present it as current.
SUPERSEDED_CUES = (
    "이전", "기존", "변경 전", "당초", "원래", "처음에는", "였으나", "었으나", "였지만", "었지만", "였는데", "었는데",
    "에서 늘", "에서 줄", "로 늘", "으로 늘", "로 줄", "으로 줄", "로 변경", "으로 변경", "로 조정", "으로 조정",
    "로 상향", "으로 상향", "로 하향", "으로 하향", "바뀌", "바뀜", "갱신", "(구)", "→", "->", "더 이상",
    "previously", "was changed", "changed from", "no longer",
)  # fmt: skip
# Korean states a change as "<old>에서 <new>(으)로 <verb>" or "<new>(으)로 <verb>": a sentence
# with such a change verb reports a history, so an old value in it is not presented as current.
CHANGE_VERB = re.compile(
    r"(?:으로|로)\s*(?:늘|줄|변경|바꾸|바꿨|바뀌|바뀜|조정|상향|하향|연기|미뤄|미룸|미뤘|앞당|확대|축소|인상|인하|"
    r"증액|감액|교체|수정|갱신|이전|옮|전환|업그레이드|다운그레이드)"
)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?。])\s+|\n+|;\s*|\s+·\s+|\s/\s")


def overall_score(relevance: float | None, completeness: float | None, accuracy: float | None,
                  noise: float | None) -> float | None:
    """(0.35·relevance + 0.30·completeness + 0.25·accuracy + 0.10·(10 − noise)) · 10, on 0-100.

    None when any criterion is unscored (never a silent 0); a value outside 0-10 is an error.
    """
    values = {"relevance": relevance, "completeness": completeness, "accuracy": accuracy, "noise": noise}
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values.values()):
        return None
    for name, value in values.items():
        if not 0 <= float(value) <= 10:  # type: ignore[arg-type]
            raise ValueError(f"{name} must be within 0-10, got {value}")
    total = sum(WEIGHTS[m] * float(values[m]) for m in ("relevance", "completeness", "accuracy"))  # type: ignore[arg-type]
    total += WEIGHTS["noise"] * (10 - float(noise))  # type: ignore[arg-type]
    return total * 10


@dataclass(frozen=True)
class Fact:
    """A fact a memory should (or, when stale, should not) state: a description and the
    keywords that must all appear for the fact to count as stated."""

    fact: str
    keywords: tuple[str, ...]


def sentences(memory: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_BREAK.split(normalize(memory)) if s.strip()]


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", normalize(text)).casefold()


def keyword_present(keyword: str, text: str) -> bool:
    """A keyword's numbers must match numbers in the text by value and unit; its words must
    appear (case and spacing ignored). "1.5억" is present in "1억 5천만 원", "1억" is not."""
    wanted = quantities(keyword)
    if wanted:
        found = quantities(text)
        if not all(any(same_quantity(q, f) for f in found) for q in wanted):
            return False
        words = keyword
        for q in wanted:
            words = words.replace(q.text, " ")
        return all(_squash(w) in _squash(text) for w in words.split())
    return bool(_squash(keyword)) and _squash(keyword) in _squash(text)


def fact_present(fact: Fact, text: str) -> bool:
    return bool(fact.keywords) and all(keyword_present(k, text) for k in fact.keywords)


@dataclass(frozen=True)
class FactRecall:
    recall: float | None  # None when the query lists no expected facts
    found: tuple[str, ...]
    missing: tuple[str, ...]


def fact_recall(memory: str, facts: Sequence[Fact]) -> FactRecall:
    """Share of expected facts the memory states (entities count as part of the memory)."""
    if not facts:
        return FactRecall(None, (), ())
    found = tuple(f.fact for f in facts if fact_present(f, memory))
    missing = tuple(f.fact for f in facts if f.fact not in found)
    return FactRecall(len(found) / len(facts), found, missing)


def marks_change(sentence: str) -> bool:
    """Whether the sentence marks a value as old or changed (a cue word or a change verb)."""
    return any(cue in sentence for cue in SUPERSEDED_CUES) or bool(CHANGE_VERB.search(sentence))


def stale_as_current(memory: str, stale: Iterable[Fact]) -> list[str]:
    """Stale facts stated in some sentence that does not mark them as old or changed."""
    flagged = []
    for fact in stale:
        for sentence in sentences(memory):
            if fact_present(fact, sentence) and not marks_change(sentence):
                flagged.append(fact.fact)
                break
    return flagged


def noise_ratio(memory: str, facts: Sequence[Fact]) -> float | None:
    """Share of the memory's sentences that carry no keyword of any expected fact.

    None for an empty memory or a query without expected facts (nothing to measure against).
    """
    parts = sentences(memory)
    keywords = [k for f in facts for k in f.keywords]
    if not parts or not keywords:
        return None
    useful = sum(1 for s in parts if any(keyword_present(k, s) for k in keywords))
    return 1 - useful / len(parts)
