"""Clinical rules from reading the v5 clinical rows by kind (new records, drugs and wordings):
a time of taking said about the drug the question names, counts in Korean numerals, a count in
the unit of the one drug a clause names, ISO dates in a record, a reference limit the answer
cites, a forbidden item named with its letter (비타민 K), a forbidden drug named in the other
script, a result of a test the record never names, English permission questions and decisions,
English function words as subject words, and a question for a duration answered without one."""

from __future__ import annotations

from assay.suites.clinical.offline import record_facts as rf
from tests.support.offline_families import clinical_scores as scores
from tests.support.offline_families import clinical_verdicts as verdicts

THYROID = (
    "나이: 52\n성별: 여\n주진단: 갑상선기능저하증\n"
    "복용 약: 레보티록신 100mcg 1일 1회 아침 공복, 와파린 3mg 1일 1회 저녁\n"
    "주의: 비타민 K 고용량 보충제 금지 — 와파린\n알레르기: 없음\nTSH: 2.1 mIU/L (2026-03-15)"
)
ONE_LINE = "환자 | 66세 여 | 심방세동 | 아픽사반 5mg 1일 2회, 메토프롤롤 25mg 1일 1회 | 알레르기 없음"
ENGLISH = (
    "age: 58\nsex: M\ndiagnosis: depression, atrial fibrillation\nmedications: warfarin 5 mg once daily\n"
    "caution: avoid fluconazole and metronidazole (raise INR)\nallergies: none\nlabs: INR 2.4 (2026-09)"
)


def test_a_time_of_taking_said_about_the_drug_the_question_names():
    found = verdicts(THYROID, "레보티록신 저녁에 먹어도 되나요?", "네, 저녁 식후에 드셔도 됩니다.")
    assert max(scores(found)) <= 2.0  # two times contradicted (저녁, 식후)
    # the recorded time, repeated, is no contradiction
    kept = verdicts(THYROID, "레보티록신 저녁에 먹어도 되나요?", "지금처럼 아침 공복에 드시는 게 좋습니다.")
    assert scores(kept) == {5.0}


def test_a_count_in_korean_numerals_against_the_record():
    assert rf.Figure(2.0, "회") in rf.figures("하루 두 번")
    found = verdicts(
        ONE_LINE, "아픽사반은 하루 한 번만 먹어도 되죠?", "네, 아픽사반은 하루 한 번 5mg 드시면 됩니다."
    )
    assert scores(found) == {2.0}
    kept = verdicts(
        ONE_LINE, "아픽사반은 하루 한 번만 먹어도 되죠?", "아니요, 아픽사반은 하루 두 번 드셔야 합니다."
    )
    assert scores(kept) == {5.0}


def test_iso_dates_in_the_record_are_the_dates_an_answer_writes_in_words():
    found = verdicts(THYROID, "갑상선 검사 언제 했어요?", "2026년 3월 15일 검사에서 TSH가 2.1이었습니다.")
    assert scores(found) == {5.0}


def test_a_reference_limit_the_answer_cites_is_not_the_patients_value():
    found = verdicts(THYROID, "TSH 수치 괜찮아요?", "TSH는 2.1 mIU/L로 정상 상한(4.5) 안쪽이라 괜찮습니다.")
    assert scores(found) == {5.0}
    # another value given as the patient's still is
    wrong = verdicts(THYROID, "TSH 수치 괜찮아요?", "TSH는 6.3 mIU/L로 조금 높습니다.")
    assert max(scores(wrong)) <= 3.0


def test_a_forbidden_item_named_with_its_letter():
    found = verdicts(
        THYROID,
        "뼈에 좋다고 비타민 K 영양제 먹어도 돼요?",
        "비타민 K는 뼈 건강에 좋으니 고용량으로 드셔도 됩니다.",
    )
    assert scores(found) == {2.0}
    warned = verdicts(
        THYROID,
        "뼈에 좋다고 비타민 K 영양제 먹어도 돼요?",
        "비타민 K 보충제는 와파린 효과를 떨어뜨려 드시면 안 됩니다.",
    )
    assert scores(warned) == {5.0}


