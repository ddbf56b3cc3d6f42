"""General causes found reading the v6 rag rows by kind (the sentences here are new, from other
domains and wordings than the v6 rows): 안에/내에 after a place read as "within", a span set as a
limit turned into a wait on the same side of its event, the one-unit period of a charge read as
a span of one day, a list of clock hours after one 오후 read as morning hours, a yes/no question
about going in answered by 입장, and working days named in English against Korean. Each cause
has a near miss the fix must not catch."""

from __future__ import annotations

from assay.judges.offline import claims as cl
from assay.metrics.figure_forms import canonical_figures
from tests.support.offline_rag import accuracies


def _rules(answer: str, reference: str, question: str) -> set[str]:
    return {f.rule for f in cl.rag_findings(answer, reference, question)}


# -- 안에/내에 say "within" only after a span of time ---------------------------------------------


def test_inside_a_place_is_no_time_limit():
    assert "within" not in cl.claim_tokens("주차장 안에 차를 세운 뒤 매표소에서 정산하세요")
    assert "within" not in cl.claim_tokens("도서관 내에서는 음식을 먹을 수 없습니다")
    # near miss: after a span of time they still say within
    assert "within" in cl.claim_tokens("구매 후 14일 안에 반품하세요")
    assert "within" in cl.claim_tokens("한 달 내에 신청해야 합니다")


def test_parking_inside_a_lot_is_no_reversed_condition():
    q = "매표소가 닫혀 있으면 어떻게 해요?"
    ref = "매표소가 닫혔으면 주차장 안 정산기 옆에 차를 댄 뒤 앱에서 '무인 정산'을 누르면 됩니다."
    answer = "주차장 안에 정산기 옆에 차를 대고 앱에서 '무인 정산'을 고르시면 돼요."
    assert "reversed-condition" not in _rules(answer, ref, q)


# -- a span set as a limit vs as a wait -----------------------------------------------------------


def test_a_limit_turned_into_a_wait_is_a_reversed_condition():
    ref = "수령 후 14일 이내에 영수증과 함께 교환을 신청해야 합니다."
    answer = "물건을 받고 14일이 지난 뒤부터 영수증을 가지고 교환 신청하시면 됩니다."
    found = [f for f in cl.rag_findings(answer, ref, "교환은 언제까지 돼요?") if f.rule == "reversed-condition"]
    assert found and "14일이 지난" in found[0].evidence
    assert "reversed-condition" in _rules("You can apply for the exchange after 14 days.", ref, "교환은 언제까지 돼요?")
    # near miss: the same limit in other words is no reversal
    assert "reversed-condition" not in _rules("받으신 뒤 2주 안에 영수증 들고 교환 신청하세요.", ref, "교환은 언제까지 돼요?")


def test_a_wait_said_as_a_wait_is_no_reversal():
    ref = "가입 후 30일이 지나야 보장이 시작됩니다."
    assert "reversed-condition" not in _rules("가입하고 30일 경과 후부터 보장돼요.", ref, "보장은 언제부터예요?")
    assert "reversed-condition" in _rules("가입하고 30일 이내에 보장이 시작돼요.", ref, "보장은 언제부터예요?")


# -- the one-unit period of a charge is no figure -------------------------------------------------


def test_a_daily_rate_is_no_span_of_one_day():
    q = "자전거 대여 4일 하면 얼마예요?"
    ref = "대여료는 하루 8,000원이라 4일이면 32,000원입니다."
    answer = "하루 8,000원이라 4일이면 32,000원이에요. 최소 대여 기간은 2일이에요."
    assert "figure-substitution" not in _rules(answer, ref, q)


def test_a_real_one_day_beside_a_rate_still_counts():
    # near miss: "1일까지 무료" is a claim of its own, and another span for it is substituted
    ref = "주차는 1일까지 무료이며 이후 하루 5,000원입니다."
    answer = "주차는 3일까지 무료이고 그 뒤로 하루 5,000원이에요."
    assert "figure-substitution" in _rules(answer, ref, "주차 요금이 어떻게 돼요?")


# -- a list of clock hours after one 오후 -----------------------------------------------------------


def test_a_list_of_hours_after_one_afternoon_marker_is_in_the_afternoon():
    assert canonical_figures("셔틀은 오후 1시, 2시 반, 4시에 출발해요") == "셔틀은 13시, 14시 30분, 16시에 출발해요"
    # near miss: a list that falls back past midnight keeps its own hours; a span is no hour
    assert canonical_figures("밤 11시, 1시에 운행") == "23시, 1시에 운행"
    assert canonical_figures("오후 2시, 3시간 동안") == "14시, 3시간 동안"


def test_shuttle_times_in_twelve_hour_form_are_no_substitution():
    q = "오후 3시 셔틀 있어요?"
    ref = "셔틀은 13:00, 14:30, 16:00에 출발하여 15시 셔틀은 없습니다."
    answer = "셔틀은 오후 1시, 2시 반, 4시에 출발해서 3시 차는 없어요."
    assert "figure-substitution" not in _rules(answer, ref, q)
    assert "figure-substitution" in _rules("셔틀은 오후 1시, 2시 반, 5시에 출발해요.", ref, q)


