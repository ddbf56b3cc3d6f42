"""Claim-level checks of the offline jury (``claims.py``): each failure kind people mark wrong
scores low and the correct forms of the same answers score high, on every offline judge; figures
written another way, answers in English, paraphrases, reworded negations, reversed conditions,
refusals, quote-then-deny and keyword stuffing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.judges.ensemble import aggregate_scores
from assay.judges.offline import claims as cl
from assay.judges.offline import lexicon as lx
from assay.judges.offline import offline_jury
from assay.judges.offline.messages import catalogue, key_part, render
from assay.judges.prompts import get_prompt
from assay.metrics.figure_forms import canonical_figures
from assay.metrics.quantities import label_spans, mask_labels, quantities, same_quantity

ROOT = Path(__file__).resolve().parents[4]
RAG = get_prompt("rag_answer")
REF = "계약금은 계약금액의 30%인 129,600,000원이며 2025년 1월 10일까지 납부해야 합니다."
QUESTION = "한빛전자 인센티브 여행의 계약금은 언제까지 얼마를 내야 하나요?"


def shown(evidence: str) -> str:
    """Evidence as a Korean run's feedback writes it: a claim check's name ("no-answer") and a
    pair of opposite concepts ("less_than↔at_least") in Korean, anything else as it is."""
    key = f"finding.{key_part(evidence)}"
    if key in catalogue("ko"):
        return catalogue("ko")[key]
    if "↔" in evidence:
        return "↔".join(render(lx.concept_name(c), "ko") for c in evidence.split("↔"))
    return evidence


def verdicts(answer: str, reference: str = REF, question: str = QUESTION) -> list[dict]:
    item = {"question": question, "generated_answer": answer, "reference_answer": reference}
    return [judge.verdict(RAG, item) for judge in offline_jury(fitted=False)]


def accuracies(answer: str, reference: str = REF, question: str = QUESTION) -> list[float]:
    return [v["accuracy"] for v in verdicts(answer, reference, question)]


def test_wrong_date_beside_right_amount_is_wrong_on_every_judge():
    found = verdicts("한빛전자 인센티브 여행의 계약금은 129,600,000원이며 2025년 3월 13일까지 납부해야 합니다.")
    assert [v["accuracy"] for v in found] == [1, 1, 1]
    assert all(shown("figure-substitution") in v["feedback"] and "3월 ↔ 참조의 1월" in v["feedback"] for v in found)


def test_right_answer_in_other_words_keeps_a_high_score():
    assert min(accuracies("2025년 1월 10일까지 계약금 129,600,000원(계약금액의 30%)을 내면 됩니다.")) >= 4


def test_negation_probe_scores_low():
    probe = f"다음은 사실이 아닙니다: {REF} 위 내용은 모두 틀렸습니다"
    found = verdicts(probe)
    assert [v["accuracy"] for v in found] == [1, 1, 1]
    assert all(shown("debunk") in v["feedback"] for v in found)


def test_english_debunk_scores_low():
    ref = "VPN passwords must be changed every 90 days."
    answer = "It is not true that VPN passwords must be changed every 90 days; that claim is false."
    assert accuracies(answer, ref, "How often must VPN passwords change?") == [1, 1, 1]


def test_refusal_is_right_only_when_the_reference_has_no_answer():
    none = "제공된 문서에는 주차위반 과태료 이의신청 기한에 대한 정보가 없습니다."
    q = "주차위반 과태료 이의신청 기한은 언제까지인가요?"
    assert accuracies("문서에서 해당 기한을 찾을 수 없습니다.", none, q) == [5, 5, 5]
    assert accuracies("문서에서 해당 기한을 찾을 수 없습니다.", REF, QUESTION) == [1, 1, 1]
    assert accuracies("이의신청은 고지서를 받은 날부터 60일 이내에 해야 합니다.", none, q) == [1, 1, 1]


def test_swapped_entity_and_missing_asked_entity():
    ref = "노트북을 분실하면 즉시 정보보안팀에 신고하고 원격 잠금을 요청해야 합니다."
    q = "노트북 분실 시 누구에게 신고해야 하나요?"
    assert accuracies("노트북을 분실하면 즉시 총무팀에 신고하고 원격 잠금을 요청해야 합니다.", ref, q) == [1, 1, 1]
    assert min(accuracies("노트북을 잃어버리면 바로 정보보안팀에 알리고 원격 잠금을 요청하세요.", ref, q)) >= 4


def test_negated_condition_is_capped():
    ref = "개인 USB 저장장치는 업무용 PC에 연결할 수 없습니다."
    q = "개인 USB를 업무용 PC에 연결할 수 있나요?"
    found = verdicts("개인 USB 저장장치는 업무용 PC에 연결할 수 있습니다.", ref, q)
    assert max(v["accuracy"] for v in found) <= 2
    assert all(shown("polarity") in v["feedback"] for v in found)


def test_keyword_list_is_not_an_answer():
    ref = "사내 메일함 기본 용량은 50GB입니다."
    found = verdicts("메일함 용량 사내 메일 용량 기본 메일함 용량 안내", ref, "사내 메일함 용량은 얼마인가요?")
    assert [v["accuracy"] for v in found] == [1, 1, 1]
    assert all(shown("no-answer") in v["feedback"] for v in found)


def test_a_range_or_short_list_writes_its_unit_once_at_the_end():
    units = lambda text: [(q.value, q.unit or q.counter) for q in quantities(text)]  # noqa: E731
    assert units("2~3주") == [(2.0, "주"), (3.0, "주")]
    assert units("1만~2만 원") == [(10000.0, "원"), (20000.0, "원")]
    assert units("7, 8월") == [(7.0, "월"), (8.0, "월")]
    assert units("1, 2, 3층") == [(1.0, "층"), (2.0, "층"), (3.0, "층")]
    assert units("010-4821-7730") == [(10.0, ""), (4821.0, ""), (7730.0, "")]  # no unit to pass back
    # so a range in weeks against one in days is a wrong period, not half a match
    ref = "맞춤 안경테는 주문 후 2~3일 걸립니다."
    assert max(accuracies("맞춤 안경테는 주문하시면 2~3주 정도 걸려요.", ref, "안경테 주문하면 며칠 걸려요?")) <= 2
    assert min(accuracies("주문하시고 2~3일이면 받으실 수 있어요.", ref, "안경테 주문하면 며칠 걸려요?")) >= 4


def test_a_list_of_terms_is_no_answer_even_with_the_reference_figure_among_them():
    ref = "세차 회원은 월 39,000원에 실내 세차를 무제한 이용할 수 있고, 외부 왁스는 회당 5,000원이 추가됩니다."
    q = "세차 회원권은 얼마고 뭐가 포함돼요?"
    found = verdicts("세차 회원, 39,000원, 실내 세차, 무제한, 왁스 추가", ref, q)
    assert [v["accuracy"] for v in found] == [1, 1, 1]
    assert all(shown("no-answer") in v["feedback"] for v in found)
    # a terse list of figures is a timetable or a price list, not a keyword list
    assert not cl._listed_keywords("평일 오전 9시, 오후 6시, 토요일 오전 10시, 오후 1시")
    assert not cl._listed_keywords("실내 세차 39,000원, 왁스 5,000원")


def test_an_answer_that_only_restates_the_question_is_no_answer():
    ref = "분실한 회원카드는 앱에서 재발급을 신청하면 3일 안에 우편으로 받을 수 있습니다."
    q = "회원카드를 잃어버렸는데 다시 받을 수 있나요?"
    echo = "회원카드를 잃어버리셨을 때 다시 받을 수 있는지 궁금하시군요. 카드 재발급에 대해 문의 주셨습니다."
    found = verdicts(echo, ref, q)
    assert [(v["accuracy"], v["completeness"]) for v in found] == [(1, 1)] * 3 and max(v["relevance"] for v in found) <= 2
    english = "You are asking whether a lost membership card can be reissued. I will check and let you know."
    assert max(accuracies(english, ref, q)) <= 2
    # the same opening followed by the answer is an answer
    answered = "회원카드를 다시 받을 수 있는지 궁금하시군요. 앱에서 재발급을 신청하시면 3일 안에 우편으로 받으실 수 있어요."
    assert min(accuracies(answered, ref, q)) >= 4


def test_english_answer_to_korean_reference_is_scored_on_figures():
    right = "The deposit, 30% of the contract, is 129,600,000 won, due by January 10, 2025."
    wrong = "The deposit is 129,600,000 won, due by March 13, 2025."
    assert min(accuracies(right)) >= 4
    assert accuracies(wrong) == [1, 1, 1]
    assert "다른 언어" in verdicts(right)[0]["feedback"]


def test_figures_inside_names_and_labels_are_not_figures():
    assert [q.text for q in quantities("코로나19 이후 COVID-19와 GPT-4 도입으로 매출 3% 증가")] == ["3%"]
    assert [q.text for q in quantities("약3% 총3명")] == ["3%", "3명"]
    text = "1단계(1~3개월): 월 1회 점검, 1차 타깃은 20~30대 직장인, 예산 2억 원"
    assert [q.text for q in quantities(mask_labels(text))] == ["2억 원"]
    assert label_spans(text) == ["1단계(1~3개월)", "1차", "월 1회", "20~30대"]


def test_quarters_are_no_minutes_and_label_a_plan_and_all_at_once_is_no_count():
    # 분기 is a quarter, not 분 (minutes); in a report's plan it labels a period.
    assert [(q.value, q.unit) for q in quantities("3분기 매출은 120억 원, 회의는 30분")] == [(3, ""), (1.2e10, "원"), (30, "분")]
    plan = "1분기에는 품목 분류를 정비하고 2분기에는 계약재배를 시범 도입한다"
    assert label_spans(plan) == ["1분기", "2분기"] and quantities(mask_labels(plan)) == ()
    # "한 번에 모두/다" means all at once; "한 번에 2개" is still a per-time limit.
    assert quantities("전략을 한 번에 모두 도입하기보다 나눠서 시행한다") == ()
    assert [q.text for q in quantities("한 번에 최대 2개까지 빌릴 수 있다")] == ["1회", "2개"]


def test_cross_language_conversion():
    assert canonical_figures("due by January 10, 2025") == "due by 2025년 1월 10일"
    assert "129600000원" in canonical_figures("129.6 million won")


def _report_input(case_id: str) -> dict:
    base = ROOT / "datasets" / "report"
    cases = {json.loads(line)["id"]: json.loads(line) for line in (base / "cases.jsonl").open(encoding="utf-8")}
    gens = {json.loads(line)["case_id"]: json.loads(line) for line in (base / "generations.jsonl").open(encoding="utf-8")}
    return {"query": cases[case_id]["query"], "report": gens[case_id]["report"], "sources": gens[case_id]["sources"]}


def test_mkt01_plan_labels_are_not_hallucinations():
    item = _report_input("mkt-01")
    for judge in offline_jury():
        facts = judge.verdict(get_prompt("report_factual_accuracy"), item)
        halluc = judge.verdict(get_prompt("report_hallucination"), item)
        assert facts["score"] >= 6, (judge.name, facts)
        assert halluc["hallucination_count"] <= 3, (judge.name, halluc)
        described = " ".join(c["description"] for c in halluc["hallucinations"])
        assert "출처에 없는 수치" not in described  # no stage, target, age group or frequency counted


def test_a_report_plan_by_quarter_and_all_at_once_are_no_unfounded_figures():
    item = _report_input("pur-01")
    for judge in offline_jury():
        halluc = judge.verdict(get_prompt("report_hallucination"), item)
        unfounded = [c["description"] for c in halluc["hallucinations"] if "출처에 없는 수치" in c["description"]]
        assert not any("한 번에 모두" in d or "1분기에는" in d for d in unfounded), (judge.name, unfounded)
        assert all("출처에 없는 수치: " in d for d in unfounded)  # the case names the figure


@pytest.mark.parametrize("case_id", ["q013", "q014", "q016", "q019", "q028"])
def test_bundled_answers_people_marked_wrong_are_caught(case_id):
    base = ROOT / "datasets" / "rag_qa"
    case = next(json.loads(x) for x in (base / "cases.jsonl").open(encoding="utf-8") if json.loads(x)["id"] == case_id)
    gen = next(
        json.loads(x) for x in (base / "generations.jsonl").open(encoding="utf-8") if json.loads(x)["case_id"] == case_id
    )
    item = {
        "question": case["question"],
        "generated_answer": gen["answer"],
        "reference_answer": case["reference_answer"],
        "contexts": [c["text"] for c in gen["retrieved"][:10]],
    }
    # the rules alone score them at most 2; after the fitted stage every judge still catches them
    # (at most 2.5, the bench's "caught")
    assert max(judge.verdict(RAG, item)["accuracy"] for judge in offline_jury(fitted=False)) <= 2
    assert max(judge.verdict(RAG, item)["accuracy"] for judge in offline_jury()) <= 2.5


def test_claim_checks_are_part_of_every_offline_judge_version():
    from assay.judges.offline import lexicon
    from assay.judges.offline.base import OfflineJudge
    from assay.metrics import figure_forms

    # The claim checks, the lexicon they read and the figure notations they compare.
    for module in (cl, lexicon, figure_forms):
        source = Path(module.__file__).resolve()
        assert source in OfflineJudge.rule_files
        for judge in offline_jury():
            assert source in type(judge).rule_files


def test_the_clinical_rule_files_and_drug_table_are_part_of_every_offline_judge_version():
    from assay.suites.clinical.formulas.rules import RULES_DIR
    from assay.suites.clinical.offline import RULES

    tables = sorted(RULES_DIR.glob("*.yaml"))
    assert RULES_DIR / "drug_interactions.yaml" in tables and RULES_DIR / "lexicon.yaml" in tables
    for table in tables:  # editing a table changes what the clinical judge says: a new version
        assert table.resolve() in RULES.sources()


def test_not_true_is_right_when_the_reference_says_no_and_a_cue_inside_an_answer_is_not_a_refusal():
    ref = "아니요. 그 소문은 사실이 아닙니다. 요금은 인상되지 않았습니다."
    assert min(accuracies("그 소문은 사실이 아니며, 요금은 인상되지 않았습니다.", ref, "요금이 인상됐다는 소문이 사실인가요?")) >= 4
    ref2 = "출발 후에는 일정 변경 여부를 확인할 수 없으며, 변경 수수료는 50,000원입니다."
    answer = "출발 후에는 변경 여부를 확인할 수 없고, 수수료는 50,000원입니다."
    assert min(accuracies(answer, ref2, "출발 후 일정 변경은 어떻게 되나요?")) >= 4


# -- meaning: figures in any notation, paraphrase, negation, refusal -----------------------------



def judge(answer: str, reference: str, question: str) -> tuple[float, list[dict]]:
    """(ensemble accuracy, verdicts) of the default offline jury."""
    jury = offline_jury(fitted=False)
    verdicts = [j.verdict(RAG, {"question": question, "generated_answer": answer, "reference_answer": reference}) for j in jury]
    ensemble, _ = aggregate_scores([v["accuracy"] for v in verdicts], [j.weight for j in jury], scale=(1, 5))
    return ensemble, verdicts


def correct(answer: str, reference: str, question: str) -> list[dict]:
    ensemble, verdicts = judge(answer, reference, question)
    assert ensemble > 3, [v["feedback"] for v in verdicts]
    return verdicts


def wrong(answer: str, reference: str, question: str) -> list[dict]:
    ensemble, verdicts = judge(answer, reference, question)
    assert ensemble <= 2, [v["feedback"] for v in verdicts]
    return verdicts


# -- figures in one written form --------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("08:00", "오전 8시"),
        ("8 a.m.", "8시"),
        ("오후 3시 반", "15:30"),
        ("3:30 p.m.", "15시 30분"),
        ("9시부터 6시까지", "오전 9시부터 오후 6시까지"),
        ("2024-03-01", "2024년 3월 1일"),
        ("March 1, 2024", "2024년 3월 1일"),
        ("3/1(금)까지", "3월 1일까지"),
        ("1만 원", "10,000원"),
        ("10000 won", "1만 원"),
        ("KRW 10,000", "10,000원"),
        ("3천 원", "3,000원"),
        ("2주", "14일"),
        ("two weeks", "14일"),
        ("1년", "12개월"),
        ("1시간 반", "90분"),
        ("하루", "1일"),
        ("한 달", "1개월"),
        ("10 percent", "10%"),
    ],
)
def test_equal_values_compare_equal_in_any_writing(a: str, b: str):
    qa, qb = quantities(a), quantities(b)
    assert qa and len(qa) == len(qb), (canonical_figures(a), canonical_figures(b))
    assert all(same_quantity(x, y) for x, y in zip(qa, qb, strict=True)), (qa, qb)


def test_values_that_differ_still_differ():
    assert not same_quantity(quantities("2주")[0], quantities("10일")[0])
    assert not same_quantity(quantities("오전 8시")[0], quantities("20:00")[0])
    assert quantities("1/3 이상")[0].unit == "%"  # a fraction is not a date: a share (33.3 %)
    assert canonical_figures("두 번째 창구") == "두 번째 창구"  # an ordinal is not a count


# (case, question, reference, a correct answer, a wrong answer, evidence the wrong one's feedback names)
RIGHT_AND_WRONG = [
    ("time in another notation", "은행 창구 영업시간은 언제인가요?", "은행 창구는 평일 오전 9시부터 오후 4시까지 운영합니다.",
     "창구는 평일 09:00~16:00에 운영합니다.", "은행 창구는 평일 오전 9시부터 오후 6시까지 운영합니다.", "18시"),
    ("duration in other units", "도서관 대출 기간은 며칠인가요?", "도서 대출 기간은 14일입니다.",
     "책은 2주 동안 빌릴 수 있어요.", "도서 대출 기간은 10일입니다.", "figure-substitution"),
    ("native day count", "계정은 언제 발급되나요?", "신규 계정은 입사일 하루 전에 발급됩니다.",
     "신규 계정은 입사 1일 전에 발급돼요.", "신규 계정은 입사일 3일 전에 발급됩니다.", "figure-substitution"),
    ("wrong date beside a right amount", "행사 날짜와 참가비는?", "행사는 2025년 5월 10일에 열리며 참가비는 10,000원입니다.",
     "행사는 2025-05-10에 열리고 참가비는 1만 원이에요.", "행사는 2025년 5월 3일에 열리며 참가비는 1만 원입니다.", "figure-substitution"),
    ("English answer compared by concepts", "회원 카드 재발급 비용은 얼마인가요?", "회원 카드 재발급은 무료입니다.",
     "Reissuing a membership card is free of charge.", "Reissuing a membership card is not free; a fee is charged.", "polarity"),
    ("English answer with the other sign", "만 19세 미만도 가입할 수 있나요?", "만 19세 미만은 가입할 수 없습니다.",
     "No. People under 19 cannot sign up.", "Yes, people under 19 can sign up.", "polarity"),
    ("English answer with English times", "외래 진료 접수 시간은?", "외래 진료 접수는 평일 오전 8시 30분부터 오후 5시까지 받습니다.",
     "Outpatient registration runs 8:30 a.m. to 5 p.m. on weekdays.", "Outpatient registration runs 9 a.m. to 5 p.m. on weekdays.",
     "figure-substitution"),
    ("free said as a negation", "요금제 변경 수수료가 있나요?", "요금제 변경 시 별도의 수수료는 없습니다.",
     "요금제를 바꿔도 수수료는 따로 받지 않습니다.", "요금제 변경 시 수수료 3,000원이 부과됩니다.", "정확도 1"),
    ("reworded negation", "해외여행자보험은 출국 후에도 가입할 수 있나요?",
     "아니요. 해외여행자보험은 출국 전에만 가입할 수 있으며, 출국 후에는 가입할 수 없습니다.",
     "출국한 다음에는 가입이 안 되고, 반드시 출국 전에 가입해야 합니다.", "네, 해외여행자보험은 출국 후에도 가입할 수 있습니다.", "yes-no"),
]


@pytest.mark.parametrize(
    ("question", "reference", "right", "wrong_answer", "evidence"),
    [case[1:] for case in RIGHT_AND_WRONG],
    ids=[case[0] for case in RIGHT_AND_WRONG],
)
def test_right_answer_scores_high_and_its_wrong_twin_low(
    question: str, reference: str, right: str, wrong_answer: str, evidence: str
):
    correct(right, reference, question)
    found = wrong(wrong_answer, reference, question)
    assert any(shown(evidence) in v["feedback"] for v in found), [v["feedback"] for v in found]


def test_english_answer_names_how_it_was_compared():
    verdicts = correct("Reissuing a membership card is free of charge.", "회원 카드 재발급은 무료입니다.", "재발급 비용은?")
    assert "이중 언어 사전" in verdicts[0]["feedback"]


# -- paraphrase without shared words ------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "answer", "reference", "question", "evidence"),
    [
        ("correct", "전원을 끈 뒤 앞 덮개를 열어 걸린 종이를 천천히 빼내고, 다시 전원을 켜면 됩니다.",
         "프린터 전원을 끄고 앞면 커버를 연 다음 걸린 용지를 조심스럽게 제거한 후 전원을 다시 켭니다.",
         "프린터 용지 걸림은 어떻게 해결하나요?", "다른 표현의 같은 답변"),
        ("wrong", "주차장 이용 요금은 주차장 이용 요금 기준에 따라 주차장 요금이 정해집니다.",
         "주차장 이용 요금은 1시간에 3,000원입니다.", "주차장 이용 요금은 얼마인가요?", "no-answer"),
    ],
    ids=["paraphrase in other words is credited", "keyword stuffing with a predicate"],
)
def test_rule_evidence_is_in_the_feedback(expected: str, answer: str, reference: str, question: str, evidence: str):
    verdicts = (correct if expected == "correct" else wrong)(answer, reference, question)
    assert any(shown(evidence) in v["feedback"] for v in verdicts)


# -- negation and contradiction -----------------------------------------------------------------


def test_negation_inside_a_modifier_or_condition_is_not_a_denial():
    assert cl.polarity("19세가 안 된 사람은 가입이 불가합니다") == cl.polarity("19세 미만은 가입할 수 없습니다") == 1
    assert cl.polarity("기한 내에 신고하지 않으면 과태료가 부과됩니다") == 0
    assert cl.polarity("If you do not apply, a fine is charged") == 0
    assert cl.polarity("무료입니다") == cl.polarity("수수료는 없습니다") == cl.polarity("no fee is charged") == 1


@pytest.mark.parametrize(
    ("answer", "pair"),
    [
        ("결제 후에 쿠폰을 입력해야 할인이 적용됩니다.", "after↔before"),
        ("5만 원 미만 구매 시 포인트가 적립됩니다.", "less_than↔at_least"),
        ("외래 진료 접수는 주말 오전 8시 30분부터 받습니다.", "weekend↔weekday"),
        ("검진 결과는 14일 이내에 이메일로 발송됩니다.", "email↔post"),
    ],
)
def test_reversed_condition_is_a_contradiction(answer: str, pair: str):
    refs = {
        "after↔before": "할인은 결제 전에 쿠폰을 입력해야 적용됩니다.",
        "less_than↔at_least": "5만 원 이상 구매 시 포인트가 적립됩니다.",
        "weekend↔weekday": "외래 진료 접수는 평일 오전 8시 30분부터 받습니다.",
        "email↔post": "검진 결과는 14일 이내에 우편으로 발송됩니다.",
    }
    found = wrong(answer, refs[pair], "조건은 무엇인가요?")
    assert all(shown("reversed-condition") in v["feedback"] and shown(pair) in v["feedback"] for v in found)


def test_quote_then_deny_in_korean_and_english():
    ref = "회원 카드 재발급은 무료입니다."
    q = "회원 카드 재발급 비용은 얼마인가요?"
    for answer in (
        "회원 카드 재발급은 무료라고 하지만 이는 사실이 아닙니다.",
        "\"회원 카드 재발급은 무료입니다\"라는 안내는 잘못된 정보입니다.",
        "Some say reissuing the card is free, but that is not correct.",
    ):
        found = wrong(answer, ref, q)
        assert any(shown("debunk") in v["feedback"] for v in found), answer


def test_refusal_is_correct_when_the_reference_says_the_documents_hold_no_answer():
    none = "제공된 자료에는 주차장 이용 요금이 나와 있지 않습니다."
    q = "주차장 이용 요금은 얼마인가요?"
    for answer in ("문서에 주차 요금 정보는 없습니다.", "The documents don't mention how much parking costs."):
        _, verdicts = judge(answer, none, q)
        assert [v["accuracy"] for v in verdicts] == [5, 5, 5], answer
    wrong("주차장 이용 요금은 시간당 2,000원입니다.", none, q)
    wrong("The documents do not say how much parking costs.", "주차장 요금은 1시간에 3,000원입니다.", q)


def test_proper_noun_swap_only_in_the_same_slot():
    ref = "담당 의사는 내과 정하늘 교수입니다."
    wrong("담당 의사는 내과 박준영 교수입니다.", ref, "담당 의사는 누구인가요?")
    # A name the answer adds elsewhere is extra detail, not a swap.
    assert not cl.entity_findings(
        "인솔은 최도현 팀장이 맡고, 최 팀장은 스위스 트레킹과 오사카 미식 상품을 담당합니다.",
        "인솔은 최도현 팀장이 맡으며, 스위스 트레킹 등 일본·유럽 상품을 담당합니다.",
        "인솔은 누가 맡나요?",
    )


# -- each finding on its own --------------------------------------------------------------------


def rules(found: list) -> list[str]:
    return [f.rule for f in found]


def test_swapped_figures_and_a_figure_of_another_subject():
    ref = "일반석 수하물은 23kg, 프레스티지석은 32kg까지 무료입니다."
    assert rules(cl.swap_findings("일반석은 32kg, 프레스티지석은 23kg까지 무료예요.", ref)) == ["figure-swap"]
    assert cl.swap_findings("일반석은 23kg, 프레스티지석은 32kg까지 무료예요.", ref) == []
    ref = "저공해 차량은 50%, 장애인 차량은 80% 할인됩니다."
    found = cl.swap_findings("장애인 차량은 50% 할인돼요.", ref)
    assert [(f.rule, f.cap) for f in found] == [("misplaced-figure", 1)]


def test_a_clause_with_the_other_sign_or_a_swapped_condition():
    ref = "개인 USB 저장장치는 업무용 PC에 연결할 수 없습니다."
    assert rules(cl.polarity_findings("개인 USB 저장장치는 업무용 PC에 연결할 수 있습니다.", ref)) == ["polarity"]
    assert cl.polarity_findings("개인 USB는 업무용 PC에 꽂을 수 없어요.", ref) == []
    ref = "여행자 보험은 출국 전에 가입해야 합니다."
    assert rules(cl.polarity_findings("여행자 보험은 출국 후에 가입해야 합니다.", ref)) == ["reversed-condition"]


def test_spans_rates_and_days_read_the_other_way():
    assert rules(cl.span_side_findings("이사 나간 뒤 3일 이내에 신청하세요.", "이사 3일 전까지 신청하세요.")) == ["reversed-condition"]
    assert rules(cl.span_reach_findings("끝나고 7일이 지난 뒤부터 접수하세요.", "완료 후 7일 이내에 접수하세요.")) == ["reversed-condition"]
    assert rules(cl.rate_period_findings("일주일마다 500원씩 내요.", "연체료는 하루 500원입니다.")) == ["rate-period"]
    assert rules(cl.day_swap_findings("그날 바로 수거해요.", "대형 폐기물은 다음 날 수거합니다.")) == ["reversed-condition"]
    text, read = cl.clock_in_context("1시 타임은 없어요", "오후 1시 예식 있어요?")
    assert (text, [render(m, "ko") for m in read]) == ("13시 타임은 없어요", ["1시 → 13시"])


def test_payer_deduction_hedge_list_and_even_if():
    assert rules(cl.payer_findings("배송비는 저희 매장이 부담합니다.", "배송비는 고객이 부담합니다.")) == ["payer-swap"]
    assert rules(cl.deduction_findings("전부 환불받으실 수 있어요.", "등록비 5만 원을 뺀 금액을 돌려받습니다.")) == ["deduction-ignored"]
    assert cl.deduction_findings("등록비를 빼고 전부 환불돼요.", "등록비 5만 원을 뺀 금액을 돌려받습니다.") == []
    assert rules(cl.hedge_findings("확실하지는 않지만 3일 걸려요.", "3일 걸립니다.")) == ["hedged"]
    assert cl.hedge_findings("3일 걸릴 것 같아요.", "3일 걸립니다.") == []
    assert rules(cl.closed_list_findings("티켓은 앱에서 구매할 수 있어요.", "티켓은 매표소에서만 구매할 수 있습니다.")) == ["closed-list"]
    ref = "진단서를 내면 위약금 없이 취소됩니다."
    assert rules(cl.concessive_findings("진단서를 내셔도 위약금 10%는 똑같이 빠지고 취소돼요.", ref)) == ["even-if"]


def test_yes_no_against_the_reference_or_the_clause_that_answers():
    assert rules(cl.yes_no_findings("네, 가능합니다.", "아니요, 불가합니다.")) == ["yes-no"]
    assert cl.yes_no_findings("네, 가능합니다.", "네, 가능합니다.") == []
    assert cl.implied_answer("반려견 동반 입장이 가능한가요?", "반려견은 입장할 수 없습니다.")[0] == "no"
    assert cl.implied_answer("반려견은 몇 마리까지 되나요?", "반려견은 입장할 수 없습니다.") is None
