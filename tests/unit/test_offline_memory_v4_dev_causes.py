"""Memory rules from reading the v4 memory rows by kind (new queries and memories): a change
asked about with 바꿨다/바꾼, and an entity that holds the query's own word is the thing asked
about, not another target."""

from __future__ import annotations

from tests.support.offline_families import memory_verdicts as verdicts


def test_a_change_asked_with_bakkwotda_and_only_the_old_value_stored_is_stale():
    query = "헬스장 PT 시간 바꿨다고 했잖아. 지금은 몇 시야?"
    memory = "PT 수업: 매주 화요일 저녁 7시 (2026-02 등록)."
    found = verdicts(query, memory, ["PT"])
    assert min(v["accuracy"] for v in found) <= 3
    assert any("변경 기록이 없음" in v["reasoning"] for v in found)


def test_an_entity_holding_the_query_word_is_not_another_target():
    query = "우리 콩이 간식 하루에 얼마나 주라고 했지?"
    memory = "반려묘 콩이(코리안숏헤어, 3살). 수의사 권장: 동결건조 간식 하루 5g 이내."
    found = verdicts(query, memory, ["콩이", "동결건조 간식"])
    assert min(v["accuracy"] for v in found) >= 8
    other = "몽이(이웃 강아지) 간식 하루 10g. 콩이: 사료만 먹음."
    # a truly other pet's value is still a target error: it answers nothing (the v5 round keeps
    # its accuracy, the fact being true of the other pet, and lowers relevance and completeness)
    assert max(v["completeness"] for v in verdicts(query, other, ["콩이", "몽이"])) <= 2
