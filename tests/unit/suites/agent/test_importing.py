"""`assay import agent`: a table of test queries (and recorded calls, one row per call) becomes an
agent dataset; every problem is named by row and column and nothing is written while any is left."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from assay.importing import import_dataset
from assay.suites.registry import get_suite

CHECK = json.dumps([{"path": "dataUIList[0].actionType", "op": "equals", "value": "DELETE"}])
BODY = json.dumps({"assistantMessage": "삭제했습니다", "dataUIList": [{"actionType": "DELETE", "planId": "P-9"}]},
                  ensure_ascii=False)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def test_a_table_of_calls_becomes_queries_and_their_repeats(tmp_path):
    source = tmp_path / "calls.csv"
    row = f"d1,P-9 공고의 이서연 지원자를 삭제해줘,delete,이서연 삭제,{csv_cell(CHECK)},{csv_cell(BODY)}"
    source.write_text("case_id,user_input,intent_label,expected_output,checks,output,latency_sec\n"
                      f"{row},3.5\n{row},4\nv1,서류전형 목록 보여줘,VIEW,,,,\n", encoding="utf-8")
    result = import_dataset("agent", source, tmp_path / "out", {})
    assert not result.problems, [p.describe() for p in result.problems]
    assert result.mapping["query"] == "user_input" and result.mapping["response_time"] == "latency_sec"
    cases, calls = lines(tmp_path / "out" / "cases.jsonl"), lines(tmp_path / "out" / "responses.jsonl")
    assert cases[0] == {"id": "d1", "query": "P-9 공고의 이서연 지원자를 삭제해줘", "expected_intent": "DELETE",
                        "expected_result": "이서연 삭제", "checks": json.loads(CHECK)}
    assert [(c["case_id"], c["repeat"], c["responseTimeSec"]) for c in calls] == [("d1", 0, 3.5), ("d1", 1, 4.0),
                                                                                  ("v1", 0, None)]
    assert calls[0]["raw"] == BODY and calls[2]["error"] == "no response in the imported table"
    suite = get_suite("agent")
    data = suite.load_dataset(tmp_path / "out")
    assert not data.parse_problems
    assert [c.expected_intent for c in suite.parse_cases(data)] == ["DELETE", "VIEW"]


def test_queries_without_responses_make_a_cases_only_dataset_and_parquet_keeps_lists(tmp_path):
    source = tmp_path / "queries.parquet"
    pd.DataFrame({"query": ["지원자 추가", "공고 닫기"], "expected_intent": ["ADD", "UPDATE"],
                  "latency_class": ["single", "MULTI"],
                  "checks": [json.loads(CHECK), None]}).to_parquet(source)
    result = import_dataset("agent", source, tmp_path / "out", {})
    assert not result.problems and result.files == {"cases.jsonl": 2}
    cases = lines(tmp_path / "out" / "cases.jsonl")
    assert [c["id"] for c in cases] == ["a0001", "a0002"] and cases[0]["latency_class"] == "SINGLE"
    assert cases[0]["checks"] == json.loads(CHECK) and "checks" not in cases[1]


def test_every_problem_is_named_by_row_and_column_and_nothing_is_written(tmp_path):
    source = tmp_path / "bad.csv"
    bad_check = csv_cell(json.dumps([{"path": "x", "op": "equal"}]))
    source.write_text(
        "id,query,intent,latency_class,checks,response,repeat\n"
        f"b1,지원자 추가,ADDD,SINGLE,{bad_check},{{}},0\n"
        "b2,,VIEW,FAST,[oops,{},0\n"
        "b1,지원자 추가,ADD,SINGLE,,{},1\n"
        "b3,목록,VIEW,SINGLE,,{},0\n"
        "b3,목록,VIEW,SINGLE,,{},0\n", encoding="utf-8")
    result = import_dataset("agent", source, tmp_path / "out", {})
    described = [p.describe() for p in result.problems]
    expected = [
        ("row 1 [intent]", "'ADDD'"),
        ("row 1 [checks]", "(at 0.op)"),
        ("row 2 [query]", "empty; this field is required"),
        ("row 2 [checks]", "expected JSON"),
        ("row 2 [latency_class]", "'FAST'"),
        ("row 3 [intent]", "row 1 gave query 'b1' other values for expected_intent"),
        ("row 5 [repeat]", "query 'b3' repeat 0 is also row 4"),
    ]
    for where, detail in expected:
        assert any(d.startswith(where) and detail in d for d in described), (where, detail, described)
    assert len(described) == len(expected), described  # one problem each: an empty cell is not named twice
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text", ["id,query,intent\nx1,목록,VIEW\nx1,목록,VIEW\n"])
def test_a_repeated_id_without_calls_is_a_duplicate(tmp_path, text):
    source = tmp_path / "dup.csv"
    source.write_text(text, encoding="utf-8")
    result = import_dataset("agent", source, tmp_path / "out", {})
    assert [p.describe() for p in result.problems] == [
        "row 2 [id]: import id — id 'x1' already used by row 1"]
