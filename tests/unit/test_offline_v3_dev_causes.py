"""General causes found reading the v3 rows by kind (the sentences here are new): figures
that are no claim, months written as days, "무료" read against a clause that is not about price,
two subjects' figures swapped, a yes/no question the reference answers without 네/아니요, and
refusals worded as "no explanation"."""

from __future__ import annotations

from assay.judges.offline import claims as cl
from assay.metrics.quantities import quantities, same_quantity
from tests.support.offline_rag import accuracies


def _one(text: str):
    found = quantities(text)
    assert len(found) == 1, found
    return found[0]


def test_emphasis_and_one_period_rates_are_no_figures():
    assert quantities("하루라도 늦게 내면 가산금이 붙습니다") == ()
    assert quantities("1분이라도 지나면 입장할 수 없어요") == ()
    assert quantities("한 해에 한 번 신청할 수 있어요") == ()
    assert [q.text for q in quantities("1년에 두 번까지")] == ["2회"]
    # a date stays a date
    assert _one("매월 1일에 자동이체됩니다").value == 1


def test_months_compare_with_days():
    assert same_quantity(_one("한 달"), _one("30일"))
    assert same_quantity(_one("두 달"), _one("60일"))
    assert same_quantity(_one("1년"), _one("365일"))
    assert not same_quantity(_one("한 달"), _one("10일"))


def test_last_day_of_the_month_is_a_date_that_differs_from_a_numbered_one():
    ref = "수강료는 매월 20일까지 입금해야 합니다."
    q = "수강료는 언제까지 입금해요?"
    assert max(accuracies("수강료는 매월 말일까지 입금하시면 됩니다.", ref, q)) <= 1
    assert _one("월말까지").text == "말일"


def test_paraphrase_with_months_for_days_and_an_emphasis_is_not_wrong():
    q = "스터디룸 예약은 얼마나 미리 할 수 있어요?"
    ref = "스터디룸은 최대 30일 전부터 예약할 수 있고, 예약 시간을 10분이라도 넘기면 자동 취소됩니다."
    answer = "한 달 전부터 잡을 수 있어요. 1분이라도 예약 시간을 넘기면 자동으로 취소돼요."
    assert min(accuracies(answer, ref, q)) >= 4


def test_free_is_no_sign_against_a_clause_not_about_price():
    q = "자전거 보관소는 어떻게 이용하고 요금은 얼마예요?"
    ref = "자전거 보관소는 관리실에서 스티커를 받아 붙이면 입주민은 무료로 이용할 수 있습니다."
    partial = "관리실에서 스티커를 받아 자전거에 붙이시면 됩니다."
    assert not [f for f in cl.rag_findings(partial, ref, q) if f.rule == "polarity"]
    # a clause about price still carries the sign of 무료
    assert [f.rule for f in cl.rag_findings("입주민도 보관소 이용 요금을 내야 합니다.", ref, q)] != []


def test_two_subjects_figures_swapped_is_wrong():
    q = "성인 수영 강습과 어린이 수영 강습 한 달 수강료가 얼마예요?"
    ref = "성인반 수강료는 월 8만 원이고, 어린이반 수강료는 월 6만 원입니다."
    swapped = "성인반은 월 6만 원, 어린이반은 월 8만 원이에요."
    right = "어린이반이 월 6만 원이고, 성인반은 월 8만 원입니다."
    assert [f.rule for f in cl.rag_findings(swapped, ref, q)] == ["figure-swap"]
    assert max(accuracies(swapped, ref, q)) <= 1
    assert not cl.swap_findings(right, ref)
    assert min(accuracies(right, ref, q)) >= 4


def test_yes_no_question_answered_by_a_reference_clause_without_ne_or_aniyo():
    ref = "반려견 동반 입장은 가능하며, 단 대형견은 입장할 수 없습니다."
    q = "대형견도 데리고 입장할 수 있나요?"
    assert cl.implied_answer(q, ref)[0] == "no"
    # a clause that allows only part ("1장만") implies no yes/no answer
    assert cl.implied_answer("쿠폰 두 장을 같이 쓸 수 있어요?", "쿠폰은 한 주문에 1장만 쓸 수 있습니다.") is None
    assert max(accuracies("네, 대형견도 함께 입장할 수 있습니다.", ref, q)) <= 1
    closed = "평일은 10시부터 19시까지 열고, 공휴일은 휴관합니다."
    assert cl.implied_answer("공휴일에도 문 여나요?", closed)[0] == "no"
    assert max(accuracies("네, 공휴일에도 10시부터 19시까지 엽니다.", closed, "공휴일에도 문 여나요?")) <= 1
    # a content question is not a yes/no question
    assert cl.implied_answer("공휴일에는 몇 시에 문 여나요?", closed) is None


