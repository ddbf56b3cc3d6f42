"""Clinical rules from reading the v3 clinical rows by kind (new records and answers): a
record written with Korean keys and comma lists, a stopping verb negated, another time of taking."""

from __future__ import annotations

from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt
from assay.suites.clinical.offline.record_facts import denied_facts, schedule_conflicts
from assay.suites.clinical.offline.rules import record_from_lines

CLINICAL = get_prompt("clinical_answer")
RECORD = (
    "나이: 63\n성별: 여\n주진단: 골다공증\n복용 약: 알렌드로네이트 70mg 주 1회(일요일 아침 공복), 비타민D 1,000IU 1일 1회(저녁)\n"
    "알레르기: 설파제(두드러기)\n검사: 골밀도 T점수 -2.8, 칼슘 9.4 mg/dL, 혈소판 210,000/µL"
)


def faithfulness(question: str, answer: str) -> list[float]:
    item = {"patient": RECORD, "dialogue": [], "question": question, "answer": answer}
    return [judge.verdict(CLINICAL, item)["faithfulness"] for judge in offline_jury()]


def test_record_with_korean_keys_and_comma_lists_is_read():
    record = record_from_lines(RECORD)
    assert record["age"] == 63 and record["sex"] == "F"
    assert [m["name"] for m in record["medications"]] == ["알렌드로네이트", "비타민D"]
    assert record["allergies"] == ["설파제"]
    assert record["labs"]["칼슘"] == 9.4 and record["labs"]["혈소판"] == 210000
    assert record_from_lines("알레르기: 없음")["allergies"] == []


def test_keeping_a_recorded_drug_is_not_denying_it():
    assert not denied_facts("알렌드로네이트를 끊지 말고 계속 드세요.", RECORD)
    assert denied_facts("알렌드로네이트는 드시지 않으니 상관없습니다.", RECORD)


def test_another_time_of_taking_a_recorded_drug_is_a_contradiction():
    assert schedule_conflicts("알렌드로네이트를 저녁 식후에 드시니 괜찮습니다.", RECORD)
    assert not schedule_conflicts("알렌드로네이트는 아침 공복에 물 한 컵과 드세요.", RECORD)
    assert max(faithfulness("약 먹는 시간 바꿔도 돼요?", "알렌드로네이트를 저녁 식후에 드시고 계시니 그대로 두세요.")) <= 2


def test_answer_that_agrees_with_a_korean_key_record_is_faithful():
    answer = "알렌드로네이트 70mg은 주 1회 일요일 아침 공복에 드시는 약이니 끊지 말고 계속 드세요."
    assert min(faithfulness("알렌드로네이트 계속 먹어야 하나요?", answer)) >= 4
