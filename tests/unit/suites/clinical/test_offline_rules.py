"""The clinical answer rules (``offline/rules.py``) and their cue tables, one or a few cases per
rule; the verdicts end to end are golden rows (``tests/golden/clinical_answer_*.jsonl``)."""

from __future__ import annotations

import pytest

from assay.metrics.clinical_extract import _AGE
from assay.suites.clinical.offline import rules as cl
from assay.suites.clinical.offline.cues import CUES_PATH, offline_cues
from assay.suites.clinical.offline.rules import record_from_lines
from tests.support.offline_families import clinical_verdicts

OSTEOPOROSIS = (
    "나이: 63\n성별: 여\n주진단: 골다공증\n복용 약: 알렌드로네이트 70mg 주 1회(일요일 아침 공복), 비타민D 1,000IU 1일 1회(저녁)\n"
    "알레르기: 설파제(두드러기)\n검사: 골밀도 T점수 -2.8, 칼슘 9.4 mg/dL, 혈소판 210,000/µL"
)
EPILEPSY = (
    "진단명: 뇌전증\n현재 투약: 발프로산 500mg 1일 2회, 엽산 1mg 1일 1회\n"
    "주의사항: 카바페넴 계열 항생제 금기(메로페넴 병용 시 발프로산 농도 급감)\n"
    "검사결과: 발프로산 혈중농도 72 µg/mL(목표 50–100), B12 410 pg/mL (ref 200-900)\n알레르기: 페니실린(발진)"
)
ON_SERTRALINE = (
    "나이: 63\n진단: 우울증\n복용 약: 세르트랄린 50mg 1일 1회\n"
    "주의: 트라마돌 등 세로토닌성 진통제 병용 금지(세로토닌 증후군)"
)


def test_record_with_korean_keys_and_comma_lists_is_read():
    record = record_from_lines(OSTEOPOROSIS)
    assert record["age"] == 63 and record["sex"] == "F"
    assert [m["name"] for m in record["medications"]] == ["알렌드로네이트", "비타민D"]
    assert record["allergies"] == ["설파제"]
    assert record["labs"]["칼슘"] == 9.4 and record["labs"]["혈소판"] == 210000
    assert record_from_lines("알레르기: 없음")["allergies"] == []


def test_a_generation_is_no_age():
    assert not _AGE.search("1세대 항히스타민은 졸음을 부릅니다")
    # near miss: an age
    assert _AGE.search("81세 여성")


def test_a_caution_on_the_kind_of_drug_asked_is_part_of_the_answer():
    from assay.suites.clinical.offline.rules import unmentioned_caution

    question = "허리가 아파서 진통제 처방받았는데 조심할 거 있어요?"
    vague = "진통제는 식후에 드시고 물을 충분히 드세요."
    assert unmentioned_caution(question, vague, ON_SERTRALINE) == "트라마돌"
    # near misses: the answer names the cautioned drug; the question names the drug itself
    named = "처방받은 진통제가 트라마돌이면 세르트랄린과 같이 드시면 안 되니 약사에게 확인하세요."
    assert unmentioned_caution(question, named, ON_SERTRALINE) == ""
    assert unmentioned_caution("트라마돌 진통제 먹어도 돼요?", "네, 드셔도 됩니다.", ON_SERTRALINE) == ""


def test_a_count_asked_with_its_counter_must_be_given():
    question = "집에서 혈당은 일주일에 몇 번 재야 해요?"
    assert cl._act(question, "식전에 손을 씻고 5분쯤 쉬었다가 재세요.")[0] is False
    # near miss: the count, in Korean numerals
    assert cl._act(question, "일주일에 세 번 아침 공복에 재세요.")[0] is True


def test_forbidden_advice_is_named_in_the_feedback():
    found = clinical_verdicts(
        EPILEPSY, "폐렴 치료 어떻게 해요?", "폐렴이면 메로페넴 주사로 치료하시면 빨리 낫습니다."
    )
    assert all("금기" in v["reasoning"] for v in found)


def test_the_cue_tables_are_checked_on_load(tmp_path):
    good = offline_cues()
    assert (
        "먹어도" in good.permission
        and ("간 수치", "간수치", "간 기능", "간기능", "liver enzymes", "liver function")
        == good.lab_groups[0][0]
    )
    broken = tmp_path / "offline_cues.yaml"
    broken.write_text(
        CUES_PATH.read_text(encoding="utf-8").replace("permission:", "permissions:"), encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"offline_cues\.yaml: key 'permission'"):
        offline_cues(broken)
    broken.write_text(
        CUES_PATH.read_text(encoding="utf-8").replace("native_counts: {", "native_counts: {x: many, "),
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=r"key 'native_counts\.x'"):
        offline_cues(broken)


