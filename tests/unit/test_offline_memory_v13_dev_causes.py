"""Memory rules from reading the v13 memory rows by kind (a pottery-studio and a bakery memory,
not v13's home-brewing and tea-shop ones): a person asked by a given name and a title whom the
memory never names, beside values of others, is a target error; a messenger ID answers an
identifier asked across scripts; two prices of one thing, a later figure of the sentence, under
two words conflict; a current value asked where the value is missing lowers nothing; "…다고
했지," recalls; "한 건에 얼마" asks per item; a figure before a word that starts with a unit
syllable ("#3 시나몬") is no time; across scripts, the sentence naming the query's entity is not
noise. Each kind stands beside a near miss that must not fire."""

from __future__ import annotations

from assay.metrics.quantities import quantities
from assay.suites.memory.offline import rules as rules
from tests.support.offline_families import memory_verdicts as verdicts


def field(found: list[dict], key: str) -> set[float]:
    return {float(v[key]) for v in found}


def test_a_person_asked_by_name_and_title_whom_the_memory_never_names():
    memory = "사용자 도자기 공방 12월 수강료: 180,000원. 공방 동기 하윤 씨 12월 수강료: 150,000원."
    found = verdicts("공방 선배 지호 형 12월 수강료 얼마였지?", memory, ["수강료", "하윤"])
    assert max(field(found, "relevance")) <= 5.0 and max(field(found, "completeness")) <= 2.0
    assert min(field(found, "noise")) >= 4.0
    # near miss: the person asked about is in the memory
    named = verdicts("하윤 씨 12월 수강료 얼마였지?", memory, ["수강료", "하윤"])
    assert min(field(named, "relevance")) >= 8.0


def test_a_messenger_id_answers_an_identifier_asked_across_scripts():
    memory = "Flour supplier: Hokkaido Mill Co., contact Mr. Sato, LINE ID sato_mill77, minimum order 20 kg."
    found = verdicts("밀가루 거래처 담당자 연락처 뭐였지?", memory, ["Hokkaido Mill Co.", "밀가루"])
    assert field(found, "relevance") == {10.0} and min(field(found, "accuracy")) >= 9.0
    assert rules.IDENTIFIER_RE.search("카톡 아이디: baker_kim") and rules.IDENTIFIER_RE.search(
        "LINE ID sato_mill77"
    )
    # near miss: the word ID with nothing after it is no identifier
    assert not rules.IDENTIFIER_RE.search("ID 확인 필요")


def test_two_prices_of_one_thing_later_in_the_sentence_under_two_words_conflict():
    memory = "바게트 1개 판매가 4,500원(매장). 바게트 1개 판매 가격: 5,000원."
    assert rules._value_conflicts(memory)
    found = verdicts("바게트 판매가 얼마로 해 놨지?", memory, ["바게트"])
    assert max(field(found, "accuracy")) <= 5.0
    # near miss: a weight and a price of one thing are no conflict
    assert rules._value_conflicts("바게트 1개 300g 판매가 4,500원.") == []


def test_a_current_value_asked_where_the_value_is_missing_lowers_nothing():
    memory = "사용자는 요즘 새벽 출근이 잦다고 함. 시나몬 롤 반죽이 잘 부풀기를 기대함. 주말에 영화를 봄. 화분을 새로 삼."
    found = verdicts("시나몬 롤 최종 발효 시간 얼마였지?", memory, ["시나몬 롤"])
    assert field(found, "accuracy") == {9.0}


def test_a_recalled_change_and_a_price_per_item():
    memory = (
        "2026-02-01: 퀵 배송 단가 건당 7,000원. 2026-10-01 업데이트: 계약 갱신으로 건당 6,000원으로 인하됨."
    )
    found = verdicts("퀵 배송 단가 바뀌었다고 했지, 지금 한 건에 얼마야?", memory, ["퀵 배송", "단가"])
    assert field(found, "relevance") == {10.0} and min(field(found, "completeness")) >= 9.0
    # near miss: a question with its own interrogative before the comma stays two questions
    assert len(rules._merge_reminders(["언제 바뀌었다고 했지", "지금 한 건에 얼마야"])) == 2


def test_a_figure_before_a_word_starting_with_a_unit_syllable_is_no_time():
    assert quantities("#3 시나몬 롤")[0].unit == ""
    # near misses: a unit with its particle, and a glued unit
    assert quantities("7 시에 만나")[0].unit == "시" and quantities("3일 뒤")[0].unit == "일"


def test_across_scripts_the_sentence_naming_the_entity_is_not_noise():
    found = verdicts(
        "Which flour did I order for the rye loaf?",
        "호밀빵 레시피: 밀가루 대신 독일산 호밀가루 T1150 사용.",
        ["호밀빵", "T1150"],
    )
    assert field(found, "noise") == {0.0}
