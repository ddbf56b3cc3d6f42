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
    jury = offline_jury()
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
    assert quantities("1/3 이상")[0].unit == ""  # a fraction is not a date
    assert canonical_figures("두 번째 창구") == "두 번째 창구"  # an ordinal is not a count


def test_time_in_another_notation_is_correct_and_a_wrong_hour_is_wrong():
    ref = "은행 창구는 평일 오전 9시부터 오후 4시까지 운영합니다."
    q = "은행 창구 영업시간은 언제인가요?"
    correct("창구는 평일 09:00~16:00에 운영합니다.", ref, q)
    found = wrong("은행 창구는 평일 오전 9시부터 오후 6시까지 운영합니다.", ref, q)
    assert any("figure-substitution" in v["feedback"] and "18시" in v["feedback"] for v in found)


def test_duration_in_other_units_and_native_numbers():
    q = "도서관 대출 기간은 며칠인가요?"
    correct("책은 2주 동안 빌릴 수 있어요.", "도서 대출 기간은 14일입니다.", q)
    wrong("신규 계정은 입사일 3일 전에 발급됩니다.", "신규 계정은 입사일 하루 전에 발급됩니다.", "계정은 언제 발급되나요?")


def test_wrong_date_beside_right_amount_in_other_notations():
    ref = "행사는 2025년 5월 10일에 열리며 참가비는 10,000원입니다."
    q = "행사 날짜와 참가비는?"
    correct("행사는 2025-05-10에 열리고 참가비는 1만 원이에요.", ref, q)
    found = wrong("행사는 2025년 5월 3일에 열리며 참가비는 1만 원입니다.", ref, q)
    assert all("figure-substitution" in v["feedback"] for v in found)


# -- English answers against Korean references -------------------------------------------------


def test_english_answer_without_figures_is_compared_by_concepts():
    ref = "회원 카드 재발급은 무료입니다."
    q = "회원 카드 재발급 비용은 얼마인가요?"
    verdicts = correct("Reissuing a membership card is free of charge.", ref, q)
    assert "이중 언어 사전" in verdicts[0]["feedback"]
    wrong("Reissuing a membership card is not free; a fee is charged.", ref, q)


def test_english_answer_with_reversed_polarity_is_wrong():
    ref = "만 19세 미만은 가입할 수 없습니다."
    q = "만 19세 미만도 가입할 수 있나요?"
    correct("No. People under 19 cannot sign up.", ref, q)
    found = wrong("Yes, people under 19 can sign up.", ref, q)
    assert any("polarity" in v["feedback"] for v in found)


def test_english_answer_with_figures_in_english_notation():
    ref = "외래 진료 접수는 평일 오전 8시 30분부터 오후 5시까지 받습니다."
    q = "외래 진료 접수 시간은?"
    correct("Outpatient registration runs 8:30 a.m. to 5 p.m. on weekdays.", ref, q)
    wrong("Outpatient registration runs 9 a.m. to 5 p.m. on weekdays.", ref, q)


# -- paraphrase without shared words ------------------------------------------------------------


def test_paraphrase_in_other_words_is_credited_with_its_evidence():
    ref = "프린터 전원을 끄고 앞면 커버를 연 다음 걸린 용지를 조심스럽게 제거한 후 전원을 다시 켭니다."
    q = "프린터 용지 걸림은 어떻게 해결하나요?"
    verdicts = correct("전원을 끈 뒤 앞 덮개를 열어 걸린 종이를 천천히 빼내고, 다시 전원을 켜면 됩니다.", ref, q)
    assert any("다른 표현의 같은 답변" in v["feedback"] for v in verdicts)


def test_free_said_as_a_negation_is_the_same_claim():
    q = "요금제 변경 수수료가 있나요?"
    ref = "요금제 변경 시 별도의 수수료는 없습니다."
    correct("요금제를 바꿔도 수수료는 따로 받지 않습니다.", ref, q)
    correct("요금제 변경은 무료입니다.", ref, q)
    wrong("요금제 변경 시 수수료 3,000원이 부과됩니다.", ref, q)


# -- negation and contradiction -----------------------------------------------------------------


def test_reworded_negation_agrees_and_a_flipped_one_does_not():
    ref = "아니요. 해외여행자보험은 출국 전에만 가입할 수 있으며, 출국 후에는 가입할 수 없습니다."
    q = "해외여행자보험은 출국 후에도 가입할 수 있나요?"
    correct("출국한 다음에는 가입이 안 되고, 반드시 출국 전에 가입해야 합니다.", ref, q)
    found = wrong("네, 해외여행자보험은 출국 후에도 가입할 수 있습니다.", ref, q)
    assert any("yes-no" in v["feedback"] for v in found)


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


def test_keyword_stuffing_with_a_predicate_is_not_an_answer():
    ref = "주차장 이용 요금은 1시간에 3,000원입니다."
    q = "주차장 이용 요금은 얼마인가요?"
    found = wrong("주차장 이용 요금은 주차장 이용 요금 기준에 따라 주차장 요금이 정해집니다.", ref, q)
    assert all("no-answer" in v["feedback"] for v in found)


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
