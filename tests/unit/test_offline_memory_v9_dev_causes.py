"""Memory rules from reading the v9 memory rows by kind (a gardening, a gym and a travel memory,
not v9's language-tutor and book-club ones): nothing stored is accuracy 5; entities alone are
3/1/5; a topic-only memory with a specific fact is accuracy 9, a mere mention 6; a memory with
nothing of the query is relevance 0 and noise 10; kinship words name other people; raised or
lowered values are changes, replaced parts are events; a recalled clause before the question is
context; a price per unit names no attribute; synonyms name an attribute, also across scripts;
a month, a progress and a count of things want their own kind of answer; two prices of one
thing under two words conflict; a chatty memory is noisy. Each kind stands beside a near miss
that must not fire."""

from __future__ import annotations

from tests.support.offline_families import memory_verdicts as verdicts


def field(found: list[dict], key: str) -> set[float]:
    return {float(v[key]) for v in found}


def test_nothing_stored_is_accuracy_five_and_entities_alone_are_three_one_five():
    found = verdicts("텃밭 퇴비 언제 줬지?", "", [])
    assert field(found, "accuracy") == {5.0} and field(found, "relevance") == {0.0}
    only = verdicts("텃밭 퇴비 언제 줬지?", "", ["텃밭", "퇴비"])
    assert field(only, "relevance") == {3.0} and field(only, "completeness") == {1.0} and field(only, "accuracy") == {5.0}
    # near miss: entities that touch nothing of the query
    assert field(verdicts("텃밭 퇴비 언제 줬지?", "", ["헬스장"]), "relevance") == {1.0}


def test_a_specific_topic_fact_is_accurate_a_mere_mention_is_not_judged():
    found = verdicts("헬스장 PT 다음 예약 언제야?", "헬스장 PT: 트레이너 한도윤, 10회권 중 6회 사용.", ["헬스장", "PT"])
    assert field(found, "relevance") == {5.0} and field(found, "accuracy") == {9.0}
    # near miss: only that the topic came up
    mention = verdicts("헬스장 PT 다음 예약 언제야?", "헬스장 PT에 대해 이야기함.", ["PT"])
    assert field(mention, "accuracy") == {6.0}


def test_a_memory_with_nothing_of_the_query_is_all_noise():
    found = verdicts("텃밭 퇴비 언제 줬지?", "사용자는 주말에 자전거를 탐. 고양이 이름은 모모.", [])
    assert field(found, "relevance") == {0.0} and field(found, "noise") == {10.0}
    # near misses: a memory on the topic is not all noise, nor a paraphrase tied by a person alias
    assert max(field(verdicts("텃밭 퇴비 언제 줬지?", "텃밭 퇴비 2026-04-02 줌.", ["텃밭"]), "noise")) < 10
    paraphrase = verdicts("아빠랑 등산 갈 때 챙길 거 있었지?", "아버지(70세)는 고혈압약 복용 중, 무릎 보호대 필요.", ["아버지"])
    assert max(field(paraphrase, "noise")) < 10


def test_kinship_words_name_other_people():
    found = verdicts("조카 수영 강습 몇 시였지?", "사용자 요가 화·목 07:00. 남동생 수영 강습 토 10:00.", ["요가", "수영 강습"])
    assert max(field(found, "relevance")) <= 5.0
    # near miss: the asked person is named
    assert field(verdicts("남동생 수영 강습 몇 시였지?", "남동생 수영 강습 토 10:00.", ["수영 강습"]), "relevance") == {10.0}


def test_a_raised_value_is_a_change_a_replaced_part_is_an_event():
    stale = verdicts("헬스장 월회비 올렸다며, 지금 얼마야?", "헬스장 월회비: 월 66,000원(자동이체).", ["헬스장"])
    assert max(field(stale, "accuracy")) <= 3.0
    # near miss: when a part was replaced asks for a date, not a new value
    event = verdicts("자전거 체인 언제 교체했지?", "자전거 체인 교체 2026-05-03.", ["자전거"])
    assert field(event, "accuracy") == {9.0}


