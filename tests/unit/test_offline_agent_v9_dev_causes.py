"""Agent rules from reading the v9 agent rows by kind (new postings, names and requests, never
v9's): sending (보내/발송/send) is a write; saving (저장/save) is an add; a hyphenated compound
("no-show") holds no verb; a sentence closing on a copula describes a state; a report of the
asked action in words that name nothing is vague, not unrelated; a plural person noun
(합격자들) names the whole group, and one member of it done is WEAK; one word in two forms
(이상/이상인) names no other target; a clause restricting the people listed ("경력 없는 사람") is
a filter; a Hangul name inside an English sentence is a person; a count of past times before a
finite past verb is no value. Each kind stands beside a near miss that must not fire."""

from __future__ import annotations

from assay.suites.agent.offline import actions as acts
from assay.suites.agent.offline.rules import _people
from tests.support.offline_families import agent_labels as labels
from tests.support.offline_families import agent_verdicts as verdicts


def test_sending_and_saving_are_writes():
    assert acts.request_action("P-640 1차 합격자 전원에게 면접 일정 문자 발송해 줘") == "UPDATE"
    assert acts.request_action("Send the offer letter to Priya Nair on P-640.") == "UPDATE"
    assert acts.message_action("고객 메모를 저장했어요.") == "UPDATE"  # into a field
    assert acts.message_action("새 공고를 저장했습니다.") == "ADD"
    # near misses: exporting (내보내) is no sending, and a send to a stage is a move
    assert acts.request_action("P-640 지원자 목록 엑셀로 내보내 줘") != "UPDATE"
    assert acts.request_action("Send Priya Nair on P-640 to the onsite stage.") == "MOVE"


def test_a_hyphenated_compound_holds_no_verb():
    assert acts.request_action("Reject the three no-show applicants on P-233.") == "UPDATE"
    # near miss: the verb itself still reads
    assert acts.request_action("Show the applicants on P-233.") == "VIEW"


def test_a_sentence_closing_on_a_copula_describes_a_state():
    found = verdicts("우채린 지원자 희망 입사일 3월 4일로 입력해 줘", "우채린 지원자의 현재 등록된 희망 입사일은 4월 1일입니다.")
    assert labels(found) == {"WEAK"} and labels(found, "intent_label") == {"VIEW"}
    # near miss: a past action reported
    assert acts.message_action("우채린 지원자의 희망 입사일을 3월 4일로 입력했습니다.") == "UPDATE"


def test_a_vague_report_of_the_asked_action_is_good():
    found = verdicts("Archive nothing; just mark the late applicants on P-233 as rejected.", "All set, I've updated their records.")
    assert labels(found) == {"GOOD"}
    assert labels(verdicts("P-233 지각 지원자 두 명 보류로 바꿔 줘", "네, 상태 바꿨습니다.")) == {"GOOD"}
    # near miss: another action in vague words is no report of the asked one
    assert labels(verdicts("P-233 지각 지원자 두 명 보류로 바꿔 줘", "네, 삭제했습니다.")).isdisjoint({"PERFECT", "GOOD"})


def test_one_member_of_a_plural_group_is_weak():
    assert acts.covers_all("P-640 서류 통과자들에게 과제 안내해 줘")
    found = verdicts("P-640 1차 합격자들한테 2차 면접 안내 메일 보내 줘", "P-640 1차 합격자 마도윤 님에게 2차 면접 안내 메일을 보냈습니다.")
    assert labels(found) == {"WEAK"}
    # near miss: one named person asked for, one done
    assert not acts.covers_all("P-640 마도윤 지원자한테 2차 면접 안내 메일 보내 줘")
    assert labels(verdicts("P-640 마도윤 지원자한테 2차 면접 안내 메일 보내 줘", "P-640 마도윤 지원자에게 2차 면접 안내 메일을 보냈습니다.")) <= {"PERFECT", "GOOD"}


def test_one_word_in_two_forms_names_no_other_target():
    found = verdicts("P-233 코딩 점수 70점 미만인 지원자만 보여 줘", "P-233 코딩 점수 70점 미만 지원자는 2명입니다: 석하윤, 진도하.")
    assert labels(found) <= {"PERFECT", "GOOD"}
    # near miss: another qualifier before the same noun is still another target
    assert labels(verdicts("P-233 코딩 점수 보여 줘", "P-233 면접 점수는 82점입니다.")) != {"PERFECT"}


def test_a_clause_restricting_the_people_listed_is_a_filter():
    query = "P-233 지원자 중 자기소개서 미제출인 사람 목록 줘"
    assert acts.missing_filter(query, "P-233 지원자 전체 12명입니다: 석하윤, 진도하 외 10명.")
    assert labels(verdicts(query, "P-233 지원자 전체 12명입니다: 석하윤, 진도하 외 10명.")) == {"PARTIAL"}
    # near miss: the filter named in the answer
    assert not acts.missing_filter(query, "P-233 자기소개서 미제출 지원자는 2명입니다: 석하윤, 진도하.")


def test_a_hangul_name_inside_an_english_sentence_is_a_person():
    assert "마도윤" in _people("Send the interview guide to 마도윤 on P-640.")
    found = verdicts("Send the interview guide to 마도윤 on P-640.", "The interview guide has been sent to 석하윤 on P-640.")
    assert labels(found) == {"RELATED_BUT_WRONG"}
    # near miss: the asked person
    assert labels(verdicts("Send the interview guide to 마도윤 on P-640.", "The interview guide has been sent to 마도윤 on P-640.")) == {"PERFECT"}
    assert "면접" not in _people("P-640 면접 일정 보여 줘")


def test_a_count_of_times_before_a_finite_past_verb_is_no_value():
    found = verdicts("P-233에 진도하 지원서가 세 번 접수됐어. 마지막 두 건 지워 줘", "P-233 진도하 지원자의 중복 지원서 2건을 삭제했습니다.")
    assert labels(found) <= {"PERFECT", "GOOD"}
    # near miss: a count the request asks for, not done
    assert labels(verdicts("P-233 진도하 지원서 3건 지워 줘", "P-233 진도하 지원서 1건을 삭제했습니다.")).isdisjoint({"PERFECT", "GOOD"})
