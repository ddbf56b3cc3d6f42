"""Offline judge 1: lexical support from Korean morphemes (kiwipiepy)."""

from __future__ import annotations

from typing import Any

from assay.judges.offline import text as tx
from assay.judges.offline.base import OfflineJudge, Units
from assay.judges.offline.messages import Msg, say


class LexicalJudge(OfflineJudge):
    """Morpheme overlap between the answer and its reference, sources or query.

    Signal: Kiwi content morphemes (lemmas), weighted by part of speech — proper nouns,
    Latin words and numbers 2, common nouns and roots 1, verbs and adjectives 0.5.
    Numbers become one ``#value`` token with Korean magnitudes applied (1.2억 = 1억 2천만).
    Coverage = weighted share of one side's morphemes found in the other.

    ========================================================  ===============================
    signal                                                    effect
    ========================================================  ===============================
    answer numbers ∩ reference numbers = ∅ (question's own     conflict 2 → wrong → accuracy 1
    numbers ignored; dates set aside when both sides have
    other numbers)
    some answer numbers match, others do not                  conflict 1 → accuracy 2
    key-morpheme coverage N < 0.15                            wrong → accuracy 1 (seed 003)
    (N + P) / 2 ≥ .8 / .6 / .4 / below                        accuracy 5 / 4 / 3 / 2
    N ≥ .8 / .6 / .4 / .2 / below                             completeness 5 / 4 / 3 / 2 / 1
    max(Q, N) ≥ .6 / .4 / .25 / .1 / below                    relevance 5 / 4 / 3 / 2 / 1
    report claim coverage ≥ 0.5 of its cited source           claim supported
    mean adjacent-sentence cosine / 0.25                      coherence cohesion (capped 1)
    memory segment shares ≥ 1 query morpheme                  segment relevant (not noise)
    ========================================================  ===============================

    The family rules that combine these are in ``assay.judges.offline.base``.
    """

    name = "offline-lexical"
    model = "offline/lexical"
    signal = "lexical"
    WRONG_N = 0.15
    SUPPORT = 0.5
    COHESION_REF = 0.25
    SEGMENT_OVERLAP = 0.01

    def units(self, text: str, ctx: Any = None) -> Units:
        return dict(tx.weighted_lemmas(text))

    def conflicts(self, answer: str, reference: str, question: str = "") -> tuple[int, list[Msg]]:
        asked = tx.number_tokens(question)
        # Compare the non-date numbers when both sides have some (a matching year does not
        # rescue a wrong amount); otherwise compare every number.
        a_nums = tx.number_tokens(answer, dates=False) - asked
        r_nums = tx.number_tokens(reference, dates=False) - asked
        if not (a_nums and r_nums):
            a_nums = tx.number_tokens(answer) - asked
            r_nums = tx.number_tokens(reference) - asked
        level, reasons = 0, list[Msg]()
        if a_nums and r_nums:
            if not a_nums & r_nums:
                level = 2
                reasons.append(say("conflicts.no_figure_matches", answer=_fmt(a_nums), reference=_fmt(r_nums)))
            elif (a_nums - r_nums) and (r_nums - a_nums):
                level = 1
                reasons.append(say("conflicts.figures_not_in_reference", figures=_fmt(a_nums - r_nums)))
        # Polarity is a claim check shared by every judge (claims.polarity_findings, clause by
        # clause); comparing whole sentences here flagged answers that merely left out a
        # negated clause of the reference.
        return level, reasons

    def unsupported_figures(self, text: str, reference: str, question: str = "") -> list[str]:
        missing = tx.number_tokens(text) - tx.number_tokens(question) - tx.number_tokens(reference)
        return sorted(t.lstrip("#") for t in missing)


def _fmt(tokens: set[str]) -> str:
    return "{" + ", ".join(sorted(t.lstrip("#") for t in tokens)) + "}"
