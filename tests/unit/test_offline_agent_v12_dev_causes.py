"""Agent causes the v10 and v12 held-out sets showed (read by kind in the v12 round), each pinned
on new example text in a domain no labelled set holds (a volunteer-shift scheduling assistant).
The rules alone: ``offline_jury(fitted=False)``."""

from __future__ import annotations

from tests.support.offline_families import agent_labels, agent_verdicts


def test_done_for_some_with_the_rest_reported_failed_is_partial():
    found = agent_verdicts(
        "S-210 토요일 배식 봉사에 권나래, 한도윤, 석진우 세 분 배정해 주세요",
        "S-210 토요일 배식 봉사에 권나래, 한도윤 님을 배정했습니다. 석진우 님은 같은 시간 다른 봉사와 겹쳐 배정하지 못했습니다.",
    )
    assert agent_labels(found) == {"PARTIAL"}, found


def test_a_name_ending_in_a_delete_cue_is_no_delete():
    # 지우 closing a name (석지우) in a listed result is no verb
    found = agent_verdicts(
        "S-305 봉사자 중에 운전 가능한 사람만 보여 줘",
        "S-305 봉사자 중 운전 가능한 분은 3명입니다: 권나래, 석지우, 한도윤.",
    )
    assert agent_labels(found, "intent_label") == {"VIEW"}, found
    assert agent_labels(found) <= {"PERFECT", "GOOD"}, found


def test_a_request_not_to_delete_rules_deletion_out():
    found = agent_verdicts(
        "S-112 권나래 봉사 신청은 지우지 마시고, 대기 처리만 해 주세요.",
        "S-112에서 권나래 님의 봉사 신청을 삭제했습니다.",
    )
    assert agent_labels(found) == {"RELATED_BUT_WRONG"}, found


def test_a_deflection_after_a_state_or_a_self_service_hint_is_failed():
    found = agent_verdicts(
        "S-210 봉사 확인서 일괄 발급해 줘",
        "봉사 확인서 발급은 센터 담당자만 할 수 있는 기능이에요. 담당자에게 요청해 보세요.",
    )
    assert agent_labels(found) == {"FAILED"}, found
    found = agent_verdicts(
        "S-210 봉사자 출석표 엑셀로 뽑아 줘",
        "출석표는 일정 화면의 '내보내기' 버튼으로 직접 엑셀 파일로 저장하실 수 있어요.",
    )
    assert agent_labels(found) == {"FAILED"}, found


def test_english_mark_tag_and_pull_up_are_read_and_a_negated_clause_is_a_filter():
    found = agent_verdicts("Please mark 권나래's orientation on S-305 as done.", "Done, it's marked as completed.")
    assert agent_labels(found) == {"GOOD"}, found
    found = agent_verdicts(
        "Could you pull up who on S-305 still hasn't signed the safety waiver?",
        "On S-305 (Riverside Cleanup), 2 volunteers have not signed the safety waiver yet: 한도윤 and Lena Ortiz.",
    )
    assert agent_labels(found, "intent_label") == {"VIEW"}, found
    assert agent_labels(found) <= {"PERFECT", "GOOD"}, found


def test_the_right_send_to_another_person_named_in_latin_script_is_related_but_wrong():
    found = agent_verdicts(
        "Send the shift reminder to 권나래 on S-210.", "The shift reminder has been sent to Lena Ortiz (S-210)."
    )
    assert agent_labels(found) == {"RELATED_BUT_WRONG"}, found


def test_the_asked_write_reported_beside_a_related_one_performs_the_asked_action():
    # a two-step request (move, then mail) with both steps reported: the first, asked, action
    found = agent_verdicts(
        "한도윤 님 S-305 현장 교육 단계로 옮기고, 옮긴 다음에 교육 안내 문자도 보내 주세요",
        "S-305 한도윤 님을 현장 교육 단계로 옮긴 뒤 교육 안내 문자를 발송했습니다.",
    )
    assert agent_labels(found, "intent_label") == {"MOVE"}, found
    assert "PERFECT" in agent_labels(found), found
    # an add with a detail written into a field
    found = agent_verdicts(
        "S-210 배식 봉사에 지인 소개로 온 모서연 님 등록해 주시겠어요? 소개해 준 분은 권나래 님이에요.",
        "S-210 배식 봉사에 모서연 님을 등록했고, 참여 경로는 지인 소개(소개자: 권나래)로 기록했습니다.",
    )
    assert agent_labels(found, "intent_label") == {"ADD"}, found


def test_a_memo_written_where_a_value_was_to_change_is_weak():
    found = agent_verdicts(
        "S-305 한도윤 봉사자 상태 활동 종료로 바꿔 줘",
        "S-305 한도윤 봉사자 메모에 '활동 종료 예정'이라고 남겨 두었습니다.",
    )
    assert agent_labels(found) == {"WEAK"}, found
    # a memo asked for and written is the asked action
    found = agent_verdicts(
        "S-305 한도윤 봉사자 메모에 '12월부터 활동 종료'라고 남겨 줘",
        "S-305 한도윤 봉사자 메모에 '12월부터 활동 종료'라고 남겨 두었습니다.",
    )
    assert agent_labels(found) <= {"PERFECT", "GOOD"}, found


def test_a_report_made_only_of_action_words_is_a_vague_good():
    found = agent_verdicts("Could you tag the three volunteers on S-305 who drive as 'driver'?", "Tags added.")
    assert agent_labels(found) == {"GOOD"}, found


def test_a_write_on_another_coded_shift_is_another_target_whatever_the_request_verb():
    # "연결해" is no action cue, but the request names S-210 and the message only S-118
    found = agent_verdicts("모서연 봉사자 S-210 배식 봉사에도 신청 연결해 줘", "모서연 봉사자를 S-118 도서 정리 봉사에 추가했습니다.")
    assert agent_labels(found) == {"RELATED_BUT_WRONG"}, found


def test_the_frame_of_an_indirect_english_request_names_no_target():
    # "I'd like to see who … hasn't been …": see is a look-up, and the request's frame words
    # (i'd, like, who, hasn't, been) are no target words the message must repeat
    found = agent_verdicts(
        "I'd like to see who on S-305 hasn't been called yet.",
        "Here are the 2 volunteers on S-305 (Riverside Cleanup) with no call logged yet: 한도윤, Lena Ortiz.",
    )
    assert agent_labels(found, "intent_label") == {"VIEW"}, found
    assert agent_labels(found) <= {"PERFECT", "GOOD"}, found
