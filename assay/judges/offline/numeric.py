"""Offline judge 3: numeric claims and citations, with word stems for everything else."""

from __future__ import annotations

from typing import Any

from assay.judges.offline import text as tx
from assay.judges.offline.base import OfflineJudge, Units
from assay.judges.offline.messages import Msg, say

QUANTITY_WEIGHT = 3.0
LATIN_WEIGHT = 2.0


class NumericJudge(OfflineJudge):
    """Figures, dates and amounts with their units, ``[SOURCE:N]`` tags, and word stems.

    Signal: quantities parsed with Korean magnitudes and units (2,280억 원, 1억 2천만원,
    12%, 2012년 3월, 오후 6시 = 18시), compared value-and-unit (0.5 % tolerance, 5 % when
    written as approximate: 약/가량/정도); a figure is *contradicted* when the reference has
    no equal figure but has one with the same unit. Other content is compared as whitespace
    words with one particle or ending removed (창립자는 → 창립자), Latin words weighted 2 and
    quantities 3. Citation tags are checked against the source list by the report rules.

    ========================================================  ===============================
    signal                                                    effect
    ========================================================  ===============================
    answer figures contradicted, none of the same kind         conflict 2 → wrong → accuracy 1
    (date / non-date) matched; question's figures ignored
    some figures contradicted, others of the same kind match   conflict 1 → accuracy 2
    dates, times, ordinals equal exactly; amounts within
    0.5 % (5 % when approximate)
    key-content coverage N = 0 (nothing of the reference)     wrong → accuracy 1 (seed 003)
    (N + P) / 2 ≥ .8 / .6 / .4 / below                        accuracy 5 / 4 / 3 / 2
    N ≥ .8 / .6 / .4 / .2 / below                             completeness 5 / 4 / 3 / 2 / 1
    max(Q, N) ≥ .6 / .4 / .25 / .1 / below                    relevance 5 / 4 / 3 / 2 / 1
    [SOURCE:N] with N not in the sources                       invalid tag: hallucination case,
                                                              tag counted wrong
    report claim coverage ≥ 0.5 of its cited source and no     claim supported
    contradicted figure
    uncited figure found in no source                          unfounded claim
    mean adjacent-sentence cosine / 0.25                      coherence cohesion (capped 1)
    memory segment shares ≥ 1 query stem                       segment relevant (not noise)
    ========================================================  ===============================

    The family rules that combine these are in ``assay.judges.offline.base``.
    """

    name = "offline-numeric"
    model = "offline/numeric"
    signal = "numeric"
    WRONG_N = 0.01
    SUPPORT = 0.5
    COHESION_REF = 0.25
    SEGMENT_OVERLAP = 0.01

    def units(self, text: str, ctx: Any = None) -> Units:
        out: Units = {}
        for stem in tx.stems(text):
            out[stem] = LATIN_WEIGHT if stem.isascii() else 1.0
        for q in tx.quantities(text):
            out[f"#{q.value:.6g}{q.unit}"] = QUANTITY_WEIGHT
        return out

    def conflicts(self, answer: str, reference: str, question: str = "") -> tuple[int, list[Msg]]:
        matched, contradicted, _ = tx.quantity_check(answer, reference, question)
        if not contradicted:
            return 0, []
        refs = tx.quantities(reference)
        reasons = []
        for q in contradicted:
            same_unit = [r.text for r in refs if r.kind == q.kind][:3]
            reasons.append(say("conflicts.figure_against", figure=q.text, reference=", ".join(same_unit)))
        # A matching date does not rescue a wrong amount: partial only if a figure of the
        # same kind (date / non-date) as a contradicted one matched.
        partial = any(tx.is_date(m) == tx.is_date(c) for m in matched for c in contradicted)
        return (1 if partial else 2), reasons

    def unsupported_figures(self, text: str, reference: str, question: str = "") -> list[str]:
        _, contradicted, unsupported = tx.quantity_check(text, reference, question)
        return [q.text for q in [*contradicted, *unsupported]]
