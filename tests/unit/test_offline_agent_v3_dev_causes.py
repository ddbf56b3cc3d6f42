"""Agent rules from reading the v3 agent rows by kind (new sentences): another stage by
ordinal, another posting by code, the same coded posting described in other words, a reply about
something else, a confirmation question, scheduling verbs, and a filter left out."""

from __future__ import annotations

from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt

AGENT = get_prompt("agent_intent")


def verdicts(query: str, message: str, expected: str = "") -> list[str]:
    item = {"query": query, "assistant_message": message, "expected_result": expected}
    return [judge.verdict(AGENT, item)["verdict"] for judge in offline_jury()]


def labels(query: str, message: str) -> list[str]:
    item = {"query": query, "assistant_message": message}
    return [judge.verdict(AGENT, item)["intent_label"] for judge in offline_jury()]


def test_moved_to_another_stage_named_by_ordinal_is_related_but_wrong():
    assert set(verdicts("한지우 지원자를 2차 면접 단계로 옮겨줘", "한지우 지원자를 최종 면접 단계로 이동했습니다.")) == {
        "RELATED_BUT_WRONG"
    }


def test_right_action_on_another_coded_posting_is_related_but_wrong():
    got = verdicts("Q-210 공고에 서하준 지원자 등록해줘", "Q-377 데이터 분석가 공고에 서하준 지원자를 등록했습니다.")
    assert set(got) == {"RELATED_BUT_WRONG"}


def test_coded_posting_described_in_other_words_is_the_same_target():
    got = verdicts("Q-210 공고 지원자 목록 보여줘", "Q-210 데이터 분석가 공고 지원자 목록입니다: 서하준, 윤채아.")
    assert "RELATED_BUT_WRONG" not in got


def test_reply_about_something_the_request_does_not_name_is_failed():
    assert set(verdicts("Q-210 공고 마감일 알려줘", "이번 주말에는 전국에 비 소식이 있습니다.")) == {"FAILED"}


def test_question_before_acting_is_a_clarification():
    message = "Q-210 지원자 8명에게 면접 안내 문자를 보낼까요? 확인해 주시면 바로 발송할게요."
    assert set(labels("Q-210 지원자 전원에게 면접 안내 문자 보내줘", message)) == {"CLARIFY"}


def test_scheduling_verbs_are_an_add():
    assert set(verdicts("윤채아 지원자 2차 면접 금요일 오전 10시로 잡아줘", "면접을 금요일 오전 10시로 등록했습니다.")) <= {
        "GOOD",
        "PERFECT",
    }


def test_list_without_the_asked_filter_is_at_most_partial():
    got = verdicts("Q-210에서 자격증 2개 이상 가진 지원자만 보여줘", "Q-210 공고 지원자 목록입니다: 서하준, 윤채아, 고은별.")
    assert set(got) <= {"PARTIAL", "WEAK"}
