"""General causes found reading the v4 rows by kind (the sentences here are new, from other
domains and wordings than the v4 rows): prohibitions Kiwi does not tag as negations (-지 말다,
피하다, 삼가다, 자제하다, 금식), clauses joined by -고/-며 that carry their own signs, figures
swapped between subjects named by an entity or by a figure of another kind, a day count turned
from before to after, and figures written as words (이튿날, 3분의 1, 만 오천 원)."""

from __future__ import annotations

from assay.judges.offline import claims as cl
from assay.metrics.quantities import quantities, same_quantity
from tests.support.offline_rag import accuracies, verdicts

# -- prohibitions -----------------------------------------------------------------------------


def test_prohibitive_mal_da_is_a_negation_but_not_after_a_verb_of_forgetting():
    assert cl.polarity("전시실에서는 사진을 찍지 마세요") == 1
    assert cl.polarity("젖은 손으로 콘센트를 만지지 말고 기다리세요") == 1
    # "오늘 말고 내일" names the other day; "잊지 마세요" is a reminder to do it
    assert cl.polarity("오늘 말고 내일 오세요") == 0
    assert cl.polarity("신분증 챙기는 것 잊지 마세요") == 0


def test_avoid_verbs_and_fasting_words_deny():
    assert cl.polarity("수영 직후에는 사우나 이용을 피해야 합니다") == 1
    assert cl.polarity("검사 전날 밤에는 음주를 삼가 주세요") == 1
    assert cl.polarity("운동 당일에는 카페인 섭취를 자제하세요") == 1
    assert cl.polarity("검사 12시간 전부터 금식합니다") == 1
    # avoiding it only in a condition states the condition, not the claim
    assert cl.polarity("붐비는 시간을 피하면 대기 없이 들어갈 수 있습니다") == 0


def test_an_answer_allowing_what_the_reference_says_to_avoid_is_caught():
    q = "염색한 날 머리 감아도 돼요?"
    ref = "염색 당일에는 샴푸 사용을 피해야 합니다."
    wrong = "염색 당일에도 샴푸는 쓰셔도 괜찮습니다."
    right = "염색한 당일엔 샴푸 쓰지 마세요."
    assert max(accuracies(wrong, ref, q)) <= 2
    assert any("polarity" in v["feedback"] for v in verdicts(wrong, ref, q))
    assert min(accuracies(right, ref, q)) >= 4


def test_a_prohibition_agrees_with_a_reference_that_says_no_in_other_words():
    q = "분리수거는 언제 내놓아요?"
    ref = "월요일부터 목요일 밤 9시 이후에 배출하며, 금요일과 공휴일에는 수거하지 않습니다."
    answer = "월~목 21:00 이후에 내놓으시고, 금요일이랑 공휴일엔 내놓지 마세요."
    assert not any(f.rule == "polarity" for f in cl.rag_findings(answer, ref, q))


# -- clauses joined by -고 / -며 ----------------------------------------------------------------


def test_clauses_joined_by_go_and_myeo_keep_their_own_sign():
    ref = "여권 사본은 본인이 직접 제출해야 하며 대리 제출은 받지 않습니다."
    signs = [c.sign for c in cl._clauses(ref)]
    assert signs == [0, 1]
    # an auxiliary verb after -고 is one predicate, not two clauses
    assert len(cl._clauses("서류를 검토하고 있습니다")) == 1


def test_an_answer_that_keeps_the_affirmative_half_of_a_joined_reference_is_not_a_denial():
    q = "세탁 맡긴 옷에 넣어둔 물건 잃어버리면 보상돼요?"
    ref = "주머니 속 소지품은 고객이 직접 확인해야 하며 분실 시 보상하지 않습니다."
    answer = "주머니 속 소지품은 고객님이 직접 확인하셔야 하며, 분실 시 보상하지 않습니다."
    assert not any(f.rule == "polarity" for f in cl.rag_findings(answer, ref, q))
    assert min(accuracies(answer, ref, q)) >= 4


