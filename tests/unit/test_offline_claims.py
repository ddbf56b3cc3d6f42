"""Claim-level checks of the offline jury: each failure kind people mark wrong scores low,
and the correct forms of the same answers score high, on every offline judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.judges.offline import claims as cl
from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt
from assay.metrics.figure_forms import canonical_figures
from assay.metrics.quantities import label_spans, mask_labels, quantities

ROOT = Path(__file__).resolve().parents[2]
RAG = get_prompt("rag_answer")
REF = "계약금은 계약금액의 30%인 129,600,000원이며 2025년 1월 10일까지 납부해야 합니다."
QUESTION = "한빛전자 인센티브 여행의 계약금은 언제까지 얼마를 내야 하나요?"


def verdicts(answer: str, reference: str = REF, question: str = QUESTION) -> list[dict]:
    item = {"question": question, "generated_answer": answer, "reference_answer": reference}
    return [judge.verdict(RAG, item) for judge in offline_jury(fitted=False)]


def accuracies(answer: str, reference: str = REF, question: str = QUESTION) -> list[float]:
    return [v["accuracy"] for v in verdicts(answer, reference, question)]


def test_wrong_date_beside_right_amount_is_wrong_on_every_judge():
    found = verdicts("한빛전자 인센티브 여행의 계약금은 129,600,000원이며 2025년 3월 13일까지 납부해야 합니다.")
    assert [v["accuracy"] for v in found] == [1, 1, 1]
    assert all("figure-substitution" in v["feedback"] and "3월 ↔ 참조의 1월" in v["feedback"] for v in found)


def test_right_answer_in_other_words_keeps_a_high_score():
    assert min(accuracies("2025년 1월 10일까지 계약금 129,600,000원(계약금액의 30%)을 내면 됩니다.")) >= 4


def test_negation_probe_scores_low():
    probe = f"다음은 사실이 아닙니다: {REF} 위 내용은 모두 틀렸습니다"
    found = verdicts(probe)
    assert [v["accuracy"] for v in found] == [1, 1, 1]
    assert all("debunk" in v["feedback"] for v in found)


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
    assert all("polarity" in v["feedback"] for v in found)


def test_keyword_list_is_not_an_answer():
    ref = "사내 메일함 기본 용량은 50GB입니다."
    found = verdicts("메일함 용량 사내 메일 용량 기본 메일함 용량 안내", ref, "사내 메일함 용량은 얼마인가요?")
    assert [v["accuracy"] for v in found] == [1, 1, 1]
    assert all("no-answer" in v["feedback"] for v in found)


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
    assert all("no-answer" in v["feedback"] for v in found)
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
    from assay.metrics.clinical_rules import RULES_DIR
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
