"""Reading a patient record as written (``offline/record_facts.py``): items and figures, other
values and times, denied facts and allergies, reversed results and trends, unrecorded results."""

from __future__ import annotations

from assay.judges.offline.messages import render
from assay.suites.clinical.offline import record_facts as rf
from assay.suites.clinical.offline.record_facts import (
    denied_allergy,
    denied_facts,
    record_items,
    schedule_conflicts,
    value_conflicts,
)


def ko(message) -> str:
    """A finding or note as the Korean feedback writes it."""
    return render(message, "ko")

OSTEOPOROSIS = (
    "나이: 63\n성별: 여\n주진단: 골다공증\n복용 약: 알렌드로네이트 70mg 주 1회(일요일 아침 공복), 비타민D 1,000IU 1일 1회(저녁)\n"
    "알레르기: 설파제(두드러기)\n검사: 골밀도 T점수 -2.8, 칼슘 9.4 mg/dL, 혈소판 210,000/µL"
)
EPILEPSY = (
    "진단명: 뇌전증\n현재 투약: 발프로산 500mg 1일 2회, 엽산 1mg 1일 1회\n"
    "주의사항: 카바페넴 계열 항생제 금기(메로페넴 병용 시 발프로산 농도 급감)\n"
    "검사결과: 발프로산 혈중농도 72 µg/mL(목표 50–100), B12 410 pg/mL (ref 200-900)\n알레르기: 페니실린(발진)"
)
RA = (
    "나이: 61\n성별: 여\n주진단: 류마티스 관절염\n복용 약: 메토트렉세이트 15mg 주 1회, 엽산 5mg 주 1회\n"
    "주의사항: 트리메토프림 병용 금지 — 메토트렉세이트 독성\n알레르기: 없음\n검사: ALT 24 U/L"
)
ONE_TIMED = "환자 | 58세 남 | 고혈압 | 로사르탄 50mg 매일 아침 | 알레르기 없음"
ON_LANTHANUM = (
    "환자 | 70세 남 | 만성 신장병 5기, 복막투석 | 탄산칼슘 500mg 1일 3회 식사와 함께 | 최근 P 5.8 mg/dL"
)
ELDERLY = (
    "나이: 78\n복용 약: 옥시부티닌 5mg 1일 2회\n주의: 클로르페니라민 등 1세대 항히스타민이 든 감기약 피할 것"
)
MIGRAINE = "나이: 31\n진단: 조짐(전조)을 동반한 편두통\n복용 약: 복합 경구피임약 매일"
HYPERTENSIVE = "나이: 52\n진단: 고혈압\n복용 약: 암로디핀 5mg 1일 1회\n검사: Cr 0.9 mg/dL, K 4.1 (11/02)"
HEPATITIS_B = "나이: 44\n진단: 만성 B형간염\n복용 약: 테노포비르 300mg 1일 1회\n검사: HBV DNA 검출 안 됨 (2026-10-01), ALT 22"
SOAP_ON_METHYLPRED = (
    "S: 65세 남, 거대세포동맥염으로 메틸프레드니솔론 복용 중.\n"
    "O: 메틸프레드니솔론 8mg 1일 1회 아침. CRP 0.3 mg/dL(이전 4.8).\n"
    "P: 메틸프레드니솔론 임의 중단 금지. 감량은 외래에서."
)
PANCREAS = (
    "Dx: 만성 췌장염\nRx: 판크레리파제(크레온) 식사 시작할 때 2cap, 판토프라졸 40mg qd 아침 식전 30분\n"
    "Caution: 크레온은 식사 없이 따로 먹지 말 것"
)


def test_keeping_a_recorded_drug_is_not_denying_it():
    assert not denied_facts("알렌드로네이트를 끊지 말고 계속 드세요.", OSTEOPOROSIS)
    assert denied_facts("알렌드로네이트는 드시지 않으니 상관없습니다.", OSTEOPOROSIS)


def test_another_time_of_taking_a_recorded_drug_is_a_contradiction():
    assert schedule_conflicts("알렌드로네이트를 저녁 식후에 드시니 괜찮습니다.", OSTEOPOROSIS)
    assert not schedule_conflicts("알렌드로네이트는 아침 공복에 물 한 컵과 드세요.", OSTEOPOROSIS)


def test_a_record_of_pipe_separated_fields_is_read_as_items():
    record = "환자 | 58세 여 | 골관절염 | 셀레콕시브 200mg 1일 1회 저녁 식후 | 알레르기 없음"
    assert any(i.names[:1] == ("셀레콕시브",) for i in record_items(record))
    assert schedule_conflicts("셀레콕시브는 아침 공복에 드세요.", record)


def test_a_value_inside_its_range_is_the_records_and_a_digit_in_a_name_is_no_figure():
    # 72 is the level; 50–100 is its target; B12 is a name, not 12
    assert value_conflicts("발프로산 농도가 72로 목표(50–100) 안이에요.", "농도 괜찮아요?", EPILEPSY) == []
    assert value_conflicts("B12 수치가 150으로 낮습니다.", "B12 어때요?", EPILEPSY)


