"""The agent suite's offline rules, one rule at a time (``assay/suites/agent/offline``). The
end-to-end cases are the golden tables ``tests/golden/agent_intent_*.jsonl``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.judges.offline.messages import render
from assay.suites.agent.offline import actions as acts
from assay.suites.agent.offline import cues as agent_cues
from assay.suites.agent.offline import rules
from assay.suites.agent.offline.filler import without_filler
from assay.suites.agent.offline.rules import Case
from tests.support.offline_families import agent_labels, agent_verdicts


def ko(message) -> str:
    """A finding or note as the Korean feedback writes it."""
    return render(message, "ko")


def case(query: str, message: str, *, t: float = 1.0, action: float = 0.5, expected: str = "", **fields) -> Case:
    """A request and message as the rules see them, with the judge's signals set by hand."""
    values = {
        "label": acts.message_action(message),
        "wanted": acts.request_action(query),
        "scope": 1.0,
        "why": "why",
    } | fields
    made = Case("[test]", query, expected, message, query, t=t, **values)
    made.action = action
    return made


# -- cue tables ------------------------------------------------------------------------------


def test_the_cue_tables_load_and_hold_every_action():
    table = agent_cues.cues()
    assert set(table.action_cues) == set(agent_cues.ACTIONS)
    assert "on" in table.vague_words  # quoted in the YAML: an unquoted on is a boolean


GOOD_TABLE = agent_cues.CUES_FILE.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (GOOD_TABLE.replace('"on"', "on"), "'vague_words."),  # an unquoted YAML on reads as True
        (GOOD_TABLE + "nonsense: [x]\n", "'nonsense'"),
        (GOOD_TABLE.replace("all_cues:", "all_words:"), "'all_cues'"),
        ("[1, 2]\n", "must be a mapping"),
        ("send_cues: [\n", "not valid YAML"),
    ],
)
def test_a_bad_cue_table_is_one_error_naming_the_file_and_key(tmp_path, text, named):
    path = tmp_path / "cues.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=r"cues\.yaml[: ].*" + re.escape(named)):
        agent_cues.load(path)


def test_an_unknown_action_in_the_cue_table_is_named(tmp_path):
    path = tmp_path / "cues.yaml"
    path.write_text(agent_cues.CUES_FILE.read_text(encoding="utf-8").replace("  DELETE:", "  ERASE:"))
    with pytest.raises(ValueError, match="action_cues.*ERASE"):
        agent_cues.load(path)


def test_the_named_patterns_are_the_ones_the_rules_read(tmp_path):
    package = Path(agent_cues.__file__).parent
    read = {name for path in package.glob("*.py") for name in re.findall(r'RE\["(\w+)"\]', path.read_text("utf-8"))}
    assert read == set(agent_cues.cues().regexes)
    path = tmp_path / "cues.yaml"
    path.write_text(GOOD_TABLE + "  broken: (unclosed\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"cues\.yaml: key 'regexes\.broken': .*regular expression"):
        agent_cues.load(path)


# -- reading actions (actions.py) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "action"),
    [
        ("Q-31 변서준 지원자 이메일 주소를 seo@ex.com으로 고쳐줘", "UPDATE"),
        ("Q-31 변서준 지원자 최종 면접으로 올려줘", "MOVE"),
        ("Q-31에서 토익 900점 넘는 지원자만 추려줘", "VIEW"),
        ("Reschedule Noor Haddad's Q-31 call to Friday.", "UPDATE"),
        ("Put Noor Haddad's Q-31 application on hold.", "UPDATE"),
        ("T-88 티켓에 정하윤 매니저 배정해줘", "UPDATE"),
        ("T-90 티켓에 '재현 불가' 코멘트 남겨줘", "UPDATE"),  # into a field
        ("Q3 지원 인력 한도를 5명으로 늘려줘", "UPDATE"),
        ("미해결 티켓 중에 긴급인 것만 뽑아줘", "VIEW"),
        ("Push Mina Park's onboarding deadline to Monday", "UPDATE"),
        ("T-88 티켓 보여줘", "VIEW"),
        ("T-512 티켓 삭제하지 말고 보류로 바꿔줘", "UPDATE"),  # the ruled-out delete is not asked
        ("Send Mei Lin on P-512 to the onsite stage.", "MOVE"),  # "to the … stage" with no verb cue
        ("Mei Lin on P-512, please.", None),
        ("P-640 1차 합격자 전원에게 면접 일정 문자 발송해 줘", "UPDATE"),  # a send writes
        ("Send the offer letter to Priya Nair on P-640.", "UPDATE"),
        ("Send Priya Nair on P-640 to the onsite stage.", "MOVE"),  # a send to a stage moves
        ("Reject the three no-show applicants on P-233.", "UPDATE"),  # "no-show" holds no verb
        ("Show the applicants on P-233.", "VIEW"),
    ],
)
def test_request_action_is_the_verb_closing_the_request(query, action):
    assert acts.request_action(query) == action


