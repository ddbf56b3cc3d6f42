"""`assay import report`: a table with one row per query and its recorded report becomes a report
dataset; every problem is named by row and column and nothing is written while any is left."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.importing import import_dataset
from assay.suites.registry import get_suite
from assay.validation.tables import ImportError_
from tests.conftest import ROOT

BUNDLED = ROOT / "datasets" / "report"


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_bundled_dataset_flattened_to_one_table_imports_back_unchanged(tmp_path):
    cases = lines(BUNDLED / "cases.jsonl")
    generations = {g["case_id"]: g for g in lines(BUNDLED / "generations.jsonl")}
    rows = [{**case, **{k: v for k, v in generations[case["id"]].items() if k != "case_id"}} for case in cases]
    result = import_dataset("report", write_jsonl(tmp_path / "flat.jsonl", rows), tmp_path / "out", {})
    assert not result.problems, [p.describe() for p in result.problems]
    assert result.files == {"cases.jsonl": len(cases), "generations.jsonl": len(cases)}
    assert lines(tmp_path / "out" / "cases.jsonl") == cases
    for back in lines(tmp_path / "out" / "generations.jsonl"):
        original = generations[back["case_id"]]
        assert back == {**original, "report": original["report"].strip()}  # a cell's outer whitespace is dropped
    suite = get_suite("report")
    data = suite.load_dataset(tmp_path / "out")
    assert not data.parse_problems and len(suite.parse_cases(data)) == len(cases)


SOURCES = [{"title": "통계청 물가", "content": "2024년 쌀 가격은 8% 올랐다.", "score": 0.9, "source_type": "statistics"},
           {"title": "업계 기사", "content": "산지 공급이 줄었다.", "score": 0.6, "source_type": "news"}]


def test_a_csv_with_other_column_names_team_aliases_and_unnumbered_sources(tmp_path):
    source = tmp_path / "reports.csv"
    report = csv_cell("# 보고서\n## 서론\n쌀 가격은 8% 올랐다 [SOURCE:1].")
    sources = csv_cell(json.dumps(SOURCES, ensure_ascii=False))
    source.write_text(
        "query_id,question,team,sections,criteria,response,sources,latency_s,prompt_tokens,completion_tokens,"
        "llm_calls,cost_usd,model_name\n"
        f"q1,쌀 가격 보고서를 써주세요,구매 담당자,\"서론/개요, 본문\",\"가격 분석, 결론\","
        f"{report},{sources},"
        "75.5,12000,3000,9,0.42,gpt-4o\n", encoding="utf-8")
    result = import_dataset("report", source, tmp_path / "out", {})
    assert not result.problems, [p.describe() for p in result.problems]
    case = lines(tmp_path / "out" / "cases.jsonl")[0]
    assert case == {"id": "q1", "query": "쌀 가격 보고서를 써주세요", "team_type": "purchasing",
                    "required_sections": ["서론/개요", "본문"], "requirements": ["가격 분석", "결론"]}
    generation = lines(tmp_path / "out" / "generations.jsonl")[0]
    assert [s["number"] for s in generation["sources"]] == [1, 2]
    assert (generation["total_tokens"], generation["api_calls"], generation["estimated_cost"]) == (15000, 9, 0.42)
    assert generation["total_execution_time"] == 75.5 and generation["model"] == "gpt-4o"


def test_a_table_without_the_efficiency_figures_cannot_start(tmp_path):
    """A missing time or cost is never filled with 0: that would be an efficiency nobody measured."""
    source = write_jsonl(tmp_path / "reports.jsonl", [{"query": "q", "required_sections": ["본문"],
                                                       "requirements": ["r"], "report": "# r"}])
    with pytest.raises(ImportError_) as raised:
        import_dataset("report", source, tmp_path / "out", {})
    message = str(raised.value)
    for field in ("total_execution_time", "input_tokens", "output_tokens", "api_calls", "estimated_cost", "model"):
        assert f"no column for {field}" in message
    assert "--map" in message and message.count("the efficiency score is computed from these") == 1
    assert "total_execution_time, input_tokens, output_tokens, api_calls, estimated_cost: the efficiency" in message
    assert not (tmp_path / "out").exists()


def test_every_problem_is_named_by_row_and_column_and_nothing_is_written(tmp_path):
    good = {"id": "a", "query": "q", "team_type": "marketing", "required_sections": ["본문"],
            "requirements": ["r"], "report": "# r", "sources": SOURCES, "total_execution_time": 10,
            "input_tokens": 100, "output_tokens": 50, "api_calls": 2, "estimated_cost": 0.01, "model": "m"}
    rows = [
        good,
        {**good, "team_type": "legal", "requirements": []},
        {**good, "id": "c", "report": "", "input_tokens": 1.5},
        {**good, "id": "d", "sources": ["a bare text"], "total_tokens": 10},
        {**good, "id": "e", "sources": [{**SOURCES[0], "score": 3}], "estimated_cost": "cheap"},
    ]
    result = import_dataset("report", write_jsonl(tmp_path / "bad.jsonl", rows), tmp_path / "out", {})
    described = [p.describe() for p in result.problems]
    expected = [
        (2, "id", "id 'a' already used by row 1"),
        (2, "team_type", "Input should be 'purchasing'"),
        (2, "requirements", "empty list; give at least one"),
        (3, "report", "empty; give the report, or an error saying why there is none"),
        (3, "input_tokens", "expected a whole number, got 1.5"),
        (4, "sources", "source 1: expected an object with title, content, score (0-1) and source_type"),
        (4, "total_tokens", "10 is less than input + output tokens (150)"),
        (5, "sources", "source 1: score: Input should be less than or equal to 1"),
        (5, "estimated_cost", "expected a number, got 'cheap'"),
    ]
    for row, column, detail in expected:
        named = [d for d in described if d.startswith(f"row {row} (line {row}) [{column}]")]
        assert any(detail in d for d in named), (row, column, detail, described)
    assert len(described) == len(expected), described
    assert not (tmp_path / "out").exists()
