"""Memory rules from reading the v7 memory rows by cause (an insurance-and-gym household memory,
not v7's gardening and bills ones): values filed under different people are no conflict; a dated
update sentence records the change the query asks about; a person the query asks about whom the
memory never names is a target error also when only sentences on the topic name other people.
Each cause stands beside a near miss that must not fire."""

from __future__ import annotations

from assay.suites.memory.offline import rules as mem
from tests.support.offline_families import memory_verdicts as verdicts


def field(found: list[dict], key: str) -> set[float]:
    return {float(v[key]) for v in found}


def test_values_of_different_people_are_no_conflict():
    assert mem._value_conflicts("사용자 보험료: 월 48,000원. 아내 보험료: 월 36,000원.") == []
    # near miss: one subject, two values, no owner
    assert mem._value_conflicts("보험료: 월 48,000원. 보험료: 월 36,000원.")


def test_a_dated_update_records_the_change_asked_about():
    memory = "2026-01-05: 헬스장 사물함 31번 배정. 2026-06-10 업데이트: 리모델링으로 58번 사물함으로 옮김."
    found = verdicts("헬스장 사물함 번호 바뀌었다며, 지금 몇 번이야?", memory, ["헬스장", "사물함"])
    assert field(found, "accuracy") == {8.0} and field(found, "relevance") == {10.0}
    # near miss: only the old value, the change asked about not stored
    stale = verdicts("헬스장 사물함 번호 바뀌었다며, 지금 몇 번이야?", "헬스장 사물함: 31번 배정.", ["헬스장", "사물함"])
    assert max(field(stale, "accuracy")) <= 3.0


def test_topic_sentences_of_other_people_only():
    memory = "사용자 자동차보험: 보장 내용 비교 중. 딸 자동차보험: 가입 검토 중."
    found = verdicts("남편 자동차보험료 얼마 나와?", memory, ["자동차보험"])
    assert max(field(found, "completeness")) <= 2.0 and max(field(found, "relevance")) <= 5.0
    assert any("다른 대상" in v["reasoning"] for v in found)
    # near miss: the memory names the asked person on the topic
    named = verdicts("남편 자동차보험료 얼마 나와?", "남편 자동차보험: 보장 내용 비교 중.", ["자동차보험"])
    assert not any("다른 대상" in v["reasoning"] for v in named)
