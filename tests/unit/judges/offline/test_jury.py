"""The offline jury: every judge answers every prompt, deterministically, with valid verdicts."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.judges.base import Judge, JudgeResult
from assay.judges.ensemble import aggregate_hallucination, aggregate_scores
from assay.judges.offline import (
    DEFAULT_OFFLINE_WEIGHTS,
    LexicalJudge,
    NgramJudge,
    NumericJudge,
    OfflineJudge,
    offline_jury,
)
from assay.judges.offline import text as tx
from assay.judges.prompts import all_prompts, get_prompt
from tests.conftest import ROOT

SAMPLE_INPUTS = {p.id: dict(p.example) for p in all_prompts()}
# Prompts that need a language model (the grounding family): the offline jury has no rule for them.
OFFLINE_PROMPTS = [p for p in all_prompts() if not p.llm_only]

JURY = offline_jury()
RULES = offline_jury(fitted=False)  # rag_answer from the rules alone: their exact contract
LABELLED = ROOT / "datasets" / "judgments" / "labelled.jsonl"


def run(judge: OfflineJudge, prompt_id: str, item: dict, case_id: str = "c1") -> JudgeResult:
    return asyncio.run(judge.ajudge(get_prompt(prompt_id), item, case_id))


def ensemble(prompt_id: str, item: dict, field: str, jury: list[OfflineJudge] = JURY) -> tuple[float, bool]:
    prompt = get_prompt(prompt_id)
    scores = [prompt.scores(run(j, prompt_id, item).verdict)[field] for j in jury]
    return aggregate_scores(scores, [j.weight for j in jury], scale=prompt.score_fields[field])


# -- the jury -----------------------------------------------------------------------------------


def test_default_jury():
    assert [type(j) for j in JURY] == [LexicalJudge, NgramJudge, NumericJudge]
    assert [j.weight for j in JURY] == list(DEFAULT_OFFLINE_WEIGHTS) == [0.34, 0.33, 0.33]
    assert len({j.name for j in JURY}) == len({j.model for j in JURY}) == 3
    assert [j.model for j in JURY] == ["offline/lexical", "offline/ngram", "offline/numeric"]
    for judge in JURY:
        assert isinstance(judge, Judge)
        assert judge.offline is True


def test_jury_weights():
    assert [j.weight for j in offline_jury([1, 2, 3])] == [1.0, 2.0, 3.0]
    assert [j.weight for j in offline_jury({"offline/ngram": 0.5})] == [0.34, 0.5, 0.33]
    assert [j.weight for j in offline_jury({"offline-numeric": 0.0})] == [0.34, 0.33, 0.0]
    with pytest.raises(ValueError):
        offline_jury([1, 2])
    with pytest.raises(ValueError):
        offline_jury({"gpt-4o": 1.0})
    with pytest.raises(ValueError):
        LexicalJudge(weight=-1)


@pytest.mark.parametrize("weights", [None, [1, 2, 3], {"offline/ngram": 0.5}, {"offline-numeric": 0.0}])
def test_the_panel_the_spec_records_is_the_jury_without_its_rules(weights):
    """``offline_panel`` names the jury for the spec without importing the rules (a refused run
    never pays for them): the same judges, models and weights as the jury itself."""
    from assay.judges.offline_panel import offline_panel

    assert offline_panel(weights) == [{"name": j.name, "model": j.model, "weight": j.weight} for j in offline_jury(weights)]


@pytest.mark.parametrize("weights", [[1, 2], {"gpt-4o": 1.0}, [1, -1, 1], [1, float("nan"), 1]])
def test_the_panel_refuses_the_weights_the_jury_refuses(weights):
    from assay.judges.offline_panel import offline_panel

    with pytest.raises(ValueError) as panel:
        offline_panel(weights)
    with pytest.raises(ValueError) as jury:
        offline_jury(weights)
    assert str(panel.value) == str(jury.value)


@pytest.mark.parametrize("judge", JURY, ids=lambda j: j.name)
@pytest.mark.parametrize("prompt", OFFLINE_PROMPTS, ids=lambda p: p.id)
def test_every_judge_answers_every_prompt(judge: OfflineJudge, prompt):
    result = run(judge, prompt.id, SAMPLE_INPUTS[prompt.id], case_id="case-7")
    assert result.ok, result.error
    assert (result.judge, result.model, result.prompt_id, result.case_id) == (
        judge.name,
        judge.model,
        prompt.id,
        "case-7",
    )
    assert result.error is None and result.attempts == 1
    assert result.usage.cost_usd == 0
    # the verdict validates, and raw_text is exactly the JSON of the verdict
    validated = prompt.verdict_model.model_validate(result.verdict)
    assert json.loads(result.raw_text) == result.verdict
    assert prompt.parse_verdict(result.raw_text) == validated
    for name, (lo, hi) in prompt.score_fields.items():
        assert lo <= prompt.scores(validated)[name] <= hi


@pytest.mark.parametrize("judge", JURY, ids=lambda j: j.name)
def test_deterministic(judge: OfflineJudge):
    first = {p.id: run(judge, p.id, SAMPLE_INPUTS[p.id]).raw_text for p in OFFLINE_PROMPTS}
    for f in (tx.analyse, tx.quantities, tx.weighted_lemmas, tx.char_ngrams, tx.stems):
        f.cache_clear()
    second = {p.id: run(type(judge)(), p.id, SAMPLE_INPUTS[p.id]).raw_text for p in OFFLINE_PROMPTS}
    assert first == second


@pytest.mark.parametrize("judge", JURY, ids=lambda j: j.name)
@pytest.mark.parametrize("prompt", [p for p in all_prompts() if p.llm_only], ids=lambda p: p.id)
def test_an_llm_only_prompt_gets_no_offline_verdict_but_the_reason(judge: OfflineJudge, prompt):
    result = run(judge, prompt.id, SAMPLE_INPUTS[prompt.id])
    assert result.verdict is None and result.error_kind == "permanent"
    assert "needs an LLM judge" in (result.error or "")


def test_deterministic_across_processes():
    code = (
        "import json, asyncio\n"
        "from assay.judges.offline import offline_jury\n"
        "from assay.judges.prompts import all_prompts\n"
        "out = {j.name + '/' + p.id: asyncio.run(j.ajudge(p, dict(p.example), 'c1')).raw_text\n"
        "       for j in offline_jury() for p in all_prompts() if not p.llm_only}\n"
        "print(json.dumps(out, ensure_ascii=False))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    here = {
        j.name + "/" + p.id: run(j, p.id, SAMPLE_INPUTS[p.id]).raw_text for j in JURY for p in OFFLINE_PROMPTS
    }
    assert json.loads(proc.stdout) == here


def test_unknown_prompt_is_a_permanent_error_not_an_exception():
    result = asyncio.run(JURY[0].ajudge("no_such_prompt", SAMPLE_INPUTS["rag_answer"], "c1"))
    assert not result.ok and result.error_kind == "permanent"
    assert "no_such_prompt" in result.error
    bad_input = asyncio.run(JURY[1].ajudge(get_prompt("rag_answer"), {"question": "q"}, "c1"))
    assert not bad_input.ok and bad_input.error_kind == "permanent"


# -- seed 003: a wrong answer has accuracy 1 ----------------------------------------------------------

EMPLOYEES = {
    "question": "하늘여행사의 직원 수는 몇 명인가요?",
    "reference_answer": "하늘여행사의 직원 수는 2024년 기준 350명입니다.",
}


def test_wrong_number_gets_accuracy_1():
    item = {**EMPLOYEES, "generated_answer": "하늘여행사의 직원은 약 530명입니다."}
    for judge in RULES:
        assert run(judge, "rag_answer", item).verdict["accuracy"] == 1, judge.name
    assert ensemble("rag_answer", item, "accuracy", RULES)[0] == 1
    # after the fitted stage every judge still catches it (≤ 2.5)
    assert max(run(j, "rag_answer", item).verdict["accuracy"] for j in JURY) <= 2.5


def test_matching_answer_scores_high():
    item = {**EMPLOYEES, "generated_answer": "2024년 기준으로 하늘여행사 직원은 350명입니다."}
    for field in ("accuracy", "completeness", "relevance"):
        value, _ = ensemble("rag_answer", item, field)
        assert value >= 4, field


@pytest.mark.parametrize(
    ("answer", "reference"),
    [
        ("2023년 해외 패키지 고객은 1만 2천 명입니다.", "2023년 해외 패키지 여행 이용 고객은 12만 명입니다."),
        ("하늘여행사는 2015년에 설립되었습니다.", "하늘여행사는 2012년 3월에 설립되었습니다."),
        ("2023년 매출은 3,500억 원입니다.", "2023년 매출은 480억 원입니다."),
    ],
)
def test_other_wrong_figures(answer, reference):
    item = {"question": "질문", "generated_answer": answer, "reference_answer": reference}
    assert ensemble("rag_answer", item, "accuracy", RULES)[0] == 1
    assert ensemble("rag_answer", item, "accuracy")[0] <= 2.5


def test_same_value_written_differently_is_not_wrong():
    item = {
        "question": "AWS 월 비용은?",
        "generated_answer": "AWS 월 비용은 1억 2천만원입니다.",
        "reference_answer": "AWS에 매월 1.2억 원을 지출합니다.",
    }
    assert run(NumericJudge(fitted=False), "rag_answer", item).verdict["accuracy"] >= 4
    assert run(NumericJudge(), "rag_answer", item).verdict["accuracy"] >= 4
    hours = {
        "question": "고객센터 운영 시간은?",
        "generated_answer": "평일 9시부터 18시까지 운영됩니다.",
        "reference_answer": "평일 오전 9시부터 오후 6시까지 운영합니다.",
    }
    assert run(NumericJudge(fitted=False), "rag_answer", hours).verdict["accuracy"] == 5
    assert run(NumericJudge(), "rag_answer", hours).verdict["accuracy"] >= 4


def test_refusal_and_empty_answers():
    for answer in ("", "죄송하지만 제공된 문서에서 해당 정보를 찾을 수 없습니다."):
        item = {**EMPLOYEES, "generated_answer": answer}
        for judge in RULES:
            verdict = run(judge, "rag_answer", item).verdict
            assert (verdict["accuracy"], verdict["completeness"]) == (1, 1)
        assert max(run(j, "rag_answer", item).verdict["accuracy"] for j in JURY) <= 2.5


# -- reports: citations --------------------------------------------------------------------------------

THREE_SOURCES = [
    {
        "number": 1,
        "title": "시장 보고서",
        "content": "2023년 국내 대체육 시장 규모는 약 2,280억 원으로 전년 대비 12% 성장했다.",
    },
    {
        "number": 2,
        "title": "소비자 조사",
        "content": "20~30대 응답자의 41%가 최근 6개월 내 대체육을 구매했다.",
    },
    {
        "number": 3,
        "title": "글로벌 전망",
        "content": "글로벌 대체육 시장은 2030년까지 연평균 9% 성장할 전망이다.",
    },
]
GOOD_REPORT = (
    "# 대체육 시장 분석\n\n## 현황\n2023년 국내 대체육 시장 규모는 약 2,280억 원으로 전년 대비 12% 성장했다 [SOURCE:1]. "
    "20~30대 응답자의 41%가 최근 6개월 내 대체육을 구매했다 [SOURCE:2].\n\n## 전망\n글로벌 대체육 시장은 2030년까지 "
    "연평균 9% 성장할 전망이다 [SOURCE:3].\n\n## 결론\n따라서 20~30대를 겨냥한 마케팅을 강화해야 한다."
)
BAD_TAG_REPORT = GOOD_REPORT.replace("[SOURCE:3]", "[SOURCE:9]")


def _report(report: str) -> dict:
    return {"query": "대체육 시장 분석 보고서를 작성해주세요", "report": report, "sources": THREE_SOURCES}


def test_nonexistent_source_tag_is_flagged():
    for judge in JURY:
        good = run(judge, "report_hallucination", _report(GOOD_REPORT)).verdict
        bad = run(judge, "report_hallucination", _report(BAD_TAG_REPORT)).verdict
        assert good["citation_accuracy"] == 1.0 and good["hallucination_count"] == 0, judge.name
        assert bad["citation_accuracy"] < 1.0, judge.name
        flagged = [c for c in bad["hallucinations"] if "[SOURCE:9]" in c["description"]]
        assert flagged and flagged[0]["type"] == "citation_inaccuracy" and flagged[0]["severity"] == 2
        factual = run(judge, "report_factual_accuracy", _report(BAD_TAG_REPORT)).verdict
        assert any("[SOURCE:9]" in issue for issue in factual["issues"])
        assert factual["score"] < run(judge, "report_factual_accuracy", _report(GOOD_REPORT)).verdict["score"]


def test_contradicted_figure_in_report():
    wrong = GOOD_REPORT.replace("약 2,280억 원", "약 3,500억 원")
    counts, accuracies = [], []
    for judge in JURY:
        verdict = run(judge, "report_hallucination", _report(wrong)).verdict
        counts.append(verdict["hallucination_count"])
        accuracies.append(verdict["citation_accuracy"])
    count, accuracy = aggregate_hallucination(counts, accuracies)
    assert count >= 1 and accuracy < 1.0


def test_off_topic_report_scores_low_relevance():
    on = {"query": "대체육 시장 분석 보고서를 작성해주세요", "report": GOOD_REPORT, "sources": THREE_SOURCES}
    off = {**on, "query": "밀키트 산업의 성장 전략과 마케팅 방안 보고서를 작성해주세요"}
    assert ensemble("report_relevance", on, "score")[0] >= 7
    assert ensemble("report_relevance", off, "score")[0] <= 3


# -- memory and agent ----------------------------------------------------------------------------------


def test_memory_seed_examples_are_ordered():
    def relevance(memory: str) -> float:
        return ensemble("memory_usefulness", {"query": "AWS 비용 얼마야?", "memory": memory}, "relevance")[0]

    assert (
        relevance("사용자는 AWS 주력, 월 1.2억 지출")
        > relevance("사용자는 클라우드 비용 관심")
        > relevance("사용자가 RI 커버리지 질문함")
    )
    empty = run(
        JURY[0], "memory_usefulness", {"query": "예산 어떻게 됐어?", "memory": "(메모리 없음)"}
    ).verdict
    # nothing stored: accuracy 5 (the labelling rubric: "5 when nothing can be judged")
    assert (empty["relevance"], empty["completeness"], empty["accuracy"]) == (0, 0, 5)


def test_agent_verdicts():
    query = "마케팅 직무 채용 플랜에 1차 면접 단계를 추가해줘"
    cases = {
        "마케팅 직무 채용 플랜에 '1차 면접' 단계를 추가했습니다.": ("PERFECT", "ADD"),
        "요청을 처리하는 중 오류가 발생했습니다.": ("FAILED", "ERROR"),
        "": ("FAILED", "OTHER"),  # no reply reports no error either (every labelled empty reply: OTHER)
        "마케팅 직무 채용 플랜의 1차 면접 단계를 삭제했습니다.": ("RELATED_BUT_WRONG", "DELETE"),
    }
    for message, expected in cases.items():
        for judge in JURY:
            verdict = run(judge, "agent_intent", {"query": query, "assistant_message": message}).verdict
            assert (verdict["verdict"], verdict["intent_label"]) == expected, (judge.name, message)


# -- robustness and speed ------------------------------------------------------------------------------

korean_text = st.text(
    alphabet=st.sampled_from(
        list("가나다라마바사아자차카타파하의는이가을를에서 0123456789.,%억만원년[]SOURCE:#\n-")
    ),
    max_size=120,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=korean_text, b=korean_text, c=korean_text)
def test_arbitrary_text_always_yields_a_valid_verdict(a, b, c):
    inputs = {
        "rag_answer": {"question": a, "generated_answer": b, "reference_answer": c, "contexts": [a]},
        "memory_usefulness": {"query": a, "memory": b, "entities": [c] if c else []},
        "agent_intent": {"query": a, "assistant_message": b, "expected_result": c},
        "clinical_answer": {"question": a, "answer": b, "patient": c, "dialogue": [a]},
    }
    report = {"query": a, "report": b, "sources": [{"number": 1, "title": "t", "content": c}]}
    for pid in ("report_factual_accuracy", "report_coherence", "report_relevance", "report_hallucination"):
        inputs[pid] = report
    for judge in JURY:
        for pid, item in inputs.items():
            result = judge.judge_sync(pid, item, "h")
            assert result.ok, (judge.name, pid, result.error)


def test_fast_on_short_texts():
    item = {**EMPLOYEES, "generated_answer": "직원은 350명입니다."}
    for judge in JURY:
        run(judge, "rag_answer", item)  # warm up (Kiwi loads once per process)
        timings = []
        for i in range(20):
            variant = {**item, "generated_answer": f"직원은 {350 + i}명입니다."}  # defeat the memo caches
            start = time.perf_counter()
            judge.judge_sync("rag_answer", variant, "t")
            timings.append(time.perf_counter() - start)
        timings.sort()
        assert timings[len(timings) // 2] < 0.02, (judge.name, timings)  # measured ≈ 0.3-2 ms


# -- the labelled set ----------------------------------------------------------------------------------


def test_labelled_set_is_complete_and_valid():
    rows = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 36
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids))
    by_type = {pid: sum(r["prompt_id"] == pid for r in rows) for pid in {r["prompt_id"] for r in rows}}
    assert by_type["rag_answer"] >= 12
    assert sum(n for pid, n in by_type.items() if pid.startswith("report_")) >= 8
    assert by_type["memory_usefulness"] >= 8 and by_type["agent_intent"] >= 8
    for row in rows:
        assert set(row) == {"id", "prompt_id", "input", "label", "note"}
        prompt = get_prompt(row["prompt_id"])
        prompt.coerce_input(row["input"])
        scores = prompt.scores(row["label"])
        for name, (lo, hi) in prompt.score_fields.items():
            assert lo <= scores[name] <= hi, row["id"]
        assert any("가" <= ch <= "힣" for ch in json.dumps(row["input"], ensure_ascii=False))


# -- import hygiene ------------------------------------------------------------------------------------


def test_pure_core_imports_no_heavy_dependencies():
    code = (
        "import sys, asyncio\n"
        "import assay.judges.ensemble, assay.judges.prompts, assay.judges.offline\n"
        "from assay.judges.offline import offline_jury\n"
        "from assay.judges.prompts import get_prompt\n"
        "item = {'question': '창립자는?', 'generated_answer': '김하늘', 'reference_answer': '김하늘입니다'}\n"
        "for j in offline_jury(): assert asyncio.run(j.ajudge(get_prompt('rag_answer'), item, 'c')).ok\n"
        "heavy = [m for m in ('prefect', 'litellm', 'torch', 'great_expectations', 'sentence_transformers', 'krippendorff')\n"
        "         if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert proc.stdout.strip() == ""
