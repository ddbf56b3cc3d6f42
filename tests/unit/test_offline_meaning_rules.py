"""The offline jury's meaning rules for rag_answer: figures written another way, answers in
English, paraphrases in other words, reworded negations, reversed conditions, refusals,
quote-then-deny and keyword stuffing. Each case asserts the ensemble band people would give
(correct ≥ 4 on every judge or > 3 on the ensemble, wrong ≤ 2) and the evidence in the
feedback; each failed before its rule existed."""

from __future__ import annotations

import pytest

from assay.judges.ensemble import aggregate_scores
from assay.judges.offline import claims as cl
from assay.judges.offline import lexicon as lx
from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt
from assay.metrics.figure_forms import canonical_figures
from assay.metrics.quantities import quantities, same_quantity

RAG = get_prompt("rag_answer")


def judge(answer: str, reference: str, question: str) -> tuple[float, list[dict]]:
    """(ensemble accuracy, verdicts) of the default offline jury."""
    jury = offline_jury(fitted=False)
    verdicts = [j.verdict(RAG, {"question": question, "generated_answer": answer, "reference_answer": reference}) for j in jury]
    ensemble, _ = aggregate_scores([v["accuracy"] for v in verdicts], [j.weight for j in jury], scale=(1, 5))
    return ensemble, verdicts


def correct(answer: str, reference: str, question: str) -> list[dict]:
    ensemble, verdicts = judge(answer, reference, question)
    assert ensemble > 3, [v["feedback"] for v in verdicts]
    return verdicts


def wrong(answer: str, reference: str, question: str) -> list[dict]:
    ensemble, verdicts = judge(answer, reference, question)
    assert ensemble <= 2, [v["feedback"] for v in verdicts]
    return verdicts


# -- figures in one written form --------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("08:00", "오전 8시"),
        ("8 a.m.", "8시"),
        ("오후 3시 반", "15:30"),
        ("3:30 p.m.", "15시 30분"),
        ("9시부터 6시까지", "오전 9시부터 오후 6시까지"),
        ("2024-03-01", "2024년 3월 1일"),
        ("March 1, 2024", "2024년 3월 1일"),
        ("3/1(금)까지", "3월 1일까지"),
        ("1만 원", "10,000원"),
        ("10000 won", "1만 원"),
        ("KRW 10,000", "10,000원"),
        ("3천 원", "3,000원"),
        ("2주", "14일"),
        ("two weeks", "14일"),
        ("1년", "12개월"),
        ("1시간 반", "90분"),
        ("하루", "1일"),
        ("한 달", "1개월"),
        ("10 percent", "10%"),
    ],
)
def test_equal_values_compare_equal_in_any_writing(a: str, b: str):
    qa, qb = quantities(a), quantities(b)
    assert qa and len(qa) == len(qb), (canonical_figures(a), canonical_figures(b))
    assert all(same_quantity(x, y) for x, y in zip(qa, qb, strict=True)), (qa, qb)


def test_values_that_differ_still_differ():
    assert not same_quantity(quantities("2주")[0], quantities("10일")[0])
    assert not same_quantity(quantities("오전 8시")[0], quantities("20:00")[0])
    assert quantities("1/3 이상")[0].unit == "%"  # a fraction is not a date: a share (33.3 %)
    assert canonical_figures("두 번째 창구") == "두 번째 창구"  # an ordinal is not a count