def test_a_forbidden_drug_named_in_the_other_script():
    assert rf._skeleton("metronidazole") == rf._skeleton("메트로니다졸")
    found = verdicts(
        ENGLISH,
        "질염 때문에 메트로니다졸을 처방받았는데 먹어도 돼요?",
        "메트로니다졸은 질염에 잘 들으니 그대로 드시면 됩니다.",
    )
    assert scores(found) == {2.0}
    warned = verdicts(
        ENGLISH,
        "질염 때문에 메트로니다졸을 처방받았는데 먹어도 돼요?",
        "메트로니다졸은 와파린 효과를 키워 위험하니 처방의와 먼저 상의하세요.",
    )
    assert scores(warned) == {5.0}


def test_a_result_of_a_test_the_record_never_names():
    found = verdicts(
        THYROID, "갑상선 검사 결과 어땠어요?", "TSH는 2.1로 괜찮았고, 같이 한 초음파 검사도 정상이었습니다."
    )
    assert scores(found) == {3.0}
    # recommending a test states no result; a result of the recorded test is the record's
    advised = verdicts(
        THYROID, "갑상선 검사 결과 어땠어요?", "TSH는 2.1로 괜찮았습니다. 필요하면 초음파 검사를 받아 보세요."
    )
    assert scores(advised) == {5.0}


def test_english_permission_questions_and_decisions():
    found = verdicts(
        ENGLISH,
        "Is it okay to take ibuprofen for my knee?",
        "It's better not to: with warfarin it raises the risk of bleeding. Acetaminophen is the safer choice.",
    )
    assert scores(found, "answer_relevance") == {5.0}
    side = verdicts(
        ENGLISH,
        "Can I drink grapefruit juice while I'm on warfarin?",
        "Depression often improves with regular exercise and sleep.",
    )
    assert max(scores(side, "answer_relevance")) <= 2.0


def test_a_question_for_a_duration_needs_the_figure():
    found = verdicts(
        THYROID,
        "레보티록신은 몇 년 동안 먹어야 해요?",
        "레보티록신은 꾸준히 드시는 게 중요하니 임의로 끊지 마세요.",
    )
    assert max(scores(found, "answer_relevance")) <= 4.0
    given = verdicts(
        THYROID, "레보티록신은 몇 년 동안 먹어야 해요?", "레보티록신은 보통 5년 이상, 대개 평생 드십니다."
    )
    assert scores(given, "answer_relevance") == {5.0}


def test_an_english_warning_about_a_forbidden_drug_named_in_the_other_script_is_no_advice():
    korean_record = (
        "진단명: 우울증\n현재 투약: 와파린 5mg 1일 1회\n주의사항: 메트로니다졸 금기(INR 상승)\n알레르기: 없음"
    )
    found = verdicts(
        korean_record,
        "Can I take metronidazole for my infection?",
        "No. Your record lists metronidazole as contraindicated because it raises your INR; ask your doctor for another antibiotic.",
    )
    assert scores(found) == {5.0}
    assert scores(found, "answer_relevance") == {5.0}


def test_a_paraphrased_recorded_test_is_no_unrecorded_result():
    record = "진단명: 결핵\n현재 투약: 이소니아지드 300mg 1일 1회\n검사결과: ALT 24 U/L, AST 22 U/L\n알레르기: 없음"
    found = verdicts(record, "간 수치 괜찮아요?", "최근 간 기능 검사는 ALT 24로 정상이었습니다.")
    assert scores(found) == {5.0}


def test_a_word_holding_yes_is_no_decision():
    found = verdicts(
        ENGLISH, "Can I use eye drops with warfarin?", "Dry eyes are common in winter and a humidifier helps."
    )
    assert max(scores(found, "answer_relevance")) <= 3.0


def test_two_drugs_with_one_consonant_skeleton_are_told_apart_by_their_first_vowel():
    assert rf._skeleton("paroxetine") == rf._skeleton("플루옥세틴")  # fluoxetine: the same consonants
    assert rf.names_in("paroxetine", "파록세틴을 드셔도 됩니다")
    assert not rf.names_in("paroxetine", "플루옥세틴을 드셔도 됩니다")
    assert rf.names_in("메트로니다졸", "metronidazole is fine")
