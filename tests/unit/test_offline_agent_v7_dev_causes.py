"""Agent rules from reading the v7 agent rows by cause (new postings, names and requests, never
v7's): a negative imperative ("don't reject him") rules an action and its status out; a closing
request for leave after a stated consequence is a clarification; a move "to the … stage" is a
move without a verb cue; a predicate before a role word ("소지한 지원자") names no other
target; a count of past times ("두 번 들어간") is no value the message must repeat; a write on a
person the request does not name, while its own person is missing, is another target. Each
cause stands beside a near miss that must not fire."""

from __future__ import annotations

from assay.suites.agent.offline import actions as acts
from tests.support.offline_families import agent_labels as labels
from tests.support.offline_families import agent_verdicts as verdicts


def test_a_negative_imperative_rules_the_action_out():
    query = "Move 하태윤 to the offer stage on P-311 — don't reject him."
    assert "UPDATE" in acts.excluded_actions(query)
    found = verdicts(query, "하태윤's application on P-311 has been rejected.")
    assert labels(found) == {"RELATED_BUT_WRONG"}
    # near miss: the rejection was what the request asked for
    assert labels(verdicts("Reject 하태윤 on P-311.", "하태윤's application on P-311 has been rejected.")) <= {"PERFECT", "GOOD"}


def test_a_closing_request_for_leave_is_a_clarification():
    found = verdicts("P-208 미응시자 지원서 모두 지워줘", "P-208 미응시자 14명의 지원서는 지우고 나면 취소할 수 없습니다. 계속할까요?")
    assert labels(found) == {"PARTIAL"} and labels(found, "intent_label") == {"CLARIFY"}
    # near miss: an open greeting question asks nothing about the request
    assert labels(verdicts("P-208 미응시자 지원서 모두 지워줘", "안녕하세요! 무엇을 도와드릴까요?"), "intent_label") != {"CLARIFY"}


def test_a_move_to_a_stage_without_a_verb_cue():
    assert acts.request_action("Send Mei Lin on P-512 to the onsite stage.") == "MOVE"
    assert labels(verdicts("Send Mei Lin on P-512 to the onsite stage.", "Moved to the next stage.")) == {"GOOD"}
    # near miss: a request with no destination and no verb is still unread
    assert acts.request_action("Mei Lin on P-512, please.") is None


def test_a_predicate_before_a_role_word_names_no_other_target():
    query = "P-730 공고에서 운전면허 있는 지원자만 보여줘"
    assert labels(verdicts(query, "P-730 공고에서 운전면허를 소지한 지원자는 4명입니다: 고은별, 차도윤, 남하람, 유시온.")) == {"PERFECT"}
    # near miss: the whole list without the filter
    assert labels(verdicts(query, "P-730 공고 지원자 전체 목록입니다: 고은별, 차도윤 외 20명.")) == {"PARTIAL"}


def test_a_count_of_past_times_is_no_value_to_repeat():
    found = verdicts("P-415 공고에 두 번 들어간 노은채 지원서 하나 삭제해줘", "P-415 공고에서 중복된 노은채 지원서 1건을 삭제했습니다.")
    assert labels(found) <= {"PERFECT", "GOOD"}
    # near miss: a count the request asks for, not done
    assert labels(verdicts("P-415 공고 노은채 지원서 2건 삭제해줘", "P-415 공고에서 노은채 지원서 1건을 삭제했습니다.")).isdisjoint({"PERFECT", "GOOD"})


def test_a_write_on_a_person_the_request_does_not_name():
    found = verdicts("P-219 Daniel Kim 지원서 삭제해줘", "P-219 공고에서 방서윤 지원자의 지원서를 삭제했습니다.")
    assert labels(found) == {"RELATED_BUT_WRONG"}
    # near misses: the asked person; and a list that names others is no write on them
    assert labels(verdicts("P-219 Daniel Kim 지원서 삭제해줘", "P-219 공고에서 Daniel Kim 지원자의 지원서를 삭제했습니다.")) == {"PERFECT"}
    assert labels(verdicts("P-219 공고에서 Daniel Kim 지원서 보여줘", "P-219 공고 지원자 목록입니다: 방서윤, 여도현.")) != {"RELATED_BUT_WRONG"}
