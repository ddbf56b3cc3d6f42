"""`assay import clinical`: a table with one row per dialogue turn becomes a clinical dataset;
rows that share a patient id are turns of one patient, every problem is named by row and column,
and nothing is written while any is left."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from assay.importing import import_dataset
from assay.suites.registry import get_suite
from assay.validation.tables import ImportError_

RECORD = {"age": 71, "sex": "M", "primary_condition": "atrial fibrillation", "medications": [
    {"name": "warfarin", "dose": "5mg qd"}], "labs": {"inr": 2.6}, "allergies": ["aspirin"]}


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def test_turns_of_one_patient_share_the_record_and_are_numbered_in_order(tmp_path):
    source = tmp_path / "turns.csv"
    record = csv_cell(json.dumps(RECORD))
    source.write_text(
        "case_id,patient_id,question,slots_truth,required_slots,response\n"
        f"af-1,af,두통약 뭐 먹어요?,{record},\"medications, allergies\",아스피린 알레르기가 있으니 아세트아미노펜을 드세요.\n"
        "af-2,af,INR 괜찮아요?,,labs.inr,INR 2.6이면 목표 범위예요.\n", encoding="utf-8")
    result = import_dataset("clinical", source, tmp_path / "out", {})
    assert not result.problems, [p.describe() for p in result.problems]
    assert result.mapping["record"] == "slots_truth" and result.mapping["answer"] == "response"
    out = tmp_path / "out"
    patients, cases, answers = lines(out / "patients.jsonl"), lines(out / "cases.jsonl"), lines(out / "answers.jsonl")
    assert patients == [{"id": "af", "title": "", "slots_truth": RECORD}]
    assert [(c["id"], c["turn"], c["required_slots"]) for c in cases] == [
        ("af-1", 1, ["medications", "allergies"]), ("af-2", 2, ["labs.inr"])]
    assert answers[1] == {"case_id": "af-2", "answer": "INR 2.6이면 목표 범위예요."}
    suite = get_suite("clinical")
    data = suite.load_dataset(out)
    assert not data.parse_problems
    parsed = suite.parse_cases(data)
    assert [c.slots_truth.labs for c in parsed] == [{"inr": 2.6}, {"inr": 2.6}]


def test_parquet_records_as_objects_and_questions_only(tmp_path):
    source = tmp_path / "turns.parquet"
    pd.DataFrame({"query": ["운동해도 돼요?"], "patient": [json.dumps(RECORD)], "turn": [3]}).to_parquet(source)
    result = import_dataset("clinical", source, tmp_path / "out", {})
    assert not result.problems and result.files == {"patients.jsonl": 1, "cases.jsonl": 1}
    assert lines(tmp_path / "out" / "cases.jsonl")[0]["turn"] == 3


def test_a_table_without_a_record_column_cannot_start(tmp_path):
    source = tmp_path / "turns.csv"
    source.write_text("question\n두통약 뭐 먹어요?\n", encoding="utf-8")
    with pytest.raises(ImportError_, match="no column for the patient record .* --map record=COLUMN"):
        import_dataset("clinical", source, tmp_path / "out", {})


def test_every_problem_is_named_by_row_and_column_and_nothing_is_written(tmp_path):
    other = csv_cell(json.dumps({**RECORD, "age": 72}))
    source = tmp_path / "bad.csv"
    source.write_text(
        "id,patient_id,turn,question,record,required_slots\n"
        f"a,p1,1,q1,{csv_cell(json.dumps(RECORD))},labs.egfr\n"
        f"b,p1,1,q2,{other},\n"
        f"c,p2,,q3,{csv_cell(json.dumps({'age': 200, 'sex': 'X'}))},\n"
        "d,p3,1.5,,,\n"
        "e,p4,,q5,[1,\n"
        "f,p5,,q6,[1],\n", encoding="utf-8")
    result = import_dataset("clinical", source, tmp_path / "out", {})
    described = [p.describe() for p in result.problems]
    expected = [
        ("row 1 [required_slots]", "not in patient 'p1''s record: labs.egfr"),
        ("row 2 [record]", "row 1 gave patient 'p1' another record"),
        ("row 2 [turn]", "patient 'p1' turn 1 is also row 1"),
        ("row 3 [record]", "age: Input should be less than or equal to 130"),
        ("row 3 [record]", "sex: Input should be 'F' or 'M'"),
        ("row 3 [record]", "primary_condition: Field required"),
        ("row 4 [question]", "empty; this field is required"),
        ("row 4 [turn]", "expected a whole number from 1 to 50, got 1.5"),
        ("row 4 [record]", "patient 'p3' has no record in any of its rows"),
        ("row 5 [record]", "expected JSON, got '[1'"),
        ("row 6 [record]", "expected a JSON object (age, sex, primary_condition, …), got '[1]'"),
    ]
    for where, detail in expected:
        assert any(where in d and detail in d for d in described), (where, detail, described)
    assert len(described) == len(expected)
    assert not (tmp_path / "out").exists()
