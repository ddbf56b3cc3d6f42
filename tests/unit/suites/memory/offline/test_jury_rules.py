"""The offline jury's memory rules: each rule moves the scores into its band and says why in the
feedback. Examples are in domains the bundled datasets do not cover."""

from __future__ import annotations

from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt

JURY = offline_jury(fitted=False)  # the rules alone: their exact contract (the fitted stages are tested apart)
MEMORY = get_prompt("memory_usefulness")


def memory(query: str, memory_text: str, entities: list[str] | None = None) -> list[dict]:
    item = {"query": query, "memory": memory_text, "entities": entities or []}
    return [judge.verdict(MEMORY, item) for judge in JURY]


def test_memory_counter_after_myeot_is_answered_by_a_figure_with_that_counter():
    # "몇 명" is answered by "45명" even though the clause does not repeat the query's words.
    for v in memory("세미나 최종 참석 인원이 몇 명이야?", "장소는 본관 3층 대회의실. 참석 45명 확정, 다과 준비."):
        assert v["relevance"] >= 9 and v["completeness"] >= 7, v
    for v in memory("회의 시간이 몇 시간이었지?", "분기 리뷰 회의, 소요 2시간 예정. 발표자 3명."):
        assert v["relevance"] >= 9 and v["completeness"] >= 9, v


def test_memory_two_facets_one_missing_is_partial_and_names_the_missing_one():
    for v in memory("노트북 예산이랑 배송 주소 알려줘", "노트북 예산 150만 원, 14인치 선호."):
        assert v["relevance"] == 8 and 4 <= v["completeness"] <= 6, v
        assert any("배송" in m for m in v["missing_info"]), v["missing_info"]
        assert "2개 중 답 있음 1개" in v["reasoning"]


def test_memory_topic_only_is_mid_relevance_low_completeness():
    for v in memory("목표 체중이 몇 kg이었지?", "사용자는 체중 관리를 하고 있다."):
        assert 4 <= v["relevance"] <= 6 and v["completeness"] <= 3 and v["accuracy"] >= 6, v


def test_memory_change_asked_but_not_recorded_is_a_stale_value():
    stale = memory("동호회 모임 요일이 언제로 바뀌었지?", "동호회 모임은 매주 수요일 저녁 7시.")
    for v in stale:
        assert v["accuracy"] <= 3 and v["completeness"] <= 3, v
        assert "변경 기록이 없음" in v["reasoning"]
    recorded = memory("동호회 모임 요일이 언제로 바뀌었지?", "동호회 모임은 수요일에서 목요일 저녁 7시로 변경.")
    for v in recorded:
        assert v["accuracy"] >= 9 and v["completeness"] >= 9, v


def test_memory_value_beside_another_attribute_does_not_answer():
    # A date for the opening does not answer "when does it close"; the attribute word must be there.
    for v in memory("도서관 폐관 시간이 몇 시야?", "시립 도서관: 3월 2일 개관, 개관 09시, 열람실 2층."):
        assert v["relevance"] <= 6 and v["completeness"] <= 3, v
    for v in memory("도서관 개관 시간이 몇 시야?", "시립 도서관: 3월 2일 개관, 개관 09시, 열람실 2층."):
        assert v["relevance"] >= 9 and v["completeness"] >= 9, v


def test_memory_attribute_after_the_interrogative_counts_too():
    # "며칠 개강이야": the date answers when it stands beside 개강, whatever precedes the interrogative
    for v in memory("수영 강습 며칠 개강이야?", "수영: 3월 4일 개강, 주 2회 오전 반."):
        assert v["relevance"] >= 9 and v["completeness"] >= 9, v


def test_memory_plan_settled_later_is_not_undecided():
    settled = memory("보험 어디 가입했어?", "3월: 보험 가입할 예정. 4월: 한빛손해보험 가입 완료.")
    for v in settled:
        assert v["relevance"] >= 9 and "정해지지 않았" not in v["reasoning"], v


def test_memory_asked_attribute_of_someone_else_is_a_target_error():
    # the due date stored is the user's own; of the daughter only "soon" is stored
    entities = ["딸", "치과 검진"]
    for v in memory(
        "딸 치과 검진 예약일 언제야?",
        "사용자 치과 검진 예약일 5월 20일. 딸 치과 검진도 곧 예약해야 한다고 함.",
        entities,
    ):
        assert v["relevance"] <= 5 and v["completeness"] <= 2, v  # true of another: not inaccurate (v5 round)
        assert "다른 대상" in v["reasoning"]


def test_memory_query_figure_written_the_same_in_memory_is_a_shared_word():
    # "3회권" is how both sides name the pass; the price beside it answers.
    for v in memory("수영장 3회권 얼마였지?", "3회권 4만 5천 원, 주차 2시간 무료."):
        assert v["relevance"] >= 9 and v["completeness"] >= 9, v


