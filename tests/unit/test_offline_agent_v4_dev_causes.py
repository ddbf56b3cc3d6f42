"""Agent rules from reading the v4 agent rows by kind (new sentences): another stage of the
same coded posting, 넘겼 as a move, and the honorific 님 after a name."""

from __future__ import annotations

from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt

AGENT = get_prompt("agent_intent")


def verdicts(query: str, message: str) -> list[dict]:
    item = {"query": query, "assistant_message": message, "expected_result": ""}
    return [judge.verdict(AGENT, item) for judge in offline_jury()]


def test_another_stage_of_the_same_coded_posting_is_related_but_wrong():
    found = verdicts("Q-210 공고 남궁별 지원자를 2차 면접 단계로 옮겨줘", "Q-210 공고 남궁별 지원자를 최종 면접 단계로 옮겼습니다.")
    assert {v["verdict"] for v in found} == {"RELATED_BUT_WRONG"}
    # the same stage of the same posting, described in other words, is not
    same = verdicts("Q-210 공고 남궁별 지원자를 2차 면접 단계로 옮겨줘", "Q-210 데이터 분석가 공고 남궁별 지원자를 2차 면접 단계로 옮겼습니다.")
    assert "RELATED_BUT_WRONG" not in {v["verdict"] for v in same}


def test_passed_on_with_the_honorific_is_a_move_on_the_same_person():
    found = verdicts("Q-210 공고 남궁별 지원자 다음 단계로 넘겨줘", "남궁별 님을 다음 단계로 넘겼습니다.")
    assert {v["intent_label"] for v in found} == {"MOVE"}
    assert not {v["verdict"] for v in found} & {"RELATED_BUT_WRONG", "FAILED", "WEAK"}
