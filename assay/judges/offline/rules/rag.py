"""rag_answer: the offline jury's rules (seed 003, scale 1-5).

rag_answer (1-5), K = reference units not in the question, N = coverage(K, answer),
P = coverage(answer units not in the question, reference + contexts), Q = coverage(question
without interrogatives, answer). Seed 003: a wrong answer has accuracy 1, and 5 is only for
perfect answers, so a wrong answer's relevance is capped at 4.

    ===========================================  ==========  ===============  ============
    signal                                       accuracy    completeness     relevance
    ===========================================  ==========  ===============  ============
    empty answer or refusal ("찾을 수 없")         1           1                2
    wrong: conflict level 2, or N < WRONG_N      1           2 if Q ≥ .6      min(band, 4)
                                                             else 1
    conflict level 1 (some figures wrong)        2           band(N)          band
    otherwise, S = (N + P) / 2                   S ≥ .8 → 5, ≥ .6 → 4, ≥ .4 → 3, else 2
    completeness band(N)                         N ≥ .8 → 5, ≥ .6 → 4, ≥ .4 → 3, ≥ .2 → 2, else 1
    relevance band(max(Q, N))                    ≥ .6 → 5, ≥ .4 → 4, ≥ .25 → 3, ≥ .1 → 2, else 1
    ===========================================  ==========  ===============  ============
"""

from __future__ import annotations

from typing import Any, ClassVar

from assay.judges.offline import text as tx
from assay.judges.offline.scoring import band, pct
from assay.judges.prompts import RagAnswerInput


class RagRules:
    """Rules of one prompt family; mixed into ``OfflineJudge``, which supplies the signals
    (``units``, ``conflicts``, ``coverage``…) and the thresholds they use."""

    PROMPT_RULES: ClassVar[dict[str, str]] = {"rag_answer": "rag_answer"}

    def rag_answer(self, item: RagAnswerInput) -> dict[str, Any]:
        question, answer, reference = item.question, item.generated_answer, item.reference_answer
        context = "\n".join(item.contexts)
        tag = f"[{self.signal}]"
        if not tx.normalize(answer) or tx.is_refusal(answer):
            return {
                "feedback": f"{tag} 답변이 비어 있거나 답변을 거부함: 질문에 답하지 않았으므로 오답으로 처리.",
                "accuracy": 1,
                "completeness": 1,
                "relevance": 2,
            }
        ctx = self.prepare([question, answer, reference, *item.contexts])
        u_q = self.units(question, ctx)
        u_qcore = self.units(tx.strip_fillers(question), ctx)
        u_a = self.units(answer, ctx)
        u_r = self.units(reference, ctx)
        u_c = self.units(context, ctx) if context else {}
        key = self.minus(u_r, u_q) or u_r
        n = self.coverage(key, u_a) or 0.0
        new = self.minus(u_a, u_q)
        p = self.coverage(new, self.union(u_r, u_c))
        p = 1.0 if p is None else p
        q = self.coverage(u_qcore, u_a)
        q = 1.0 if q is None else q
        level, reasons = self.conflicts(answer, reference + ("\n" + context if context else ""), question)
        wrong = level >= 2 or n < self.WRONG_N
        completeness = band(n, self.COMP_CUTS, 1)
        relevance = band(max(q, n), self.REL_CUTS, 1)
        notes = [
            f"참조 답변의 핵심 내용 {pct(n)}가 답변에 포함됨",
            f"답변 내용의 {pct(p)}가 참조/문맥으로 뒷받침됨",
        ]
        if wrong:
            accuracy = 1
            completeness = 2 if q >= 0.6 else 1
            relevance = min(relevance, 4)
            notes.append(
                "오답으로 판정(정확도 1): "
                + ("; ".join(reasons) if level >= 2 else "참조 답변의 핵심 내용이 없음")
            )
        elif level == 1:
            accuracy = 2
            notes.append("일부 수치가 참조와 다름: " + "; ".join(reasons))
        else:
            accuracy = band((n + p) / 2, self.ACC_CUTS, 2)
        notes.append(f"질문 핵심어 포함률 {pct(q)}")
        return {
            "feedback": f"{tag} " + ". ".join(notes) + ".",
            "accuracy": accuracy,
            "completeness": completeness,
            "relevance": relevance,
        }

