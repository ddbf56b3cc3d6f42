"""What a clinical question asks and whether an answer does it (``offline/asks.py``)."""

from __future__ import annotations

import pytest

from assay.suites.clinical.offline import asks
from assay.suites.clinical.offline.asks import unmentioned_caution

OSTEOPOROSIS = (
    "나이: 63\n성별: 여\n주진단: 골다공증\n복용 약: 알렌드로네이트 70mg 주 1회(일요일 아침 공복), 비타민D 1,000IU 1일 1회(저녁)\n"
    "알레르기: 설파제(두드러기)\n검사: 골밀도 T점수 -2.8, 칼슘 9.4 mg/dL, 혈소판 210,000/µL"
)
ON_SERTRALINE = (
    "나이: 63\n진단: 우울증\n복용 약: 세르트랄린 50mg 1일 1회\n"
    "주의: 트라마돌 등 세로토닌성 진통제 병용 금지(세로토닌 증후군)"
)


def test_a_caution_on_the_kind_of_drug_asked_is_part_of_the_answer():
    question = "허리가 아파서 진통제 처방받았는데 조심할 거 있어요?"
    vague = "진통제는 식후에 드시고 물을 충분히 드세요."
    assert unmentioned_caution(question, vague, ON_SERTRALINE) == "트라마돌"
    # near misses: the answer names the cautioned drug; the question names the drug itself
    named = "처방받은 진통제가 트라마돌이면 세르트랄린과 같이 드시면 안 되니 약사에게 확인하세요."
    assert unmentioned_caution(question, named, ON_SERTRALINE) == ""
    assert unmentioned_caution("트라마돌 진통제 먹어도 돼요?", "네, 드셔도 됩니다.", ON_SERTRALINE) == ""


def test_a_count_asked_with_its_counter_must_be_given():
    question = "집에서 혈당은 일주일에 몇 번 재야 해요?"
    assert asks.asked_act(question, "식전에 손을 씻고 5분쯤 쉬었다가 재세요.")[0] is False
    # near miss: the count, in Korean numerals
    assert asks.asked_act(question, "일주일에 세 번 아침 공복에 재세요.")[0] is True


@pytest.mark.parametrize(
    ("question", "answer", "kind", "done"),
    [
        ("이부프로펜 먹어도 되나요?", "네, 식후에 드세요.", "permission", True),
        ("이부프로펜 먹어도 되나요?", "이부프로펜은 소염진통제입니다.", "permission", False),
        ("When should I take my folic acid?", "Take it in the morning.", "time", True),
        ("레보티록신은 몇 년 동안 먹어야 해요?", "꾸준히 드세요.", "figure", False),
        ("레보티록신은 몇 년 동안 먹어야 해요?", "보통 5년 이상 드십니다.", "figure", True),
        ("숨이 차요.", "바로 병원에 가세요.", "complaint", True),
        ("이거 먹어도 돼요?", "제가 말씀드릴 수 없습니다. 병원에 물어보세요.", asks.DECLINED, False),
    ],
)
def test_the_act_a_question_asks_and_whether_the_answer_does_it(question, answer, kind, done):
    assert asks.asked_act(question, answer) == (done, kind)


def test_a_part_of_a_two_part_question_left_without_a_word():
    question = "지난번 혈액검사 결과 어땠어요? 그리고 감기약 같이 먹어도 돼요?"
    assert (
        asks.unanswered_part(question, "혈액검사 결과는 정상 범위였어요.") == "그리고 감기약 같이 먹어도 돼요"
    )
    assert asks.unanswered_part(question, "혈액검사 결과는 정상이고, 감기약은 같이 드셔도 됩니다.") == ""


def test_the_record_silent_on_what_is_asked():
    question = "피임약 먹어도 돼요?"
    answer = "기록에는 피임약에 대한 내용이 없어서 판단이 어려우니 선생님께 여쭤보세요."
    assert asks.record_silent_on(question, answer, OSTEOPOROSIS) == "피임약"
    assert asks.record_silent_on(question, answer, OSTEOPOROSIS + "\n주의: 피임약 병용 주의") == ""
