"""The patient record read as ``key: value`` lines for the clinical lexicon (``offline/record_lines.py``)."""

from __future__ import annotations

from assay.suites.clinical.offline.record_lines import record_from_lines

OSTEOPOROSIS = (
    "나이: 63\n성별: 여\n주진단: 골다공증\n복용 약: 알렌드로네이트 70mg 주 1회(일요일 아침 공복), 비타민D 1,000IU 1일 1회(저녁)\n"
    "알레르기: 설파제(두드러기)\n검사: 골밀도 T점수 -2.8, 칼슘 9.4 mg/dL, 혈소판 210,000/µL"
)
ASTHMA = "\n".join(
    [
        "age: 41",
        "sex: F",
        "primary_condition: asthma",
        "conditions: peptic ulcer",
        "medications: budesonide 200mcg bid; omeprazole 20mg qd",
        "allergies: penicillin",
        "labs: egfr 52.0, potassium 4.1",
        "vitals: bp_systolic 126.0, bp_diastolic 80.0",
    ]
)


def test_record_with_korean_keys_and_comma_lists_is_read():
    record = record_from_lines(OSTEOPOROSIS)
    assert record["age"] == 63 and record["sex"] == "F"
    assert [m["name"] for m in record["medications"]] == ["알렌드로네이트", "비타민D"]
    assert record["allergies"] == ["설파제"]
    assert record["labs"]["칼슘"] == 9.4 and record["labs"]["혈소판"] == 210000
    assert record_from_lines("알레르기: 없음")["allergies"] == []


def test_record_lines_read_back_into_slots():
    record = record_from_lines(ASTHMA)
    assert record is not None
    assert record["age"] == 41 and record["allergies"] == ["penicillin"]
    assert record["labs"] == {"egfr": 52.0, "potassium": 4.1}
    assert record["medications"][0] == {"name": "budesonide", "dose": "200mcg bid"}
    assert record_from_lines("free text without fields") is None
