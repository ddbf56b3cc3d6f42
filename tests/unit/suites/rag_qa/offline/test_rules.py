"""The rag_answer offline rules (``assay/suites/rag_qa/offline/rules.py``), one rule at a time.
End-to-end cases (the whole jury on one answer) are golden rows: ``tests/golden/rag_answer*.jsonl``."""

from __future__ import annotations

import pytest

from assay.judges.offline import LexicalJudge, offline_jury
from assay.judges.offline.claims import Finding
from assay.judges.offline.messages import render
from assay.judges.prompts import get_prompt
from assay.suites.rag_qa.offline import rules as rag
from assay.suites.rag_qa.offline.rules import RagCase, RagRules, RagSignals


def ko(message) -> str:
    """A finding or note as the Korean feedback writes it."""
    return render(message, "ko")

RAG = get_prompt("rag_answer")


def _sig(**changes) -> RagSignals:
    base = dict(n=0.5, p=0.5, q=0.5, level=0, reasons=(), findings=(), facts_in=0, facts_total=0,
                meaning=0.5, meaning_size=4, agrees=False, aside="", clock_read=())
    return RagSignals(**{**base, **changes})


def _scores(accuracy=3, completeness=3, relevance=3) -> dict[str, float]:
    return {"accuracy": accuracy, "completeness": completeness, "relevance": relevance}


def _lexical(answer: str, reference: str, question: str) -> dict:
    item = {"question": question, "generated_answer": answer, "reference_answer": reference, "contexts": [reference]}
    return dict(LexicalJudge(fitted=False).verdict(RAG, item))


# -- shortcuts ---------------------------------------------------------------------------------


def test_an_empty_answer_is_wrong():
    notes, *scores = rag._shortcut("몇 시에 열어요?", "  ", "9시에 엽니다.")
    assert scores == [1, 1, 2] and "비어 있음" in ko(notes[0])


def test_a_refusal_is_right_only_where_the_reference_refuses():
    q = "주차 대행 서비스도 있나요?"
    refusal = "안내문에는 주차 대행에 관한 설명이 없어서 있는지 말씀드리기 어렵습니다."
    assert rag._shortcut(q, refusal, "주어진 이용 안내에는 주차 대행 서비스에 대한 내용이 없습니다.")[1:] == (5, 5, 5)
    assert rag._shortcut(q, refusal, "주차 대행은 1회 1만 원에 이용할 수 있습니다.")[1:] == (1, 1, 2)


def test_an_answer_where_the_reference_refuses_has_no_basis():
    ref = "제공된 문서에는 유약 판매에 대한 안내가 없습니다."
    assert rag._shortcut("유약도 살 수 있어요?", "네, 유약은 한 통에 5,000원이에요.", ref)[1:] == (1, 1, 3)


def test_a_refusal_beside_an_aside_of_the_reference_is_right():
    ref = "제공된 문서에는 반려견 동반 요금 정보가 없습니다(소형견 동반은 2마리까지 가능)."
    v = _lexical("자료에는 소형견 2마리까지 동반할 수 있다는 내용만 있고 요금은 나와 있지 않아요.", ref, "강아지 데려가면 추가 요금 얼마예요?")
    assert v["accuracy"] == 5 and "올바른 답변 거부" in v["feedback"]


def test_a_refusal_where_the_reference_answers_in_the_same_sentence_is_wrong():
    ref = "수수료 정보는 문서에 없지만 예약 취소는 3일 전까지 할 수 있습니다."
    assert _lexical("자료에는 나와 있지 않아요.", ref, "예약 취소는 언제까지 돼요?")["accuracy"] == 1


def test_a_shortcut_is_none_for_an_answer():
    assert rag._shortcut("몇 시에 열어요?", "9시에 열어요.", "9시에 엽니다.") is None


# -- across languages --------------------------------------------------------------------------


def test_an_agreeing_english_answer_is_not_incomplete_for_untranslated_words():
    ref = "도서 연체료는 하루 200원이며, 반납하면 바로 대출할 수 있습니다."
    v = _lexical("The late fee is 200 won a day, and you can borrow again as soon as you return the book.", ref, "연체료 얼마예요?")
    assert v["accuracy"] >= 4 and v["completeness"] >= 4
    assert "완전성 4 이상" in v["feedback"]


def test_an_english_answer_with_a_wrong_figure_stays_low():
    ref = "도서 연체료는 하루 200원이며, 반납하면 바로 대출할 수 있습니다."
    v = _lexical("The late fee is 500 won a day, and you can borrow again as soon as you return the book.", ref, "연체료 얼마예요?")
    assert v["accuracy"] <= 2 and v["completeness"] <= 3


def test_every_reference_figure_in_an_english_answer_is_credited():
    q = "스터디 카페 사물함은 얼마예요?"
    ref = "사물함은 월 12,000원이고, 분실 시 열쇠 재발급 비용은 5,000원입니다."
    item = {"question": q, "generated_answer": "Lockers cost 12,000 won a month, and replacing a lost key is 5,000 won.",
            "reference_answer": ref}
    found = [judge.verdict(RAG, item) for judge in offline_jury(fitted=False)]
    assert min(v["accuracy"] for v in found) >= 4
    assert all("수치·고유명이 모두 있고" in v["feedback"] for v in found)