def test_a_recalled_clause_before_the_question_is_context():
    memory = "2026-03-01: 요가 수업 장소 3층 A홀. 2026-05-20 업데이트: 6월부터 5층 B홀로 옮김."
    found = verdicts("요가 수업 장소 바뀌었다며, 이번 주엔 어디야?", memory, ["요가"])
    assert field(found, "completeness") == {10.0} or min(field(found, "completeness")) >= 9.0
    # near miss: two real questions stay two facets
    two = verdicts("요가 수업 장소랑 강사 이름 알려줘", "요가 수업 장소 3층 A홀.", ["요가"])
    assert max(field(two, "completeness")) < 9.0


def test_a_price_per_unit_and_synonyms_name_the_attribute():
    found = verdicts("PT 한 번에 얼마 내지?", "PT 수업료: 회당 55,000원.", ["PT"])
    assert sum(v["relevance"] == 10 for v in found) >= 2
    exam = verdicts("수영 자격 시험 날짜 언제였지?", "수영 자격 응시: 2027-03-13(토) 올림픽수영장.", ["수영 자격"])
    assert sum(v["relevance"] == 10 for v in exam) >= 2  # the word judges; one n-gram judge may differ
    # near miss: another attribute's date does not answer
    other = verdicts("수영 자격 시험 날짜 언제였지?", "수영 자격 교재 구매 2027-01-05.", ["수영 자격"])
    assert max(field(other, "relevance")) < 10.0


def test_across_scripts_the_glossary_finds_the_query_words():
    found = verdicts("온라인 요가 수업 선생님 이름 뭐였지?", "Online yoga class: instructor Mira Patel, Mon/Wed 06:30.", ["Mira Patel"])
    assert field(found, "relevance") == {10.0}
    # near miss: an English memory on something else, with a time, answers no month asked
    off = verdicts("텃밭 모임 당번 맡은 달이 언제였지?", "Online yoga class: instructor Mira Patel, Mon/Wed 06:30.", ["Mira Patel"])
    assert max(field(off, "relevance")) <= 5.0


def test_progress_and_counts_want_their_own_kind_of_answer():
    found = verdicts("《총균쇠》 어디까지 읽었지?", "《총균쇠》가 재미있다고 함.", ["총균쇠"])
    assert max(field(found, "relevance")) <= 5.0
    assert field(verdicts("《총균쇠》 어디까지 읽었지?", "《총균쇠》 212쪽까지 읽음.", ["총균쇠"]), "relevance") == {10.0}
    count = verdicts("올해 읽은 책 몇 권이야?", "올해 읽은 책: 《총균쇠》, 《데미안》, 《파친코》.", ["독서"])
    assert field(count, "relevance") == {10.0}
    # near miss: a list of one says no count
    assert max(field(verdicts("올해 읽은 책 몇 권이야?", "올해 읽은 책: 《총균쇠》.", ["독서"]), "relevance")) < 10.0


def test_two_prices_of_one_thing_under_two_words_conflict():
    found = verdicts("PT 한 번에 얼마야?", "PT 수업료: 회당 55,000원. PT 1회 요금 50,000원.", ["PT"])
    assert max(field(found, "accuracy")) <= 4.0
    # near miss: one price written twice
    assert field(verdicts("PT 한 번에 얼마야?", "PT 수업료: 회당 55,000원. PT 1회 요금 55,000원.", ["PT"]), "accuracy") == {9.0}


def test_a_chatty_memory_is_noisy():
    memory = "사용자는 요즘 잠을 못 잔다고 함. 텃밭 퇴비 2026-04-02 줌. 주말에 친구를 만남. 새 운동화를 삼. 비가 와서 산책을 못 함."
    assert min(field(verdicts("텃밭 퇴비 언제 줬지?", memory, ["텃밭"]), "noise")) >= 6.0
    # near miss: a profile of facts on other topics is no chatter
    facts = "텃밭 퇴비 2026-04-02 줌. 텃밭 구획 14번. 물 주기 주 3회. 상추 2026-03-20 파종."
    assert max(field(verdicts("텃밭 퇴비 언제 줬지?", facts, ["텃밭"]), "noise")) <= 3.0


def test_another_targets_value_is_noise_for_the_query():
    found = verdicts("조카 수영 강습 몇 시였지?", "사용자 요가 화·목 07:00. 남동생 수영 강습 토 10:00.", ["요가", "수영 강습"])
    assert min(field(found, "noise")) >= 4.0
    # near miss: the asked person's own value is no noise
    own = verdicts("남동생 수영 강습 몇 시였지?", "남동생 수영 강습 토 10:00.", ["수영 강습"])
    assert max(field(own, "noise")) <= 2.0
