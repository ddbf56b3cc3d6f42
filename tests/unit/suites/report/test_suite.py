"""The report suite's compute, aggregate, report and gate functions on small in-memory cases.

Jury rules are checked on this suite's prompts with a scripted jury (no judge code runs):
disagreement → median, a failed judge dropped and the weights renormalised, every judge
failed → the component and overall unscored with the component named (never 0).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from assay.judges.base import JudgeResult
from assay.judges.runner import JuryRun
from assay.paths import datasets_dir
from assay.schemas import ScoreRow
from assay.spec import JurySpec, PanelJudge, RunSpec
from assay.suites.kit import MetricContext
from assay.suites.registry import get_suite
from assay.suites.report import metrics, summary
from assay.suites.report.formulas import WEIGHTS, grade
from assay.suites.report.schema import ReportCase, ReportGeneration

JUDGES = [("judge-a", 0.34), ("judge-b", 0.33), ("judge-c", 0.33)]
SPEC = RunSpec(
    suite="report",
    disagreement_threshold=3.0,
    jury=JurySpec(panel=[PanelJudge(name=n, model=f"openai/{n}", weight=w) for n, w in JUDGES]),
)

REPORT = """# 대체육 시장 보고서

## 개요
본 보고서는 2024년 대체육 시장을 분석한다. 국내 시장 규모는 2,280억 원이다 [SOURCE:1].

## 시장 분석
20~30대의 41%가 구매 경험이 있다 [SOURCE:2]. 성장률은 매년 50%로 추정된다 [SOURCE:9].

## 타겟 고객
주요 고객은 건강을 중시하는 20~30대 소비자이다.

## 마케팅 전략
온라인 채널 중심의 체험 마케팅을 권장한다.

## 결론
시장은 성장하고 있으며 단계적인 진입 전략이 필요하다.

