"""Memory rules from reading the v15 memory rows by kind (a bicycle-club and a houseplant memory,
not v15's choir and beekeeping ones): values of numbered items are no conflict; a fee word and its
stem conflict in one unit; two questions apart at a question mark or after "언제고" are two facets,
and a date asked of one of them is not asked of the other; "몇 대 몇" asks for a ratio; a date
before 까지 names a deadline; the frame of a recalled remark is not what is asked. Each kind stands
beside a near miss."""

from __future__ import annotations

from assay.suites.memory.offline import rules as rules
from tests.support.offline_families import memory_verdicts as verdicts


def field(found: list[dict], key: str) -> set[float]:
    return {float(v[key]) for v in found}


def test_values_of_numbered_items_do_not_conflict():
    memory = "화분 점검 9/3: 1번 화분 잎 12장, 이상 없음. 2번 화분 잎 9장, 새순 남."
    assert rules._value_conflicts(memory) == []
    # near miss: one item with two values conflicts, and an unlabelled value joins the item
    assert rules._value_conflicts("1번 화분 잎 12장. 1번 화분 잎 9장.")
    assert rules._value_conflicts("301호 관리비 12만 원. 재계산: 관리비 13만 원.")


def test_a_fee_word_and_its_stem_conflict_in_one_unit():
    assert rules._value_conflicts("자전거 대여: 1인 15,000원, 현장 결제. / 자전거 대여료 만 팔천 원, 미리 입금.")
    # near miss: an exam date and its fee (응시, 응시료) are two things
    assert rules._value_conflicts("자격시험 응시: 2027-04-10(토) 서울 고사장, 접수 완료(응시료 45,000원).") == []


def test_two_questions_are_two_facets():
    memory = "점검 기록 10/27(일): 1번 자전거 타이어 2개, 이상 없음. 2번 자전거 타이어 2개, 체인 교체함(시마노 링크)."
    found = verdicts("2번 자전거 마지막으로 점검한 게 언제고 체인 교체했어?", memory, ["2번 자전거", "체인", "점검"])
    assert field(found, "relevance") == {10.0} and min(field(found, "completeness")) >= 9.0
    yes_no = verdicts(
        "이번 모임 헬멧 꼭 써야 돼? 물통 챙겨 가도 되나",
        "11/2 모임 공지: 이번 라이딩은 헬멧 의무. 전원 물통 챙겨 출발(물통은 각자 준비).",
        ["라이딩 공지"],
    )
    assert min(field(yes_no, "relevance")) >= 8.0
    # near miss: a request after the question mark is no second question
    parts = rules.NEXT_QUESTION_RE.split("모임비 얼마였지? 총액도 계산해줘")
    assert parts == ["모임비 얼마였지? 총액도 계산해줘"]


def test_a_ratio_is_asked_by_how_many_to_how_many():
    memory = "분갈이 흙: 배양토:펄라이트 1:1로 섞음 (→ 9/3 정정: 다육이는 2:1로, 카페 글 보고 바꿈)."
    found = verdicts("다육이 흙 배합 몇 대 몇으로 하기로 했지?", memory, ["분갈이 흙", "다육이"])
    assert min(field(found, "relevance")) >= 8.0
    # near miss: a clock time is no ratio
    assert not rules.RATIO_RE.search("모임 10:30 출발")
    assert rules.RATIO_RE.search("2 대 1로 섞기")


def test_a_date_before_kkaji_names_the_deadline():
    memory = "동호회 총무 말로는 구청 생활체육 지원 신청이 12월 15일까지라고 함."
    found = verdicts("생활체육 지원 신청 마감 언제야?", memory, ["생활체육 지원", "구청"])
    assert field(found, "relevance") == {10.0}
    # near miss: a date with no 까지 does not name a deadline
    assert not rules._names("구청 생활체육 지원 신청은 12월 15일에 시작", ("마감",))


def test_the_frame_of_a_recalled_remark_is_not_asked():
    memory = "정기 라이딩(토요일 오전 7시)은 한강공원 뚝섬 집결. 11/14 공지: 12월부터 공사로 집결지는 잠실 '바람길' 카페 앞으로 옮김."
    found = verdicts("정기 라이딩 집결지 바뀌었다고 했던 거 같은데 지금 어디서 모여?", memory, ["정기 라이딩", "집결지"])
    assert min(field(found, "relevance")) >= 8.0
