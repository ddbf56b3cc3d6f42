"""Agent rules from reading the v5 agent rows by kind (new sentences, other postings and
wordings): verbs the cue lists missed (고쳐, 올려, 추려, reschedule, on hold, "is now at"), the
verb closing a message over a cue in a clause before it, a state described instead of an action,
English failures, a deflection to someone else, a vague target, another destination stage or
status, a second target left out, a list without its filter, another person on the same coded
posting and English function words as target words."""

from __future__ import annotations

from assay.suites.agent.offline import actions as acts
from tests.support.offline_families import agent_labels as labels
from tests.support.offline_families import agent_verdicts as verdicts


def test_korean_and_english_verbs_the_cue_lists_missed():
    assert acts.request_action("Q-31 변서준 지원자 이메일 주소를 seo@ex.com으로 고쳐줘") == "UPDATE"
    assert acts.request_action("Q-31 변서준 지원자 최종 면접으로 올려줘") == "MOVE"
    assert acts.request_action("Q-31에서 토익 900점 넘는 지원자만 추려줘") == "VIEW"
    assert acts.request_action("Reschedule Noor Haddad's Q-31 call to Friday.") == "UPDATE"
    assert acts.request_action("Put Noor Haddad's Q-31 application on hold.") == "UPDATE"
    assert acts.message_action("Noor Haddad is now at the offer stage for Q-31.") == "MOVE"


def test_the_verb_closing_the_message_wins_over_a_cue_in_a_clause_before_it():
    found = verdicts(
        "Q-31 공고에서 변서준 지원자 삭제해줘",
        "본인 요청이 확인되어 Q-31 공고에서 변서준 지원자를 삭제했습니다.",
    )
    assert labels(found, "intent_label") == {"DELETE"}
    assert labels(found) == {"PERFECT"}


def test_a_state_described_is_a_look_up_not_the_change_asked():
    found = verdicts(
        "Q-31 변서준 지원자 면접 장소를 본사 3층으로 바꿔줘",
        "Q-31 변서준 지원자의 면접 장소는 현재 판교 사옥으로 등록되어 있습니다.",
    )
    assert labels(found, "intent_label") == {"VIEW"}
    assert labels(found) == {"WEAK"}
    # a change reported in the passive is still the change
    done = acts.message_action("Q-31 변서준 지원자의 면접 장소가 본사 3층으로 변경되었습니다.")
    assert done == "UPDATE"


def test_an_english_failure_is_an_error():
    found = verdicts(
        "Archive the Q-31 posting.", "Something went wrong on our side. Please try again in a few minutes."
    )
    assert labels(found, "intent_label") == {"ERROR"}
    assert labels(found) == {"FAILED"}


def test_a_deflection_to_someone_else_performs_nothing():
    found = verdicts("Q-31 공고 지원 마감을 1월 20일로 연장해줘", "마감일 연장은 인사팀에 문의해 주세요.")
    assert labels(found) == {"FAILED"}
    assert labels(found, "intent_label") == {"OTHER"}
    # a done action followed by a pointer elsewhere is not a deflection
    assert not acts.is_deflection("마감일을 1월 20일로 연장했습니다, 자세한 건 인사팀에 문의해 주세요.")


def test_the_right_action_with_a_vague_target_is_good():
    found = verdicts("Q-31 변서준 지원자 평가표에 '리더십 우수' 코멘트 추가해줘", "코멘트를 추가했습니다.")
    assert labels(found) == {"GOOD"}
    assert labels(found, "intent_label") == {"UPDATE"}  # a comment on a record changes it
    found = verdicts(
        "Move Noor Haddad to the technical interview stage on Q-31.",
        "Done as requested, the candidate has been moved.",
    )
    assert labels(found) == {"GOOD"}
    # a message naming someone else is no vague message
    other = verdicts(
        "Q-31 변서준 지원자 평가표에 '리더십 우수' 코멘트 추가해줘",
        "오하린 지원자 평가표에 코멘트를 추가했습니다.",
    )
    assert "GOOD" not in labels(other) and "PERFECT" not in labels(other)


