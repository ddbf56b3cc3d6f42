"""Clinical rules from reading the v8 clinical rows by cause (new records, drugs and wordings,
never v8's): a caution line's permitted part names nothing forbidden; "식사와 함께" and "빈속에"
are times of taking; a drug the record says not to stop, let go by the answer, is forbidden
advice; the drug table's new classes and entries; relevance reads any imperative and 금지 as a
decision, 언제 as a when-question and "얼마 나왔어요" as a value asked. Each cause stands beside a
near miss that must not fire."""

from __future__ import annotations

from assay.suites.clinical.offline import record_facts as rf
from tests.support.offline_families import clinical_scores as scores
from tests.support.offline_families import clinical_verdicts as verdicts

RA_ON_TOFACITINIB = (
    "나이: 58\n주진단: 류마티스 관절염\n복용 약: 토파시티닙 5mg 1일 2회\n"
    "주의: 생백신(MMR·수두) 금지, 사백신(폐렴구균·독감 주사)은 접종 가능"
)
ON_LANTHANUM = "환자 | 70세 남 | 만성 신장병 5기, 복막투석 | 탄산칼슘 500mg 1일 3회 식사와 함께 | 최근 P 5.8 mg/dL"
ON_APIXABAN = (
    "S: 66세 남. 심방세동, 뇌졸중 병력(2024).\nO: 혈압 128/76.\nA: 심방세동, 항응고 유지.\n"
    "P: 아픽사반 5mg 1일 2회 유지, 임의 중단 금지. 시술 전에는 담당 의사와 상의."
)


def test_a_permitted_part_of_a_caution_line_is_not_forbidden():
    question = "폐렴구균 예방주사 맞아도 되나요?"
    allowed = "폐렴구균 백신은 사백신이라 맞으셔도 됩니다."
    assert rf.contraindicated_advice(allowed, RA_ON_TOFACITINIB) == []
    assert min(scores(verdicts(RA_ON_TOFACITINIB, question, allowed))) == 5.0
    # near miss: the forbidden part of the same line, recommended
    wrong = "수두 백신도 이번에 같이 맞으세요."
    assert max(scores(verdicts(RA_ON_TOFACITINIB, "수두 백신 맞아도 되나요?", wrong))) <= 2.0


def test_with_meals_and_empty_stomach_are_times_of_taking():
    wrong = "탄산칼슘은 빈속에 드셔야 흡수가 잘 되니 식사 2시간 전에 드세요."
    assert rf.schedule_conflicts(wrong, ON_LANTHANUM, "탄산칼슘 언제 먹어요?")
    assert max(scores(verdicts(ON_LANTHANUM, "탄산칼슘 언제 먹어요?", wrong))) <= 2.0
    # near miss: said with meals, as recorded
    right = "탄산칼슘은 식사하면서 함께 드세요."
    assert rf.schedule_conflicts(right, ON_LANTHANUM, "탄산칼슘 언제 먹어요?") == []


def test_stopping_a_drug_the_record_says_not_to_stop():
    question = "요즘 멍이 잘 드는데 아픽사반 좀 쉬어도 될까요?"
    wrong = "멍이 잘 들면 아픽사반은 며칠 중단하셔도 됩니다."
    said = rf.stopped_against_record(wrong, ON_APIXABAN, question)
    assert said and "아픽사반" in said[0]
    assert max(scores(verdicts(ON_APIXABAN, question, wrong))) <= 2.0
    # near miss: the answer tells the patient not to stop it
    right = "아픽사반은 임의로 중단하시면 안 됩니다. 멍이 심하면 담당 의사와 상의하세요."
    assert rf.stopped_against_record(right, ON_APIXABAN, question) == []
    # near miss: stopping a drug the record does not protect
    other = "S: 66세 남. 불면.\nP: 졸피뎀 5mg 취침 전, 2주 후 재평가."
    assert rf.stopped_against_record("졸피뎀은 중단하셔도 됩니다.", other, "졸피뎀 끊어도 돼요?") == []