# -- going in (입장 / 들어가다) ----------------------------------------------------------------------


def test_yes_to_going_in_against_no_entry_is_a_yes_no_reversal():
    q = "반려견 데리고 들어가도 돼요?"
    ref = "반려견은 입장할 수 없습니다."
    assert "yes-no" in _rules("네, 목줄만 하면 데리고 들어가실 수 있어요.", ref, q)
    # near miss: no, said in other words
    assert "yes-no" not in _rules("아니요, 반려견은 들어갈 수 없어요.", ref, q)


# -- working days by name across languages ----------------------------------------------------------


def test_a_weekday_named_in_english_matches_the_korean():
    q = "금요일에 맡긴 세탁물은 언제 찾아요?"
    ref = "금요일에 맡긴 세탁물은 화요일에 나옵니다."
    assert min(accuracies("Laundry left on a Friday is ready on the following Tuesday.", ref, q)) >= 4
    # near miss: another day is no match
    assert max(accuracies("Laundry left on a Friday is ready on the following Thursday.", ref, q)) <= 3


# -- a bare clock hour read in the context's half of the day ----------------------------------------


def test_a_bare_hour_takes_the_afternoon_the_question_states():
    known = "저녁 7시 공연도 있나요?\n공연은 18:00과 20:30에 시작하며 19시 공연은 없습니다."
    text, read = cl.clock_in_context("6시랑 8시 반에만 있고 7시 공연은 없어요.", known)
    assert "19시 공연" in text and "18시" in text and read
    q = "저녁 7시 공연도 있나요?"
    ref = "공연은 18:00과 20:30에 시작하며 19시 공연은 없습니다."
    assert min(accuracies("공연은 6시랑 8시 반에 있어서 7시 공연은 없어요.", ref, q)) >= 4
    # near miss: a morning hour the answer marks, and a span of hours, stay as written
    assert cl.clock_in_context("오전 7시 공연", known) == ("오전 7시 공연", ())
    assert cl.clock_in_context("공연은 2시간 해요", known)[1] == ()


def test_a_bare_hour_the_context_states_in_the_morning_stays():
    known = "몇 시에 열어요?\n평일 9시와 21시에 엽니다."
    assert cl.clock_in_context("9시에 열어요", known) == ("9시에 열어요", ())


# -- the event moved to another day ------------------------------------------------------------------


def test_the_same_day_for_the_next_day_is_a_reversed_condition():
    q = "밤 10시에 주문하면 언제 와요?"
    ref = "21시 이후 주문은 다음 날 발송됩니다."
    answer = "주문은 21시에 모아서 보내니까, 10시에 하셔도 그날 바로 출발해요."
    assert "reversed-condition" in _rules(answer, ref, q)
    # near miss: the answer names both days, or the question itself names the other day
    assert "reversed-condition" not in _rules("그날은 안 되고 다음 날 발송돼요.", ref, q)
    assert "reversed-condition" not in _rules(
        "당일 발송은 안 되고 다음 날 나가요.", ref, "밤 10시에 주문하면 당일 발송돼요?"
    )


# -- a negated clause joined by -고 to a condition is part of the condition ---------------------------


def test_a_negation_joined_to_a_condition_is_a_condition():
    signs = [c.sign for c in cl._clauses("사물함에 짐을 빼지 않고 3일을 넘기면 관리실에서 처분합니다.")]
    assert signs[0] == 0
    # near miss: a clause with a topic of its own still denies
    signs = [c.sign for c in cl._clauses("수표는 받지 않고 현금으로 내면 할인됩니다.")]
    assert signs[0] == 1


def test_an_answer_about_another_case_is_no_reversal_of_a_negated_condition():
    q = "사물함 짐을 오래 두면 어떻게 돼요?"
    ref = "사물함에 짐을 빼지 않고 3일을 넘기면 관리실에서 처분합니다."
    answer = "3일을 넘기면 관리실에서 처분해요. 망가진 사물함은 같은 층 사물함에 짐을 옮겨 두고 관리실에 알리면 돼요."
    assert "polarity" not in _rules(answer, ref, q)


# -- figures re-joined for the conflict check stay apart ---------------------------------------------


def test_figures_of_checkable_kinds_do_not_fuse_into_one_span():
    known = "기본 2시간이며 10분마다 300원이 붙습니다."
    text = cl.checkable_figures("2시간 넘으면 10분마다 300원, 3층 주차장은 무료예요.", known)
    assert "2시간 10분" not in text and "2시간" in text and "10분" in text


# -- the case past the reference's bound --------------------------------------------------------------


def test_the_case_past_a_bound_is_no_polarity_reversal():
    q = "아이 셋 데리고 가도 입장료 안 내요?"
    ref = "보호자 1명당 어린이 2명까지 무료로 입장할 수 있습니다."
    answer = "보호자 한 분당 아이 두 명까지는 무료예요. 세 번째 아이부터는 5,000원씩 내시면 돼요."
    assert "polarity" not in _rules(answer, ref, q)
    # near miss: the bounded case itself charged is still a reversal
    assert "polarity" in _rules("아이 두 명까지는 돈을 내야 입장할 수 있어요.", ref, q)
