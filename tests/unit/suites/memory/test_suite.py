"""The memory suite (seed 001): formula, fact checks, the offline jury on the seed's worked
examples, and aggregation (stale values cap accuracy, unscored never becomes 0)."""

import pytest

from assay.judges.offline import offline_jury
from assay.judges.prompts import get_prompt
from assay.judges.runner import JuryRunner
from assay.metrics.memory import (
    Fact,
    fact_recall,
    keyword_present,
    noise_ratio,
    overall_score,
    stale_as_current,
)
from assay.spec import JurySpec, RunSpec
from assay.suites.kit import MetricContext
from assay.suites.registry import get_suite
from tests.support.memory_data import write_memory_dataset


@pytest.mark.parametrize(
    ("r", "c", "a", "n", "expected"),
    [(10, 10, 10, 0, 100.0), (0, 0, 0, 10, 0.0), (8, 6, 7, 2, 71.5), (5, 5, 5, 5, 50.0), (9, 4, 10, 10, 68.5)],
)
def test_overall_formula_golden(r, c, a, n, expected):
    assert overall_score(r, c, a, n) == pytest.approx(expected)


def test_overall_is_unscored_when_any_criterion_is_and_rejects_out_of_range():
    assert overall_score(None, 5, 5, 5) is None
    assert overall_score(5, 5, float("nan"), 5) is None
    with pytest.raises(ValueError, match="noise"):
        overall_score(5, 5, 5, 11)


@pytest.mark.parametrize(
    ("keyword", "text", "present"),
    [
        ("1.2억", "월 120,000,000원 지출", True),
        ("1.2억", "월 1억 2천만 원 지출", True),
        ("1.2억원", "1.2 억 원", True),
        ("1억", "예산 1억 5천만 원", False),
        ("1.5억", "예산 1억 5천만 원", True),
        ("RI 커버리지", "RI커버리지 60%", True),
        ("60%", "커버리지는 60 퍼센트", True),
        ("AWS", "사용자는 aws 주력", True),
        ("GCP", "AWS 주력", False),
    ],
)
def test_keywords_compare_numbers_by_value_and_text_without_spacing(keyword, text, present):
    assert keyword_present(keyword, text) is present


def test_fact_recall_and_stale_values():
    facts = [Fact("예산 1.5억", ("예산", "1.5억")), Fact("AWS 1.2억", ("AWS", "1.2억"))]
    recall = fact_recall("예산이 1억에서 1.5억으로 늘었다.", facts)
    assert recall.recall == 0.5 and recall.missing == ("AWS 1.2억",)
    stale = [Fact("예산 1억", ("예산", "1억"))]
    assert stale_as_current("예산은 1억 원이다.", stale) == ["예산 1억"]
    assert stale_as_current("예산이 1억에서 1.5억으로 늘었다.", stale) == []  # marked as changed
    assert stale_as_current("이전 예산 1억, 현재 1.5억.", stale) == []


@pytest.mark.parametrize(
    ("memory", "flagged"),
    [
        ("출시일 8월 15일에서 9월 1일로 연기.", False),  # a change verb after (으)로
        ("견적은 1,050만 원으로 인하됨(협상 전 1,200만 원).", False),
        ("요금제를 프리미엄으로 업그레이드, 베이직 9,900원.", False),
        ("출시일 8월 15일, QA 2주.", True),
        ("출시일은 8월 15일로 잡혀 있다.", True),  # "로" without a change verb is not a change
    ],
)
def test_a_value_in_a_sentence_that_states_a_change_is_not_stale(memory, flagged):
    stale = [Fact("old", ("8월 15일",)), Fact("old price", ("1,200만",)), Fact("old plan", ("9,900원",))]
    assert bool(stale_as_current(memory, stale)) is flagged
    assert fact_recall("아무 말", []).recall is None


def test_noise_ratio_counts_sentences_without_expected_facts():
    facts = [Fact("AWS 1.2억", ("AWS", "1.2억"))]
    assert noise_ratio("AWS 월 비용 1.2억. 날씨가 좋다. 무엇을 도와드릴까요?", facts) == pytest.approx(2 / 3)
    assert noise_ratio("", facts) is None


def _offline(items):
    prompt = get_prompt("memory_usefulness")
    run = JuryRunner(offline_jury()).run(prompt, [(i, prompt.input_model.model_validate(x)) for i, x in items])
    return {cid: {r.judge: r.verdict for r in results} for cid, results in run.results.items()}


def _mean(verdicts, field):
    return sum(v[field] for v in verdicts.values()) / len(verdicts)


