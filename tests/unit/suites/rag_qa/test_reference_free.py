"""rag_qa without a reference answer: the table is accepted (it was refused: "no column for
reference_answer"), the case is judged reference-free, and a case with a reference is judged by
rag_answer exactly as before."""

from __future__ import annotations

import json

import pytest

import assay  # noqa: F401  (offline switches before litellm)
from assay.importing import import_dataset
from assay.judges.llm import LiteLLMJudge
from assay.judges.runner import JuryRunner
from assay.schemas import ScoreRow
from assay.spec import RunSpec
from assay.suites.kit import MetricContext, ScoreRows
from assay.suites.rag_qa import summary
from assay.suites.rag_qa.metrics import FAMILIES as RAG_FAMILIES
from assay.suites.rag_qa.metrics import NO_REFERENCE
from assay.suites.registry import get_suite
from tests.support.grounding_judge import GroundingResponder
from tests.support.openai_server import OpenAICompatServer

SUITE = get_suite("rag_qa")


def test_a_ragas_table_without_a_reference_column_imports_and_passes_the_gate(tmp_path):
    source = tmp_path / "ragas.csv"
    source.write_text("user_input,response,retrieved_contexts\n"
                      "Is there a data cap?,No cap.,\"['All plans include unlimited data.']\"\n", encoding="utf-8")
    result = import_dataset("rag_qa", source, tmp_path / "out", {})
    assert not result.problems and "reference_answer" not in result.mapping
    assert json.loads((tmp_path / "out" / "cases.jsonl").read_text()) == {"id": "q0001", "question": "Is there a data cap?"}
    from assay.validation.gate import run_gate

    data = SUITE.load_dataset(tmp_path / "out")
    assert run_gate(SUITE, data).success
    assert SUITE.parse_cases(data)[0].reference_answer is None


def test_only_the_cases_without_a_reference_are_judged_reference_free(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    cases = [SUITE.case_model(id="r1", question="Cap?", reference_answer="No cap."),
             SUITE.case_model(id="f1", question="Cap?")]
    gens = SUITE.parse_generations([
        {"case_id": cid, "answer": "There is no data cap. You also get a free modem.",
         "retrieved": [{"text": "All plans have no data cap.", "source": "plans.md"}]} for cid in ("r1", "f1")])
    judge = GroundingResponder(unsupported=("modem",))
    answer = next(f for f in RAG_FAMILIES if f.name == "answer")
    with OpenAICompatServer(responder=judge) as server:
        runner = JuryRunner([LiteLLMJudge("openai/j", api_base=server.base_url, name="j")], lang="en")
        spec = RunSpec(suite="rag_qa", lang="en")
        rows = answer.compute(cases, gens, MetricContext(spec=spec, jury=runner))
    by = {(r.case_id, r.metric, r.judge): r for r in rows}
    assert by[("r1", "accuracy", "j")].value is not None and ("r1", "faithfulness", "j") not in by
    assert by[("f1", "accuracy", None)].unscored_reason == NO_REFERENCE and by[("f1", "accuracy", None)].is_not_applicable
    assert by[("f1", "faithfulness", "j")].value == pytest.approx(1 / 2)
    assert by[("f1", "context_relevance", "j")].value == 1.0
    result = summary.aggregate(ScoreRows.of(rows), cases, spec)
    final = [r for r in result.rows if isinstance(r, ScoreRow)]
    s = result.summary
    assert s.scales["answer_relevancy"] == "1-5" and s.scales["faithfulness"] == "0-1"
    assert s.overall["faithfulness"].mean == pytest.approx(0.5) and s.overall["faithfulness"].label is None
    assert {r.metric for r in final if r.case_id == "f1" and r.judge is None} >= {"faithfulness", "answer_relevancy"}