def test_an_allergy_denied_without_naming_it():
    assert denied_allergy("기록상 알레르기가 없으시니 아목시실린 드셔도 됩니다.", EPILEPSY)
    assert denied_allergy("You have no known drug allergies, so amoxicillin is fine.", EPILEPSY)
    assert denied_allergy("알레르기가 없으시니 드셔도 됩니다.", "알레르기: 없음") == []


def test_a_count_in_korean_numerals_against_the_record():
    assert rf.Figure(2.0, "회") in rf.figures("하루 두 번")


def test_a_negation_in_a_condition_denies_nothing():
    record = "주진단: 편두통\n증상: 시야 흐림 동반\n복용 약: 수마트립탄 50mg 필요시"
    assert rf.denied_facts("시야 흐림이 없으시면 수마트립탄을 드셔도 됩니다.", record) == []
    # near miss: the same word, flatly denied
    assert rf.denied_facts("시야 흐림은 없으셨고 두통만 있었습니다.", record)


def test_one_timed_drug_asked_about_by_its_class_and_one_conflict_per_mention():
    found = rf.schedule_conflicts(
        "네, 지금처럼 저녁 식사 후에 드시면 됩니다.", ONE_TIMED, "혈압약 밤에 먹어도 돼요?"
    )
    assert len(found) == 1 and "저녁" in ko(found[0])
    timed_meal = "환자 | 58세 남 | 고혈압 | 로사르탄 50mg 매일 아침 공복 | 알레르기 없음"
    found = rf.schedule_conflicts(
        "네, 지금처럼 저녁 식사 후에 드시면 됩니다.", timed_meal, "혈압약 밤에 먹어도 돼요?"
    )
    assert len(found) == 1 and "저녁" in ko(found[0]) and "식후" in ko(found[0])  # one mention, one conflict
    # near miss: the recorded time, repeated
    assert (
        rf.schedule_conflicts("지금처럼 아침에 드시면 됩니다.", ONE_TIMED, "혈압약 밤에 먹어도 돼요?") == []
    )


def test_a_finding_reported_absent_is_a_result():
    assert rf.unrecorded_results("함께 받으신 청력 검사에서도 난청은 없었습니다.", RA)
    # near miss: the answer says the record holds no such result
    assert rf.unrecorded_results("기록에는 청력 검사 결과가 없었습니다.", RA) == []


def test_a_weekly_drug_said_daily_with_a_latin_record_name_in_hangul():
    record = "age: 68\nsex: F\ndiagnosis: osteoporosis\nmedications: risedronate 35 mg once weekly (Sundays)"
    assert rf.schedule_conflicts("리세드로네이트는 매일 35mg씩 드세요.", record)
    # near miss: the recorded schedule
    assert rf.schedule_conflicts("리세드로네이트는 일요일에 주 1회 35mg 드세요.", record) == []


def test_meals_written_with_minutes_or_right_after():
    record = "환자 | 60세 여 | 갑상선기능저하증 | 레보티록신 75mcg 매일 아침 식사 30분 전 | 알레르기 없음"
    found = rf.schedule_conflicts(
        "네, 레보티록신은 식사 직후에 드셔도 돼요.", record, "갑상선 약 밥 먹고 바로 먹어도 돼요?"
    )
    assert found and "식후" in ko(found[0])
    # near miss: before the meal, as recorded
    assert (
        rf.schedule_conflicts("레보티록신은 식사 30분 전에 드세요.", record, "갑상선 약 언제 먹어요?") == []
    )


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


def test_with_meals_and_empty_stomach_are_times_of_taking():
    wrong = "탄산칼슘은 빈속에 드셔야 흡수가 잘 되니 식사 2시간 전에 드세요."
    assert rf.schedule_conflicts(wrong, ON_LANTHANUM, "탄산칼슘 언제 먹어요?")
    # near miss: said with meals, as recorded
    right = "탄산칼슘은 식사하면서 함께 드세요."
    assert rf.schedule_conflicts(right, ON_LANTHANUM, "탄산칼슘 언제 먹어요?") == []


def test_a_value_named_by_its_abbreviation_the_record_never_names():
    question = "최근 인 수치랑 칼슘 어땠어요?"
    invented = "인 수치는 5.8이었고, 같이 잰 부갑상선 호르몬 수치(PTH)도 정상이었어요."
    said = rf.unrecorded_results(invented, ON_LANTHANUM, question)
    assert said and "PTH" in ko(said[0])
    # near miss: an abbreviation the record writes
    recorded = "Hb 13 g/dL" + "\n" + ON_LANTHANUM
    assert rf.unrecorded_results("빈혈 수치(Hb)는 정상이었어요.", recorded, question) == []


