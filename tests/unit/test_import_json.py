"""`assay import` reads a .json array of records, as DeepEval's
``EvaluationDataset.save_as(file_type="json")`` writes it (nulls for what a golden lacks), through
the same reader as CSV/JSONL/Parquet; `query` is a question column; a .json that is not an
array of records is refused in one line, an element that is not a record named by its row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.importing import import_dataset
from assay.validation.tables import ImportError_, read_table
from tests.support.cli import cli

# The shape DeepEval's save_as(file_type="json") writes: one object per golden, indented.
DEEPEVAL_GOLDENS = [
    {"input": "What is the capital of France?", "actual_output": "Paris.", "expected_output": "Paris",
     "context": ["France's capital is Paris."], "retrieval_context": ["Paris is the capital of France."],
     "source_file": None, "additional_metadata": None, "comments": None, "tools_called": None},
    {"input": "Who wrote Hamlet?", "actual_output": "Shakespeare.", "expected_output": "William Shakespeare",
     "context": None, "retrieval_context": ["Hamlet is by Shakespeare."], "source_file": "plays.txt",
     "additional_metadata": {"topic": "literature"}, "comments": None, "tools_called": None},
]


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_deepeval_json_file_imports_as_a_rag_qa_dataset(tmp_path):
    source = tmp_path / "deepeval_dataset.json"
    source.write_text(json.dumps(DEEPEVAL_GOLDENS, indent=4, ensure_ascii=False), encoding="utf-8")
    result, output = cli("import", "rag_qa", str(source), "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, output
    assert "unknown format" not in output and "mapped question <- input" in output
    cases, gens = lines(tmp_path / "out" / "cases.jsonl"), lines(tmp_path / "out" / "generations.jsonl")
    assert [c["question"] for c in cases] == ["What is the capital of France?", "Who wrote Hamlet?"]
    assert cases[1]["reference_answer"] == "William Shakespeare"
    assert gens[0]["answer"] == "Paris." and gens[1]["retrieved"] == [{"text": "Hamlet is by Shakespeare."}]


def test_json_lines_and_a_json_array_read_alike(tmp_path):
    array, jsonl = tmp_path / "t.json", tmp_path / "t.jsonl"
    array.write_text(json.dumps(DEEPEVAL_GOLDENS), encoding="utf-8")
    jsonl.write_text("".join(json.dumps(g) + "\n" for g in DEEPEVAL_GOLDENS), encoding="utf-8")
    (cols_a, rows_a, problems_a), (cols_b, rows_b, problems_b) = read_table(array), read_table(jsonl)
    assert cols_a == cols_b and [r.values for r in rows_a] == [r.values for r in rows_b]
    assert problems_a == problems_b == []


def test_query_is_a_question_column(tmp_path):
    source = tmp_path / "q.csv"
    source.write_text("query,ground_truth\nWhere is the office?,Seoul\n", encoding="utf-8")
    result = import_dataset("rag_qa", source, tmp_path / "out", {})
    assert result.mapping["question"] == "query" and not result.problems
    assert lines(tmp_path / "out" / "cases.jsonl")[0]["question"] == "Where is the office?"


@pytest.mark.parametrize(("text", "says"), [
    ('{"input": "a"}', "must hold an array of records"),
    ("[1, 2", "cannot read it as JSON"),
    ("", "cannot read it as JSON"),
    ("[" * 100_000 + "]" * 100_000, "cannot read it as JSON"),
])
def test_a_json_file_that_is_not_an_array_of_records_is_refused_in_one_line(tmp_path, text, says):
    source = tmp_path / "bad.json"
    source.write_text(text, encoding="utf-8")
    with pytest.raises(ImportError_, match=says):
        import_dataset("rag_qa", source, tmp_path / "out", {})
    result, output = cli("import", "rag_qa", str(source), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1 and "Traceback" not in output and says in output
    assert not (tmp_path / "out").exists()


def test_an_element_that_is_not_a_record_is_named_by_its_row(tmp_path):
    source = tmp_path / "mixed.json"
    source.write_text(json.dumps([DEEPEVAL_GOLDENS[0], "stray text", [1]]), encoding="utf-8")
    result = import_dataset("rag_qa", source, tmp_path / "out", {})
    described = [p.describe() for p in result.problems]
    assert any(d.startswith("row 2") and "JSON object" in d and "str" in d for d in described), described
    assert any(d.startswith("row 3") and "list" in d for d in described), described
    assert not (tmp_path / "out").exists()
