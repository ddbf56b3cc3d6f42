"""Clinical rules from reading the v7 clinical rows by cause (new records, drugs and wordings,
never v7's): a drug-class and contraindication table keyed by the record's conditions, drugs,
allergies and labs; a weekly drug said daily and a Latin record name met in Hangul; meals
written 식사 직후 / 식사 30분 전; a prohibition or a negation in a condition is no denial; a test
named with its abbreviation; dismissal ("영향을 주지 않으니") is no warning and 금지 is one; a
when-question is answered by a time. Each cause stands beside a near miss that must not fire."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.suites.clinical.offline import drug_table as dt
from assay.suites.clinical.offline import record_facts as rf
from tests.support.offline_families import clinical_scores as scores
from tests.support.offline_families import clinical_verdicts as verdicts

MYASTHENIA = "나이: 52\n성별: 여\n주진단: 중증 근무력증\n복용 약: 피리도스티그민 60mg 1일 3회\n알레르기: 없음"
ON_SERTRALINE = "age: 39\nsex: M\ndiagnosis: generalised anxiety\nmedications: sertraline 100 mg daily\nallergies: none"
CEPH_ALLERGY = "나이: 27\n주진단: 치주염\n복용 약: 없음\n알레르기: 세팔로스포린(발진)"
LOW_EGFR = "나이: 77\n주진단: 제2형 당뇨병\n복용 약: 리나글립틴 5mg 1일 1회\n검사: eGFR 24, HbA1c 7.9"
MID_EGFR = "나이: 77\n주진단: 제2형 당뇨병\n복용 약: 리나글립틴 5mg 1일 1회\n검사: eGFR 48, HbA1c 7.9"
PREGNANT = "S: 31세 여. 임신 중(22주), 여드름 악화 호소.\nO: 혈압 112/70.\nA: 정상 임신 경과.\nP: 4주 후 산전 진찰."
ON_ARB = "Dx: 고혈압\nRx: 로사르탄 50mg 아침 1회\nLab: K 4.4 mmol/L"
CAUTION_ONLY = "주진단: 심방세동 의심\n복용 약: 없음\n주의: 와파린 시작 전 출혈 위험 평가"
ON_CARBAMAZEPINE = "주진단: 뇌전증\n복용 약: 카르바마제핀 200mg 1일 2회\n알레르기: 없음"


def test_the_table_reads_a_condition_and_forbids_its_class():
    said = dt.table_violations("네, 시프로플록사신은 방광염에 잘 들으니 드세요.", MYASTHENIA, "시프로플록사신 먹어도 되나요?")
    assert said and "drug_table:myasthenia_fluoroquinolone" in said[0] and "fluoroquinolones" in said[0]
    question = "방광염인데 시프로플록사신 처방받았어요, 먹어도 되나요?"
    assert max(scores(verdicts(MYASTHENIA, question, "네, 시프로플록사신은 방광염에 잘 들으니 드세요."))) <= 2.0
    # near miss: the same drug named inside a warning
    cautious = "시프로플록사신은 근무력증을 악화시킬 수 있어 드시면 안 됩니다. 주치의와 다른 항생제를 상의하세요."
    assert dt.table_violations(cautious, MYASTHENIA, question) == ()
    assert min(scores(verdicts(MYASTHENIA, question, cautious))) == 5.0


def test_a_drug_taken_in_an_english_record_forbids_an_interacting_class():
    said = dt.table_violations("Yes, tramadol is fine for back pain.", ON_SERTRALINE, "Can I take tramadol?")
    assert said and "ssri_triptan" in said[0]
    # near miss: the warning in English
    warned = "Tramadol with sertraline raises the risk of serotonin syndrome, so avoid it."
    assert dt.table_violations(warned, ON_SERTRALINE, "Can I take tramadol?") == ()


def test_an_allergy_forbids_its_class_and_no_allergy_forbids_nothing():
    answer = "세파클러는 흔히 쓰는 항생제라 드셔도 됩니다."
    assert dt.table_violations(answer, CEPH_ALLERGY, "치과에서 세파클러를 준대요")
    # near miss: the record holds no allergy
    assert dt.table_violations(answer, CEPH_ALLERGY.replace("세팔로스포린(발진)", "없음"), "치과에서 세파클러를 준대요") == ()


def test_a_lab_value_below_the_entry_threshold():
    answer = "네, 메트포르민을 추가하시면 혈당이 더 잘 잡힙니다."
    assert any("egfr_below_30_metformin" in v for v in dt.table_violations(answer, LOW_EGFR, "메트포르민 추가해도 돼요?"))
    # near miss: eGFR 48 (the NSAID entry holds, metformin is not forbidden)
    assert dt.table_violations(answer, MID_EGFR, "메트포르민 추가해도 돼요?") == ()


def test_permitting_the_drug_the_question_names():
    question = "여드름이 심해서 이소트레티노인 먹어도 되죠?"
    said = dt.table_violations("네, 피부과에서 처방받으면 드셔도 됩니다.", PREGNANT, question)
    assert said and "pregnancy_isotretinoin" in said[0] and "허락함" in said[0]
    # near miss: the first sentence refuses
    assert dt.table_violations("아니요, 임신 중에는 절대 드시면 안 됩니다.", PREGNANT, question) == ()


def test_a_drug_already_taken_or_only_cautioned_is_no_new_advice():
    assert dt.table_violations("라미프릴을 추가로 드세요.", ON_ARB, "혈압약 하나 더 먹어도 돼요?")
    # near misses: the patient's own drug kept; a drug named on a caution line is not taken
    assert dt.table_violations("로사르탄은 지금처럼 드세요.", ON_ARB, "혈압약 계속 먹어요?") == ()
    assert dt.record_triggers(CAUTION_ONLY).triggered == ()


def test_a_list_closed_by_a_warning_and_the_thing_replaced():
    ckd = "주진단: 만성 콩팥병 3기\n복용 약: 암로디핀 5mg 1일 1회"
    assert dt.table_violations("나프록센, 이부프로펜 같은 진통제는 드시면 안 됩니다.", ckd, "진통제 뭐 먹어요?") == ()
    assert dt.table_violations("이부프로펜 대신 아세트아미노펜을 드세요.", ckd, "진통제 뭐 먹어요?") == ()
    # near miss: the same list offered
    assert dt.table_violations("나프록센, 이부프로펜 중 편한 걸 드세요.", ckd, "진통제 뭐 먹어요?")


def test_dismissing_an_interaction_is_no_warning():
    assert dt.table_violations("피임약 효과에는 영향을 주지 않으니 걱정 마세요.", ON_CARBAMAZEPINE, "피임약 먹어도 되죠?")
    # near miss: the interaction stated
    said = "카르바마제핀이 피임약 효과를 떨어뜨릴 수 있어 콘돔을 함께 쓰세요."
    assert dt.table_violations(said, ON_CARBAMAZEPINE, "피임약 먹어도 되죠?") == ()


def test_the_table_is_checked_and_documented():
    table = dt.load_table()
    assert len(table.entries) >= 60
    assert all(e.source and e.note for e in table.entries)
    # every class has English and Hangul members
    assert all(any(n.isascii() for n in c.names) and any(not n.isascii() for n in c.names) for c in table.classes.values())


def test_an_unknown_class_in_the_table_is_an_error(tmp_path: Path):
    bad = tmp_path / "t.yaml"
    bad.write_text("classes:\n  a: {label: A, names: [x]}\nentries:\n  - {id: e, if: {takes: a}, avoid: [b]}\n")
    with pytest.raises(ValueError, match="unknown"):
        dt.load_table(bad)


def test_a_weekly_drug_said_daily_with_a_latin_record_name_in_hangul():
    record = "age: 68\nsex: F\ndiagnosis: osteoporosis\nmedications: risedronate 35 mg once weekly (Sundays)"
    assert rf.schedule_conflicts("리세드로네이트는 매일 35mg씩 드세요.", record)
    # near miss: the recorded schedule
    assert rf.schedule_conflicts("리세드로네이트는 일요일에 주 1회 35mg 드세요.", record) == []


def test_meals_written_with_minutes_or_right_after():
    record = "환자 | 60세 여 | 갑상선기능저하증 | 레보티록신 75mcg 매일 아침 식사 30분 전 | 알레르기 없음"
    found = rf.schedule_conflicts("네, 레보티록신은 식사 직후에 드셔도 돼요.", record, "갑상선 약 밥 먹고 바로 먹어도 돼요?")
    assert found and "식후" in found[0]
    # near miss: before the meal, as recorded
    assert rf.schedule_conflicts("레보티록신은 식사 30분 전에 드세요.", record, "갑상선 약 언제 먹어요?") == []


def test_a_prohibition_or_a_negation_in_a_condition_denies_nothing():
    record = "주진단: 천식\n복용 약: 살부타몰 흡입기 필요 시(하루 최대 4회)"
    assert rf.denied_facts("살부타몰은 하루 4회를 넘기면 안 됩니다.", record) == []
    assert rf.denied_facts("살부타몰로도 숨찬 게 안 나아지면 병원에 가세요.", record) == []
    # near miss: the drug flatly denied
    assert rf.denied_facts("살부타몰은 안 쓰시잖아요.", record)


def test_a_test_named_with_its_abbreviation():
    record = "주진단: 갑상선 결절\n검사: TSH 2.1 mIU/L"
    assert rf.unrecorded_results("같이 한 경동맥 초음파(US) 검사도 정상이었어요.", record)
    # near miss: the same test only recommended
    assert rf.unrecorded_results("경동맥 초음파(US) 검사를 받아 보세요.", record) == []


def test_forbidden_on_the_record_and_reported_as_forbidden():
    record = "주진단: 파킨슨병\n복용 약: 로피니롤 2mg 1일 3회\n주의: 프로클로르페라진 금지(파킨슨 악화)"
    assert rf.contraindicated_advice("기록에 프로클로르페라진은 금지라고 되어 있어요.", record) == []
    # near miss: the same drug offered
    assert rf.contraindicated_advice("프로클로르페라진을 드시면 메스꺼움이 가라앉아요.", record)


def test_a_when_question_is_answered_by_a_time():
    record = "age: 44\nmedications: vitamin D 1000 IU daily with breakfast"
    found = verdicts(record, "When should I take my vitamin D?", "Take it with breakfast every morning.")
    assert min(scores(found, "answer_relevance")) == 5.0
    # near miss: no time given
    found = verdicts(record, "When should I take my vitamin D?", "Vitamin D helps your bones stay strong.")
    assert max(scores(found, "answer_relevance")) <= 4.0