# (case, question, reference, a correct answer, a wrong answer, evidence the wrong one's feedback names)
RIGHT_AND_WRONG = [
    ("time in another notation", "은행 창구 영업시간은 언제인가요?", "은행 창구는 평일 오전 9시부터 오후 4시까지 운영합니다.",
     "창구는 평일 09:00~16:00에 운영합니다.", "은행 창구는 평일 오전 9시부터 오후 6시까지 운영합니다.", "18시"),
    ("duration in other units", "도서관 대출 기간은 며칠인가요?", "도서 대출 기간은 14일입니다.",
     "책은 2주 동안 빌릴 수 있어요.", "도서 대출 기간은 10일입니다.", "figure-substitution"),
    ("native day count", "계정은 언제 발급되나요?", "신규 계정은 입사일 하루 전에 발급됩니다.",
     "신규 계정은 입사 1일 전에 발급돼요.", "신규 계정은 입사일 3일 전에 발급됩니다.", "figure-substitution"),
    ("wrong date beside a right amount", "행사 날짜와 참가비는?", "행사는 2025년 5월 10일에 열리며 참가비는 10,000원입니다.",
     "행사는 2025-05-10에 열리고 참가비는 1만 원이에요.", "행사는 2025년 5월 3일에 열리며 참가비는 1만 원입니다.", "figure-substitution"),
    ("English answer compared by concepts", "회원 카드 재발급 비용은 얼마인가요?", "회원 카드 재발급은 무료입니다.",
     "Reissuing a membership card is free of charge.", "Reissuing a membership card is not free; a fee is charged.", "polarity"),
    ("English answer with the other sign", "만 19세 미만도 가입할 수 있나요?", "만 19세 미만은 가입할 수 없습니다.",
     "No. People under 19 cannot sign up.", "Yes, people under 19 can sign up.", "polarity"),
    ("English answer with English times", "외래 진료 접수 시간은?", "외래 진료 접수는 평일 오전 8시 30분부터 오후 5시까지 받습니다.",
     "Outpatient registration runs 8:30 a.m. to 5 p.m. on weekdays.", "Outpatient registration runs 9 a.m. to 5 p.m. on weekdays.",
     "figure-substitution"),
    ("free said as a negation", "요금제 변경 수수료가 있나요?", "요금제 변경 시 별도의 수수료는 없습니다.",
     "요금제를 바꿔도 수수료는 따로 받지 않습니다.", "요금제 변경 시 수수료 3,000원이 부과됩니다.", "정확도 1"),
    ("reworded negation", "해외여행자보험은 출국 후에도 가입할 수 있나요?",
     "아니요. 해외여행자보험은 출국 전에만 가입할 수 있으며, 출국 후에는 가입할 수 없습니다.",
     "출국한 다음에는 가입이 안 되고, 반드시 출국 전에 가입해야 합니다.", "네, 해외여행자보험은 출국 후에도 가입할 수 있습니다.", "yes-no"),
]


@pytest.mark.parametrize(
    ("question", "reference", "right", "wrong_answer", "evidence"),
    [case[1:] for case in RIGHT_AND_WRONG],
    ids=[case[0] for case in RIGHT_AND_WRONG],
)
def test_right_answer_scores_high_and_its_wrong_twin_low(
    question: str, reference: str, right: str, wrong_answer: str, evidence: str
):
    correct(right, reference, question)
    found = wrong(wrong_answer, reference, question)
    assert any(evidence in v["feedback"] for v in found), [v["feedback"] for v in found]


def test_english_answer_names_how_it_was_compared():
    verdicts = correct("Reissuing a membership card is free of charge.", "회원 카드 재발급은 무료입니다.", "재발급 비용은?")
    assert "이중 언어 사전" in verdicts[0]["feedback"]


# -- paraphrase without shared words ------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "answer", "reference", "question", "evidence"),
    [
        ("correct", "전원을 끈 뒤 앞 덮개를 열어 걸린 종이를 천천히 빼내고, 다시 전원을 켜면 됩니다.",
         "프린터 전원을 끄고 앞면 커버를 연 다음 걸린 용지를 조심스럽게 제거한 후 전원을 다시 켭니다.",
         "프린터 용지 걸림은 어떻게 해결하나요?", "다른 표현의 같은 답변"),
        ("wrong", "주차장 이용 요금은 주차장 이용 요금 기준에 따라 주차장 요금이 정해집니다.",
         "주차장 이용 요금은 1시간에 3,000원입니다.", "주차장 이용 요금은 얼마인가요?", "no-answer"),
    ],
    ids=["paraphrase in other words is credited", "keyword stuffing with a predicate"],
)
def test_rule_evidence_is_in_the_feedback(expected: str, answer: str, reference: str, question: str, evidence: str):
    verdicts = (correct if expected == "correct" else wrong)(answer, reference, question)
    assert any(evidence in v["feedback"] for v in verdicts)


# -- negation and contradiction -----------------------------------------------------------------


