"""The offline jury's agent rules: each rule moves the verdict into its band and says why in the
reasoning. Examples are in domains the bundled datasets do not cover."""

from __future__ import annotations

from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt

JURY = offline_jury(fitted=False)  # the rules alone: their exact contract (the fitted stages are tested apart)
AGENT = get_prompt("agent_intent")


def agent(query: str, message: str) -> list[dict]:
    item = {"query": query, "assistant_message": message}
    return [judge.verdict(AGENT, item) for judge in JURY]


def test_agent_right_action_on_another_target_is_related_but_wrong():
    query = "백엔드 개발자 공고를 삭제해줘"
    for v in agent(query, "디자이너 공고를 삭제했습니다."):
        assert v["verdict"] == "RELATED_BUT_WRONG", v
        assert "다른 대상" in v["reasoning"]
    # a vaguer mention of the same target, or a generic reference to it, is not another target
    for message in ("공고를 삭제했습니다.", "요청하신 공고를 삭제했습니다.", "말씀하신 채용 공고를 삭제했습니다."):
        for v in agent(query, message):
            assert v["verdict"] == "GOOD", (message, v)
    # another person for the same step, even with most of the request's words repeated
    for v in agent("김민수 지원자를 서류 합격으로 이동해줘", "이영희 지원자를 서류 합격 단계로 이동했습니다."):
        assert v["verdict"] == "RELATED_BUT_WRONG" and "이영희" in v["reasoning"], v
    for v in agent(query, "백엔드 개발자 공고를 삭제했습니다."):
        assert v["verdict"] == "PERFECT", v


def test_agent_rubric_edge_cases():
    query = "면접 일정을 다음 주 화요일로 옮겨줘"
    for v in agent(query, "어느 지원자의 면접 일정을 옮길지 알려주시겠어요?"):
        assert v["verdict"] == "PARTIAL" and v["intent_label"] == "CLARIFY", v
    for v in agent(query, "오늘 날씨는 어떠세요?"):
        assert v["verdict"] == "FAILED", v
    for v in agent(query, "일시적인 오류로 요청을 처리하지 못했습니다."):
        assert (v["verdict"], v["intent_label"]) == ("FAILED", "ERROR"), v
    for v in agent(query, "면접 일정을 삭제했습니다."):
        assert v["verdict"] == "RELATED_BUT_WRONG", v


def test_agent_request_action_is_the_closing_verb_and_other_verbs_are_read():
    # "등록한" only says which members; the request is to show them
    for v in agent("어제 등록한 회원들 다 보여줘", "어제 등록한 회원 목록을 보여드립니다. 총 4명입니다."):
        assert v["verdict"] in {"PERFECT", "GOOD"}, v
    # 연장 is an update; an English request is read with English verbs
    for v in agent("세미나 신청 마감을 3월 15일로 연장해줘", "세미나 신청 마감을 3월 15일로 변경했습니다."):
        assert v["verdict"] in {"PERFECT", "GOOD"}, v
    for v in agent("Remove the 'phone screen' step from plan B-7.", "Removed the 'phone screen' step from plan B-7."):
        assert v["intent_label"] == "DELETE" and v["verdict"] in {"PERFECT", "GOOD"}, v


def test_agent_right_action_with_another_value_is_related_but_wrong():
    for v in agent("세미나 신청 마감을 3월 15일로 연장해줘", "세미나 신청 마감을 3월 5일로 변경했습니다."):
        assert v["verdict"] == "RELATED_BUT_WRONG", v
        assert "다른 값" in v["reasoning"]


def test_agent_one_member_of_a_whole_group_is_partial_and_viewing_instead_of_changing_is_weak():
    for v in agent("3반 학생 전원을 심화반으로 옮겨줘", "3반 학생 중 박서연 1명을 심화반으로 이동했습니다."):
        assert v["verdict"] == "PARTIAL", v
    for v in agent("박서연 학생 주소를 서울로 수정해줘", "박서연 학생 정보를 조회했습니다. 등록된 주소는 부산입니다."):
        assert v["verdict"] == "WEAK", v