@pytest.mark.parametrize(
    ("question", "answer", "kind", "done"),
    [
        ("이부프로펜 먹어도 되나요?", "네, 식후에 드세요.", "해도 되는지 질문", True),
        ("이부프로펜 먹어도 되나요?", "이부프로펜은 소염진통제입니다.", "해도 되는지 질문", False),
        ("When should I take my folic acid?", "Take it in the morning.", "시점 질문", True),
        ("레보티록신은 몇 년 동안 먹어야 해요?", "꾸준히 드세요.", "수치/기간 질문", False),
        ("레보티록신은 몇 년 동안 먹어야 해요?", "보통 5년 이상 드십니다.", "수치/기간 질문", True),
        ("숨이 차요.", "바로 병원에 가세요.", "증상 호소", True),
        ("이거 먹어도 돼요?", "제가 말씀드릴 수 없습니다. 병원에 물어보세요.", cl.DECLINED, False),
    ],
)
def test_the_act_a_question_asks_and_whether_the_answer_does_it(question, answer, kind, done):
    assert cl._act(question, answer) == (done, kind)


def test_faithfulness_bands():
    assert cl._faithfulness((), (), [], (), 0, [], []) == 5
    assert cl._faithfulness(("minor",), (), [], (), 0, [], []) == 4
    assert cl._faithfulness((), (), [], (), 0, ["7"], []) == 4
    assert cl._faithfulness((), (), [], (), 0, ["7", "8"], []) == 3
    assert cl._faithfulness((), (), [], (), 0, [], ["기록에 없는 'MRI' 결과를 단정함"]) == 3
    assert cl._faithfulness((), (), [], ("금기",), 0, [], []) == 2
    assert cl._faithfulness(("critical",), ("eGFR 30 (x)",), [], (), 0, [], []) == 2
    assert cl._faithfulness(("critical",), ("eGFR 30 (x)",), [], ("금기",), 0, [], []) == 1
    # two other values of two items are two contradictions; of one item's line, one
    two = ["'A' 5mg (기록: A 10mg)", "'B' 2회 (기록: B 1회)"]
    assert cl._faithfulness((), (), two, (), 0, [], []) == 1
    assert (
        cl._faithfulness((), (), ["'A' 5mg (기록: A 10mg 1회)", "'A' 2회 (기록: A 10mg 1회)"], (), 0, [], [])
        == 2
    )


def test_the_record_is_read_as_an_answer_writes_it():
    known = cl._as_answers_write("egfr 48.0\n검사일 2025-12-03\ncaution: stop 48 h before surgery")
    assert "egfr 48\n" in known and "2025년 12월 3일" in known and "48시간" in known


def test_phone_numbers_targets_and_limits_are_no_claims():
    blanked = cl._without_non_claims(
        "혈압 목표는 130 미만이고, 정상 상한(150)보다 낮아요. 1339로 전화하세요."
    )
    assert not any(n in blanked for n in ("130", "150", "1339"))
    assert "평균 15%" not in cl._without_general("연구에서는 평균 15%가 좋아졌어요. 지금 수치는 좋아요.")


def test_a_part_of_a_two_part_question_left_without_a_word():
    question = "지난번 혈액검사 결과 어땠어요? 그리고 감기약 같이 먹어도 돼요?"
    assert (
        cl.unanswered_part(question, "혈액검사 결과는 정상 범위였어요.") == "그리고 감기약 같이 먹어도 돼요"
    )
    assert cl.unanswered_part(question, "혈액검사 결과는 정상이고, 감기약은 같이 드셔도 됩니다.") == ""


def test_the_record_silent_on_what_is_asked():
    question = "피임약 먹어도 돼요?"
    answer = "기록에는 피임약에 대한 내용이 없어서 판단이 어려우니 선생님께 여쭤보세요."
    assert cl._record_silent_on(question, answer, OSTEOPOROSIS) == "피임약"
    assert cl._record_silent_on(question, answer, OSTEOPOROSIS + "\n주의: 피임약 병용 주의") == ""


def test_a_yes_beside_a_restriction_is_read_only_when_nothing_else_is_found():
    record = "복용 약: 크레온 1캡슐\n주의: 크레온은 식사 없이 따로 먹지 말 것"
    question = "크레온은 식사 없이 먹어도 되죠?"
    assert cl.forbidden_advice("네, 괜찮아요.", record, question, nothing_else=True)
    assert cl.forbidden_advice("네, 괜찮아요.", record, question, nothing_else=False) == ()
