"""Memory rules from reading the v5 memory rows by kind (new memories of other topics): an order
word (마지막으로, 처음) taken for the asked attribute, a year-month written 2026-02 read as two
bare figures, English interrogatives, a memory in the other script holding the asked type of
value, a fact filed under another person than the user ("어머니 …" for "내 …"), and a fact about
another target scored as inaccurate rather than as unhelpful."""

from __future__ import annotations

from assay.suites.memory.offline.rules import _answer_type, _year_month
from tests.support.offline_families import memory_verdicts as verdicts


def field(found: list[dict], key: str) -> list[float]:
    return sorted(float(v[key]) for v in found)


def test_an_order_word_is_not_the_asked_attribute():
    found = verdicts(
        "보일러 필터 마지막으로 언제 청소했지?",
        "보일러: 2026-09-03 필터 청소, 다음 점검은 겨울 전.",
        ["보일러", "필터"],
    )
    assert field(found, "relevance") == [10.0, 10.0, 10.0]


def test_a_year_month_is_a_date_not_two_amounts():
    assert _year_month("정수기 필터 2026-02 교체") == "정수기 필터 2026년 2월 교체"
    # a date is no answer to "얼마": the cost is not stored
    found = verdicts(
        "정수기 필터 교체 비용 얼마였지?", "정수기 필터 2026-02 교체. 다음 교체는 2026-08.", ["정수기"]
    )
    assert max(field(found, "completeness")) <= 3.0
    # and it answers "언제까지"
    found = verdicts(
        "정수기 렌탈 약정 언제까지였지?", "정수기 렌탈 2025-03 시작, 약정 2028-03 종료.", ["정수기"]
    )
    assert min(field(found, "relevance")) >= 8.0


def test_english_interrogatives_want_a_type():
    assert _answer_type("When is the next vet visit?") == "time"
    assert _answer_type("How much does the dog walker charge?") == "amount"
    assert _answer_type("How long is the warranty?") == "duration"
    assert _answer_type("How many minutes of piano practice a day?") == "duration"
    assert _answer_type("What brand of food does Coco eat?") == ""


def test_a_memory_in_the_other_script_holding_the_asked_type_answers():
    found = verdicts(
        "코코 산책 도우미 비용 얼마야?",
        "Coco's dog walker charges 15,000 won per walk, Tuesdays and Fridays.",
        ["Coco", "dog walker"],
    )
    assert field(found, "relevance") == [10.0, 10.0, 10.0]
    # without a value of the asked type there is still nothing to compare
    none = verdicts(
        "코코 산책 도우미 비용 얼마야?",
        "Coco's dog walker is Minji from the apartment next door.",
        ["Coco", "dog walker"],
    )
    assert max(field(none, "relevance")) <= 5.0


def test_a_fact_filed_under_another_person_is_not_the_users():
    found = verdicts(
        "내 건강검진 언제 예약했지?",
        "아버지 건강검진 11월 20일 예약(사용자가 대신 예약함). 사용자 헬스장 월 5만 원.",
        ["건강검진"],
    )
    assert max(field(found, "relevance")) <= 5.0
    assert max(field(found, "completeness")) <= 2.0
    assert min(field(found, "accuracy")) >= 8.0  # the stored fact is true, of the father
    mine = verdicts(
        "내 건강검진 언제 예약했지?",
        "사용자 건강검진 11월 20일 예약. 아버지는 12월에 받기로 함.",
        ["건강검진"],
    )
    assert min(field(mine, "relevance")) >= 8.0


def test_a_value_beside_another_entity_lowers_relevance_not_accuracy():
    found = verdicts(
        "우리 집 보일러 점검 언제 받았지?",
        "부모님 댁 에어컨 점검 2026-06-11 완료. 우리 집 보일러: 모델 KB-300.",
        ["보일러", "에어컨"],
    )
    assert min(field(found, "accuracy")) >= 6.0


def test_two_questions_joined_by_a_verbs_go_are_two_facets():
    found = verdicts(
        "식기세척기 언제 샀고 얼마 줬는지 알려줘.", "식기세척기 2025-11-02 구매(빌트인).", ["식기세척기"]
    )
    assert max(field(found, "completeness")) <= 7.0  # the price is not stored
    assert min(field(found, "relevance")) >= 7.0  # the date is
    # a -고 with an interrogative on one side only joins no two questions
    one = verdicts(
        "식기세척기 언제 사고 싶다고 했지?", "식기세척기는 이사 후 2026-03에 사기로 함.", ["식기세척기"]
    )
    assert min(field(one, "completeness")) >= 9.0


def test_a_typed_value_in_the_other_script_must_sit_beside_the_memorys_entity():
    memory = "Gym membership renews on 2026-05-01. Dentist: Dr. Han at Mapo clinic."
    found = verdicts("치과 예약 언제야?", memory, ["Dentist", "Dr. Han"])
    assert max(field(found, "relevance")) <= 5.0
