"""`assay import`: Ragas/DeepEval tables become a rag_qa dataset; every problem is named by row
and column, and nothing is written while any is left."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from assay.importing import import_dataset
from assay.suites.registry import get_suite
from assay.validation.tables import ImportError_, parse_map

RAGAS_CSV = (
    "user_input,retrieved_contexts,response,reference\n"
    "What is the capital of France?,\"['Paris is the capital of France.', 'It is in Europe.']\",Paris.,Paris\n"
    "Who wrote Hamlet?,\"[\"\"Hamlet is by Shakespeare.\"\"]\",Shakespeare.,William Shakespeare\n"
)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_ragas_csv_maps_its_column_names(tmp_path):
    source = tmp_path / "ragas.csv"
    source.write_text(RAGAS_CSV, encoding="utf-8")
    result = import_dataset("rag_qa", source, tmp_path / "out", {})
    assert result.mapping == {"question": "user_input", "reference_answer": "reference", "answer": "response",
                              "contexts": "retrieved_contexts"}
    assert "mapped question <- user_input" in result.lines() and not result.problems
    cases, gens = lines(tmp_path / "out" / "cases.jsonl"), lines(tmp_path / "out" / "generations.jsonl")
    assert cases[0] == {"id": "q0001", "question": "What is the capital of France?", "reference_answer": "Paris"}
    assert gens[0]["retrieved"] == [{"text": "Paris is the capital of France."}, {"text": "It is in Europe."}]
    assert gens[1]["retrieved"] == [{"text": "Hamlet is by Shakespeare."}]
    # the written dataset reads back with no parse problems, categories defaulted, no kb/ needed
    data = get_suite("rag_qa").load_dataset(tmp_path / "out")
    assert not data.parse_problems and get_suite("rag_qa").parse_cases(data)[0].category == "general"


def test_deepeval_jsonl_and_parquet_with_explicit_map(tmp_path):
    rows = [{"input": "2+2?", "actual_output": "4", "expected_output": "4", "retrieval_context": ["2+2=4"],
             "topic": "math", "kw": "four, 4"}]
    source = tmp_path / "deepeval.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = import_dataset("rag_qa", source, tmp_path / "a", parse_map(["category=topic", "keywords=kw"]))
    assert result.mapping["question"] == "input" and result.mapping["category"] == "topic"
    assert lines(tmp_path / "a" / "cases.jsonl")[0]["keywords"] == ["four", "4"]
    parquet = tmp_path / "t.parquet"
    pd.DataFrame(rows).to_parquet(parquet)
    import_dataset("rag_qa", parquet, tmp_path / "b", {})
    assert lines(tmp_path / "b" / "generations.jsonl")[0]["retrieved"] == [{"text": "2+2=4"}]


def test_questions_without_answers_make_a_cases_only_dataset(tmp_path):
    source = tmp_path / "q.csv"
    source.write_text("id,question,ground_truth,source_docs\nx1,Q?,A,\"[\"\"a.md\"\"]\"\n", encoding="utf-8")
    result = import_dataset("rag_qa", source, tmp_path / "out", {})
    assert result.files == {"cases.jsonl": 1}
    assert lines(tmp_path / "out" / "cases.jsonl") == [
        {"id": "x1", "question": "Q?", "reference_answer": "A", "source_docs": ["a.md"]}]


def test_every_problem_is_named_by_row_and_column_and_nothing_is_written(tmp_path):
    source = tmp_path / "bad.jsonl"
    source.write_text(
        json.dumps({"question": "", "ground_truth": "x", "contexts": ["ok"], "answer": "a"}) + "\n"
        + "{broken\n"
        + json.dumps({"question": "q", "ground_truth": "x", "contexts": "[1,", "answer": "a", "id": "d"}) + "\n"
        + json.dumps({"question": "q2", "ground_truth": "y", "contexts": [{"nested": 1}], "answer": "b", "id": "d"})
        + "\n",
        encoding="utf-8",
    )
    result = import_dataset("rag_qa", source, tmp_path / "out", {})
    described = [p.describe() for p in result.problems]
    assert "row 1 (line 1) [question]: import question — empty; this field is required" in described
    assert any(d.startswith("line 2: valid JSON object") for d in described)
    assert any(d.startswith("row 2 (line 3) [contexts]: import contexts — expected a list of texts") for d in described)
    assert any(d.startswith("row 3 (line 4) [contexts]") for d in described)
    assert "row 3 (line 4) [id]: import id — id 'd' already used by row 2" in described
    assert not (tmp_path / "out").exists()


def test_unusable_options_say_what_to_do(tmp_path, monkeypatch):
    source = tmp_path / "x.csv"
    source.write_text("ask,answer\nq,a\n", encoding="utf-8")
    with pytest.raises(ImportError_, match="no column for question .*--map question=COLUMN"):
        import_dataset("rag_qa", source, tmp_path / "o", {})
    with pytest.raises(ImportError_, match="no field 'questoin'"):
        import_dataset("rag_qa", source, tmp_path / "o", {"questoin": "ask"})
    with pytest.raises(ImportError_, match="unknown format"):
        import_dataset("rag_qa", tmp_path / "x.xlsx", tmp_path / "o", {})
    from assay.suites.registry import get_suite

    monkeypatch.setattr(type(get_suite("report")), "importer", None)  # a suite that brings no importer
    with pytest.raises(ImportError_, match="has no importer"):
        import_dataset("report", source, tmp_path / "o", {})


def test_import_refuses_non_finite_numbers_long_texts_and_deep_nesting_by_row_and_column(tmp_path, monkeypatch):
    source = tmp_path / "rows.jsonl"
    good = {"question": "q", "answer": "a", "contexts": ["c"], "ground_truth": "g"}
    source.write_text("\n".join([
        json.dumps(good),
        '{"question": NaN, "answer": "a", "contexts": ["c"], "ground_truth": "g"}',  # was imported as "nan"
        json.dumps({**good, "answer": "x" * 100_001}),
        "[" * 100_000 + "]" * 100_000,
    ]) + "\n", encoding="utf-8")
    result = import_dataset("rag_qa", source, tmp_path / "out", {})
    assert [(p.line, p.column, p.expectation) for p in result.problems] == [
        (2, "question", "finite numbers"), (3, "answer", "input limits"), (4, None, "input limits")]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())

    monkeypatch.setenv("ASSAY_MAX_TEXT_CHARS", "5")
    table = tmp_path / "rows.parquet"
    pd.DataFrame({"question": ["q", "a longer question"], "answer": ["a", "b"], "contexts": [["c"], ["c"]],
                  "ground_truth": ["g", "g"], "latency_s": [1.0, float("inf")]}).to_parquet(table)
    result = import_dataset("rag_qa", table, tmp_path / "out2", {})
    assert [p.describe() for p in result.problems] == [
        "row 2 [question]: input limits — a text of 17 characters; the limit is 5 (ASSAY_MAX_TEXT_CHARS)",
        "row 2 [latency_s]: finite numbers — not a finite number (reads as Infinity)",
    ]
