"""Memory rules from reading the v2-v8 memory rows by cause (a moving-house and a dentist memory,
not v8's wedding and job-hunting ones): a dated update sentence right after the answering one
continues it though it names none of the query's words; lowering, raising and moving a value
forward are changes the query asks about; a "what/which" asked across scripts is answered by
the prompt's entity written in the memory. Each cause stands beside a near miss that must not
fire."""

from __future__ import annotations

from tests.support.offline_families import memory_verdicts as verdicts


def field(found: list[dict], key: str) -> set[float]:
    return {float(v[key]) for v in found}


def test_a_dated_update_right_after_the_answer_continues_it():
    memory = "2026-03-02: 이삿짐센터 반포익스프레스 이사 2026-04-18 오전 8시로 확정. 2026-03-20 업데이트: 기사님 사정으로 2026-04-19 오전 9시로 변경."
    found = verdicts("반포익스프레스 이사 날짜 바뀌었다며, 언제로 됐어?", memory, ["반포익스프레스", "이사"])
    assert field(found, "relevance") == {10.0} and field(found, "accuracy") == {8.0}
    assert not any("변경 기록이 없음" in v["reasoning"] for v in found)
    # near miss: the next sentence is a notice that merely says 변경, not a dated update
    notice = "이삿짐센터 반포익스프레스 이사 2026-04-18 오전 8시로 확정. 아파트 관리실 주차 규정 변경 안내를 받음."
    stale = verdicts("반포익스프레스 이사 날짜 바뀌었다며, 언제로 됐어?", notice, ["반포익스프레스", "이사"])
    assert max(field(stale, "accuracy")) <= 3.0


def test_a_lowered_value_is_a_change_asked_about():
    found = verdicts("치과 스케일링 비용 낮춰 준다고 했잖아, 지금 얼마야?", "치과 스케일링: 1회 45,000원.", ["치과"])
    assert max(field(found, "accuracy")) <= 3.0 and max(field(found, "relevance")) <= 7.0
    # near miss: the same value asked without a change
    plain = verdicts("치과 스케일링 비용 얼마야?", "치과 스케일링: 1회 45,000원.", ["치과"])
    assert field(plain, "accuracy") == {9.0}


def test_what_asked_across_scripts_is_bridged_by_the_entity():
    memory = "치과 임플란트: 오스템 임플란트로 하기로 함, 상악 왼쪽 어금니."
    found = verdicts("Which implant brand did I choose at the dentist?", memory, ["오스템", "임플란트"])
    assert field(found, "relevance") == {8.0} and field(found, "accuracy") == {9.0}
    # near miss: the memory writes none of the prompt's entities: no evidence either way
    other = verdicts("Which implant brand did I choose at the dentist?", "이사 업체: 반포익스프레스로 계약함.", ["오스템"])
    assert field(other, "relevance") == {5.0}
    # near miss: a typed question (how much) with no figure in the entity's sentence stays unbridged
    typed = verdicts("How much was the implant?", memory, ["오스템", "임플란트"])
    assert max(field(typed, "relevance")) <= 5.0
