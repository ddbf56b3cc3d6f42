"""clinical_answer: the offline jury's rules (seed 002, scale 1-5).

R = coverage(question without interrogatives, answer); U = the answer's figures found in
neither the patient record, the dialogue nor the question; C = conflict level of the
answer's figures against the record (0 none, 1 some differ, 2 contradicted outright).

    =========================================  ============  ================
    signal                                     faithfulness  answer_relevance
    =========================================  ============  ================
    empty answer                               1             1
    C = 2                                      2             band(R)
    C = 1, or U ≥ 2                            3             band(R)
    U = 1                                      4             band(R)
    otherwise                                  5             band(R)
    band(R): ≥ .6 → 5, ≥ .4 → 4, ≥ .25 → 3, ≥ .1 → 2, else 1
    =========================================  ============  ================

These judges read figures and words, not the clinical lexicon: SFS and CSP are the suite's
own deterministic reading; the jury is a second, independent opinion.
"""

from __future__ import annotations

from typing import ClassVar

from assay.judges.offline import text as tx
from assay.judges.offline.scoring import band, pct
from assay.judges.prompts import ClinicalInput
from assay.schemas import JsonObject


class ClinicalRules:
    """Rules of one prompt family; mixed into ``OfflineJudge``, which supplies the signals
    (``units``, ``conflicts``, ``coverage``…) and the thresholds they use."""

    PROMPT_RULES: ClassVar[dict[str, str]] = {"clinical_answer": "clinical_answer"}

    def clinical_answer(self, item: ClinicalInput) -> JsonObject:
        tag = f"[{self.signal}]"
        answer = tx.normalize(item.answer)
        if not answer:
            return {"faithfulness": 1, "answer_relevance": 1, "unsupported_claims": [],
                    "reasoning": f"{tag} 빈 답변."}
        known = "\n".join([item.patient, *item.dialogue])
        ctx = self.prepare([item.question, answer, known])
        r = self.coverage(self.units(tx.strip_fillers(item.question), ctx), self.units(answer, ctx))
        r = 1.0 if r is None else r
        level, reasons = self.conflicts(answer, known, item.question)
        unsupported = self.unsupported_figures(answer, known, item.question)
        if level >= 2:
            faithfulness = 2
        elif level == 1 or len(unsupported) >= 2:
            faithfulness = 3
        elif unsupported:
            faithfulness = 4
        else:
            faithfulness = 5
        notes = [f"질문 핵심어 포함률 {pct(r)}", f"기록에 없는 수치 {len(unsupported)}개"]
        if reasons:
            notes.append("기록과 다른 수치: " + "; ".join(reasons))
        return {
            "faithfulness": faithfulness,
            "answer_relevance": band(r, self.REL_CUTS, 1),
            "unsupported_claims": [*reasons, *unsupported][:8],
            "reasoning": f"{tag} " + ". ".join(notes) + ".",
        }
