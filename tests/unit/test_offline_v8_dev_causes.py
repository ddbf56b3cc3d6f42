"""General causes of correct answers scored low, found reading the v8 rag rows across v2-v8 (the
sentences here are new, from other domains and wordings than the dev rows, and each cause has a
near miss the fix must not catch)."""

from __future__ import annotations

from assay.judges.offline import LexicalJudge
from assay.judges.offline import claims as cl
from assay.judges.prompts import get_prompt


def _rules(answer: str, reference: str, question: str) -> set[str]:
    return {f.rule for f in cl.rag_findings(answer, reference, question)}


def _rag(answer: str, reference: str, question: str, contexts: list[str] | None = None) -> dict:
    item = {
        "question": question,
        "generated_answer": answer,
        "reference_answer": reference,
        "contexts": contexts or [reference],
    }
    return dict(LexicalJudge().verdict(get_prompt("rag_answer"), item))


# -- an English answer whose checkable content all agrees is complete ---------------------------


def test_an_agreeing_english_answer_is_not_incomplete_for_untranslated_words():
    ref = "도서 연체료는 하루 200원이며, 반납하면 바로 대출할 수 있습니다."
    q = "연체료 얼마예요?"
    v = _rag("The late fee is 200 won a day, and you can borrow again as soon as you return the book.", ref, q)
    assert v["accuracy"] >= 4 and v["completeness"] >= 4
    assert "완전성 4 이상" in v["feedback"]


def test_an_english_answer_with_a_wrong_figure_stays_low():
    # near miss: a figure that contradicts the reference is a finding, not an untranslated word
    ref = "도서 연체료는 하루 200원이며, 반납하면 바로 대출할 수 있습니다."
    q = "연체료 얼마예요?"
    v = _rag("The late fee is 500 won a day, and you can borrow again as soon as you return the book.", ref, q)
    assert v["accuracy"] <= 2 and v["completeness"] <= 3