## 출처 목록
1. 시장 보고서
2. 소비자 조사
"""


def make_case(case_id: str = "c1", team_type: str = "marketing") -> ReportCase:
    return ReportCase(
        id=case_id,
        query="2024년 대체육 시장 동향 보고서를 작성해주세요",
        team_type=team_type,  # type: ignore[arg-type]
        required_sections=["서론/개요", "본문 분석", "결론/요약", "출처 목록"],
        requirements=["시장 현황 분석", "타겟 고객 정의", "마케팅 전략", "성과 측정 지표"],
    )


def make_generation(case_id: str = "c1", **over: Any) -> ReportGeneration:
    base: dict[str, Any] = {
        "case_id": case_id,
        "report": REPORT,
        "sources": [
            {"number": 1, "title": "시장 보고서", "content": "국내 대체육 시장 규모는 2,280억 원이다.", "score": 0.9,
             "source_type": "industry_report"},
            {"number": 2, "title": "소비자 조사", "content": "20~30대의 41%가 구매 경험이 있다.", "score": 0.5,
             "source_type": "statistics"},
        ],
        "execution_log": ["[10:00:01] search: retry", "[10:00:02] search: retry", "[10:00:03] search: retry", "done"],
        "search_queries": ["대체육 시장", "대체육  시장", "소비자 선호"],
        "total_execution_time": 75.0,
        "input_tokens": 40_000,
        "output_tokens": 15_000,
        "total_tokens": 55_000,
        "api_calls": 9,
        "estimated_cost": 0.2,
        "model": "gpt-4o",
    }
    return ReportGeneration.model_validate({**base, **over})


class ScriptedJury:
    """``run(prompt, items)`` answers from a script: judge -> verdict dict, or an error string."""

    def __init__(self, script: dict[str, dict[str, dict[str, Any] | str]]) -> None:
        self.script = script  # prompt id -> judge -> verdict | error
        self.calls: list[str] = []

    def run(self, prompt: Any, items: list[tuple[str, Any]]) -> JuryRun:
        self.calls.append(prompt.id)
        results = {}
        for case_id, item in items:
            assert isinstance(item, prompt.input_model)
            out = []
            for judge, _ in JUDGES:
                answer = self.script[prompt.id][judge]
                common = {"judge": judge, "model": f"openai/{judge}", "prompt_id": prompt.id, "case_id": case_id,
                          "request_key": f"{prompt.id}:{judge}:{case_id}"}
                if isinstance(answer, str):
                    out.append(JudgeResult(**common, error=answer, error_kind="permanent"))
                else:
                    lists = {k: [] for k, v in prompt.json_schema()["properties"].items() if v.get("type") == "array"}
                    verdict = prompt.parse_verdict({**lists, **answer}).model_dump()
                    out.append(JudgeResult(**common, verdict=verdict))
            results[case_id] = out
        return JuryRun(prompt_id=prompt.id, results=results, judge_stats={})


def scored(score: float, **lists: list[str]) -> dict[str, Any]:
    return {"score": score, "reasoning": "r", **lists}


def hallucination(count: int, accuracy: float, *claims: str) -> dict[str, Any]:
    cases = [{"type": "unfounded_claims", "location": f"문장 {i}", "description": c, "severity": 2}
             for i, c in enumerate(claims, 1)]
    return {"hallucination_count": count, "hallucinations": cases, "citation_accuracy": accuracy}


def good_script(**over: dict[str, Any]) -> dict[str, dict[str, Any]]:
    script: dict[str, dict[str, Any]] = {
        "report_factual_accuracy": {j: scored(8, issues=["수치 하나가 출처와 다름"]) for j, _ in JUDGES},
        "report_coherence": {j: scored(7, strengths=["논리 흐름이 자연스러움"], weaknesses=["결론이 짧음"]) for j, _ in JUDGES},
        "report_relevance": {j: scored(9, fulfilled_requirements=[], missing_requirements=["성과 지표"]) for j, _ in JUDGES},
        "report_hallucination": {
            "judge-a": hallucination(1, 0.9, "성장률 50%는 출처에 없음"),
            "judge-b": hallucination(3, 0.7, "성장률 50%는 출처에 없음!", "41%의 맥락 왜곡", "2,280억 원 과장"),
            "judge-c": hallucination(2, 0.8, "41%의 맥락 왜곡"),
        },
    }
    for prompt_id, answers in over.items():
        script[prompt_id] = {**script[prompt_id], **answers}
    return script


def evaluate(script: dict[str, Any], cases: list[ReportCase] | None = None, gens: dict[str, ReportGeneration] | None = None):
    cases = cases or [make_case()]
    gens = gens if gens is not None else {c.id: make_generation(c.id) for c in cases}
    jury = ScriptedJury(script)
    ctx = MetricContext(spec=SPEC, jury=jury)
    rows = [row for family in metrics.FAMILIES for row in family.compute(cases, gens, ctx)]
    result = summary.aggregate(rows, cases, SPEC)
    final = {(r.case_id, r.metric): r for r in result.rows if r.judge is None}
    return result, final, ctx


def stored(result) -> dict[str, Any]:
    """The summary as summary.json stores it."""
    return result.summary.model_dump(mode="json")


@pytest.fixture(scope="module")
def good():
    return evaluate(good_script())


# --------------------------------------------------------------------------- automatic family


def test_automatic_rows_carry_the_figures_behind_each_score(good):
    _, final, _ = good
    ts = final[("c1", "task_success")]
    assert ts.details["level"] in {"COMPLETE_SUCCESS", "PARTIAL_SUCCESS", "FAILURE"}
    assert ts.value == pytest.approx(ts.details["completion_percentage"] / 10)
    assert ts.details["missing_sections"] == []
    assert "성과 측정 지표" in ts.details["missing_requirements"]

    comp = final[("c1", "completeness")]
    fields = {f["key"]: f["header"] for f in comp.details["field_headers"]}
    assert fields["market_analysis"] == "시장 분석" and fields["metrics"] is None
    assert comp.details["missing_fields"] == ["실행 방안", "성과 지표"]
    assert comp.value == pytest.approx((0.6 * 1.0 + 0.4 * 4 / 6) * 10)

    eff = final[("c1", "efficiency")]
    # one repeated query (whitespace differs) + two repeats of the timestamped log line
    assert eff.details["repeated_search_queries"] == 1 and eff.details["repeated_log_lines"] == 2
    assert eff.details["redundant_steps"] == 3
    assert eff.details["penalties"] == {"time": 1.5, "redundant_steps": 1.0, "tokens": 1.0, "cost": 0.0}
    assert eff.value == pytest.approx(10 - 1.5 - 1.0 - 1.0)

    src = final[("c1", "source_quality")]
    assert src.details["avg_reliability"] == pytest.approx(0.7)
    assert src.value == pytest.approx(0.5 * 7 + 0.5 * 2 / 8 * 10)

    cit = final[("c1", "invalid_citations")]
    assert cit.value == 1 and cit.details["invalid_tags"] == [9]
    assert cit.details["tag_accuracy"] == pytest.approx(2 / 3)


def test_missing_generation_is_unscored_everywhere_never_zero():
    result, final, ctx = evaluate(good_script(), gens={})
    assert ctx.jury.calls == []  # nothing to judge
    for metric in (*summary.SIX, "overall"):
        row = final[("c1", metric)]
        assert row.value is None, metric
    assert "no generation recorded" in final[("c1", "task_success")].unscored_reason
    assert "task_success" in final[("c1", "overall")].unscored_reason


# --------------------------------------------------------------------------- jury rules


def test_per_judge_rows_name_their_judge(good):
    result, _, ctx = good
    assert ctx.jury.calls == [*metrics.SCORE_PROMPTS.values(), metrics.HALLUCINATION_PROMPT]
    assert len(ctx.jury_runs) == 4
    per_judge = [r for r in result.rows if r.judge is not None]
    assert {r.judge for r in per_judge} == {j for j, _ in JUDGES}
    assert {r.metric for r in per_judge} == {"factual_accuracy", "coherence", "relevance", "hallucination_count", "citation_accuracy"}
    assert all(r.details["request_key"] for r in per_judge)


def test_output_quality_and_overall_follow_the_seed(good):
    result, final, _ = good
    assert final[("c1", "factual_accuracy")].value == pytest.approx(8.0)
    oq = final[("c1", "output_quality")]
    assert oq.value == pytest.approx(0.4 * 8 + 0.3 * 7 + 0.3 * 9)
    overall = final[("c1", "overall")]
    expected = sum(w * final[("c1", m)].value for m, w in WEIGHTS.items())
    assert overall.value == pytest.approx(expected)
    assert overall.details["grade"] == grade(expected)
    info = stored(result)["cases"][0]
    assert info["grade"] == overall.details["grade"]
    for key in ("strengths", "weaknesses", "recommendations"):
        assert 1 <= len(info[key]) <= 5
    assert "논리 흐름이 자연스러움" in info["strengths"]  # judge strength (§4.2 AI Judge part)
    assert "결론이 짧음" in info["weaknesses"]
    assert "더 많은 출처를 활용하세요" in info["recommendations"]  # 2 sources < 5


def test_disagreement_uses_the_median_and_is_flagged():
    script = good_script(report_factual_accuracy={
        "judge-a": scored(2), "judge-b": scored(6), "judge-c": scored(9)})
    result, final, _ = evaluate(script)
    row = final[("c1", "factual_accuracy")]
    assert row.value == 6.0 and row.details["disagreement"] and row.details["method"] == "median"
    assert final[("c1", "output_quality")].details["disagreement"]["factual_accuracy"] is True
    assert {"case_id": "c1", "metric": "factual_accuracy", "judge_scores": {"judge-a": 2.0, "judge-b": 6.0, "judge-c": 9.0}} in stored(result)["jury"]["disagreements"]
    assert stored(result)["cases"][0]["output_quality_disagreement"] == ["factual_accuracy"]


def test_a_failed_judge_is_dropped_and_the_weights_renormalised():
    failing = {"judge-c": "AuthenticationError: bad key"}
    script = good_script(report_coherence={"judge-a": scored(8), "judge-b": scored(6), **failing},
                         report_hallucination=failing)
    result, final, _ = evaluate(script)
    row = final[("c1", "coherence")]
    assert row.value == pytest.approx((0.34 * 8 + 0.33 * 6) / 0.67)
    assert "judge-c" in row.details["dropped_judges"]
    failed = [r for r in result.rows if r.judge == "judge-c" and r.metric == "coherence"]
    assert failed[0].value is None and "bad key" in failed[0].unscored_reason
    # hallucination over the two judges left: median count 2, min accuracy 0.7
    assert final[("c1", "hallucination_count")].value == 2.0
    assert final[("c1", "citation_accuracy")].value == pytest.approx(min(0.7, 2 / 3))
    assert "judge-c" in final[("c1", "hallucination")].details["dropped_judges"]
    assert final[("c1", "overall")].value is not None
    assert stored(result)["jury"]["missing_judge_scores"] == {"judge-c": 3}


def test_every_judge_failed_leaves_the_component_and_overall_unscored_with_names():
    dead = {j: "RateLimitError: 429 after retries" for j, _ in JUDGES}
    result, final, _ = evaluate(good_script(report_relevance=dead, report_hallucination=dead))
    assert final[("c1", "relevance")].value is None
    assert "every judge failed" in final[("c1", "relevance")].unscored_reason
    oq = final[("c1", "output_quality")]
    assert oq.value is None and "relevance" in oq.unscored_reason
    for metric in ("hallucination", "hallucination_count", "citation_accuracy"):
        assert final[("c1", metric)].value is None, metric
    overall = final[("c1", "overall")]
    assert overall.value is None
    assert "output_quality" in overall.unscored_reason and "hallucination" in overall.unscored_reason
    info = stored(result)["cases"][0]
    assert info["overall"] is None and info["grade"] is None
    assert set(info["unscored"]) == {"output_quality", "hallucination"}
    assert stored(result)["grade_distribution"]["unscored"] == 1
    assert stored(result)["overall"]["overall"] == {"mean": None, "n_scored": 0, "n_unscored": 1, "label": None}
    # automatic metrics are still there, and S/W/R still come from what was scored
    assert final[("c1", "task_success")].value is not None
    assert info["weaknesses"]


def test_hallucination_median_count_min_accuracy_merged_cases_and_the_automatic_tag_check(good):
    _, final, _ = good
    count, acc, score = (final[("c1", m)] for m in ("hallucination_count", "citation_accuracy", "hallucination"))
    assert count.details["judge_median"] == 2.0 and count.value == 2.0  # ≥ 1 invalid tag already
    assert acc.details["judge_min"] == pytest.approx(0.7)
    # the report cites [SOURCE:9] with 2 sources: 2 of 3 tags valid caps the accuracy
    assert acc.value == pytest.approx(2 / 3)
    assert score.value == pytest.approx(2 / 3 * 10)
    assert score.details["capped_by_automatic"] is True
    cases = score.details["cases"]
    assert cases[0]["source"] == "automatic" and "SOURCE 9" in cases[0]["description"]
    # "문장 1" unfounded claim reported by judges a and b once; c's "문장 1" is a duplicate too
    descriptions = [c["description"] for c in cases]
    assert descriptions.count("성장률 50%는 출처에 없음") == 1
    assert "성장률 50%는 출처에 없음!" not in descriptions
    assert len(cases) <= summary.MAX_CASES


def test_invalid_tags_raise_the_count_when_judges_miss_them():
    clean = {j: hallucination(0, 1.0) for j, _ in JUDGES}
    _, final, _ = evaluate(good_script(report_hallucination=clean))
    assert final[("c1", "hallucination_count")].value == 1.0  # the [SOURCE:9] tag
    assert final[("c1", "citation_accuracy")].value == pytest.approx(2 / 3)


def test_at_most_ten_merged_cases():
    many = {j: hallucination(12, 0.5, *[f"{j} 주장 {i}" for i in range(12)]) for j, _ in JUDGES}
    _, final, _ = evaluate(good_script(report_hallucination=many))
    assert len(final[("c1", "hallucination")].details["cases"]) == 10
    assert final[("c1", "hallucination_count")].value == 12.0


# --------------------------------------------------------------------------- summary and report


def test_summary_groups_by_team_type_and_lists_lower_is_better():
    cases = [make_case("m1"), make_case("m2"), make_case("d1", team_type="default")]
    result, _, _ = evaluate(good_script(), cases=cases)
    s = stored(result)
    assert set(s["by_team_type"]) == {"marketing", "default"}
    assert s["by_team_type"]["marketing"]["n_cases"] == 2 and s["by_team_type"]["marketing"]["name"] == "마케팅 담당자"
    assert s["lower_is_better"] == ["hallucination_count", "invalid_citations"]
    assert s["scales"]["citation_accuracy"] == "0-1" and s["scales"]["overall"] == "0-10"
    assert sum(s["grade_distribution"].values()) == 3
    assert s["jury"]["offline"] is False and [j["name"] for j in s["jury"]["judges"]] == [j for j, _ in JUDGES]
    json.dumps(s)  # stored as JSON
    # every case has every final metric once
    final = [r for r in result.rows if r.judge is None]
    counts = pd.Series([(r.case_id, r.metric) for r in final]).value_counts()
    assert counts.max() == 1 and len(final) == 3 * len(summary.METRICS)


def test_report_sections_and_charts():
    cases = [make_case("m1"), make_case("d1", team_type="default")]
    result, _, _ = evaluate(good_script(report_factual_accuracy={
        "judge-a": scored(1), "judge-b": scored(6), "judge-c": scored(9)}), cases=cases)
    frame = pd.DataFrame([r.model_dump() for r in result.rows])
    suite = get_suite("report")
    sections = suite.report_sections(frame, result.summary, cases, {})
    text = "\n".join(f"## {s.title}\n{s.markdown}" for s in sections)
    for title in ("Overall", "By team type", "Per query", "Per query details", "Jury", "How to read these numbers"):
        assert f"## {title}\n" in text
    assert "### m1:" in text and "### d1:" in text
    assert "**Strengths**" in text and "**Recommendations**" in text
    assert "⚠ median" in text and "[SOURCE:9]" in text
    assert "9.0 and above" in text  # §4.3 guide
    charts = suite.charts(result.summary)
    assert set(charts) == {"metric_means", "overall_by_team_type", "overall_distribution"}
    assert all(png.startswith(b"\x89PNG") for png in charts.values())


# --------------------------------------------------------------------------- dataset and gate


def test_bundled_dataset_parses_with_every_team_type():
    suite = get_suite("report")
    data = suite.load_dataset(suite.default_dataset)
    cases = suite.parse_cases(data)
    assert len(cases) == 15 and not data.parse_problems
    assert {c.team_type for c in cases} == {"purchasing", "food_service", "marketing", "product_rnd", "default"}
    assert set(suite.parse_generations([{k: v for k, v in g.items() if k != "_line"} for g in data.generations])) == {c.id for c in cases}


def _write(path: Path, rows: list[Any]) -> None:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def bad_gate(tmp_path_factory):
    from assay.validation.gate import run_gate

    root = tmp_path_factory.mktemp("report-bad")
    src = datasets_dir() / "report"
    shutil.copy(src / "cases.jsonl", root / "cases.jsonl")
    cases = [json.loads(line) for line in (src / "cases.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    gens = [json.loads(line) for line in (src / "generations.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    cases[1]["id"] = cases[0]["id"]  # duplicate id
    cases[2]["team_type"] = "영업팀"  # unknown team type
    cases[3]["team_type"] = "급식 운영 담당자"  # Korean name: accepted
    cases[4]["query"] = "   "  # empty query
    cases[5]["requirements"] = []  # empty list
    cases[6]["required_sections"] = "서론"  # not a list
    gens[7]["sources"][1]["score"] = 1.5  # out of 0..1
    gens[8]["sources"][2]["number"] = 7  # numbering 1,2,7,...
    gens[9]["total_execution_time"] = -3  # negative time
    gens[10]["case_id"] = "nope-99"  # unknown case
    gens[11]["report"] = None  # null report
    gens[12]["estimated_cost"] = "cheap"  # not a number
    case_lines: list[Any] = [*cases]
    case_lines.insert(9, '{"id": "broken", ')  # malformed line 10
    _write(root / "cases.jsonl", case_lines)
    _write(root / "generations.jsonl", gens)
    suite = get_suite("report")
    data = suite.load_dataset(root)
    return run_gate(suite, data), cases, gens, suite, data


def test_gate_names_every_bad_row(bad_gate):
    report, cases, gens, _, _ = bad_gate
    assert not report.success
    text = "\n".join(p.describe() for p in report.problems)
    assert "line 10" in text and "valid JSON" in text
    assert f"{cases[0]['id']}" in text and "duplicate" in text
    assert "영업팀" in text
    assert cases[3]["id"] not in report.failed_row_ids  # a Korean team type name is fine
    by_row = {p.row: p.describe() for p in report.problems}
    assert "query_length" in by_row[cases[4]["id"]]
    assert "n_requirements" in by_row[cases[5]["id"]]
    assert "required_sections" in by_row[cases[6]["id"]]
    assert "1.5" in by_row[gens[7]["case_id"]]
    assert "source numbers" in by_row[gens[8]["case_id"]]
    assert "total_execution_time" in by_row[gens[9]["case_id"]]
    assert "nope-99" in text and "no case with this id" in text
    assert "report" in by_row[gens[11]["case_id"]]
    assert "estimated_cost" in by_row[gens[12]["case_id"]]


def test_rows_that_pass_the_gate_parse(bad_gate):
    report, cases, gens, suite, data = bad_gate
    parsed = suite.parse_cases(data, report.failed_row_ids)
    assert cases[3]["id"] in {c.id for c in parsed}
    assert next(c for c in parsed if c.id == cases[3]["id"]).team_type == "food_service"
    ok = [g for g in data.generations if g["case_id"] not in report.failed_row_ids]
    suite.parse_generations([{k: v for k, v in g.items() if k != "_line"} for g in ok])


def test_bundled_dataset_passes_the_gate():
    from assay.validation.gate import run_gate

    suite = get_suite("report")
    report = run_gate(suite, suite.load_dataset(suite.default_dataset))
    assert report.success, report.to_text()
    assert report.tables == {"cases": 15, "generations": 15, "sources": sum(
        len(json.loads(line)["sources"]) for line in (datasets_dir() / "report" / "generations.jsonl").read_text().splitlines() if line.strip())}


def test_score_rows_roundtrip_json(good):
    result, _, _ = good
    for row in result.rows:
        assert ScoreRow.model_validate_json(row.model_dump_json()) == row
