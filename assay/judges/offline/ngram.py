"""Offline judge 2: character n-gram TF-IDF similarity (no analyser, no model)."""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from typing import Any

from assay.judges.offline import text as tx
from assay.judges.offline.base import OfflineJudge, Units
from assay.judges.offline.messages import Msg, say


@lru_cache(maxsize=4096)
def _sentence_grams(text: str) -> tuple[frozenset[str], ...]:
    """The n-gram set of each sentence of ``text`` (the text itself if it has no sentence)."""
    parts = tx.sentences(text) or ([text] if text else [])
    return tuple(frozenset(tx.char_ngrams(p)) for p in parts)


class NgramJudge(OfflineJudge):
    """Character 2- and 3-gram TF-IDF over the texts of one judgment.

    Signal: n-grams within words (Hangul syllables, letters, digits); IDF is computed per
    judgment over the sentences of every text involved (question, answer, reference,
    contexts, sources), ``idf = ln((1 + N) / (1 + df)) + 1``, so endings shared by every
    sentence (…습니다) weigh little. Coverage = IDF-weighted share of one side's n-grams found
    in the other; similarity = TF-IDF cosine. Works on any Korean text without segmentation.
    Figures are compared as digit strings of their values (1.2억 and 1억 2천만 both give
    120000000; 2주 and 14일 both 14), without units.

    ========================================================  ===============================
    signal                                                    effect
    ========================================================  ===============================
    digit strings of answer ∩ reference = ∅ (question's own    conflict 2 → wrong → accuracy 1
    digits ignored; 4-digit years set aside when both sides
    have other digits)
    some digit strings shared, others differ on both sides     conflict 1 → accuracy 2
    key n-gram coverage N < 0.25                              wrong → accuracy 1 (seed 003)
    (N + P) / 2 ≥ .8 / .6 / .4 / below                        accuracy 5 / 4 / 3 / 2
    N ≥ .8 / .6 / .4 / .2 / below                             completeness 5 / 4 / 3 / 2 / 1
    max(Q, N) ≥ .6 / .4 / .25 / .1 / below                    relevance 5 / 4 / 3 / 2 / 1
    report claim coverage ≥ 0.45 of its cited source          claim supported
    query-topic n-gram coverage of the report title ≤ 0.15     off topic: relevance ≤ 2
    mean adjacent-sentence cosine / 0.2                       coherence cohesion (capped 1)
    memory segment covers ≥ 30 % of the query's n-grams       segment relevant (not noise)
    ========================================================  ===============================

    The family rules that combine these are in ``assay.judges.offline.base``.
    """

    name = "offline-ngram"
    model = "offline/ngram"
    signal = "ngram"
    WRONG_N = 0.25
    SUPPORT = 0.45
    COHESION_REF = 0.2
    SEGMENT_OVERLAP = 0.3
    TITLE_MIN = 0.15

    def prepare(self, texts: list[str]) -> dict[str, Any]:
        df: Counter[str] = Counter()
        n = 0
        for text in texts:
            docs = _sentence_grams(text)
            n += len(docs)
            for grams in docs:
                df.update(grams)
        # idf depends only on the document frequency: one log per distinct frequency.
        by_count = {c: math.log((1 + n) / (1 + c)) + 1.0 for c in set(df.values())}
        return {"n": n, "idf": {g: by_count[c] for g, c in df.items()}}

    def units(self, text: str, ctx: Any = None) -> Units:
        grams = tx.char_ngrams(text)
        if ctx is None:
            return {g: float(c) for g, c in grams.items()}
        idf, default = ctx["idf"], math.log(1 + ctx["n"]) + 1.0
        return {g: (1.0 + math.log(c) if c > 1 else 1.0) * idf.get(g, default) for g, c in grams.items()}

    def conflicts(self, answer: str, reference: str, question: str = "") -> tuple[int, list[Msg]]:
        asked = tx.digit_strings(question)
        a = tx.digit_strings(answer, years=False) - asked
        r = tx.digit_strings(reference, years=False) - asked
        if not (a and r):  # years are context unless they are all there is
            a = tx.digit_strings(answer) - asked
            r = tx.digit_strings(reference) - asked
        if a and r:
            if not a & r:
                return 2, [say("conflicts.numbers_differ", answer=sorted(a), reference=sorted(r))]
            if (a - r) and (r - a):
                return 1, [say("conflicts.numbers_not_in_reference", numbers=sorted(a - r))]
        return 0, []

    def unsupported_figures(self, text: str, reference: str, question: str = "") -> list[str]:
        return sorted(tx.digit_strings(text) - tx.digit_strings(question) - tx.digit_strings(reference))
