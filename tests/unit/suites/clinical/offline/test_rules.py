"""The clinical answer rules (``offline/rules.py``) and their cue tables, one or a few cases per
rule; the verdicts end to end are golden rows (``tests/golden/clinical_answer_*.jsonl``)."""

from __future__ import annotations

from assay.judges.offline import offline_jury
from assay.judges.offline.messages import render, say
from assay.judges.prompts import get_prompt
from assay.suites.clinical.formulas.extract import _AGE
from assay.suites.clinical.offline import rules as cl
from tests.support.offline_families import clinical_verdicts

CLINICAL = get_prompt("clinical_answer")
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


def test_a_generation_is_no_age():
    assert not _AGE.search("1세대 항히스타민은 졸음을 부릅니다")
    # near miss: an age
    assert _AGE.search("81세 여성")


def test_forbidden_advice_is_named_in_the_feedback():
    found = clinical_verdicts(
        EPILEPSY, "폐렴 치료 어떻게 해요?", "폐렴이면 메로페넴 주사로 치료하시면 빨리 낫습니다."
    )
    assert all("금기" in v["reasoning"] for v in found)


def test_faithfulness_bands():
    assert cl._faithfulness((), (), [], (), 0, [], []) == 5
    assert cl._faithfulness(("minor",), (), [], (), 0, [], []) == 4
    assert cl._faithfulness((), (), [], (), 0, ["7"], []) == 4
    assert cl._faithfulness((), (), [], (), 0, ["7", "8"], []) == 3
    assert cl._faithfulness((), (), [], (), 0, [], [say("clinical.unrecorded_result", result="MRI")]) == 3
    assert cl._faithfulness((), (), [], ("금기",), 0, [], []) == 2
    assert cl._faithfulness(("critical",), ("eGFR 30 (x)",), [], (), 0, [], []) == 2
    assert cl._faithfulness(("critical",), ("eGFR 30 (x)",), [], ("금기",), 0, [], []) == 1
    # two other values of two items are two contradictions; of one item's line, one
    two = [
        say("clinical.other_value", shown="A", figure="5", unit="mg", record="A 10mg"),
        say("clinical.other_times", name="B", times="2회", record="B 1회"),
    ]
    assert cl._faithfulness((), (), two, (), 0, [], []) == 1
    one_line = [
        say("clinical.other_value", shown="A", figure="5", unit="mg", record="A 10mg 1회"),
        say("clinical.other_times", name="A", times="2회", record="A 10mg 1회"),
    ]
    assert cl._faithfulness((), (), one_line, (), 0, [], []) == 2


def test_the_record_is_read_as_an_answer_writes_it():
    known = cl._as_answers_write("egfr 48.0\n검사일 2025-12-03\ncaution: stop 48 h before surgery")
    assert "egfr 48\n" in known and "2025년 12월 3일" in known and "48시간" in known


def test_phone_numbers_targets_and_limits_are_no_claims():
    blanked = cl._without_non_claims(
        "혈압 목표는 130 미만이고, 정상 상한(150)보다 낮아요. 1339로 전화하세요."
    )
    assert not any(n in blanked for n in ("130", "150", "1339"))
    assert "평균 15%" not in cl._without_general("연구에서는 평균 15%가 좋아졌어요. 지금 수치는 좋아요.")


def test_a_yes_beside_a_restriction_is_read_only_when_nothing_else_is_found():
    record = "복용 약: 크레온 1캡슐\n주의: 크레온은 식사 없이 따로 먹지 말 것"
    question = "크레온은 식사 없이 먹어도 되죠?"
    assert cl.forbidden_advice("네, 괜찮아요.", record, question, nothing_else=True)
    assert cl.forbidden_advice("네, 괜찮아요.", record, question, nothing_else=False) == ()


# -- the jury's verdicts and their feedback on a record of key: value lines --

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


def verdicts(item: dict) -> list[dict]:
    return [judge.verdict(CLINICAL, item) for judge in offline_jury(fitted=False)]


def clinical(question: str, answer: str, patient: str = ASTHMA) -> list[dict]:
    return verdicts({"question": question, "answer": answer, "patient": patient})


def test_clinical_answer_relevance_rewards_doing_what_was_asked_in_other_words():
    # a permission question decided with the drug's generic name and a dose
    for v in clinical(
        "머리가 아픈데 타이레놀 먹어도 되나요?", "네, 아세트아미노펜은 하루 3g을 넘기지 않게 드세요."
    ):
        assert v["answer_relevance"] >= 4, v
    # a result question answered with the value and a status word
    for v in clinical("제 콩팥 수치는 어떤가요?", "eGFR이 52로 조금 낮은 편이라 짠 음식을 줄이세요."):
        assert v["answer_relevance"] >= 4, v
    # an answer about something else
    for v in clinical(
        "머리가 아픈데 타이레놀 먹어도 되나요?", "오늘은 미세먼지가 많아 외출을 줄이는 편이 좋겠습니다."
    ):
        assert v["answer_relevance"] <= 3, v