def test_offline_jury_orders_the_seeds_relevance_examples():
    q = "AWS 비용 얼마야?"
    out = _offline([("10", {"query": q, "memory": "사용자는 AWS 주력, 월 1.2억 지출"}),
                    ("5", {"query": q, "memory": "사용자는 클라우드 비용 관심"}),
                    ("2", {"query": q, "memory": "사용자가 RI 커버리지 질문함"})])
    assert _mean(out["10"], "relevance") > _mean(out["5"], "relevance") > _mean(out["2"], "relevance")


def test_offline_jury_orders_the_seeds_completeness_examples():
    q = "지난번 말한 예산 초과 어떻게 됐어?"
    out = _offline([("10", {"query": q, "memory": "예산 1억, 현재 1.2억 지출, 초과 우려 언급"}),
                    ("4", {"query": q, "memory": "예산 관련 논의 있었음"}),
                    ("0", {"query": q, "memory": "(메모리 없음)"})])
    assert _mean(out["10"], "completeness") > _mean(out["4"], "completeness") > _mean(out["0"], "completeness")
    assert _mean(out["0"], "completeness") == 0


def _evaluate(tmp_path):
    suite = get_suite("memory")
    data = suite.load_dataset(write_memory_dataset(tmp_path / "memory"))
    cases = suite.parse_cases(data)
    generations = suite.parse_generations(suite.recorded_generations(data, cases))
    spec = RunSpec(suite="memory", jury=JurySpec(offline=True)).completed(suite.default_dataset)  # the panel, as a run records it
    ctx = MetricContext(spec=spec, jury=JuryRunner(offline_jury()))
    rows = [row for family in suite.metric_families() for row in family.compute(cases, generations, ctx)]
    return suite.aggregate(rows, cases, spec)


def test_a_stale_only_memory_for_an_update_query_gets_accuracy_at_most_3(tmp_path):
    result = _evaluate(tmp_path)
    final = {(r.case_id, r.metric): r for r in result.rows if r.judge is None}
    assert final[("t2-q1", "stale_as_current")].value == 1
    assert final[("t2-q1", "accuracy")].value <= 3
    assert final[("t2-q1", "fact_recall")].value == 0
    assert final[("t1-q1", "fact_recall")].value == 1  # 120,000,000원 counts as 1.2억
    assert final[("t1-q1", "stale_as_current")].value == 0


def test_summary_covers_every_query_worst_first_and_the_empty_memory_scores_zero(tmp_path):
    result = _evaluate(tmp_path)
    summary = result.summary
    assert [q.case_id for q in summary.queries][0] == "t3-q1"  # the empty memory is the worst
    empty = summary.queries[0]
    # accuracy 5 (nothing stored to judge true or false) and (10 - noise) count: (0.25·5 + 0.10·10)·10
    assert empty.scores["relevance"] == 0 and empty.overall == pytest.approx(22.5)
    overalls = [q.overall for q in summary.queries]
    assert overalls == sorted(overalls)
    assert set(summary.by_scenario) == {"continuous", "update", "topic_switch"}
    assert summary.lower_is_better == ["noise", "stale_as_current", "noise_ratio"]
    sections = get_suite("memory").report_sections(
        __import__("pandas").DataFrame([r.model_dump() for r in result.rows]), summary, [], {})
    text = "\n".join(s.markdown for s in sections)
    for case_id in ("t1-q1", "t2-q1", "t3-q1"):
        assert case_id in text


def test_a_failed_summary_is_one_failed_call_for_every_query_of_its_session(tmp_path, monkeypatch):
    """Issue 34: the failed-calls count is of calls: one session summary, however many queries use it."""
    from assay.failed_calls import tally
    from assay.spec import RunSpec, TargetSpec
    from assay.suites.kit import ReplayContext
    from assay.suites.memory.live import live_memories
    from assay.suites.memory.schema import MemoryCase
    from tests.support.memory_data import CASES, SESSIONS

    (tmp_path / "my_memory.py").write_text(
        "def summarize(turns, session_id):\n"
        "    if session_id == 't1':\n"
        "        raise RuntimeError('summarizer down')\n"
        "    return {'memory': ' '.join(t['text'] for t in turns), 'entities': []}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    cases = [MemoryCase.model_validate(c) for c in CASES]
    cases.append(MemoryCase.model_validate({**CASES[0], "id": "t1-q2"}))  # a second query of session t1
    spec = RunSpec(suite="memory", replay="live", target=TargetSpec(function="my_memory:summarize"))
    out = {g["case_id"]: g for g in live_memories(cases, SESSIONS, ReplayContext(spec=spec))}
    assert "summarizer down" in out["t1-q1"]["error"] and out["t1-q2"]["counted_with"] == "t1-q1"
    failed = tally(out.values(), "my_memory:summarize")
    assert (failed.n_failed, failed.n_calls) == (1, len(SESSIONS))
    assert failed.unmeasured() == {"t1-q1", "t1-q2"}