def test_memory_undecided_value_is_the_topic_not_the_answer():
    undecided = memory("이사 업체 어디로 정했어?", "이사 업체는 아직 고르지 못해 견적만 비교 중, 미정.")
    for v in undecided:
        assert 6 <= v["relevance"] <= 8 and v["completeness"] <= 5, v
        assert "정해지지 않았" in v["reasoning"]


def test_memory_other_language_is_not_scored_as_irrelevant():
    # Words cannot be compared across scripts: neither "useful" nor "nothing of the query".
    for v in memory("What is my gym membership fee?", "헬스장 회원권 월 6만 원, 매주 화요일 PT."):
        assert 4 <= v["relevance"] <= 6, v
        assert "언어가 달라" in v["reasoning"]


def test_memory_price_rise_asked_but_only_the_old_price_stored_is_stale():
    for v in memory("요가 수강료 올랐다던데 지금 한 달 얼마야?", "요가 수강료 월 12만 원(1월 등록 당시)."):
        assert v["accuracy"] <= 3, v


def test_memory_value_tied_to_another_entity_is_a_target_error():
    entities = ["피아노 학원", "태권도"]
    confused = memory("피아노 학원비가 월 얼마였지?", "태권도 월 15만 원 등록. 피아노 학원 주 3회(월·수·금).", entities)
    for v in confused:
        assert v["relevance"] <= 5 and v["completeness"] <= 2, v  # true of another: not inaccurate (v5 round)
        assert "다른 대상 '태권도'" in v["reasoning"]
    right = memory("피아노 학원비가 월 얼마였지?", "피아노 학원 월 18만 원, 주 3회. 태권도 월 15만 원.", entities)
    for v in right:
        assert v["accuracy"] >= 9 and v["relevance"] >= 9, v


def test_memory_noise_counts_notices_resolved_items_and_off_query_sentences():
    query = "이번 달 관리비가 얼마야?"
    clean = memory(query, "이번 달 관리비 23만 원, 자동이체 25일.")
    noisy = memory(
        query,
        "[시스템] 상담 내용은 저장됩니다. 지난달 누수 문의는 해결됨. 이번 달 관리비 23만 원. "
        "엘리베이터 점검 안내. 주차 스티커 발급 완료.",
    )
    for c, n in zip(clean, noisy, strict=True):
        assert c["noise"] <= 1 and n["noise"] >= 5, (c, n)
        assert "안내·인사·해결된 항목 문장 4개" in n["reasoning"]
        # the notices do not hide the answer
        assert n["relevance"] >= 9


def test_memory_an_identifier_asked_for_is_answered_by_its_written_form():
    # a phone number, an e-mail address, a code: the sentence holding it need not say "번호"
    for v in memory("수영 강사님 전화번호 뭐였지?", "수영 강습은 '물결스윔'(010-3382-9104) 김도윤 강사에게 받기로 함."):
        assert v["relevance"] >= 9 and v["completeness"] >= 9, v
    for v in memory("세무사한테 서류 어느 메일로 보내야 했지?", "세무사 사무실: 서류는 tax@hanultax.kr 로 PDF 전송."):
        assert v["relevance"] >= 9, v
    # a date is no identifier, and "메일 왔었잖아 … 얼마야" asks an amount, not an address
    for v in memory("정수기 필터 번호 뭐였지?", "정수기 필터 교체 2026-04-12 완료, 다음 교체 2026-10."):
        assert v["completeness"] <= 5, v


def test_memory_another_named_person_or_household_holds_the_value():
    # the query asks about the husband; the values are the user's and a named colleague's
    found = memory("남편 건강검진 예약 날짜 언제였지?", "사용자 건강검진 2027-02-03 예약. 같은 팀 민호 씨는 2027-02-10에 받기로 함.")
    assert all(v["relevance"] <= 5 and v["completeness"] <= 2 for v in found), found
    # the in-laws' home asked, the values are ours and the sister's
    found = memory("시댁 에어컨 설치 언제 했더라?", "우리 집 에어컨: 2027-06 설치 예정. 언니네 에어컨은 2026-07에 설치함.")
    assert all(v["relevance"] <= 5 and v["completeness"] <= 2 for v in found), found


def test_memory_in_another_script_about_another_subject_is_unrelated():
    # an English memory whose Korean entity names another subject, for a Korean query
    found = memory("강아지 심장사상충 약 언제 먹였지?", "Gym membership — FitZone (핏존): renews on the 5th, locker 112.", ["핏존"])
    assert all(v["relevance"] == 0 and v["noise"] == 10 for v in found), found
    # the same English memory for an English query is not called unrelated
    assert all(v["relevance"] >= 5 and v["noise"] < 10 for v in memory(
        "When does my FitZone gym membership renew?", "Gym membership — FitZone (핏존): renews on the 5th, locker 112.", ["핏존"]))
