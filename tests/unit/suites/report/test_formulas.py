"""Golden tests for the report suite's formulas (seed 000 §1, §3.4) and its bundled dataset."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from assay.paths import datasets_dir, project_root
from assay.suites.report.formulas import (
    WEIGHTS,
    citation_check,
    completeness_score,
    efficiency_score,
    grade,
    hallucination_score,
    output_quality_score,
    overall_score,
    redundant_steps,
    requirement_covered,
    section_completeness,
    section_headers,
    source_quality,
    source_stats,
    strengths_weaknesses_recommendations,
    task_success,
)
from assay.suites.report.schema import ReportCase, ReportGeneration, Source

LONG = "보고서 본문입니다. " * 20  # > 100 characters

# --------------------------------------------------------------------------- §1.8 grade


@pytest.mark.parametrize(
    ("score", "letter"),
    [
        (10.0, "A+"), (9.5, "A+"), (9.4999, "A"), (9.0, "A"), (8.9999, "B+"), (8.5, "B+"),
        (8.4999, "B"), (8.0, "B"), (7.9999, "C+"), (7.5, "C+"), (7.4999, "C"), (7.0, "C"),
        (6.9999, "D"), (6.0, "D"), (5.9999, "F"), (0.0, "F"),
    ],
)
def test_grade_edges(score, letter):
    assert grade(score) == letter


def test_grade_float_noise_at_an_edge_keeps_the_higher_grade():
    assert grade(8.5 - 1e-12) == "B+"
    scores = {m: 8.5 for m in WEIGHTS}
    assert grade(overall_score(scores)) == "B+"


@pytest.mark.parametrize("bad", [-0.1, 10.1, math.nan])
def test_grade_rejects_out_of_range(bad):
    with pytest.raises(ValueError):
        grade(bad)


# --------------------------------------------------------------------------- §1.6 efficiency


@pytest.mark.parametrize(
    ("time_s", "expected"), [(0, 10.0), (60, 10.0), (60.01, 8.5), (120, 8.5), (120.01, 7.0), (900, 7.0)]
)
def test_efficiency_time_penalty(time_s, expected):
    assert efficiency_score(time_s, 0, 0, 0.0) == expected


@pytest.mark.parametrize(("steps", "expected"), [(0, 10.0), (2, 10.0), (3, 9.0), (5, 9.0), (6, 8.0), (40, 8.0)])
def test_efficiency_redundancy_penalty(steps, expected):
    assert efficiency_score(10, steps, 0, 0.0) == expected


@pytest.mark.parametrize(
    ("tokens", "expected"), [(50_000, 10.0), (50_001, 9.0), (100_000, 9.0), (100_001, 8.0)]
)
def test_efficiency_token_penalty(tokens, expected):
    assert efficiency_score(10, 0, tokens, 0.0) == expected


@pytest.mark.parametrize(("cost", "expected"), [(0.5, 10.0), (0.5001, 9.0), (1.0, 9.0), (1.0001, 8.0)])
def test_efficiency_cost_penalty(cost, expected):
    assert efficiency_score(10, 0, 0, cost) == expected


def test_efficiency_all_penalties_add_up():
    assert efficiency_score(121, 6, 100_001, 1.01) == pytest.approx(1.0)
    assert efficiency_score(61, 3, 50_001, 0.51) == pytest.approx(5.5)


def test_efficiency_rejects_negative_input():
    with pytest.raises(ValueError, match="execution_time_s"):
        efficiency_score(-1, 0, 0, 0)


# --------------------------------------------------------------------------- §1.4 completeness


def _headers(n: int) -> str:
    return "\n".join(f"## 섹션 {i}\n내용입니다." for i in range(n))


@pytest.mark.parametrize(
    ("n", "rate"), [(0, 0.0), (1, 1 / 6), (2, 1 / 3), (3, 0.5), (4, 4 / 6), (5, 5 / 6), (6, 1.0), (9, 1.0)]
)
def test_section_rate_bands(n, rate):
    assert section_completeness(_headers(n)) == pytest.approx(rate)


def test_what_counts_as_a_header():
    text = "# 제목\n#태그는 헤더가 아님\n```python\n# 코드 주석\n```\n### 소제목\n본문 # 중간 샵"
    assert section_completeness(text) == pytest.approx(2 / 3 * 0.5)


def test_lone_title_is_not_a_section_header():
    assert section_headers("# 제목\n## 개요\n## 결론") == ["개요", "결론"]
    assert section_headers("# 개요\n# 결론") == ["개요", "결론"]


@pytest.mark.parametrize(
    ("section", "schema", "expected"), [(1, 1, 10.0), (0, 0, 0.0), (1, 0, 6.0), (0, 1, 4.0), (0.5, 0.25, 4.0)]
)
def test_completeness_weights(section, schema, expected):
    assert completeness_score(section, schema) == pytest.approx(expected)


def test_completeness_rejects_rates_above_one():
    with pytest.raises(ValueError, match="schema_rate"):
        completeness_score(1, 1.5)


# --------------------------------------------------------------------------- §1.3, §1.5


def test_output_quality_weights():
    assert output_quality_score(10, 0, 0) == pytest.approx(4.0)
    assert output_quality_score(0, 10, 0) == pytest.approx(3.0)
    assert output_quality_score(0, 0, 10) == pytest.approx(3.0)
    assert output_quality_score(8, 7, 6) == pytest.approx(7.1)


def test_hallucination_score_is_citation_accuracy_times_ten():
    assert hallucination_score(0.8) == pytest.approx(8.0)
    assert hallucination_score(1.0) == 10.0
    assert hallucination_score(0.0) == 0.0


# --------------------------------------------------------------------------- §1.7 source quality


def test_source_quality_golden():
    sources = [{"score": 0.8, "source_type": "news"}, {"score": 0.6, "source_type": "web_search"}]
    # credibility 7.0, diversity 2/8 · 10 = 2.5 → 0.5 · 7 + 0.5 · 2.5
    assert source_quality(sources) == pytest.approx(4.75)


def test_source_quality_diversity_caps_at_eight_types():
    eight = [{"score": 1.0, "source_type": f"t{i}"} for i in range(8)]
    assert source_quality(eight) == pytest.approx(10.0)
    assert source_quality(eight + [{"score": 1.0, "source_type": "t9"}]) == pytest.approx(10.0)


def test_source_quality_defaults_and_models():
    assert source_quality([]) == 0.0
    assert source_stats([{"source": "news"}]).avg_reliability == 0.5  # seed §3.4.4 default and key
    model = Source(number=1, title="t", content="c", score=0.9, source_type="news")
    assert source_quality([model]) == pytest.approx(0.5 * 9 + 0.5 * 10 / 8)


def test_source_quality_rejects_scores_on_another_scale():
    with pytest.raises(ValueError, match="outside 0-1"):
        source_quality([{"score": 85, "source_type": "news"}])


# --------------------------------------------------------------------------- §3.5 overall


def test_overall_weights():
    assert sum(WEIGHTS.values()) == pytest.approx(1.0)
    for metric, weight in WEIGHTS.items():
        scores = {m: 0.0 for m in WEIGHTS} | {metric: 10.0}
        assert overall_score(scores) == pytest.approx(weight * 10)
    assert overall_score({m: 10.0 for m in WEIGHTS}) == pytest.approx(10.0)


def test_overall_names_missing_and_unscored_metrics():
    scores = {m: 5.0 for m in WEIGHTS}
    del scores["hallucination"]
    scores["efficiency"] = None
    with pytest.raises(ValueError, match="hallucination, efficiency"):
        overall_score(scores)


def test_overall_rejects_out_of_range():
    with pytest.raises(ValueError, match="completeness"):
        overall_score({m: 5.0 for m in WEIGHTS} | {"completeness": 11})


# --------------------------------------------------------------------------- §1.2 task success


def test_task_success_levels_at_the_90_and_50_edges():
    reqs3 = ["alpha", "beta", "gamma"]
    # generated (30) + no required sections (40) + 2/3 requirements (20) = 90
    at90 = task_success(LONG + "alpha beta", [], reqs3)
    assert (at90.completion_percentage, at90.level, at90.score) == (90.0, "COMPLETE_SUCCESS", 9.0)
    reqs10 = [f"req{i:02d}" for i in range(10)]
    below90 = task_success(LONG + " ".join(reqs10[:6]), [], reqs10)  # 30 + 40 + 18 = 88
    assert (below90.completion_percentage, below90.level) == (88.0, "PARTIAL_SUCCESS")
    # not generated (too short): 0 + 40 + 1/3 · 30 = 50
    at50 = task_success("alpha", [], reqs3)
    assert (at50.completion_percentage, at50.level, at50.generated) == (50.0, "PARTIAL_SUCCESS", False)
    below50 = task_success("req00 req01 req02", [], reqs10)  # 0 + 40 + 9 = 49
    assert (below50.completion_percentage, below50.level) == (49.0, "FAILURE")


def test_task_success_components():
    report = "# 제목\n## 개요\n" + LONG + "\n## 시장 분석\n내용\n## 결론\n끝."
    result = task_success(report, ["서론/개요", "본문 분석", "결론/요약", "출처 목록"], ["시장 분석", "가격"])
    assert result.missing_sections == ["출처 목록"]
    assert result.missing_requirements == ["가격"]
    assert result.completion_percentage == pytest.approx(30 + 40 * 0.75 + 30 * 0.5)


def test_body_section_needs_a_header_other_than_intro_conclusion_sources():
    only_frame = "# 제목\n## 서론\n" + LONG + "\n## 결론\n## 참고 문헌\n"
    assert task_success(only_frame, ["본문 분석"], []).missing_sections == ["본문 분석"]
    with_body = only_frame + "## 사례 검토\n내용"
    assert task_success(with_body, ["본문 분석"], []).missing_sections == []


def test_english_section_names_count():
    report = "## Introduction\n" + LONG + "\n## Analysis\n## Conclusion\n## References\n"
    assert task_success(report, ["서론/개요", "본문 분석", "결론/요약", "출처 목록"], []).missing_sections == []


def test_error_means_not_generated():
    assert task_success(LONG, [], [], error="timeout").generated is False


def test_requirement_covered():
    text = "타겟 고객을 20대로 잡았다. 비용과 편익을 비교했다."
    assert requirement_covered("타겟 고객 정의", text)  # form word 정의 is not required
    assert requirement_covered("비용 편익 분석", text)
    assert requirement_covered("주제에 대한 개요", "## 개요\n주제 소개")
    assert not requirement_covered("성과 측정 지표", text)


# --------------------------------------------------------------------------- citations, redundancy


def test_citation_check_flags_sources_that_do_not_exist():
    text = "A [SOURCE:1]. B [SOURCE:3]. C [source: 2, 5]. D [SOURCE:0]."
    check = citation_check(text, 3)
    assert check.valid == [1, 3, 2] and check.invalid == [5, 0]
    assert check.accuracy == pytest.approx(3 / 5)
    valid, invalid = citation_check(text, {1, 5})
    assert (valid, invalid) == ([1, 5], [3, 2, 0])
    assert citation_check("no tags", 3).accuracy is None


def test_redundant_steps_counts_repeats_of_queries_and_log_messages():
    queries = ["대체육 시장", "대체육  시장", "MZ 건기식", "대체육 시장 "]
    log = ["[00:00:01] search: retry", "[00:00:05] search: retry", "[2024-05-01 10:00:00] done", ""]
    assert redundant_steps(queries, log) == 2 + 1
    assert redundant_steps([], []) == 0


# --------------------------------------------------------------------------- §4.2 analysis


def test_strengths_weaknesses_recommendations_rules():
    good = {"task_success": 10, "output_quality": 9, "completeness": 9.5, "hallucination": 10,
            "efficiency": 9, "source_quality": 8}
    details = {"hallucination_count": 0, "source_diversity": 5, "missing_sections": [],
               "avg_source_reliability": 0.8, "redundant_steps": 0, "source_count": 6, "citation_count": 10}
    s, w, r = strengths_weaknesses_recommendations(good, details, judge_strengths=["논리가 명확함"])
    assert s == ["작업을 성공적으로 완료했습니다", "보고서가 완성도 높게 작성되었습니다", "환각 현상이 감지되지 않았습니다",
                 "다양한 출처를 활용했습니다", "효율적으로 작업을 수행했습니다"]  # judge item cut at 5
    assert w == [] and r == []

    bad = {"task_success": 6.5, "output_quality": 5.5, "completeness": 5, "hallucination": 6,
           "efficiency": 6.5, "source_quality": 3}
    details = {"hallucination_count": 2, "source_diversity": 1, "missing_sections": ["결론/요약"],
               "avg_source_reliability": 0.5, "redundant_steps": 4, "unverified_claims": ["x"],
               "source_count": 3, "citation_count": 0}
    s, w, r = strengths_weaknesses_recommendations(
        bad, details, judge_weaknesses=["a", "b", "c", "d"], judge_recommendations=["j1", "j2", "j3", "j4"]
    )
    assert s == []
    assert w == ["작업 완료율이 낮습니다", "필수 섹션 누락: 결론/요약", "보고서 품질이 기대에 미치지 못합니다",
                 "환각 현상 감지: 2건", "출처 신뢰도가 낮습니다"]
    # each shown weakness's recommendation, in the same order
    assert r == ["요청에서 빠진 요구사항을 채우세요", "누락된 섹션을 추가하세요",
                 "사실 정확도, 논리적 흐름, 요청 관련성 중 낮은 항목을 먼저 보완하세요",
                 "검증되지 않은 주장에 출처를 추가하세요", "공공기관, 학술지, 공식 통계처럼 신뢰도 높은 출처를 활용하세요"]


def test_judge_items_fill_up_to_three_and_dedupe():
    s, w, r = strengths_weaknesses_recommendations(
        {}, {"redundant_steps": 4}, judge_weaknesses=["불필요한 중복 단계: 4개", "근거 부족", "x", "y", "z"]
    )
    # the judge's copy of an automatic weakness is one item; then three judge items
    assert w == ["불필요한 중복 단계: 4개", "근거 부족", "x", "y"]
    assert r == ["워크플로우 최적화를 고려하세요", "다음 문제를 보완하세요: 근거 부족", "다음 문제를 보완하세요: x",
                 "다음 문제를 보완하세요: y"]
    assert s == []


def test_judge_fragments_group_by_kind_and_never_sit_on_both_sides():
    s, w, r = strengths_weaknesses_recommendations(
        {},
        {},
        judge_strengths=["결론 섹션이 있습니다", "인접 문장이 같은 주제로 잘 이어집니다 (연결성 61%)"],
        judge_weaknesses=[
            "인접 문장 사이의 연결이 약합니다 (연결성 22%)",
            "인접 문장 사이의 연결이 약합니다 (연결성 24%)",
            "문장 6: 인용된 출처로 뒷받침되지 않음 (26%)",
            "문장 15: 인용된 출처로 뒷받침되지 않음 (42%)",
            "문장 16: 인용된 출처로 뒷받침되지 않음 (24%)",
        ],
    )
    assert w == ["인접 문장 사이의 연결이 약합니다 (연결성 22%)", "인용된 출처로 뒷받침되지 않음: 문장 6, 15, 16 (3개 문장)"]
    assert r == ["인접 문장이 같은 주제를 이어가도록 문단을 다시 구성하세요", "인용한 출처와 맞지 않는 주장과 수치를 바로잡으세요"]
    # a strength on a topic another judge calls weak (sentence flow) is not a strength
    assert s == ["결론 섹션이 있습니다"]


def test_every_automatic_weakness_has_a_recommendation():
    cases = [
        ({"task_success": 5}, {}),
        ({"output_quality": 4}, {}),
        ({}, {"hallucination_count": 6}),
        ({}, {"avg_source_reliability": 0.3}),
        ({}, {"redundant_steps": 5}),
        ({}, {"missing_sections": ["출처 목록"]}),
    ]
    for scores, details in cases:
        _, w, r = strengths_weaknesses_recommendations(scores, details)
        assert len(w) == 1 and len(r) >= 1, (scores, details, w, r)
    _, w, r = strengths_weaknesses_recommendations({}, {"hallucination_count": 6})
    assert w == ["환각 현상 감지: 6건"] and r == ["인용한 출처와 맞지 않는 주장과 수치를 바로잡으세요"]


def test_one_sentence_flagged_by_three_judges_is_one_item_and_fixes_follow_the_subject():
    _, w, r = strengths_weaknesses_recommendations(
        {},
        {},
        judge_weaknesses=[
            "문장 13: 인용된 출처로 뒷받침되지 않음 (26%)",
            "문장 13: 인용된 출처로 뒷받침되지 않음 (30%)",
            "결론의 방향(성장/감소)이 본문과 상반됩니다",
            "결론 섹션이 없습니다",
        ],
    )
    assert w == ["인용된 출처로 뒷받침되지 않음: 문장 13", "결론의 방향(성장/감소)이 본문과 상반됩니다", "결론 섹션이 없습니다"]
    assert r == ["인용한 출처와 맞지 않는 주장과 수치를 바로잡으세요", "결론이 본문의 분석과 같은 방향을 가리키도록 고치세요",
                 "결론 섹션을 추가하세요"]


def test_a_single_sentence_finding_drops_the_judges_raw_detail():
    _, w, r = strengths_weaknesses_recommendations(
        {}, {}, judge_weaknesses=["문장 4: 출처와 다른 수치 — 답변 수치 {2024}가 참조에 없음"]
    )
    assert w == ["출처와 다른 수치: 문장 4"]
    assert r == ["인용한 출처와 맞지 않는 주장과 수치를 바로잡으세요"]


def test_missing_conclusion_is_inferred():
    _, _, r = strengths_weaknesses_recommendations({}, {"missing_sections": ["결론/요약"]})
    assert r == ["누락된 섹션을 추가하세요", "결론 섹션을 추가하세요"]


# --------------------------------------------------------------------------- bounds (hypothesis)

unit = st.floats(0, 1, allow_nan=False)
ten = st.floats(0, 10, allow_nan=False)


@given(st.floats(0, 1e6, allow_nan=False), st.integers(0, 10_000), st.integers(0, 10**9), st.floats(0, 1e4, allow_nan=False))
def test_efficiency_in_range(t, steps, tokens, cost):
    assert 0 <= efficiency_score(t, steps, tokens, cost) <= 10


@given(st.lists(st.fixed_dictionaries({"score": unit, "source_type": st.sampled_from("abcdefghijk")}), max_size=30))
def test_source_quality_in_range(sources):
    assert 0 <= source_quality(sources) <= 10


@given(st.fixed_dictionaries({m: ten for m in WEIGHTS}))
def test_overall_in_range_and_grade_defined(scores):
    value = overall_score(scores)
    assert 0 <= value <= 10 + 1e-9
    assert grade(min(value, 10.0)) in {"A+", "A", "B+", "B", "C+", "C", "D", "F"}


@given(unit, unit, ten, ten, ten)
def test_other_scores_in_range(a, b, f, c, r):
    assert 0 <= completeness_score(a, b) <= 10
    assert 0 <= output_quality_score(f, c, r) <= 10 + 1e-9
    assert 0 <= hallucination_score(a) <= 10


@given(st.text(max_size=400), st.lists(st.text(max_size=8), max_size=4), st.lists(st.text(max_size=8), max_size=4))
def test_task_success_and_section_rate_in_range(text, sections, reqs):
    result = task_success(text, sections, reqs)
    assert 0 <= result.score <= 10 and 0 <= result.completion_percentage <= 100
    assert 0 <= section_completeness(text) <= 1


@given(st.lists(ten, min_size=2, max_size=2))
def test_grade_is_monotone(pair):
    order = ["F", "D", "C", "C+", "B", "B+", "A", "A+"]
    low, high = sorted(pair)
    assert order.index(grade(low)) <= order.index(grade(high))


# --------------------------------------------------------------------------- import hygiene


def test_report_metrics_import_no_heavy_modules():
    heavy = ("prefect", "litellm", "torch", "great_expectations", "sentence_transformers", "kiwipiepy")
    code = (
        "import sys, assay.suites.report.formulas, assay.suites.report.schema_match, assay.suites.report.schema;"
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


# --------------------------------------------------------------------------- bundled dataset

REPORT_DIR = datasets_dir() / "report"
PRICING = {"gemini-2.5-flash": (0.075, 0.30), "claude-3-5-sonnet": (3.00, 15.00), "gpt-4o": (2.50, 10.00)}


def _lines(name: str) -> list[str]:
    return [line for line in (REPORT_DIR / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def test_every_case_and_generation_line_validates():
    cases = [ReportCase.model_validate_json(line) for line in _lines("cases.jsonl")]
    gens = [ReportGeneration.model_validate_json(line) for line in _lines("generations.jsonl")]
    assert len(cases) == 15 and len({c.id for c in cases}) == 15
    assert sorted(c.team_type for c in cases) == sorted(
        ["purchasing", "food_service", "marketing", "product_rnd", "default"] * 3
    )
    assert [g.case_id for g in gens] == [c.id for c in cases]
    for g in gens:
        assert 1500 <= len(g.report) <= 5000, g.case_id
        assert g.total_tokens == g.input_tokens + g.output_tokens
        p_in, p_out = PRICING[g.model]
        assert g.estimated_cost == pytest.approx(g.input_tokens / 1e6 * p_in + g.output_tokens / 1e6 * p_out, abs=1e-6)
        assert [s.number for s in g.sources] == list(range(1, len(g.sources) + 1))


def test_dataset_makes_the_automatic_metrics_discriminate():
    gens = [ReportGeneration.model_validate_json(line) for line in _lines("generations.jsonl")]
    eff = {efficiency_score(g.total_execution_time, redundant_steps(g.search_queries, g.execution_log),
                            g.total_tokens, g.estimated_cost) for g in gens}
    assert min(eff) <= 3 and max(eff) == 10 and len(eff) >= 5
    assert {len(source_stats(g.sources).types) for g in gens} >= {1, 8}
    assert {section_completeness(g.report) for g in gens} >= {1.0, 1 / 3}
    assert sum(bool(citation_check(g.report, len(g.sources)).invalid) for g in gens) >= 2


def test_models_reject_a_misspelt_field():
    row = json.loads(_lines("cases.jsonl")[0]) | {"requirment": []}
    with pytest.raises(ValueError):
        ReportCase.model_validate(row)


def test_team_type_file_has_the_seed_fields():
    data = yaml.safe_load((project_root() / "assay" / "suites" / "report" / "rules" / "team_types.yaml").read_text(encoding="utf-8"))["team_types"]
    keys = {t: [f["key"] for f in spec["fields"]] for t, spec in data.items()}
    assert keys["marketing"] == ["market_analysis", "target_audience", "strategy", "implementation", "metrics", "conclusion"]
    assert len(keys["food_service"]) == 7 and len(keys["default"]) == 5


def test_label_lines_are_well_formed():
    rows = [json.loads(line) for line in _lines("labels/schema_pairs.jsonl")]
    assert len(rows) >= 90
    for row in rows:
        assert set(row) == {"header", "team_type", "field", "match", "kind", "split"}
        assert isinstance(row["match"], bool) and row["split"] in {"dev", "heldout"}
    assert {r["team_type"] for r in rows} == {"purchasing", "food_service", "marketing", "product_rnd", "default"}