def test_a_step_sequence_split_at_go_is_still_one_condition_scope():
    # "끄고 … 켭니다": the answer's "끈 뒤" must not read as a swap of the later "켭니다"
    q = "공유기가 멈추면 어떻게 해요?"
    ref = "공유기 전원을 끄고 30초 기다린 다음 전원을 다시 켭니다."
    answer = "전원을 끈 뒤 30초 정도 기다렸다가, 다시 전원을 켜면 됩니다."
    assert not any(f.rule == "reversed-condition" for f in cl.rag_findings(answer, ref, q))


# -- figures swapped between subjects ---------------------------------------------------------


def test_figures_swapped_between_two_branches_named_by_the_answer():
    q = "밤늦게 문 여는 약국이 어디예요?"
    ref = "중앙점은 밤 11시까지 운영합니다. 역전점은 오후 8시에 문을 닫습니다."
    swapped = "역전점이 밤 11시까지 하고, 중앙점은 오후 8시에 닫아요."
    right = "중앙점이 밤 11시까지 하고, 역전점은 오후 8시에 닫아요."
    found = [f for f in cl.rag_findings(swapped, ref, q) if f.rule == "figure-swap"]
    assert found and "역전점" in found[0].evidence
    assert not any(f.rule == "figure-swap" for f in cl.rag_findings(right, ref, q))
    assert max(accuracies(swapped, ref, q)) <= 1


def test_figures_swapped_between_subjects_named_by_a_figure_of_another_kind():
    q = "수하물 보관료가 크기별로 어떻게 돼요?"
    ref = "20인치 이하 캐리어는 하루 3,000원, 28인치 이하 캐리어는 하루 5,000원입니다."
    swapped = "20인치 이하는 하루 5,000원, 28인치 이하는 하루 3,000원이에요."
    right = "28인치 이하는 하루 5,000원, 20인치 이하는 하루 3,000원이에요."
    assert any(f.rule == "figure-swap" for f in cl.rag_findings(swapped, ref, q))
    assert not any(f.rule == "figure-swap" for f in cl.rag_findings(right, ref, q))
    assert min(accuracies(right, ref, q)) >= 4


# -- a span of time moved to the other side of its event ----------------------------------------


def test_a_span_before_the_event_told_as_after_it_is_a_reversed_condition():
    q = "정기 점검 신청은 언제까지 해요?"
    ref = "점검 희망일 5일 전까지 홈페이지로 신청하면 점검 후 결과를 문자로 보내 드립니다."
    wrong = "점검 희망일이 지난 뒤 5일 이내에 홈페이지로 신청하시면 점검 후 결과를 문자로 받아요."
    right = "점검 희망일보다 5일 앞서 홈페이지로 신청하시면 돼요."
    found = [f for f in cl.rag_findings(wrong, ref, q) if f.rule == "reversed-condition"]
    assert found and "5일 후" in found[0].evidence and "5일 전" in found[0].evidence
    assert max(accuracies(wrong, ref, q)) <= 2
    assert not any(f.rule == "reversed-condition" for f in cl.rag_findings(right, ref, q))


def test_spans_read_their_side_and_leave_dates_and_other_words_alone():
    sides = lambda text: [(q.text, side) for q, side, _ in cl._spans(text)]  # noqa: E731
    assert sides("발급일로부터 7일이 지난 후") == [("7일", "after")]
    assert sides("출발 2시간 전부터") == [("2시간", "before")]
    assert sides("2 weeks before the trip") == [("2주", "before")]
    assert sides("4월 5일 전까지") == []  # a date, not a span
    assert sides("3일 후회 없이") == []
    assert sides("3일 전부 환불") == []


# -- figures written as words -------------------------------------------------------------------


def _texts(text: str) -> list[str]:
    return [q.text for q in quantities(text)]


def test_next_day_and_day_before_are_a_one_day_span_unless_they_date_a_clock_time():
    assert same_quantity(quantities("신청 이튿날 처리됩니다")[0], quantities("신청 하루 뒤 처리")[0])
    assert same_quantity(quantities("익일 발송")[0], quantities("다음 날 발송")[0])
    assert _texts("행사 전날 마감") == ["1일"]
    # "다음 날 6시" dates the clock time: no extra span
    assert _texts("밤 10시부터 다음 날 6시까지") == ["22시", "6시"]


