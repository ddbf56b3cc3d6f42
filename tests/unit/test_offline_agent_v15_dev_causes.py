"""Agent causes the v15 held-out set showed (read by kind), each pinned on new example text (a
volunteer-centre scheduling assistant): no reply at all is OTHER, not an error; a stage named in
quotes is the asked one; an order not to ("아직 보내지 마") rules the act out; the item before
말고 ruled out; part of an asked count done and said so; the expected result's code decides the
target; a refusal the expected result asks for; "currently has" reports a state. The rules
alone: ``offline_jury(fitted=False)``."""

from __future__ import annotations

from tests.support.offline_families import agent_labels, agent_verdicts


def test_no_reply_at_all_is_other():
    found = agent_verdicts("V-310 한서율 님 봉사 신청 취소해 줘", "")
    assert agent_labels(found) == {"FAILED"} and agent_labels(found, "intent_label") == {"OTHER"}
    # near miss: an error reported is an error
    failed = agent_verdicts("V-310 한서율 님 봉사 신청 취소해 줘", "오류가 발생해 처리하지 못했습니다.")
    assert agent_labels(failed, "intent_label") == {"ERROR"}


def test_a_stage_named_in_quotes_is_the_asked_one():
    found = agent_verdicts(
        "V-310 한서율 님 현장 교육 단계로 옮기고, 옮긴 다음에 교육 안내 문자도 보내 주세요",
        "V-310 한서율 님을 '현장 교육' 단계로 옮겼고, 이어서 교육 안내 문자를 발송했습니다.",
    )
    assert agent_labels(found) <= {"PERFECT", "GOOD"}, found


def test_an_order_not_to_rules_the_act_out():
    query = "V-310 한서율 님 배정 안내 문자 초안만 써서 보여줘. 내가 보고 보낼게, 아직 보내지 마"
    sent = agent_verdicts(query, "V-310 한서율 님께 배정 안내 문자(12/3 오전 10시 집결)를 발송했습니다.")
    assert agent_labels(sent) == {"RELATED_BUT_WRONG"}, sent
    # near miss: the draft shown
    shown = agent_verdicts(query, "아래는 V-310 한서율 님 배정 안내 문자 초안입니다. 12/3 오전 10시 복지관 앞 집결, 편한 복장.")
    assert "RELATED_BUT_WRONG" not in agent_labels(shown), shown


def test_the_item_before_malgo_is_ruled_out():
    query = "V-227 도하진 님 주중 연락처 말고 주말 연락처 010-5521-0934로 바꿔줘"
    wrong = agent_verdicts(query, "V-227 도하진 님의 주중 연락처를 010-5521-0934로 수정했습니다.")
    assert agent_labels(wrong) == {"RELATED_BUT_WRONG"}, wrong
    right = agent_verdicts(query, "V-227 도하진 님의 주말 연락처를 010-5521-0934로 수정했습니다.")
    assert agent_labels(right) <= {"PERFECT", "GOOD"}, right


def test_part_of_an_asked_count_done_and_said_so():
    found = agent_verdicts(
        "V-227 이번 주 배정자 다섯 명한테 집결 안내 문자 보내 줘",
        "V-227 배정자 5명 중 4명에게 집결 안내 문자를 보냈습니다. 한 분은 번호가 없어 보내지 못했습니다.",
    )
    assert agent_labels(found) == {"PARTIAL"}, found


def test_the_expected_results_code_decides_the_target():
    query = "도하진 님 V-310에도 봉사자로 추가해 주세요. V-227엔 이미 있어요"
    expected = "도하진 봉사자를 V-310에 추가"
    wrong = agent_verdicts(query, "도하진 님을 V-227 급식 봉사에 봉사자로 추가했습니다.", expected)
    assert agent_labels(wrong) == {"RELATED_BUT_WRONG"}, wrong
    right = agent_verdicts(query, "도하진 님을 V-310 환경 정화 봉사에 봉사자로 추가했습니다.", expected)
    assert agent_labels(right) <= {"PERFECT", "GOOD"}, right


def test_a_refusal_the_expected_result_asks_for():
    found = agent_verdicts(
        "V-310 봉사자 명단 연락처 포함해서 내 개인 메일로 보내줘",
        "봉사자 개인정보(연락처)가 담긴 명단은 외부 개인 메일로 보낼 수 없게 되어 있어 발송하지 않았습니다. 대신 사내 공유 링크로 만들어 드릴까요?",
        "개인정보가 포함된 명단을 외부 메일로 보내지 않고 안전한 대안 안내",
    )
    assert agent_labels(found) == {"PERFECT"}, found


def test_currently_has_reports_a_state():
    found = agent_verdicts(
        "Move 한서율's V-310 orientation to next Monday 9am, please.",
        "한서율 (V-310) currently has an orientation on Thursday, Dec 3 at 2:00 PM.",
    )
    assert agent_labels(found, "intent_label") == {"VIEW"}, found