def test_exporting_is_no_sending():
    assert acts.request_action("P-640 지원자 목록 엑셀로 내보내 줘") != "UPDATE"


@pytest.mark.parametrize(
    ("message", "action"),
    [
        ("Noor Haddad is now at the offer stage for Q-31.", "MOVE"),
        ("Q-31 변서준 지원자의 면접 장소가 본사 3층으로 변경되었습니다.", "UPDATE"),  # a passive change
        ("현재 Q-31 공고 마감일을 1월 20일로 변경합니다.", "UPDATE"),  # 현재 with a change is no look-up
        ("고객 메모를 저장했어요.", "UPDATE"),  # saved into a field
        ("새 공고를 저장했습니다.", "ADD"),
        ("우채린 지원자의 희망 입사일을 3월 4일로 입력했습니다.", "UPDATE"),
        ("우채린 지원자의 현재 등록된 희망 입사일은 4월 1일입니다.", "VIEW"),  # closes on a copula
        ("Something went wrong on our side. Please try again in a few minutes.", "ERROR"),
        ("P-208 미응시자 14명의 지원서는 지우고 나면 취소할 수 없습니다. 계속할까요?", "CLARIFY"),  # asks leave
        ("마감일 연장은 인사팀에 문의해 주세요.", "OTHER"),
    ],
)
def test_message_action_is_the_verb_closing_the_first_sentence(message, action):
    assert acts.message_action(message) == action


def test_an_open_question_asks_no_leave():
    assert acts.message_action("안녕하세요! 무엇을 도와드릴까요?") != "CLARIFY"


def test_a_deflection_reports_nothing_done():
    assert acts.is_deflection("마감일 연장은 인사팀에 문의해 주세요.")
    assert not acts.is_deflection("마감일을 1월 20일로 연장했습니다, 자세한 건 인사팀에 문의해 주세요.")
    assert acts.deflects("봉사 확인서 발급은 센터 담당자만 할 수 있는 기능이에요. 담당자에게 요청해 보세요.")


def test_excluded_actions_are_the_ones_ruled_out():
    assert acts.excluded_actions("Archive ticket T-512 instead of deleting it.") == {"DELETE"}
    assert acts.excluded_actions("T-512 티켓 삭제하지 말고 보류로 바꿔줘") == {"DELETE"}
    assert "UPDATE" in acts.excluded_actions("Move 하태윤 to the offer stage on P-311 — don't reject him.")
    assert acts.excluded_actions("T-512 티켓 보류로 바꿔줘") == set()


def test_covers_all_reads_group_words_and_plural_people():
    assert acts.covers_all("P-640 서류 통과자들에게 과제 안내해 줘")
    assert not acts.covers_all("P-640 마도윤 지원자한테 2차 면접 안내 메일 보내 줘")


def test_missing_member_is_one_of_two_joined_targets():
    assert acts.missing_member("Add Noor Haddad and 변서준 to Q-31.", "Noor Haddad has been added to Q-31.") == "변서준"
    assert acts.missing_member("Move Noor to screening and notify her.", "Moved Noor to screening.") == ""  # two verbs


def test_missing_filter_is_a_filter_the_message_does_not_name():
    query = "P-233 지원자 중 자기소개서 미제출인 사람 목록 줘"
    assert acts.missing_filter(query, "P-233 지원자 전체 12명입니다: 석하윤, 진도하 외 10명.")
    assert not acts.missing_filter(query, "P-233 자기소개서 미제출 지원자는 2명입니다: 석하윤, 진도하.")


def test_other_values_ignore_a_codes_digits():
    assert acts.other_values("Q-42 차유림 지원자 삭제해줘", "Q-42 공고에서 차유림 지원자를 삭제했습니다.") == []
    assert acts.other_values("마감일 6월 30일로 연장해줘", "마감일을 5월 30일로 연장했습니다.")