def test_a_negation_before_another_noun_denies_nothing():
    answer = "1세대 항히스타민이 든 감기약은 피하시고, 약국에서 항히스타민이 없는 약을 달라고 하세요."
    assert rf.denied_facts(answer, ELDERLY) == []
    # near miss: the negation before a word of the same item denies it
    assert rf.denied_facts("조짐이 없는 편두통이라 피임약은 괜찮습니다.", MIGRAINE)


def test_a_lab_value_reported_without_a_test_word():
    answer = "크레아티닌 0.9로 괜찮고, 콜레스테롤과 백혈구 수도 정상이었어요."
    found = rf.unrecorded_results(answer, HYPERTENSIVE)
    assert any("콜레스테롤" in ko(f) for f in found) and any("백혈구" in ko(f) for f in found)
    # near miss: a value the record names under another name (Cr for 신장 수치)
    assert rf.unrecorded_results("신장 수치는 정상이었어요.", HYPERTENSIVE) == []


def test_a_negative_result_said_positive():
    found = rf.reversed_results("HBV DNA가 아직 320 IU/mL로 검출되고 있어요.", HEPATITIS_B)
    assert found and "HBV" in ko(found[0])
    # near misses: the result as recorded, and another item's positive word
    assert rf.reversed_results("HBV DNA는 검출되지 않았어요.", HEPATITIS_B) == []
    assert rf.reversed_results("ALT 검사에서 특이 소견이 검출되지는 않았어요.", HEPATITIS_B) == []


def test_a_value_that_fell_said_to_have_risen():
    found = rf.reversed_trends("CRP가 4.8로 올라서 염증이 다시 생겼어요.", SOAP_ON_METHYLPRED)
    assert found and "CRP" in ko(found[0])
    # near misses: the fall said as a fall, and a clause about another item
    assert rf.reversed_trends("CRP가 4.8에서 0.3으로 내려갔어요.", SOAP_ON_METHYLPRED) == []
    assert rf.reversed_trends("메틸프레드니솔론 용량은 올라가지 않았어요.", SOAP_ON_METHYLPRED) == []


def test_a_bare_yes_confirms_the_time_the_question_says():
    question = "크레온은 밥 먹기 30분 전에 먹는 거 맞죠?"
    answer = "네, 맞아요. 식사 30분 전에 드시고 30분 뒤에 식사하세요."
    assert rf.schedule_conflicts(answer, PANCREAS, question)
    # near miss: the record's time
    assert rf.schedule_conflicts("아니요, 식사를 시작할 때 드세요.", PANCREAS, question) == []


def test_an_interval_in_weeks_said_otherwise():
    record = "O: 오말리주맙 300mg 피하주사 2주마다 화요일(마지막 11/17)\nP: 오말리주맙 유지"
    found = rf.value_conflicts(
        "오말리주맙은 4주에 한 번 맞는 주사라 다음은 12월 15일이에요.", "다음 주사 언제예요?", record
    )
    assert found
    # near miss: the same interval in another form
    assert (
        rf.value_conflicts(
            "오말리주맙은 2주에 한 번이라 다음은 12월 1일이에요.", "다음 주사 언제예요?", record
        )
        == []
    )


def test_not_doing_what_the_record_forbids_denies_nothing():
    record = "복용 약: 하이드로코르티손 크림 1% 몸통에만\n주의: 얼굴·눈가 금지"
    assert rf.denied_facts("하이드로코르티손 크림은 얼굴·눈가에는 바르지 마세요.", record) == []


def test_the_earlier_value_of_a_trend_is_the_records():
    record = "나이: 45\n주진단: 갑상선기능항진증\n복용 약: 메티마졸 10mg 1일 1회\n최근 검사: 유리 T4 4.1 → 1.3 ng/dL (2026-10-02)"
    answer = "네, 처음 4.1이던 유리 T4가 10월 검사에선 1.3으로 내려왔어요."
    assert rf.value_conflicts(answer, "피검사 좋아졌어요?", record) == []
    # near miss: a value the record never wrote
    assert rf.value_conflicts("유리 T4가 2.3으로 내려왔어요.", "피검사 좋아졌어요?", record)


def test_label_values_reads_labelled_lines_and_fields_and_with_every_line_the_unlabelled_too():
    record = "주의: 와파린 병용 금지\n자유 기록 문장\n환자 | 71세 남 | 처방: 탐스로신 0.4mg"
    assert rf.label_values(record) == [("주의", " 와파린 병용 금지"), ("", "환자 "), ("", " 71세 남 "), (" 처방", " 탐스로신 0.4mg")]
    every = rf.label_values(record, every_line=True)
    assert ("", "자유 기록 문장") in every and ("주의", " 와파린 병용 금지") in every
    # a label longer than 20 characters is no label: on every line the whole line is the value
    long_label = "환자가 지난 방문 때 직접 말씀하신 내용에 따르면: 와파린 복용"
    assert rf.label_values(long_label, every_line=True) == [("", long_label)]
    assert rf.label_values(long_label) == [("환자가 지난 방문 때 직접 말씀하신 내용에 따르면", " 와파린 복용")]
