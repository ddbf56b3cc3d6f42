"""Clinical rules from reading the v6 clinical rows by cause (new records, drugs and wordings):
reassurance ("문제없으니", "상관없는") and conditions ("없으시면") are no warning; only the
sentences of a record line that forbid name forbidden things, and a line whose label is the
forbidden act forbids it; two things a caution line links, called unrelated, is forbidden
advice; two other times for one mention are one contradiction, and 식사 후 is 식후; a question
that names no drug but a time asks about the one timed drug; "48 h" in an English record is
48시간; a finding reported absent is a result; a dose asked for (얼마씩) needs a figure; an
answer that declines, or neither acts nor names the subject, sidesteps. Each cause stands beside
a near miss that must not fire."""

from __future__ import annotations

from assay.suites.clinical.offline import record_facts as rf
from tests.support.offline_families import clinical_scores as scores
from tests.support.offline_families import clinical_verdicts as verdicts

RA = (
    "나이: 61\n성별: 여\n주진단: 류마티스 관절염\n복용 약: 메토트렉세이트 15mg 주 1회, 엽산 5mg 주 1회\n"
    "주의사항: 트리메토프림 병용 금지 — 메토트렉세이트 독성\n알레르기: 없음\n검사: ALT 24 U/L"
)
SOAP = (
    "S: 61세 여. 류마티스 관절염.\nO: ALT 24 U/L.\nA: 안정.\n"
    "P: 메토트렉세이트 15mg 주 1회 유지. 트리메토프림 피할 것. 2개월마다 간기능 검사."
)
TRANSPLANT = (
    "진단명: 신장이식 상태\n현재 투약: 타크로리무스 3mg 1일 2회\n"
    "주의: 세인트존스워트는 타크로리무스 농도를 낮춤 — 복용 전 이식외과 상의\n"
    "수영: 수술 후 3개월(2027-02-01)까지 금지\n알레르기: 없음"
)
ONE_TIMED = "환자 | 58세 남 | 고혈압 | 로사르탄 50mg 매일 아침 | 알레르기 없음"
ENGLISH = (
    "age: 70\nsex: F\ndiagnosis: atrial fibrillation\nmedications: apixaban 5 mg twice daily\n"
    "caution: stop apixaban 48 h before surgery\nallergies: none"
)


def test_reassurance_is_no_warning_beside_a_forbidden_drug():
    said = rf.contraindicated_advice("트리메토프림은 메토트렉세이트와 문제없으니 드셔도 됩니다.", RA)
    assert said and "트리메토프림" in said[0]
    assert max(scores(verdicts(RA, "방광염 약으로 트리메토프림 받았는데 먹어도 되죠?", "네, 트리메토프림은 문제없으니 드세요."))) <= 2.0
    # near miss: a real warning still keeps the clause from recommending
    assert rf.contraindicated_advice("트리메토프림은 메토트렉세이트와 함께 드시면 안 됩니다.", RA) == []


def test_only_the_forbidding_sentence_of_a_plan_names_forbidden_things():
    # "2개월마다 간기능 검사" shares the line with "피할 것" but forbids nothing
    assert rf.contraindicated_advice("2개월마다 간기능 검사를 받으시면 됩니다.", SOAP) == []
    assert min(scores(verdicts(SOAP, "검사는 얼마나 자주 해요?", "2개월마다 간기능 검사를 받으시면 됩니다."))) == 5.0
    # near miss: the forbidden drug of the same line, recommended
    assert rf.contraindicated_advice("트리메토프림은 드셔도 됩니다.", SOAP)


def test_a_line_whose_label_is_the_forbidden_act():
    assert rf.contraindicated_advice("상처가 아물었으면 수영하셔도 괜찮습니다.", TRANSPLANT)
    # near miss: the act, warned against
    assert rf.contraindicated_advice("수영은 2월까지는 하지 마세요.", TRANSPLANT) == []


def test_a_negation_in_a_condition_denies_nothing():
    record = "주진단: 편두통\n증상: 시야 흐림 동반\n복용 약: 수마트립탄 50mg 필요시"
    assert rf.denied_facts("시야 흐림이 없으시면 수마트립탄을 드셔도 됩니다.", record) == []
    # near miss: the same word, flatly denied
    assert rf.denied_facts("시야 흐림은 없으셨고 두통만 있었습니다.", record)