def relevance(patient: str, question: str, answer: str) -> set[float]:
    return scores(verdicts(patient, question, answer), "answer_relevance")


def test_any_imperative_and_forbidden_are_decisions():
    question = "다음 주 대상포진 예방주사 맞아야 하나요?"
    assert min(relevance(RA_ON_TOFACITINIB, question, "생백신이 아닌 재조합 백신이면 예정대로 맞으세요.")) == 5.0
    question = "치과에서 클린다마이신을 준대요. 먹어도 돼요?"
    assert min(relevance(ON_APIXABAN, question, "클린다마이신은 기록상 금지된 약은 아니에요. 처방대로 받으세요.")) == 5.0
    # near miss: an answer about something else decides nothing asked
    assert max(relevance(ON_APIXABAN, question, "심방세동은 꾸준한 관리가 중요한 병입니다.")) <= 3.0


def test_a_recorded_value_asked_needs_a_figure():
    question = "지난번 인 수치 얼마 나왔어요?"
    assert max(relevance(ON_LANTHANUM, question, "Phosphate depends on diet and on your binder, so keep taking it with meals.")) <= 2.0
    # near miss: the value given
    assert min(relevance(ON_LANTHANUM, question, "최근 인 수치는 5.8 mg/dL였어요.")) == 5.0


ON_PD = "나이: 61\n주진단: 말기 신장병, 복막투석 중\n복용 약: 탄산칼슘 500mg 1일 3회\n알레르기: 없음"
ON_DOLUTEGRAVIR = "age: 44\ndiagnosis: HIV-1, suppressed\nmedications: dolutegravir 50 mg once daily\nlabs: CD4 420"
ON_BISOPROLOL = "Dx: 협심증\nRx: 비소프롤롤 5mg 아침 1회\nLab: HR 58"


def test_new_table_entries_forbid_their_classes():
    from assay.suites.clinical.offline import drug_table as dt

    said = dt.table_violations("변비에는 산화마그네슘을 드세요.", ON_PD, "변비약 뭐 먹어요?")
    assert said and "drug_table:eskd_magnesium" in said[0]
    said = dt.table_violations("Yes, rifampicin is fine with your HIV pills.", ON_DOLUTEGRAVIR, "Can I take rifampicin?")
    assert said and "drug_table:integrase_inducer" in said[0]
    said = dt.table_violations("두근거림에는 베라파밀을 같이 드시면 됩니다.", ON_BISOPROLOL, "두근거리는데 뭐 먹어요?")
    assert said and "beta_blocker_non_dhp_ccb" in said[0]
    # near misses: a warned clause, an English "no X", and a record with no such trigger
    assert dt.table_violations("산화마그네슘은 투석 중에는 쌓일 수 있어 드시면 안 됩니다.", ON_PD, "") == ()
    assert dt.table_violations("Your record says no rifampicin with dolutegravir.", ON_DOLUTEGRAVIR, "") == ()
    plain = "나이: 61\n주진단: 변비\n복용 약: 없음"
    assert dt.table_violations("변비에는 산화마그네슘을 드세요.", plain, "변비약 뭐 먹어요?") == ()


def test_a_value_named_by_its_abbreviation_the_record_never_names():
    question = "최근 인 수치랑 칼슘 어땠어요?"
    invented = "인 수치는 5.8이었고, 같이 잰 부갑상선 호르몬 수치(PTH)도 정상이었어요."
    said = rf.unrecorded_results(invented, ON_LANTHANUM, question)
    assert said and "PTH" in said[0]
    # near miss: an abbreviation the record writes
    recorded = "Hb 13 g/dL" + "\n" + ON_LANTHANUM
    assert rf.unrecorded_results("빈혈 수치(Hb)는 정상이었어요.", recorded, question) == []
