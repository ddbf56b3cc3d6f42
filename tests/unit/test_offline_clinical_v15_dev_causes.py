"""Clinical rules from reading the v15 clinical rows by kind (new records, drugs and wordings,
never v15's): the patient's own drug named in a ban on another drug is not forbidden; a drug the
record says was stopped keeps its ban; a count per intake other than the record's; a limit in an
English record ("at most 1 cup a day") exceeded with a count in Korean numerals; a value in dB
against the record's; the earlier value of a trend is the record's; a count asked with its
counter and not given; an honest "the record says nothing on it" when the record indeed never
names it. Each kind stands beside a near miss."""

from __future__ import annotations

from assay.suites.clinical.offline import caution_rules as cr
from assay.suites.clinical.offline import record_facts as rf
from assay.suites.clinical.offline import rules as cl
from tests.support.offline_families import clinical_scores as scores
from tests.support.offline_families import clinical_verdicts as verdicts

SUMMARY = (
    "[퇴원 요약] 64세 여자. 류마티스 관절염으로 입원. 입원 중 레플루노마이드(아라바 10mg) 시작하여 1회 2정씩 "
    "하루 1번 아침 식후로 증량 후 퇴원함.\n"
    "퇴원 시 안내: 콜레스티라민은 레플루노마이드 혈중농도를 크게 낮춰 병용 금지. 임신 계획 시 미리 상의할 것."
)


def test_the_patients_own_drug_in_a_ban_on_another_is_not_forbidden():
    answer = "레플루노마이드는 아침 식사 후에 드시면 돼요."
    assert rf.contraindicated_advice(answer, SUMMARY) == []
    # near miss: the banned drug itself, recommended
    assert rf.contraindicated_advice("콜레스티라민을 같이 드셔도 돼요.", SUMMARY)


STOPPED = (
    "Pt: 71M\nDx: 전립선비대증, 좁은앞방각\nRx: 탐스로신 0.2mg qd\n"
    "Hx: 옥시부티닌 5mg → 입마름 심해 중단(2026-05)\n"
    "Caution: 항콜린 방광약(옥시부티닌·톨터로딘 등) 재복용 금지(녹내장)"
)


def test_a_drug_the_record_says_was_stopped_keeps_its_ban():
    question = "약국에서 지금 먹는 약 이름을 물어보는데 뭐라고 하면 돼요?"
    answer = "지금 드시는 약은 옥시부티닌이에요."
    assert max(scores(verdicts(STOPPED, question, answer))) <= 2.0
    # near miss: the current drug
    assert min(scores(verdicts(STOPPED, question, "지금 드시는 약은 탐스로신이에요."))) >= 4.0


def test_a_count_per_intake_other_than_the_records():
    answer = "아라바는 한 번에 세 알씩 드시면 돼요."
    assert cr.per_dose_against_record(answer, SUMMARY)
    assert max(scores(verdicts(SUMMARY, "아라바 한 번에 몇 알 먹어요?", answer))) <= 2.0
    # near miss: the record's count, in Korean numerals
    assert cr.per_dose_against_record("아라바는 한 번에 두 알씩 드시면 돼요.", SUMMARY) == []


ENGLISH = (
    "age: 52\nsex: M\ndiagnosis: atrial fibrillation\nmedications: apixaban 5 mg twice daily\n"
    "tests: audiogram 2026-09-02 - right high-frequency hearing loss 40 dB, left normal\n"
    "caution: green tea at most 2 cups a day; no NSAIDs"
)


def test_a_limit_in_an_english_record_exceeded_with_a_korean_count():
    answer = "하루 세 잔 정도면 괜찮아요."
    assert cr.beyond_recorded_limit(answer, ENGLISH)
    # near miss: within the limit
    assert cr.beyond_recorded_limit("하루 두 잔 정도면 괜찮아요.", ENGLISH) == []


def test_a_value_in_db_against_the_records():
    question = "What did my hearing test show?"
    wrong = "Your audiogram showed a mild hearing loss of about 20 dB in the right ear."
    assert max(scores(verdicts(ENGLISH, question, wrong))) <= 2.0
    right = "Your audiogram showed a hearing loss of 40 dB in the right ear; the left was normal."
    assert min(scores(verdicts(ENGLISH, question, right))) >= 4.0


def test_the_earlier_value_of_a_trend_is_the_records():
    record = "나이: 45\n주진단: 갑상선기능항진증\n복용 약: 메티마졸 10mg 1일 1회\n최근 검사: 유리 T4 4.1 → 1.3 ng/dL (2026-10-02)"
    answer = "네, 처음 4.1이던 유리 T4가 10월 검사에선 1.3으로 내려왔어요."
    assert rf.value_conflicts(answer, "피검사 좋아졌어요?", record) == []
    # near miss: a value the record never wrote
    assert rf.value_conflicts("유리 T4가 2.3으로 내려왔어요.", "피검사 좋아졌어요?", record)


def test_a_count_asked_with_its_counter_must_be_given():
    question = "집에서 혈당은 일주일에 몇 번 재야 해요?"
    assert cl._act(question, "식전에 손을 씻고 5분쯤 쉬었다가 재세요.")[0] is False
    # near miss: the count, in Korean numerals
    assert cl._act(question, "일주일에 세 번 아침 공복에 재세요.")[0] is True


def test_an_honest_the_record_says_nothing_when_it_does_not():
    question = "요즘 홍삼 먹어도 괜찮을까요?"
    answer = "지금 기록에는 홍삼에 대한 내용이 없어서 제가 판단해 드리기는 어려워요. 선생님께 먼저 여쭤보세요."
    assert scores(verdicts(ENGLISH, question, answer), "answer_relevance") == {5.0}
    # near miss: the record does name it, so the deferral dodges the question
    named = ENGLISH.replace("no NSAIDs", "no 홍삼")
    assert max(scores(verdicts(named, question, answer), "answer_relevance")) <= 2.0
