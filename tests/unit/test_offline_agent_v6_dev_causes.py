"""Agent rules from reading the v6 agent rows by cause (a help-desk ticket agent, not the v6
recruiting one): verbs of assigning (배정), leaving a comment (남겨), raising a figure (늘려),
picking out a list (뽑아) and pushing a date (push); an action the request rules out ("instead
of deleting", "삭제하지 말고"); a message that says it cannot act; one named person where the
whole group was asked. Each cause stands beside a near miss that must not fire."""

from __future__ import annotations

from assay.suites.agent.offline import actions as acts
from tests.support.offline_families import agent_labels as labels
from tests.support.offline_families import agent_verdicts as verdicts


def test_request_verbs_of_assigning_leaving_raising_picking_and_pushing():
    assert acts.request_action("T-88 티켓에 정하윤 매니저 배정해줘") == "UPDATE"
    assert acts.request_action("T-90 티켓에 '재현 불가' 코멘트 남겨줘") == "UPDATE"  # into a field
    assert acts.request_action("Q3 지원 인력 한도를 5명으로 늘려줘") == "UPDATE"
    assert acts.request_action("미해결 티켓 중에 긴급인 것만 뽑아줘") == "VIEW"
    assert acts.request_action("Push Mina Park's onboarding deadline to Monday") == "UPDATE"
    found = verdicts("T-88 티켓에 정하윤 매니저 배정해줘", "T-88 티켓에 정하윤 매니저를 배정했습니다.")
    assert labels(found) == {"PERFECT"} and labels(found, "intent_label") == {"UPDATE"}
    # near miss: a message that only reports without the verb is not made an update by it
    assert acts.request_action("T-88 티켓 보여줘") == "VIEW"


def test_a_vague_comment_or_deadline_change_is_good():
    assert labels(verdicts("T-90 티켓에 '재현 불가' 코멘트 남겨줘", "코멘트 남겼습니다.")) == {"GOOD"}
    assert labels(verdicts("Push Mina Park's onboarding deadline to Monday 9 a.m.", "The deadline has been updated.")) == {"GOOD"}
    # near miss: the full report is perfect
    full = verdicts("T-90 티켓에 '재현 불가' 코멘트 남겨줘", "T-90 티켓에 '재현 불가' 코멘트를 남겼습니다.")
    assert labels(full) == {"PERFECT"}


def test_the_action_the_request_rules_out():
    assert acts.excluded_actions("Archive ticket T-512 instead of deleting it.") == {"DELETE"}
    assert acts.excluded_actions("T-512 티켓 삭제하지 말고 보류로 바꿔줘") == {"DELETE"}
    assert acts.request_action("T-512 티켓 삭제하지 말고 보류로 바꿔줘") == "UPDATE"
    wrong = verdicts("T-512 티켓 삭제하지 말고 보류로 바꿔줘", "T-512 티켓을 삭제했습니다.")
    assert labels(wrong) == {"RELATED_BUT_WRONG"}
    # near miss: the asked change done
    right = verdicts("T-512 티켓 삭제하지 말고 보류로 바꿔줘", "T-512 티켓을 보류로 변경했습니다.")
    assert labels(right) <= {"PERFECT", "GOOD"}
    assert acts.excluded_actions("T-512 티켓 보류로 바꿔줘") == set()


def test_a_message_that_says_it_cannot_act_fails():
    found = verdicts("T-88 담당자를 정하윤으로 바꿔줘", "담당자 변경은 팀장 권한이라 제가 처리해 드릴 수 없어요.")
    assert labels(found) == {"FAILED"}
    # near miss: done
    done = verdicts("T-88 담당자를 정하윤으로 바꿔줘", "T-88 담당자를 정하윤으로 변경했습니다.")
    assert labels(done) <= {"PERFECT", "GOOD"}


def test_one_named_person_where_the_whole_group_was_asked():
    found = verdicts("대기 중인 티켓 고객 모두 2단계 검토로 넘겨줘", "한서윤 님 티켓을 2단계 검토로 넘겼습니다.")
    assert labels(found) == {"PARTIAL"}
    # near miss: the group reported as a whole
    whole = verdicts("대기 중인 티켓 고객 모두 2단계 검토로 넘겨줘", "대기 중인 티켓 고객 모두 2단계 검토로 넘겼습니다.")
    assert labels(whole) <= {"PERFECT", "GOOD"}
