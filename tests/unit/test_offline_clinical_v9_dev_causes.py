"""Clinical rules from reading the v9 clinical rows by kind (new records, drugs and wordings,
never v9's): a pregnancy written by its week ("임신 30주", "GA 28wk") is the condition the drug
table reads; "1세대" (generation) is no age; a negation before another noun ("X가 없는 약")
denies nothing; a lab value reported normal without a test word, that the record never names,
is an unrecorded result; a result the record writes negative said positive (or the reverse)
contradicts it; a caution on the kind of drug asked (진통제, 항생제), left out of the answer,
makes it partial. Each kind stands beside a near miss that must not fire."""

from __future__ import annotations

from assay.metrics.clinical_extract import _AGE
from assay.suites.clinical.offline import record_facts as rf
from assay.suites.clinical.offline.drug_table import load_table, table_violations
from tests.support.offline_families import clinical_scores as scores
from tests.support.offline_families import clinical_verdicts as verdicts

PREGNANT = "나이: 29\n성별: 여\n진단: 임신 30주, 갑상선기능저하증\n복용 약: 레보티록신 75mcg 1일 1회"


def test_a_pregnancy_written_by_its_week_is_the_condition():
    pattern = load_table().conditions["pregnancy"]
    assert pattern.search("임신 30주") and pattern.search("GA 28wk") and pattern.search("26 weeks pregnant")
    found = table_violations("혈압이 높으면 남은 발사르탄 드셔도 괜찮아요.", PREGNANT, "혈압약 먹어도 돼요?")
    assert found and "pregnancy" in found[0]
    # near miss: a week count that is no pregnancy ("복용 12주")
    assert not pattern.search("복용 12주 후 재검") and not pattern.search("12주 동안 복용")


def test_a_generation_is_no_age():
    assert not _AGE.search("1세대 항히스타민은 졸음을 부릅니다")
    # near miss: an age
    assert _AGE.search("81세 여성")


ELDERLY = "나이: 78\n복용 약: 옥시부티닌 5mg 1일 2회\n주의: 클로르페니라민 등 1세대 항히스타민이 든 감기약 피할 것"
MIGRAINE = "나이: 31\n진단: 조짐(전조)을 동반한 편두통\n복용 약: 복합 경구피임약 매일"


def test_a_negation_before_another_noun_denies_nothing():
    answer = "1세대 항히스타민이 든 감기약은 피하시고, 약국에서 항히스타민이 없는 약을 달라고 하세요."
    assert rf.denied_facts(answer, ELDERLY) == []
    assert min(scores(verdicts(ELDERLY, "감기약 먹어도 돼요?", answer))) == 5.0
    # near miss: the negation before a word of the same item denies it
    assert rf.denied_facts("조짐이 없는 편두통이라 피임약은 괜찮습니다.", MIGRAINE)


HYPERTENSIVE = "나이: 52\n진단: 고혈압\n복용 약: 암로디핀 5mg 1일 1회\n검사: Cr 0.9 mg/dL, K 4.1 (11/02)"


def test_a_lab_value_reported_without_a_test_word():
    answer = "크레아티닌 0.9로 괜찮고, 콜레스테롤과 백혈구 수도 정상이었어요."
    found = rf.unrecorded_results(answer, HYPERTENSIVE)
    assert any("콜레스테롤" in f for f in found) and any("백혈구" in f for f in found)
    assert max(scores(verdicts(HYPERTENSIVE, "검사 결과 어때요?", answer))) <= 3.0
    # near miss: a value the record names under another name (Cr for 신장 수치)
    assert rf.unrecorded_results("신장 수치는 정상이었어요.", HYPERTENSIVE) == []


HEPATITIS_B = "나이: 44\n진단: 만성 B형간염\n복용 약: 테노포비르 300mg 1일 1회\n검사: HBV DNA 검출 안 됨 (2026-10-01), ALT 22"


def test_a_negative_result_said_positive():
    found = rf.reversed_results("HBV DNA가 아직 320 IU/mL로 검출되고 있어요.", HEPATITIS_B)
    assert found and "HBV" in found[0]
    assert max(scores(verdicts(HEPATITIS_B, "바이러스 검사 결과 어땠어요?", "HBV DNA가 아직 320 IU/mL로 검출되고 있어요."))) <= 2.0
    # near misses: the result as recorded, and another item's positive word
    assert rf.reversed_results("HBV DNA는 검출되지 않았어요.", HEPATITIS_B) == []
    assert rf.reversed_results("ALT 검사에서 특이 소견이 검출되지는 않았어요.", HEPATITIS_B) == []


ON_SERTRALINE = (
    "나이: 63\n진단: 우울증\n복용 약: 세르트랄린 50mg 1일 1회\n"
    "주의: 트라마돌 등 세로토닌성 진통제 병용 금지(세로토닌 증후군)"
)


def test_a_caution_on_the_kind_of_drug_asked_is_part_of_the_answer():
    from assay.suites.clinical.offline.rules import unmentioned_caution

    question = "허리가 아파서 진통제 처방받았는데 조심할 거 있어요?"
    vague = "진통제는 식후에 드시고 물을 충분히 드세요."
    assert unmentioned_caution(question, vague, ON_SERTRALINE) == "트라마돌"
    assert max(scores(verdicts(ON_SERTRALINE, question, vague), "answer_relevance")) <= 3.0
    # near misses: the answer names the cautioned drug; the question names the drug itself
    named = "처방받은 진통제가 트라마돌이면 세르트랄린과 같이 드시면 안 되니 약사에게 확인하세요."
    assert unmentioned_caution(question, named, ON_SERTRALINE) == ""
    assert unmentioned_caution("트라마돌 진통제 먹어도 돼요?", "네, 드셔도 됩니다.", ON_SERTRALINE) == ""