def test_clinical_faithfulness_drops_when_the_answer_contradicts_the_record():
    allergy = clinical("목감기에 항생제 먹어도 되나요?", "아목시실린을 처방받아 드시면 금방 좋아집니다.")
    for v in allergy:
        assert v["faithfulness"] <= 2, v
        assert render(say("contraindication.penicillin_with_allergy"), "ko") in v["reasoning"]
    lab = clinical("콩팥 수치는 괜찮나요?", "eGFR이 95로 정상입니다.")
    for v in lab:
        assert v["faithfulness"] <= 2, v
        assert "기록과 다른 단정" in v["reasoning"]
    ulcer = clinical("허리가 아픈데 이부프로펜 먹어도 되나요?", "이부프로펜은 드셔도 괜찮습니다.")
    for v in ulcer:
        assert v["faithfulness"] <= 2, v
    pregnant = ASTHMA.replace("conditions: peptic ulcer", "conditions: pregnancy")
    for v in clinical("콜레스테롤약을 먹어야 할까요?", "아토르바스타틴을 시작해 보세요.", pregnant):
        assert v["faithfulness"] <= 2 and render(say("contraindication.fetotoxic_in_pregnancy"), "ko") in v["reasoning"], v
    safe = clinical(
        "허리가 아픈데 이부프로펜 먹어도 되나요?",
        "위궤양이 있으셔서 이부프로펜은 피하시고 아세트아미노펜을 드세요.",
    )
    for v in safe:
        assert v["faithfulness"] >= 4, v


def test_clinical_a_fact_the_patient_stated_in_the_dialogue_is_not_a_contradiction():
    item = {
        "question": "같이 먹어도 되나요?",
        "answer": "지금 드시는 메트포르민은 계속 드세요.",
        "patient": ASTHMA,
    }
    for v in verdicts(item):
        assert v["faithfulness"] <= 2 and "메트포르민" in v["reasoning"], v
    told = {**item, "dialogue": ["Q: 지난주부터 메트포르민을 먹기 시작했어요.", "A: 알겠습니다."]}
    for v in verdicts(told):
        assert v["faithfulness"] >= 4, v
    # an earlier answer is not the patient's word
    repeated = {**item, "dialogue": ["Q: 당뇨약은요?", "A: 메트포르민을 드시고 계시죠."]}
    for v in verdicts(repeated):
        assert v["faithfulness"] <= 2, v


def test_clinical_phone_numbers_and_targets_are_not_claims():
    for v in clinical("숨이 차요.", "천식이 있으시니 오늘 진료를 받으시고, 심하면 119에 연락하세요."):
        assert v["faithfulness"] >= 4, v
    for v in clinical("칼륨은 괜찮나요?", "칼륨이 4.1로 목표인 5.0 미만입니다."):
        assert v["faithfulness"] >= 4, v


# a record written as free Korean labels, not the layout the clinical lexicon reads
FREE_RECORD = "\n".join(
    [
        "나이: 55",
        "주진단: 통풍",
        "복용 약: 알로푸리놀 300mg 하루 1회, 콜히친 0.5mg 필요 시",
        "검사: 요산 7.8 mg/dL, 크레아티닌 1.1 mg/dL",
        "알레르기: 페니실린",
        "기타: 음주하지 않음",
    ]
)


def test_clinical_other_value_for_a_recorded_item_is_a_contradiction_in_any_record_layout():
    wrong = clinical(
        "알로푸리놀 계속 먹어야 하나요?",
        "알로푸리놀 100mg을 하루 3번 드시고 계시니 그대로 유지하세요.",
        FREE_RECORD,
    )
    for v in wrong:
        assert v["faithfulness"] <= 2, v
        assert "기록에 적힌 것과 다른 말" in v["reasoning"]
    # the figure read beside another item is still the record's own (요산 7.8)
    right = clinical(
        "요산 수치 괜찮나요?", "요산이 7.8로 아직 높은 편이니 알로푸리놀 300mg을 계속 드세요.", FREE_RECORD
    )
    for v in right:
        assert v["faithfulness"] >= 4, v


def test_clinical_denying_a_recorded_allergy_is_a_contradiction():
    for v in clinical(
        "목이 아픈데 항생제 뭐 먹어요?",
        "페니실린 알레르기가 없으시니 아목시실린을 드시면 됩니다.",
        FREE_RECORD,
    ):
        assert v["faithfulness"] <= 2, v
    # the record writes this one as absent: saying so agrees with it
    for v in clinical(
        "술 마셔도 되나요?", "평소 음주하지 않으시니 지금처럼 피하시는 게 좋습니다.", FREE_RECORD
    ):
        assert v["faithfulness"] >= 4, v


def test_clinical_declining_to_advise_is_not_answering_and_record_items_show_relevance():
    for v in clinical(
        "통풍 약 줄여도 될까요?", "죄송하지만 제가 말씀드릴 수 없습니다. 주치의와 상의하세요.", FREE_RECORD
    ):
        assert v["answer_relevance"] <= 2, v
    for v in clinical(
        "통풍 약 줄여도 될까요?",
        "콜히친은 필요할 때만 드시고, 매일 드시는 약은 줄이지 말고 계속 드세요.",
        FREE_RECORD,
    ):
        assert v["answer_relevance"] >= 5, v