def test_a_move_to_another_stage_or_a_status_other_than_asked_is_related_but_wrong():
    found = verdicts(
        "Q-31 변서준 지원자 처우 협의 단계로 옮겨줘", "Q-31 공고 변서준 지원자를 실무 면접 단계로 옮겼습니다."
    )
    assert labels(found) == {"RELATED_BUT_WRONG"}
    found = verdicts(
        "Put Noor Haddad's Q-31 application on hold.", "Noor Haddad's Q-31 application has been rejected."
    )
    assert labels(found) == {"RELATED_BUT_WRONG"}
    # the stage the request names elsewhere, referred to as "the next one", is not another stage
    near = verdicts(
        "Q-31 변서준 지원자 실무 면접 통과시켜서 임원 면접으로 올려줘",
        "변서준 님을 다음 면접으로 올렸습니다.",
    )
    assert "RELATED_BUT_WRONG" not in labels(near)
    # the status asked, in other words, is not another status
    same = verdicts("Q-31 변서준 지원자 보류 처리해줘", "Q-31 변서준 지원자를 보류 상태로 변경했습니다.")
    assert labels(same) <= {"PERFECT", "GOOD"}


def test_one_of_two_named_targets_left_out_is_partial():
    found = verdicts(
        "Add Noor Haddad and 변서준 to Q-31.", "Noor Haddad has been added to Q-31 (Data Engineer)."
    )
    assert labels(found) == {"PARTIAL"}
    both = verdicts("Add Noor Haddad and 변서준 to Q-31.", "Noor Haddad and 변서준 have been added to Q-31.")
    assert labels(both) == {"PERFECT"}
    # two verbs joined by "and" are not two targets
    assert acts.missing_member("Move Noor to screening and notify her.", "Moved Noor to screening.") == ""


def test_a_list_without_its_filter_is_partial():
    found = verdicts(
        "Q-31에서 정보처리기사 자격 있는 지원자만 추려줘",
        "Q-31 데이터 엔지니어 공고 지원자 전체 목록입니다: 변서준, 오하린 외 9명.",
    )
    assert labels(found) == {"PARTIAL"}
    kept = verdicts(
        "Q-31에서 정보처리기사 자격 있는 지원자만 추려줘",
        "Q-31 공고에서 정보처리기사 자격이 있는 지원자는 변서준, 오하린 2명입니다.",
    )
    assert labels(kept) == {"PERFECT"}


def test_another_person_on_the_same_coded_posting_is_another_target():
    found = verdicts("Q-31 변서준 지원자 삭제해줘", "Q-31 공고에서 오하린 지원자를 삭제했습니다.")
    assert labels(found) == {"RELATED_BUT_WRONG"}
    # the posting described in other words before the same person is not
    same = verdicts(
        "Q-31 변서준 지원자 삭제해줘", "Q-31 데이터 엔지니어 공고에서 변서준 지원자를 삭제했습니다."
    )
    assert labels(same) == {"PERFECT"}
    # a code's digits before a name starting with 차 are no stage ordinal
    assert (
        acts.other_values("Q-42 차유림 지원자 삭제해줘", "Q-42 공고에서 차유림 지원자를 삭제했습니다.") == []
    )


def test_english_function_words_are_not_target_words():
    found = verdicts(
        "Move Noor Haddad to the technical interview stage on Q-31.",
        "Noor Haddad is now at the technical interview stage for Q-31 (Data Engineer).",
    )
    assert labels(found) == {"PERFECT"}


def test_a_present_tense_change_with_hyeonjae_is_no_look_up():
    assert acts.message_action("현재 Q-31 공고 마감일을 1월 20일로 변경합니다.") == "UPDATE"