def test_other_destination_and_status():
    assert acts.other_destination("곽도현 님 야간 근무 조로 옮겨 줘.", "곽도현 님을 주간 근무 조로 옮겼습니다.")
    assert not acts.other_destination("곽도현 님 야간 근무 조로 옮겨 줘.", "곽도현 님을 야간 근무 조로 옮겼습니다.")
    assert acts.other_status("Put Noor's application on hold.", "Noor's application has been rejected.") == "REJECT"
    assert acts.other_status("변서준 지원자 보류 처리해줘", "변서준 지원자를 보류 상태로 변경했습니다.") == ""


def test_partly_failed_and_memo_instead():
    assert acts.partly_failed("권나래 님을 배정했습니다. 석진우 님은 겹쳐 배정하지 못했습니다.")
    assert not acts.partly_failed("권나래 님을 배정했습니다.")
    assert acts.memo_instead("한도윤 봉사자 상태 활동 종료로 바꿔 줘", "한도윤 봉사자 메모에 '활동 종료 예정'이라고 남겨 두었습니다.")
    assert not acts.memo_instead("한도윤 봉사자 메모에 '종료'라고 남겨 줘", "메모에 '종료'라고 남겨 두었습니다.")


# -- target words (rules.py helpers) ---------------------------------------------------------


def test_a_hangul_name_inside_an_english_sentence_is_a_person():
    assert "마도윤" in rules._people("Send the interview guide to 마도윤 on P-640.")
    assert "면접" not in rules._people("P-640 면접 일정 보여 줘")


def test_other_target_reads_codes_stages_and_people():
    assert rules._other_target("Q-210 공고에 서하준 등록해줘", "Q-377 공고에 서하준을 등록했습니다.") == ["Q-377"]
    # the same code described in other words is the same target; another stage of it is not
    assert rules._other_target("Q-210 공고 지원자 목록 보여줘", "Q-210 데이터 분석가 공고 지원자 목록입니다.") == []
    assert rules._other_target("Q-31 변서준 지원자 삭제해줘", "Q-31 공고에서 오하린 지원자를 삭제했습니다.") == ["오하린"]


# -- the verdict rules, in order -------------------------------------------------------------


def test_deflected_is_failed_other_unless_the_message_asks_back():
    found = rules.deflected(case("마감을 연장해줘", "마감일 연장은 인사팀에 문의해 주세요."))
    assert found["verdict"] == "FAILED" and found["intent_label"] == "OTHER"
    assert rules.deflected(case("마감을 연장해줘", "마감일 연장은 인사팀에 문의해 주세요.", label="CLARIFY")) is None


def test_unrelated_fails_unless_a_vague_report_of_the_asked_write():
    assert rules.unrelated(case("Q-210 공고 마감일 알려줘", "이번 주말에는 전국에 비 소식이 있습니다.", t=0.0))["verdict"] == "FAILED"
    assert rules.unrelated(case("P-233 지각 지원자 두 명 보류로 바꿔 줘", "네, 상태 바꿨습니다.", t=0.0)) is None


def test_declined_for_reason_is_the_right_answer_to_a_protected_filter():
    found = rules.declined_for_reason(case("지원자 중에 미혼 남자만 골라 줘", "성별로 거르는 건 차별 소지가 있어 도와드리기 어렵습니다."))
    assert found["verdict"] == "PERFECT" and found["intent_label"] == "OTHER"
    assert rules.declined_for_reason(case("지원자 중에 경력자만 골라 줘", "도와드리기 어렵습니다.")) is None


@pytest.mark.parametrize(("t", "verdict"), [(0.3, "PARTIAL"), (0.1, "WEAK"), (0.05, "FAILED")])
def test_clarifies_by_how_much_of_the_target_the_question_names(t, verdict):
    assert rules.clarifies(case("지원자 전원에게 문자 보내줘", "8명에게 보낼까요?", t=t))["verdict"] == verdict


def test_ruled_out_action_is_related_but_wrong():
    found = rules.ruled_out_action(case("T-512 티켓 삭제하지 말고 보류로 바꿔줘", "T-512 티켓을 삭제했습니다."))
    assert found["verdict"] == "RELATED_BUT_WRONG"
    assert rules.ruled_out_action(case("T-512 티켓 삭제하지 말고 보류로 바꿔줘", "T-512 티켓을 보류로 변경했습니다.")) is None