def test_two_things_a_caution_links_called_unrelated_is_forbidden_advice():
    said = rf.dismissed_cautions("세인트존스워트는 타크로리무스와 상관없는 영양제라 드셔도 됩니다.", TRANSPLANT)
    assert said
    question = "우울해서 세인트존스워트를 먹어 보려는데 괜찮죠?"
    assert max(scores(verdicts(TRANSPLANT, question, "세인트존스워트는 타크로리무스와 상관없어요."))) <= 2.0
    # near misses: one thing of the line only; or the same clause warning after all
    assert rf.dismissed_cautions("세인트존스워트는 감기약과 상관없어요.", TRANSPLANT) == []
    assert rf.dismissed_cautions("세인트존스워트가 타크로리무스와 상관없다고 생각하면 위험합니다.", TRANSPLANT) == []


def test_one_timed_drug_asked_about_by_its_class_and_one_conflict_per_mention():
    found = rf.schedule_conflicts("네, 지금처럼 저녁 식사 후에 드시면 됩니다.", ONE_TIMED, "혈압약 밤에 먹어도 돼요?")
    assert len(found) == 1 and "저녁" in found[0]
    timed_meal = "환자 | 58세 남 | 고혈압 | 로사르탄 50mg 매일 아침 공복 | 알레르기 없음"
    found = rf.schedule_conflicts("네, 지금처럼 저녁 식사 후에 드시면 됩니다.", timed_meal, "혈압약 밤에 먹어도 돼요?")
    assert len(found) == 1 and "저녁" in found[0] and "식후" in found[0]  # one mention, one conflict
    assert max(scores(verdicts(ONE_TIMED, "혈압약 밤에 먹어도 돼요?", "네, 지금처럼 저녁 식사 후에 드시면 됩니다."))) == 2.0
    # near miss: the recorded time, repeated
    assert rf.schedule_conflicts("지금처럼 아침에 드시면 됩니다.", ONE_TIMED, "혈압약 밤에 먹어도 돼요?") == []


def test_an_english_record_hour_abbreviation_is_the_answer_hours():
    right = verdicts(ENGLISH, "수술 전에 아픽사반은 언제 끊어요?", "수술 48시간 전에 아픽사반을 끊으세요.")
    assert scores(right) == {5.0}
    # near miss: another number of hours is still a figure the record does not hold
    wrong = verdicts(ENGLISH, "수술 전에 아픽사반은 언제 끊어요?", "수술 24시간 전에 아픽사반을 끊으세요.")
    assert max(scores(wrong)) <= 4.0


def test_a_finding_reported_absent_is_a_result():
    assert rf.unrecorded_results("함께 받으신 청력 검사에서도 난청은 없었습니다.", RA)
    # near miss: the answer says the record holds no such result
    assert rf.unrecorded_results("기록에는 청력 검사 결과가 없었습니다.", RA) == []


def test_a_dose_asked_for_needs_a_figure():
    question = "메토트렉세이트 지금 얼마씩 먹고 있죠?"
    assert scores(verdicts(RA, question, "메토트렉세이트는 주 1회 15mg씩 드시고 있습니다."), "answer_relevance") == {5.0}
    # near miss: no figure, the dose is not given
    assert max(scores(verdicts(RA, question, "처방받은 대로 드시면 됩니다."), "answer_relevance")) <= 4.0


def test_a_declining_or_off_subject_answer_sidesteps():
    declined = verdicts(RA, "간수치 결과 괜찮은 거예요?", "죄송하지만 검사 결과는 제가 해석해 드릴 수 없습니다. 담당 의사에게 물어보세요.")
    assert max(scores(declined, "answer_relevance")) <= 2.0
    off = verdicts(RA, "How long do I have to keep taking the folic acid?", "Drink plenty of water and rest your joints.")
    assert max(scores(off, "answer_relevance")) <= 2.0
    # near miss: the value given, with a status word
    answered = verdicts(RA, "간수치 결과 괜찮은 거예요?", "ALT 24 U/L로 정상 범위입니다.")
    assert scores(answered, "answer_relevance") == {5.0}