def test_refusal_saying_the_documents_have_no_explanation():
    q = "주차 대행 서비스도 있나요?"
    none = "주어진 이용 안내에는 주차 대행 서비스에 대한 내용이 없습니다."
    answer = "안내문에는 주차 대행에 관한 설명이 없어서 있는지 말씀드리기 어렵습니다."
    assert accuracies(answer, none, q) == [5, 5, 5]
    has = "주차 대행은 1회 1만 원에 이용할 수 있습니다."
    assert max(accuracies(answer, has, q)) <= 1


def test_english_counts_once_twice_and_counted_nouns():
    assert [q.text for q in quantities("You can renew it once for 10 days.")] == ["1회", "10일"]
    assert [q.text for q in quantities("Once you register, the card is mailed.")] == []
    assert [q.text for q in quantities("Each guest may bring two suitcases.")] == ["2"]
    assert [q.text for q in quantities("No one may enter after 9 p.m.")] == ["21시"]


def test_english_answer_that_leaves_a_side_figure_out_is_not_wrong():
    q = "PT 한 번 받는 데 얼마예요?"
    ref = "PT는 1회 5만 원이고, 10회 이상 등록하면 10% 할인됩니다."
    answer = "One PT session costs 50,000 won, with a discount if you register for 10 or more sessions."
    assert min(accuracies(answer, ref, q)) >= 4
    # the same answer with a changed price is still caught
    assert max(accuracies(answer.replace("50,000", "60,000"), ref, q)) <= 2


def test_opening_no_is_the_yes_no_answer_not_a_negation_of_the_clause():
    q = "할인 쿠폰 두 장을 한 주문에 같이 쓸 수 있어요?"
    ref = "할인 쿠폰은 한 주문에 1장만 쓸 수 있습니다."
    answer = "No — only one coupon can be used per order."
    assert not [f for f in cl.rag_findings(answer, ref, q) if f.rule == "polarity"]
    assert min(accuracies(answer, ref, q)) >= 4


def test_a_figure_of_a_kind_the_reference_never_states_is_unverifiable_not_wrong():
    q = "주민센터 민원실 운영 시간이 어떻게 돼요?"
    ref = "민원실은 평일 오전 9시부터 오후 6시까지 운영합니다."
    answer = "평일 9시부터 18시까지 열어요. 민원실은 건물 2층에 있어요."
    assert cl.checkable_figures(answer, ref) == "9시; 18시"  # kept apart: "4시간 5분" side by side would fuse
    assert min(accuracies(answer, ref, q)) >= 3
    # a clock time of the same kind that differs is still a contradiction
    assert max(accuracies("평일 9시부터 17시까지 열어요.", ref, q)) <= 2


def test_counter_words_make_figures_of_different_kinds():
    floor, credits = _one("본관 3층"), _one("졸업 학점은 120학점")
    assert (floor.kind, credits.kind) == ("층", "학점")
    assert not same_quantity(_one("3층"), _one("3권"))
    assert same_quantity(_one("만 19살"), _one("19세"))  # one age, two counters
    q = "졸업하려면 몇 학점 필요해요?"
    ref = "졸업 학점은 120학점이며, 전공 50학점 이상이 필요합니다."
    # a floor number beside the credits is no substitute for the 50 credits
    assert not cl.figure_findings("120학점이면 돼요. 학사지원팀은 본관 3층에 있어요.", ref, q)
    assert cl.figure_findings("110학점이면 돼요.", ref, q)


def test_all_day_is_no_one_day_figure():
    assert quantities("하루 종일 접수합니다") == ()
    assert quantities("한 번도 연체하지 않았다면") == ()


def test_quoted_label_denies_nothing():
    assert cl.polarity("'교환 불가' 표시가 붙은 상품도 포장만 뜯지 않았다면") == cl.polarity("표시가 붙은 상품도")
    assert cl.polarity("교환 불가 상품입니다") == 1


def test_english_negation_in_the_main_clause_beside_a_when_clause_counts():
    assert cl.polarity("No fee is charged when you cancel within a day.") == 1
    assert cl.polarity("If you do not cancel, you pay the full price.") == 0


def test_right_answer_with_an_unverifiable_side_remark_gets_four():
    q = "여권 재발급 수수료가 얼마예요?"
    ref = "10년 복수여권 재발급 수수료는 5만 원입니다."
    answer = "10년짜리 복수여권 재발급하면 수수료는 5만 원이에요. 참고로 구청 민원실은 점심시간에 특히 붐비니 오전에 가시는 게 편해요."
    core, aside = cl.split_digression(answer, ref, q)
    assert aside.startswith("참고로")
    assert all(a == 4 for a in accuracies(answer, ref, q))
    # a wrong figure in the part about the reference is still wrong
    assert max(accuracies(answer.replace("5만 원이에요", "3만 원이에요"), ref, q)) <= 1