@pytest.mark.parametrize(
    ("present", "total", "meaning", "expected"),
    [(0, 3, 0.8, 2), (1, 3, 0.8, 3), (2, 2, 0.0, 4), (1, 1, None, 4)],
)
def test_cross_language_accuracy_is_capped_while_few_figures_are_there(present, total, meaning, expected):
    # an answer that states none of the reference's figures: no support (figures_all_supported is false)
    notes: list[str] = []
    accuracy = rag._cross_language_accuracy("It opens early.", "9시에 엽니다.", "몇 시?", present, total, meaning, notes)
    assert accuracy == expected


# -- the base verdict ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rules() -> RagRules:
    return RagRules(LexicalJudge(fitted=False))


def test_a_conflict_of_level_two_is_wrong(rules):
    scores, notes, judged = rules._rag_base(_sig(level=2, reasons=("30일 → 7일",)))
    assert scores["accuracy"] == 1 and not judged and "30일 → 7일" in ko(notes[-1])


def test_little_of_the_reference_said_is_wrong_unless_its_facts_agree(rules):
    assert rules._rag_base(_sig(n=0.05))[0]["accuracy"] == 1
    assert rules._rag_base(_sig(n=0.05, facts_in=2, facts_total=2))[2]


def test_a_conflict_of_level_one_is_two(rules):
    scores, _, judged = rules._rag_base(_sig(level=1, reasons=("일부",)))
    assert scores["accuracy"] == 2 and not judged


def test_otherwise_accuracy_is_the_band_of_coverage_and_support(rules):
    scores, _, judged = rules._rag_base(_sig(n=0.9, p=0.9, q=0.9))
    assert judged and scores == {"accuracy": 5, "completeness": 5, "relevance": 5}


# -- the scoring steps ---------------------------------------------------------------------------


def test_a_paraphrase_with_every_fact_is_at_least_four():
    scores = _scores(2, 2)
    rag.raise_paraphrase(RagCase(_sig(facts_in=2, facts_total=2), "", True), scores)
    assert scores["accuracy"] == 4 and scores["completeness"] == 4
    scores = _scores(2, 2)
    rag.raise_paraphrase(RagCase(_sig(facts_in=2, facts_total=2), "", False), scores)  # already judged wrong
    assert scores["accuracy"] == 2


def test_an_agreeing_answer_is_raised_by_the_concepts_it_says():
    scores = _scores(2, 1, 2)
    notes = rag.raise_agreement(RagCase(_sig(agrees=True, meaning=0.8), "", True), scores)
    assert scores == {"accuracy": 5, "completeness": 5, "relevance": 4} and notes


def test_a_right_answer_with_an_unverifiable_aside_is_four():
    scores = _scores(2, 1)
    notes = rag.raise_digression(RagCase(_sig(aside="참고로 점심시간은 붐벼요", meaning=0.4), "", True), scores)
    assert scores["accuracy"] == 4 and scores["completeness"] == 4 and "참고로" in ko(notes[0])


def test_a_finding_caps_accuracy_and_is_named():
    scores = _scores(5, 5, 5)
    notes = rag.cap_findings(RagCase(_sig(findings=(Finding("polarity", 1, "안 됨"),)), "", True), scores)
    assert scores["accuracy"] == 1 and [ko(n) for n in notes] == ["부정/긍정 반대(정확도 ≤ 1): 안 됨"]


def test_a_polarity_finding_reaches_the_feedback():
    q, ref = "염색한 날 머리 감아도 돼요?", "염색 당일에는 샴푸 사용을 피해야 합니다."
    item = {"question": q, "generated_answer": "염색 당일에도 샴푸는 쓰셔도 괜찮습니다.", "reference_answer": ref}
    assert any("polarity" in judge.verdict(RAG, item, lang="en")["feedback"] for judge in offline_jury(fitted=False))


def test_a_wrong_answer_caps_completeness_and_relevance():
    scores = _scores(1, 5, 5)
    rag.cap_wrong(RagCase(_sig(q=0.7), "", False), scores)
    assert scores == {"accuracy": 1, "completeness": 2, "relevance": 4}
    scores = _scores(1, 5, 5)
    rag.cap_wrong(RagCase(_sig(q=0.2), "", False), scores)
    assert scores["completeness"] == 1


def test_a_reversed_claim_caps_completeness():
    scores = _scores(2, 5, 5)
    rag.cap_reversed(RagCase(_sig(findings=(Finding("reversed-condition", 2, "이후"),)), "", True), scores)
    assert scores["completeness"] == 2
    scores = _scores(2, 5, 5)
    rag.cap_reversed(RagCase(_sig(findings=(Finding("hedged", 2, "아마"),)), "", True), scores)
    assert scores["completeness"] == 5


def test_no_answer_as_a_keyword_list_is_irrelevant():
    scores = _scores(1, 3, 4)
    case = RagCase(_sig(findings=(Finding("no-answer", 1, "목록"),)), "택배 반품 신청 방법 택배 반품 장소 안내", False)
    rag.cap_no_answer(case, scores)
    assert scores["completeness"] == 1 and scores["relevance"] == 2


def test_the_steps_run_raises_before_caps():
    names = [step.__name__ for step in rag.RAG_STEPS]
    assert names.index("raise_digression") < names.index("cap_findings") < names.index("cap_wrong")