def test_other_action_a_look_up_for_a_change_is_weak():
    view = case("면접 장소를 본사 3층으로 바꿔줘", "면접 장소는 현재 판교 사옥으로 등록되어 있습니다.", action=0.0, t=0.5)
    assert rules.other_action(view)["verdict"] == "WEAK"
    other = case("지원자 삭제해줘", "지원자를 추가했습니다.", action=0.0, t=0.5)
    assert rules.other_action(other)["verdict"] == "RELATED_BUT_WRONG"
    other.t = 0.2
    assert rules.other_action(other)["verdict"] == "FAILED"
    other.action = 0.5
    assert rules.other_action(other) is None


def test_the_asked_action_rules_read_only_the_asked_action():
    message = "권나래, 한도윤 님을 배정했습니다. 석진우 님은 배정하지 못했습니다."
    assert rules.partly_failed(case("세 분 배정해 주세요", message, action=1.0))["verdict"] == "PARTIAL"
    wrapped = rules._when_asked_action(rules.partly_failed)
    assert wrapped(case("세 분 배정해 주세요", message, action=0.5)) is None


def test_memo_instead_is_weak():
    found = rules.memo_instead(case("상태 활동 종료로 바꿔 줘", "메모에 '활동 종료 예정'이라고 남겨 두었습니다.", wanted="UPDATE"))
    assert found["verdict"] == "WEAK"


def test_some_of_count_is_partial():
    found = rules.some_of_count(case("배정자 다섯 명한테 문자 보내 줘", "배정자 5명 중 4명에게 문자를 보냈습니다."))
    assert found["verdict"] == "PARTIAL"
    assert rules.some_of_count(case("배정자 다섯 명한테 문자 보내 줘", "배정자 5명에게 문자를 보냈습니다.")) is None


def test_excluded_item_is_related_but_wrong():
    query = "V-227 도하진 님 주중 연락처 말고 주말 연락처 010-5521-0934로 바꿔줘"
    assert rules.excluded_item(case(query, "도하진 님의 주중 연락처를 수정했습니다."))["verdict"] == "RELATED_BUT_WRONG"
    assert rules.excluded_item(case(query, "도하진 님의 주말 연락처를 수정했습니다.")) is None
    assert rules.excluded_item(case("T-512 티켓 삭제하지 말고 보류로 바꿔줘", "T-512 티켓을 삭제했습니다.")) is None


def test_other_value_and_other_stage_or_status():
    assert rules.other_value(case("마감일 6월 30일로 연장해줘", "마감일을 5월 30일로 연장했습니다."))["verdict"] == "RELATED_BUT_WRONG"
    moved = case("한지우 지원자를 처우 협의 단계로 옮겨줘", "한지우 지원자를 실무 면접 단계로 옮겼습니다.")
    assert rules.other_stage_or_status(moved)["verdict"] == "RELATED_BUT_WRONG"


def test_other_target_is_wrong_and_one_member_of_a_group_partial():
    coded = case("Q-210 공고에 서하준 지원자 등록해줘", "Q-377 공고에 서하준 지원자를 등록했습니다.", action=1.0)
    assert rules.other_target(coded)["verdict"] == "RELATED_BUT_WRONG"
    group = case("대기 중인 티켓 고객 모두 2단계 검토로 넘겨줘", "T-1 티켓을 2단계 검토로 넘겼습니다.", action=1.0)
    group.query = "T-2 대기 중인 티켓 고객 모두 2단계 검토로 넘겨줘"
    assert rules.other_target(group)["verdict"] == "PARTIAL"
    person = case("P-219 Daniel Kim 지원서 삭제해줘", "P-219 공고에서 방서윤 지원자의 지원서를 삭제했습니다.", action=1.0)
    assert rules.other_target(person)["verdict"] == "RELATED_BUT_WRONG"


def test_a_write_on_other_codes_is_another_target_when_the_request_verb_is_no_cue():
    found = case("모서연 봉사자 S-210 배식 봉사에도 신청 연결해 줘", "모서연 봉사자를 S-118 봉사에 추가했습니다.", wanted=None)
    assert rules._swapped_targets(found) == ["S-118"]


