"""Agent causes the v13 held-out set showed (read by kind after v14 was written), each pinned on
new example text in a domain no labelled set holds (a clinic's shift-roster assistant): a move
to another stage of the same kind (실무 면접 → 간호부장 면접 is 야간 근무 → 주간 근무 here); a
reason clause names no second target and asks no action; an accented Latin name is a name, and
the asked change done on another person under a near action is on another target; an English
message stating a current value reports no change. The rules alone: ``offline_jury(fitted=False)``."""

from __future__ import annotations

from tests.support.offline_families import agent_labels, agent_verdicts


def test_a_move_to_another_stage_with_the_same_head_noun_is_wrong():
    found = agent_verdicts(
        "R-204 간호사 곽도현 님 야간 근무 조로 옮겨 줘.", "R-204 곽도현 님을 주간 근무 조로 옮겼습니다."
    )
    assert agent_labels(found) == {"RELATED_BUT_WRONG"}, found
    # near miss: the asked stage
    same = agent_verdicts(
        "R-204 간호사 곽도현 님 야간 근무 조로 옮겨 줘.", "R-204 곽도현 님을 야간 근무 조로 옮겼습니다."
    )
    assert agent_labels(same) <= {"PERFECT", "GOOD"}, same


def test_a_reason_clause_names_no_target_and_asks_no_action():
    found = agent_verdicts(
        "R-118 근무표 제하람 님, 교육 이수 확인 끝났으니까 정규 근무 조로 넘겨 주세요.",
        "R-118 근무표의 제하람 님을 정규 근무 조로 옮겼습니다.",
    )
    assert agent_labels(found) <= {"PERFECT", "GOOD"}, found


def test_an_accented_name_done_on_another_person_is_another_target():
    found = agent_verdicts(
        "Reschedule José Núñez's night shift on R-310 to Sunday at 8 pm.",
        "예다온's night shift on R-310 has been moved to Sunday at 8 pm.",
    )
    assert agent_labels(found) == {"RELATED_BUT_WRONG"}, found


def test_an_english_message_stating_the_current_value_changes_nothing():
    found = agent_verdicts(
        "Change 곽도현's weekly hours on R-204 to 36.", "곽도현's current weekly hours on R-204 are 40."
    )
    assert agent_labels(found) == {"WEAK"}, found
    assert agent_labels(found, "intent_label") == {"VIEW"}, found
