"""The answers suite: `assay import answers` with DeepEval, Ragas and promptfoo column names (a
table without a reference is accepted), the gate on what it writes, and live replay against a
loopback endpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from assay.importing import import_dataset
from assay.spec import RunSpec, TargetSpec
from assay.suites.kit import ReplayContext
from assay.suites.registry import get_suite
from tests.support.cli import cli
from tests.support.endpoint import LoopbackEndpoint

SUITE = get_suite("answers")


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_ragas_names_without_a_reference(tmp_path):
    source = tmp_path / "ragas.csv"
    source.write_text(
        "user_input,response,retrieved_contexts\n"
        "Is there a data cap?,No data cap on any plan.,\"['All plans include unlimited data.']\"\n", encoding="utf-8")
    result = import_dataset("answers", source, tmp_path / "out", {})
    assert result.mapping == {"input": "user_input", "output": "response", "contexts": "retrieved_contexts"}
    assert not result.problems
    assert lines(tmp_path / "out" / "cases.jsonl") == [{"id": "a0001", "input": "Is there a data cap?", "group": "all"}]
    assert lines(tmp_path / "out" / "generations.jsonl") == [
        {"case_id": "a0001", "output": "No data cap on any plan.", "contexts": [{"text": "All plans include unlimited data."}]}]
    data = SUITE.load_dataset(tmp_path / "out")
    assert not data.parse_problems and SUITE.parse_cases(data)[0].reference is None


def test_deepeval_names_with_reference_group_and_metadata(tmp_path):
    rows = [{"input": "What does Fiber 500 cost?", "actual_output": "$45 a month.", "expected_output": "$45 per month.",
             "retrieval_context": ["Fiber 500 is $45 per month."], "category": "plans",
             "additional_metadata": {"channel": "chat", "turn": 2}}]
    source = tmp_path / "deepeval.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = import_dataset("answers", source, tmp_path / "out", {})
    assert not result.problems
    assert lines(tmp_path / "out" / "cases.jsonl") == [{"id": "a0001", "input": "What does Fiber 500 cost?",
                                                         "group": "plans", "reference": "$45 per month.",
                                                         "metadata": {"channel": "chat", "turn": 2}}]


# DeepEval's EvaluationDataset.save_as(file_type="json"): an indented array, one object per
# golden with these keys in this order, null for what a golden lacks; `context` is the ideal context, `retrieval_context` what
# the retriever returned (the one faithfulness is judged against).
DEEPEVAL_SAVED = [
    {"input": "What does Fiber 500 cost?", "actual_output": "$45 a month.", "expected_output": "$45 per month.",
     "retrieval_context": ["Fiber 500 is $45 per month.", "Fiber 1000 is $65 per month."],
     "context": ["Price list: Fiber 500 $45."], "name": None, "comments": None, "source_file": "prices.md",
     "tools_called": None, "expected_tools": None, "additional_metadata": {"channel": "chat"},
     "custom_column_key_values": None},
    {"input": "Is there a data cap?", "actual_output": "No.", "expected_output": None, "retrieval_context": None,
     "context": None, "name": None, "comments": None, "source_file": None, "tools_called": None,
     "expected_tools": None, "additional_metadata": None, "custom_column_key_values": None},
]
# Ragas' EvaluationDataset.to_jsonl / to_csv: user_input, retrieved_contexts, response, reference.
# reference_contexts (the contexts the reference came from) is not what the system retrieved: not read.
RAGAS_ROWS = [
    {"user_input": "What does Fiber 500 cost?", "retrieved_contexts": ["Fiber 500 is $45 per month."],
     "reference_contexts": ["Price list: Fiber 500 $45."], "response": "$45 a month.", "reference": "$45 per month."},
    {"user_input": "Is there a data cap?", "retrieved_contexts": ["All plans include unlimited data."],
     "reference_contexts": ["Plans: unlimited data."], "response": "No.", "reference": "No, data is unlimited."},
]


def write_ragas_csv(path: Path) -> None:
    listed = ("retrieved_contexts", "reference_contexts")  # Ragas' CSV holds Python list literals
    pd.DataFrame([{**r, **{k: str(r[k]) for k in listed}} for r in RAGAS_ROWS]).to_csv(path, index=False)


@pytest.mark.parametrize("file", ["deepeval_saved.json", "ragas.jsonl", "ragas.csv"])
def test_deepeval_and_ragas_files_import_through_the_cli_and_pass_the_gate(tmp_path, file):
    from assay.validation.gate import run_gate

    source = tmp_path / file
    if file.endswith(".json"):
        source.write_text(json.dumps(DEEPEVAL_SAVED, indent=4), encoding="utf-8")
    elif file.endswith(".jsonl"):
        source.write_text("".join(json.dumps(r) + "\n" for r in RAGAS_ROWS), encoding="utf-8")
    else:
        write_ragas_csv(source)
    result, output = cli("import", "answers", str(source), "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, output
    cases, gens = lines(tmp_path / "out" / "cases.jsonl"), lines(tmp_path / "out" / "generations.jsonl")
    assert [c["input"] for c in cases] == ["What does Fiber 500 cost?", "Is there a data cap?"]
    assert cases[0]["reference"] == "$45 per month." and gens[0]["output"] == "$45 a month."
    assert gens[0]["contexts"][0] == {"text": "Fiber 500 is $45 per month."}  # the retrieved, not the ideal, context
    if file.endswith(".json"):
        assert "reference" not in cases[1] and gens[1]["contexts"] == []  # nulls: a reference-free case, no contexts
        assert cases[0]["metadata"] == {"channel": "chat"}
    data = SUITE.load_dataset(tmp_path / "out")
    report = run_gate(SUITE, data)
    assert report.success and not report.problems, [p.describe() for p in report.problems]
    assert [c.id for c in SUITE.parse_cases(data)] == ["a0001", "a0002"]


def test_promptfoo_names_and_parquet(tmp_path):
    frame = pd.DataFrame({"vars.question": ["Who founded Northwind?"], "output": ["Dana Kim."],
                          "vars.expected": ["Dana Kim founded it."], "vars.context": ["Northwind was founded by Dana Kim."]})
    frame.to_parquet(tmp_path / "promptfoo.parquet")
    result = import_dataset("answers", tmp_path / "promptfoo.parquet", tmp_path / "out", {})
    assert result.mapping == {"input": "vars.question", "output": "output", "reference": "vars.expected",
                              "contexts": "vars.context"}
    assert lines(tmp_path / "out" / "generations.jsonl")[0]["contexts"] == [{"text": "Northwind was founded by Dana Kim."}]


def test_a_table_without_outputs_becomes_cases_for_live_replay_and_bad_rows_are_named(tmp_path):
    source = tmp_path / "inputs.csv"
    source.write_text("question,metadata\nIs there a cap?,\"{\"\"channel\"\": \"\"chat\"\"}\"\n,[1]\n", encoding="utf-8")
    result = import_dataset("answers", source, tmp_path / "out", {})
    assert [p.describe() for p in result.problems] == [
        "row 2 [question]: import input — empty; this field is required",
        "row 2 [metadata]: import metadata — expected a JSON object of texts, numbers or booleans",
    ]
    assert not (tmp_path / "out").exists()
    result, output = cli("import", "answers", str(source), "--out", str(tmp_path / "cli"))
    assert result.exit_code == 1 and "row 2 [question]" in output and "Traceback" not in output


def test_live_replay_calls_the_target_with_the_input_and_reads_answer_and_contexts(tmp_path):
    def answering(body, n):
        return 200, {"answer": f"echo: {body['question']}", "contexts": [{"text": "ctx", "source": "d.md", "score": 0.5}]}, 0

    cases = [SUITE.case_model(id="a1", input="Is there a cap?"), SUITE.case_model(id="a2", input="Who founded it?")]
    with LoopbackEndpoint(answering, key=lambda b: b["question"]) as server:
        spec = RunSpec(suite="answers", replay="live", target=TargetSpec(url=server.url))
        generations = SUITE.live_replay(cases, None, ReplayContext(spec=spec, call_store=str(tmp_path)))
    assert [g["output"] for g in generations] == ["echo: Is there a cap?", "echo: Who founded it?"]
    assert generations[0]["contexts"] == [{"source": "d.md", "text": "ctx", "score": 0.5}]
    assert all(g["error"] is None for g in generations)
    parsed = SUITE.parse_generations(generations)
    assert parsed["a1"].contexts[0].source == "d.md"


def test_live_replay_without_a_target_says_what_to_give():
    with pytest.raises(ValueError, match="--target"):
        SUITE.live_replay([SUITE.case_model(id="a1", input="q")], None, ReplayContext(spec=RunSpec(suite="answers")))