def test_the_expected_results_code_decides_the_target():
    found = case("도하진 님 V-310에도 추가해 주세요. V-227엔 이미 있어요", "도하진 님을 V-227 봉사에 추가했습니다.",
                 action=1.0, expected="도하진 봉사자를 V-310에 추가")  # fmt: skip
    assert rules._swapped_targets(found) == ["V-227"]


# -- the score and its caps ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("s", "verdict"),
    [(0.9, "PERFECT"), (0.89, "GOOD"), (0.65, "GOOD"), (0.5, "PARTIAL"), (0.3, "WEAK"), (0.29, "RELATED_BUT_WRONG")],
)
def test_band(s, verdict):
    assert rules._band(s) == verdict


def test_score_action_reads_the_asked_write_beside_a_related_one():
    found = case("한도윤 님 현장 교육 단계로 옮기고 문자도 보내 주세요",
                 "한도윤 님을 현장 교육 단계로 옮긴 뒤 교육 안내 문자를 발송했습니다.", label="UPDATE", wanted="MOVE")  # fmt: skip
    rules._score_action(found)
    assert (found.label, found.action) == ("MOVE", 1.0)
    other = case("지원자 삭제해줘", "지원자를 추가했습니다.", label="ADD", wanted="DELETE")
    rules._score_action(other)
    assert other.action == 0.0


def test_graded_a_vague_report_of_the_asked_write_is_good():
    found = rules.graded(case("Q-31 변서준 지원자 평가표에 '리더십 우수' 코멘트 추가해줘", "코멘트를 추가했습니다.", t=0.0, action=1.0))
    assert found["verdict"] == "GOOD" and "모호한" in ko(found["reasoning"])


def test_one_of_group_names_the_one_member_done():
    found = case("P-640 1차 합격자들한테 안내 메일 보내 줘", "P-640 1차 합격자 마도윤 님에게 안내 메일을 보냈습니다.")
    assert "마도윤" in ko(rules.one_of_group(found))
    assert rules.one_of_group(case("P-640 마도윤 지원자한테 메일 보내 줘", "P-640 마도윤 님에게 메일을 보냈습니다.")) == ""


def test_extra_write_on_people_not_asked():
    found = case("R-163 예다온 님 정규직 전환으로 바꿔 줘",
                 "예다온 님을 변경했습니다. 같은 단계에 있던 José Núñez, 곽도현 님께는 안내를 발송했습니다.")  # fmt: skip
    assert rules.extra_write(found)
    own = case("R-163 예다온 님 정규직 전환으로 바꿔 줘", "예다온 님을 변경했습니다. 예다온 님께 안내 메일도 발송했습니다.")
    assert rules.extra_write(own) == ""


def test_member_and_filter_left():
    assert rules.member_left(case("Add Noor Haddad and 변서준 to Q-31.", "Noor Haddad has been added to Q-31."))
    query = "Q-31에서 정보처리기사 자격 있는 지원자만 추려줘"
    assert rules.filter_left(case(query, "Q-31 공고 지원자 전체 목록입니다: 변서준, 오하린 외 9명.", label="VIEW"))
    assert rules.filter_left(case(query, "Q-31 공고 지원자 전체 목록입니다.", label="UPDATE")) == ""


def test_action_left_is_an_asked_action_not_done():
    assert rules.action_left(case("지원자 추가하고 면접 일정도 변경해 줘", "지원자를 추가했습니다."))
    assert rules.action_left(case("평판 조회 끝났으니까 최종 면접으로 넘겨 주세요", "최종 면접으로 넘겼습니다.")) == ""


# -- near misses the golden tables cannot state (the judges differ between PERFECT and GOOD) --