def test_negation_inside_a_modifier_or_condition_is_not_a_denial():
    assert cl.polarity("19세가 안 된 사람은 가입이 불가합니다") == cl.polarity("19세 미만은 가입할 수 없습니다") == 1
    assert cl.polarity("기한 내에 신고하지 않으면 과태료가 부과됩니다") == 0
    assert cl.polarity("If you do not apply, a fine is charged") == 0
    assert cl.polarity("무료입니다") == cl.polarity("수수료는 없습니다") == cl.polarity("no fee is charged") == 1


@pytest.mark.parametrize(
    ("answer", "pair"),
    [
        ("결제 후에 쿠폰을 입력해야 할인이 적용됩니다.", "after↔before"),
        ("5만 원 미만 구매 시 포인트가 적립됩니다.", "less_than↔at_least"),
        ("외래 진료 접수는 주말 오전 8시 30분부터 받습니다.", "weekend↔weekday"),
        ("검진 결과는 14일 이내에 이메일로 발송됩니다.", "email↔post"),
    ],
)
def test_reversed_condition_is_a_contradiction(answer: str, pair: str):
    refs = {
        "after↔before": "할인은 결제 전에 쿠폰을 입력해야 적용됩니다.",
        "less_than↔at_least": "5만 원 이상 구매 시 포인트가 적립됩니다.",
        "weekend↔weekday": "외래 진료 접수는 평일 오전 8시 30분부터 받습니다.",
        "email↔post": "검진 결과는 14일 이내에 우편으로 발송됩니다.",
    }
    found = wrong(answer, refs[pair], "조건은 무엇인가요?")
    assert all("reversed-condition" in v["feedback"] and pair in v["feedback"] for v in found)


def test_quote_then_deny_in_korean_and_english():
    ref = "회원 카드 재발급은 무료입니다."
    q = "회원 카드 재발급 비용은 얼마인가요?"
    for answer in (
        "회원 카드 재발급은 무료라고 하지만 이는 사실이 아닙니다.",
        "\"회원 카드 재발급은 무료입니다\"라는 안내는 잘못된 정보입니다.",
        "Some say reissuing the card is free, but that is not correct.",
    ):
        found = wrong(answer, ref, q)
        assert any("debunk" in v["feedback"] for v in found), answer


def test_refusal_is_correct_when_the_reference_says_the_documents_hold_no_answer():
    none = "제공된 자료에는 주차장 이용 요금이 나와 있지 않습니다."
    q = "주차장 이용 요금은 얼마인가요?"
    for answer in ("문서에 주차 요금 정보는 없습니다.", "The documents don't mention how much parking costs."):
        _, verdicts = judge(answer, none, q)
        assert [v["accuracy"] for v in verdicts] == [5, 5, 5], answer
    wrong("주차장 이용 요금은 시간당 2,000원입니다.", none, q)
    wrong("The documents do not say how much parking costs.", "주차장 요금은 1시간에 3,000원입니다.", q)


def test_proper_noun_swap_only_in_the_same_slot():
    ref = "담당 의사는 내과 정하늘 교수입니다."
    wrong("담당 의사는 내과 박준영 교수입니다.", ref, "담당 의사는 누구인가요?")
    # A name the answer adds elsewhere is extra detail, not a swap.
    assert not cl.entity_findings(
        "인솔은 최도현 팀장이 맡고, 최 팀장은 스위스 트레킹과 오사카 미식 상품을 담당합니다.",
        "인솔은 최도현 팀장이 맡으며, 스위스 트레킹 등 일본·유럽 상품을 담당합니다.",
        "인솔은 누가 맡나요?",
    )


# -- the lexicon as data --------------------------------------------------------------------------


def test_lexicon_maps_both_languages_to_one_concept():
    assert lx.concept_of_lemma("떼다") == lx.concept_of_lemma("issuance") == "issue"
    assert lx.concept_of_lemma("refunded") == lx.concept_of_lemma("환불") == "refund"
    assert "free" in lx.phrase_concepts("돈이 들지 않습니다") and "free" in lx.phrase_concepts("there is no cancellation fee")
    assert lx.opposites("before") == {"after"} and "within" in lx.opposites("after")
    for concept, (ko, en) in lx.CONCEPTS.items():
        assert ko and en, concept  # every concept is bilingual