def test_a_next_day_answer_for_a_three_day_wait_is_a_wrong_figure():
    q = "필기시험 떨어지면 언제 다시 볼 수 있어요?"
    ref = "불합격일로부터 7일이 지난 후 다시 응시할 수 있습니다."
    found = cl.rag_findings("떨어진 다음 날 바로 다시 보실 수 있어요.", ref, q)
    assert any(f.rule == "figure-substitution" for f in found)


def test_fractions_compare_as_percentages_in_korean_english_and_slashes():
    assert same_quantity(quantities("요금의 4분의 1")[0], quantities("요금의 25%")[0])
    assert same_quantity(quantities("보증금의 1/5을 공제")[0], quantities("one fifth of the deposit")[0])
    assert same_quantity(quantities("기간의 2/3가 지나면")[0], quantities("two-thirds of the term")[0])
    # a progress count is no fraction
    assert all(q.unit != "%" for q in quantities("3/5 완료"))


def test_sino_korean_amounts_before_won():
    assert _texts("입장료는 만 이천 원이에요") == ["12000원"]
    assert _texts("주차는 30분마다 오백 원씩") == ["30분", "500원"]
    assert _texts("인천 원정 경기") == []
    # 만 before an age is "full", not ten thousand
    assert [q.value for q in quantities("만 7세 이상")] == [7]


def test_counted_people_are_not_a_percentage_and_hangul_units_are_units():
    assert not same_quantity(quantities("15인 이상")[0], quantities("15% 할인")[0])
    assert same_quantity(quantities("15인 이상")[0], quantities("15명 이상")[0])
    assert same_quantity(quantities("a party of 15 or more")[0], quantities("15인 이상")[0])
    assert _texts("3킬로짜리 상자") == ["3kg"]
    assert same_quantity(quantities("2킬로미터")[0], quantities("2km")[0])


def test_an_english_answer_with_the_wrong_group_size_is_a_wrong_figure():
    q = "Do tour groups get a discount?"
    ref = "15인 이상 단체는 입장료의 10%를 할인받습니다."
    wrong = "Yes, groups of 8 or more get 10% off the admission fee."
    assert any(f.rule == "figure-substitution" for f in cl.rag_findings(wrong, ref, q))


# -- yes/no about paying --------------------------------------------------------------------------


def test_no_to_must_i_pay_agrees_with_a_reference_that_says_free():
    q = "방문객 주차장도 돈 내야 해요?"
    ref = "방문객 주차장은 무료입니다."
    assert cl.implied_answer(q, ref)[0] == "no"
    assert not any(f.rule == "yes-no" for f in cl.rag_findings("아니요, 방문객 주차장은 무료예요.", ref, q))
    assert any(f.rule == "yes-no" for f in cl.rag_findings("네, 주차비를 내셔야 해요.", ref, q))


# -- English answers ----------------------------------------------------------------------------


def test_an_english_answer_with_every_reference_figure_and_no_contradiction_is_credited():
    q = "스터디 카페 사물함은 얼마예요?"
    ref = "사물함은 월 12,000원이고, 분실 시 열쇠 재발급 비용은 5,000원입니다."
    answer = "Lockers cost 12,000 won a month, and replacing a lost key is 5,000 won."
    found = verdicts(answer, ref, q)
    assert min(v["accuracy"] for v in found) >= 4
    assert all("수치·고유명이 모두 있고" in v["feedback"] for v in found)
    # a wrong figure is still a finding
    assert max(accuracies("Lockers cost 15,000 won a month; a lost key is 5,000 won.", ref, q)) <= 1


def test_recycling_steps_compare_across_languages():
    q = "How do I recycle glass jars?"
    ref = "내용물을 비우고 물로 헹군 뒤 뚜껑과 라벨을 떼어 유리병 수거함에 배출합니다."
    answer = "Empty the jar, rinse it with water, take off the lid and the label, and put it out in the glass bin."
    share, size = cl.meaning_coverage(answer, ref, q, cross_language=True)
    assert size and share >= 0.6  # empty, rinse, lid, label, take off, put out
