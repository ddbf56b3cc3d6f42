"""Clinical rules from reading the v4 clinical rows by kind (new records and answers): a record
in one line of ``|`` fields, a lab with its range in parentheses, a name with a digit in it, an
allergy denied without naming it, and a drug from the record's contraindication line
recommended."""

from __future__ import annotations

from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt
from assay.suites.clinical.offline.record_facts import (
    contraindicated_advice,
    denied_allergy,
    record_items,
    schedule_conflicts,
    value_conflicts,
)

CLINICAL = get_prompt("clinical_answer")
RECORD = (
    "진단명: 뇌전증\n현재 투약: 발프로산 500mg 1일 2회, 엽산 1mg 1일 1회\n"
    "주의사항: 카바페넴 계열 항생제 금기(메로페넴 병용 시 발프로산 농도 급감)\n"
    "검사결과: 발프로산 혈중농도 72 µg/mL(목표 50–100), B12 410 pg/mL (ref 200-900)\n알레르기: 페니실린(발진)"
)


def verdicts(question: str, answer: str, record: str = RECORD) -> list[dict]:
    item = {"patient": record, "dialogue": [], "question": question, "answer": answer}
    return [judge.verdict(CLINICAL, item) for judge in offline_jury()]


def test_a_record_of_pipe_separated_fields_is_read_as_items():
    record = "환자 | 58세 여 | 골관절염 | 셀레콕시브 200mg 1일 1회 저녁 식후 | 알레르기 없음"
    assert any(i.names[:1] == ("셀레콕시브",) for i in record_items(record))
    assert schedule_conflicts("셀레콕시브는 아침 공복에 드세요.", record)


def test_a_value_inside_its_range_is_the_records_and_a_digit_in_a_name_is_no_figure():
    # 72 is the level; 50–100 is its target; B12 is a name, not 12
    assert value_conflicts("발프로산 농도가 72로 목표(50–100) 안이에요.", "농도 괜찮아요?", RECORD) == []
    assert value_conflicts("B12 수치가 150으로 낮습니다.", "B12 어때요?", RECORD)
    assert min(v["faithfulness"] for v in verdicts("농도 괜찮아요?", "발프로산 농도가 72로 목표 범위 안에 있어요.")) >= 4


def test_an_allergy_denied_without_naming_it():
    assert denied_allergy("기록상 알레르기가 없으시니 아목시실린 드셔도 됩니다.", RECORD)
    assert denied_allergy("You have no known drug allergies, so amoxicillin is fine.", RECORD)
    assert denied_allergy("알레르기가 없으시니 드셔도 됩니다.", "알레르기: 없음") == []
    assert max(v["faithfulness"] for v in verdicts("항생제 먹어도 돼요?", "기록상 알레르기가 없으시니 아목시실린 드셔도 됩니다.")) <= 2


def test_a_drug_on_the_contraindication_line_recommended_is_forbidden_advice():
    bad = "폐렴이면 메로페넴 주사로 치료하시면 빨리 낫습니다."
    good = "메로페넴은 기록상 금기라 쓰시면 안 되고, 다른 항생제를 상의하세요."
    assert contraindicated_advice(bad, RECORD)
    assert contraindicated_advice(good, RECORD) == []
    found = verdicts("폐렴 치료 어떻게 해요?", bad)
    assert max(v["faithfulness"] for v in found) <= 2
    assert all("금기" in v["reasoning"] for v in found)