@pytest.mark.parametrize(
    ("query", "message", "expected", "intent"),
    [
        ("S-305 봉사자 중에 운전 가능한 사람만 보여 줘", "S-305 봉사자 중 운전 가능한 분은 3명입니다: 권나래, 석지우, 한도윤.", "", "VIEW"),
        ("Could you pull up who on S-305 still hasn't signed the safety waiver?",
         "On S-305 (Riverside Cleanup), 2 volunteers have not signed the safety waiver yet: 한도윤 and Lena Ortiz.", "", "VIEW"),
        ("S-210 배식 봉사에 지인 소개로 온 모서연 님 등록해 주시겠어요? 소개해 준 분은 권나래 님이에요.",
         "S-210 배식 봉사에 모서연 님을 등록했고, 참여 경로는 지인 소개(소개자: 권나래)로 기록했습니다.", "", "ADD"),
        ("R-204 간호사 곽도현 님 야간 근무 조로 옮겨 줘.", "R-204 곽도현 님을 야간 근무 조로 옮겼습니다.", "", "MOVE"),
        ("R-118 근무표 제하람 님, 교육 이수 확인 끝났으니까 정규 근무 조로 넘겨 주세요.",
         "R-118 근무표의 제하람 님을 정규 근무 조로 옮겼습니다.", "", "MOVE"),
        ("R-204 곽도현 님 정규 근무 조로 올리고, 근무 안내 문자도 같이 보내 줘요",
         "R-204 곽도현 님을 정규 근무 조로 옮겼고, 곽도현 님께 근무 안내 문자도 발송했습니다.", "", "MOVE"),
        ("V-310 한서율 님 현장 교육 단계로 옮기고, 옮긴 다음에 교육 안내 문자도 보내 주세요",
         "V-310 한서율 님을 '현장 교육' 단계로 옮겼고, 이어서 교육 안내 문자를 발송했습니다.", "", "MOVE"),
        ("V-310 한서율 님 배정 안내 문자 초안만 써서 보여줘. 내가 보고 보낼게, 아직 보내지 마",
         "아래는 V-310 한서율 님 배정 안내 문자 초안입니다. 12/3 오전 10시 복지관 앞 집결, 편한 복장.", "", "VIEW"),
        ("도하진 님 V-310에도 봉사자로 추가해 주세요. V-227엔 이미 있어요",
         "도하진 님을 V-310 환경 정화 봉사에 봉사자로 추가했습니다.", "도하진 봉사자를 V-310에 추가", "ADD"),
        ("Q-31 변서준 지원자 보류 처리해줘", "Q-31 변서준 지원자를 보류 상태로 변경했습니다.", "", "UPDATE"),
        ("T-88 담당자를 정하윤으로 바꿔줘", "T-88 담당자를 정하윤으로 변경했습니다.", "", "UPDATE"),
        ("Reject 하태윤 on P-311.", "하태윤's application on P-311 has been rejected.", "", "UPDATE"),
        ("P-640 마도윤 지원자한테 2차 면접 안내 메일 보내 줘", "P-640 마도윤 지원자에게 2차 면접 안내 메일을 보냈습니다.", "", "UPDATE"),
        ("P-233 코딩 점수 70점 미만인 지원자만 보여 줘", "P-233 코딩 점수 70점 미만 지원자는 2명입니다: 석하윤, 진도하.", "", "VIEW"),
    ],
)
def test_near_misses_stay_perfect_or_good(query, message, expected, intent):
    found = agent_verdicts(query, message, expected)
    assert agent_labels(found) <= {"PERFECT", "GOOD"}, found
    assert agent_labels(found, "intent_label") == {intent}, found


def test_another_qualifier_before_the_same_noun_is_not_all_perfect():
    assert agent_labels(agent_verdicts("P-233 코딩 점수 보여 줘", "P-233 면접 점수는 82점입니다.")) != {"PERFECT"}


def test_filler_is_what_says_nothing_of_the_request():
    request = "P-871 최종 면접 대상자 세 명 모두 면접 일정 12월 9일 오후 2시로 잡아 줘"
    reply = (
        "P-871 봉서하, 어태민 지원자의 최종 면접을 12월 9일 14:00로 잡았습니다. "
        "나머지 한 명(구하람)은 캘린더 권한 오류로 등록하지 못했습니다. 감사합니다. 좋은 하루 되세요!"
    )
    kept, filler = without_filler(request, reply)
    assert filler == ("감사합니다.", "좋은 하루 되세요!")  # the failure report names an action: kept
    assert without_filler(request, reply.split(" 감사")[0]) == (reply.split(" 감사")[0], ())
    # a trailer after a separator line goes whatever it says; marks alone are no question
    kept, filler = without_filler("Send the test link to 유다온 on P-178.", "Link sent to 유다온 on P-178.\n---\nSent from my iPhone ????")
    assert kept == "Link sent to 유다온 on P-178." and len(filler) == 2
    # a reply of filler only keeps its first sentence
    assert without_filler("Add 김도하 to P-543.", "Lunch is at noon. Have a nice day!") == ("Lunch is at noon.", ("Have a nice day!",))
