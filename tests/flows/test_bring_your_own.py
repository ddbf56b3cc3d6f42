"""Bring your own system and data, end to end on real Prefect and GX runs:

- rag_qa against an HTTP RAG endpoint (loopback, with injected failures): header values from the
  environment are sent and never stored; a rerun re-calls only the cases whose calls failed;
- rag_qa with a Python function through ``assay.evaluate``, opened again with ``assay.load_run``;
- memory against an HTTP summarizer endpoint;
- ``assay import`` of a Ragas-style CSV and a DeepEval-style JSONL, an agent call log, a memory
  query table, a clinical turn table and a table of recorded reports, then ``assay run`` on each.
"""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

import assay
from assay import artifacts as names
from assay.api import RunIntegrityError
from assay.lineage.audit import audit_run
from assay.lineage.store import ArtifactStore
from tests.conftest import ROOT
from tests.support.cli import cli, run_id_of
from tests.support.endpoint import LoopbackEndpoint
from tests.support.memory_data import CASES as MEMORY_CASES
from tests.support.memory_data import write_memory_dataset

SECRET = "rag-header-secret-5f1d2c"
N_CASES = 6


@pytest.fixture
def rag_cases(tmp_path):
    """The first bundled rag_qa cases with their kb/, no recorded generations (live replay)."""
    root = tmp_path / "rag"
    shutil.copytree(ROOT / "datasets" / "rag_qa" / "kb", root / "kb")
    lines = (ROOT / "datasets" / "rag_qa" / "cases.jsonl").read_text(encoding="utf-8").splitlines()[:N_CASES]
    (root / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root, [json.loads(line) for line in lines]


def rag_system(cases: list[dict], failing: set[str]):
    """A RAG system that answers with the reference and retrieves the first source doc; the
    questions in ``failing`` get HTTP 500 until the set is cleared."""
    by_question = {c["question"]: c for c in cases}

    def behaviour(body, n):
        case = by_question[body["q"]]
        if case["id"] in failing:
            return 500, "internal error", 0.0
        chunks = [{"content": case["reference_answer"], "source": case["source_docs"][0]}]
        return 200, {"data": {"answer": case["reference_answer"], "chunks": chunks}}, 0.01

    return behaviour


def final(out, run_id) -> pd.DataFrame:
    scores = pd.read_parquet(out / run_id / "scores.parquet")
    return scores[scores["judge"].isna()].set_index(["case_id", "metric"])


def test_http_rag_endpoint_then_a_rerun_recalls_only_failed_cases(prefect_server, rag_cases, tmp_path, monkeypatch):
    data, cases = rag_cases
    failing = {cases[0]["id"], cases[3]["id"]}
    monkeypatch.setenv("RAG_TOKEN", SECRET)
    out = tmp_path / "runs"
    with LoopbackEndpoint(rag_system(cases, failing), key=lambda body: body["q"]) as server:
        target = tmp_path / "target.yaml"
        target.write_text(
            f"url: {server.url}\nbody_template: '{{\"q\": \"{{question}}\", \"case\": \"{{id}}\"}}'\n"
            "answer_path: data.answer\ncontexts_path: data.chunks\nheaders: {Authorization: Bearer RAG_TOKEN}\n"
            "max_retries: 1\nretry_base_s: 0.01\nretry_max_s: 0.02\n",
            encoding="utf-8",
        )
        result, output = cli("run", "rag_qa", "--dataset", str(data), "--replay", "live", "--target-file", str(target),
                             "--offline", "--out", str(out))
        assert result.exit_code == 4, output  # two cases not measured: the run is incomplete
        assert f"2 of {N_CASES} cases not measured: 2 target calls failed (first: {server.url}, HTTP 500" in output
        first = run_id_of(output)
        by_question = {c["question"]: c["id"] for c in cases}
        calls = {by_question[q]: n for q, n in server.calls.items()}
        assert calls == {c["id"]: 2 if c["id"] in failing else 1 for c in cases}  # one retry on a 500
        assert {h["Authorization"] for h in server.headers} == {f"Bearer {SECRET}"}
        scores = final(out, first)
        for case_id in failing:
            assert pd.isna(scores.loc[(case_id, "accuracy"), "value"])
            assert "HTTP 500" in scores.loc[(case_id, "accuracy"), "unscored_reason"]
        answered = cases[1]["id"]
        assert scores.loc[(answered, "reciprocal_rank"), "value"] == 1.0  # its source doc came back first

        failing.clear()  # the system recovers
        result, output = cli("rerun", first, "--out", str(out), "--trust-spec")
        assert result.exit_code == 0, output
        second = run_id_of(output)
        calls = {by_question[q]: n for q, n in server.calls.items()}
        # only the two failed cases were called again
        assert calls == {c["id"]: 3 if c["id"] in {cases[0]["id"], cases[3]["id"]} else 1 for c in cases}
    scores = final(out, second)
    assert scores.loc[(cases[0]["id"], "accuracy"), "value"] >= 1
    store = ArtifactStore(str(out))
    assert audit_run(store, first).ok and audit_run(store, second).ok
    manifest = json.loads((out / second / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["run_spec"]["target"]["headers"] == {"Authorization": "Bearer RAG_TOKEN"}
    assert manifest["models"]["target"] == manifest["run_spec"]["target"]["url"]
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_python_function_through_the_api_then_load_run(prefect_server, rag_cases, tmp_path):
    data, cases = rag_cases
    sources = {c["question"]: c["source_docs"] for c in cases}
    answers = {c["question"]: c["reference_answer"] for c in cases}

    def my_rag(question: str) -> dict:
        return {"answer": answers[question], "contexts": [{"text": answers[question], "source": sources[question][-1]}]}

    run = assay.evaluate("rag_qa", dataset=data, target=my_rag, offline=True, out=tmp_path / "runs", k=5)
    assert run.status == "completed", run.message
    assert run.spec.target.function.endswith("test_python_function_through_the_api_then_load_run.<locals>.my_rag")
    assert run.spec.k == 5 and run.report_path.is_file()
    scores = run.scores
    judged = scores[scores["judge"].isna()]
    assert set(judged["case_id"]) == {c["id"] for c in cases}
    assert {"reciprocal_rank", "ndcg@5", "accuracy", "keyword_coverage"} <= set(judged["metric"])
    assert judged.groupby(["case_id", "metric"]).size().max() == 1  # one row per case and metric
    assert set(run.summary.by_category) == {c["category"] for c in cases}
    generations = [json.loads(line) for line in run.read(names.GENERATIONS).decode("utf-8").splitlines()]
    assert all(g["latency_s"] is not None and g["error"] is None for g in generations)  # timed per call

    loaded = assay.load_run(run.run_dir)
    assert loaded.run_id == run.run_id and loaded.status == "completed"
    pd.testing.assert_frame_equal(loaded.scores, scores)

    # calibration through the API: written into the run, which still loads (audits) cleanly
    labels = tmp_path / "people.jsonl"
    labels.write_text("".join(json.dumps({"case_id": c["id"], "metric": "accuracy", "score": 5 if i % 2 else 4}) + "\n"
                              for i, c in enumerate(cases)), encoding="utf-8")
    record = run.calibrate(labels)
    (accuracy,) = record.metrics
    assert accuracy.metric == "accuracy" and accuracy.jury.n == len(cases) and accuracy.jury.n_good == len(cases)
    assert "calibration.json" in run.manifest.artifacts and "Calibration against human labels" in run.read("report.md").decode()
    loaded = assay.load_run(run.run_dir)
    parquet = run.run_dir / "scores.parquet"
    parquet.write_bytes(parquet.read_bytes() + b"tampered")
    with pytest.raises(RunIntegrityError):
        assay.load_run(run.run_dir)
    with pytest.raises(RunIntegrityError):
        _ = loaded.scores


def test_memory_against_an_http_summarizer(prefect_server, tmp_path):
    data = write_memory_dataset(tmp_path / "memory")
    out = tmp_path / "runs"

    def summarizer(body, n):
        return 200, {"memory": " ".join(t["text"] for t in body["turns"] if t["role"] == "user"), "entities": []}, 0.0

    with LoopbackEndpoint(summarizer, key=lambda body: body["session_id"]) as server:
        result, output = cli("run", "memory", "--dataset", str(data), "--offline", "--replay", "live",
                             "--target", server.url, "--out", str(out))
        assert result.exit_code == 0, output
        sessions = {c["session_id"] for c in MEMORY_CASES}
        assert server.calls == dict.fromkeys(sessions, 1)  # each session summarised once
    scores = final(out, run_id_of(output))
    assert scores.loc[("t3-q1", "fact_recall"), "value"] == 1.0


RAGAS_CSV = (
    "user_input,retrieved_contexts,response,reference\n"
    "별빛투어의 대표는 누구인가요?,\"['별빛투어의 창립자이자 대표이사는 윤서진입니다.']\",윤서진입니다.,대표이사는 윤서진입니다.\n"
    "본사 주소는?,\"['본사는 을지로 128 별빛빌딩 7층에 있습니다.', '지사는 부산에 있습니다.']\",을지로 128입니다.,"
    "서울 중구 을지로 128 별빛빌딩 7층\n"
)
DEEPEVAL_JSONL = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in [
    {"input": "환불 규정은?", "actual_output": "7일 전까지 전액 환불됩니다.", "expected_output": "출발 7일 전 취소 시 전액 환불",
     "retrieval_context": ["출발 7일 전까지 취소하면 전액 환불합니다."], "category": "policy"},
    {"input": "고객센터 운영 시간은?", "actual_output": "평일 9시부터 6시까지입니다.", "expected_output": "평일 09:00-18:00",
     "retrieval_context": ["고객센터는 평일 09:00-18:00 운영합니다."], "category": "faq"},
])


@pytest.mark.parametrize("name, text", [("ragas.csv", RAGAS_CSV), ("deepeval.jsonl", DEEPEVAL_JSONL)])
def test_import_then_run(prefect_server, tmp_path, name, text):
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    dataset = tmp_path / "dataset"
    result, output = cli("import", "rag_qa", str(source), "--out", str(dataset))
    assert result.exit_code == 0, output
    assert "mapped question <- " in output and "mapped contexts <- " in output
    out = tmp_path / "runs"
    result, output = cli("run", "rag_qa", "--dataset", str(dataset), "--offline", "--out", str(out))
    assert result.exit_code == 0, output  # unlabelled retrieval metrics do not make the run incomplete
    scores = final(out, run_id_of(output))
    assert scores.xs("accuracy", level="metric")["value"].notna().all()
    rr = scores.xs("reciprocal_rank", level="metric")
    assert rr["value"].isna().all() and rr["unscored_reason"].str.contains("no relevance labels").all()
    assert scores.xs("keyword_coverage", level="metric")["unscored_reason"].str.contains("no keywords").all()


def test_malformed_import_is_named_by_row_and_column(tmp_path):
    source = tmp_path / "bad.csv"
    source.write_text("question,ground_truth,contexts,answer\n,x,\"['a']\",a\nq2,y,\"['unclosed\",b\n", encoding="utf-8")
    result, output = cli("import", "rag_qa", str(source), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "row 1 [question]: import question — empty; this field is required" in output
    assert "row 2 [contexts]: import contexts — expected a list of texts" in output
    assert not (tmp_path / "out").exists()


def import_jsonl_then_run(suite: str, rows: list[dict], tmp_path) -> tuple[str, pd.DataFrame]:
    """Write ``rows`` as a JSONL table, ``assay import`` it and ``assay run`` it offline; the
    import's output and the run's final scores."""
    source = tmp_path / f"{suite}.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    dataset = tmp_path / "dataset"
    result, imported = cli("import", suite, str(source), "--out", str(dataset))
    assert result.exit_code == 0, imported
    out = tmp_path / "runs"
    result, output = cli("run", suite, "--dataset", str(dataset), "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    return imported, final(out, run_id_of(output))


def test_import_agent_calls_then_run(prefect_server, tmp_path):
    """A harness's log of agent calls (one row per call, repeats sharing an id) imports into an
    agent dataset that runs offline: repeats give consistency, response times give latency."""
    body = json.dumps({"assistantMessage": "이동했습니다", "dataUIList": [{"actionType": "MOVE", "planId": "P-7"}]},
                      ensure_ascii=False)
    check = json.dumps([{"path": "dataUIList[0].actionType", "op": "equals", "value": "MOVE"}])
    rows = [{"query_id": "m1", "input": "P-7 공고 박지호 지원자를 1차면접으로 옮겨줘", "intent": "MOVE",
             "accuracy_checks": check, "response": body, "latency_sec": seconds} for seconds in (2.0, 2.5, 3.0)]
    output, scores = import_jsonl_then_run("agent", rows, tmp_path)
    assert "wrote 1 records to cases.jsonl" in output and "wrote 3 records to responses.jsonl" in output
    assert scores.loc[("m1", "accuracy"), "value"] == 5.0  # the check passes on every repeat
    assert scores.loc[("m1", "consistency"), "value"] == 5.0  # three identical repeats
    assert scores.loc[("m1", "latency"), "value"] == 5.0
    assert pd.notna(scores.loc[("m1", "total"), "value"])


def test_import_memory_table_then_run(prefect_server, tmp_path):
    """A table of evaluation queries (two sharing one conversation, its stored memory on the first
    row only) imports into a memory dataset that runs offline: the query whose fact the memory
    holds scores above the one whose fact it lacks."""
    transcript = "user: 우리 차 엔진오일은 1만 km마다 갈아요\nassistant: 1만 km 주기로 기록할게요\nuser: 보험은 3월에 갱신해요"
    rows = [
        {"query_id": "oil", "session_id": "car", "question": "엔진오일 교환 주기가 어떻게 돼?",
         "expected_facts": [{"fact": "오일 1만 km 주기", "keywords": ["오일", "1만"]}],
         "conversation": transcript, "memory": "사용자 차량: 엔진오일 1만 km마다 교환."},
        {"query_id": "insurance", "session_id": "car", "question": "자동차 보험 갱신이 몇 월이었지?",
         "expected_facts": [{"fact": "보험 3월 갱신", "keywords": ["보험", "3월"]}]},
    ]
    output, scores = import_jsonl_then_run("memory", rows, tmp_path)
    assert "wrote 2 records to cases.jsonl" in output and "wrote 1 records to memories.jsonl" in output
    assert scores.loc[("oil", "completeness"), "value"] > scores.loc[("insurance", "completeness"), "value"]
    assert scores.loc[("oil", "overall"), "value"] > scores.loc[("insurance", "overall"), "value"]


def test_import_clinical_turns_then_run(prefect_server, tmp_path):
    """A table of dialogue turns (the patient's record on the first row only) imports into a
    clinical dataset that runs offline: the NSAID advised to a patient with a low eGFR is
    penalised as contraindicated, the safe answer is not."""
    record = {"age": 74, "sex": "F", "primary_condition": "chronic kidney disease", "conditions": ["CKD stage 3"],
              "labs": {"egfr": 38}, "medications": [{"name": "amlodipine", "dose": "5mg qd"}]}
    rows = [
        {"turn_id": "k-1", "patient_id": "k", "question": "허리가 아픈데 진통제 뭐 먹을까요?", "patient_record": record,
         "required_slots": ["labs.egfr"], "answer": "eGFR 38이면 신장 기능이 낮아 소염진통제는 피하고 아세트아미노펜을 드세요."},
        {"turn_id": "k-2", "patient_id": "k", "question": "그럼 이부프로펜은요?", "required_slots": ["labs.egfr"],
         "answer": "이부프로펜 400mg을 하루 세 번 드셔도 괜찮습니다."},
    ]
    output, scores = import_jsonl_then_run("clinical", rows, tmp_path)
    assert "wrote 1 records to patients.jsonl" in output and "wrote 2 records to answers.jsonl" in output
    assert scores.loc[("k-2", "csp"), "value"] > 0 and scores.loc[("k-1", "csp"), "value"] == 0
    assert scores.loc[("k-1", "aggregate"), "value"] > scores.loc[("k-2", "aggregate"), "value"]


def test_import_report_table_then_run(prefect_server, tmp_path):
    """A table of recorded reports (one row per query, the case's fields beside its run's) imports
    into a report dataset that runs offline: the same report recorded as slower, longer and dearer
    loses efficiency and nothing else."""
    case = json.loads((ROOT / "datasets" / "report" / "cases.jsonl").read_text(encoding="utf-8").splitlines()[0])
    generation = json.loads((ROOT / "datasets" / "report" / "generations.jsonl").read_text(encoding="utf-8")
                            .splitlines()[0])
    quick = {**case, **{k: v for k, v in generation.items() if k != "case_id"}, "total_execution_time": 30,
             "input_tokens": 8_000, "output_tokens": 2_000, "total_tokens": 10_000, "estimated_cost": 0.1}
    slow = {**quick, "id": "slow", "total_execution_time": 150, "input_tokens": 90_000, "output_tokens": 30_000,
            "total_tokens": 120_000, "estimated_cost": 1.5}
    output, scores = import_jsonl_then_run("report", [quick, slow], tmp_path)
    assert "wrote 2 records to cases.jsonl" in output and "wrote 2 records to generations.jsonl" in output
    assert scores.loc[(case["id"], "efficiency"), "value"] == 10.0
    assert scores.loc[("slow", "efficiency"), "value"] == 10.0 - 3.0 - 2.0 - 2.0
    for metric in ("task_success", "completeness", "output_quality", "hallucination", "source_quality"):
        assert scores.loc[(case["id"], metric), "value"] == scores.loc[("slow", metric), "value"], metric
    assert scores.loc[(case["id"], "overall"), "value"] > scores.loc[("slow", "overall"), "value"]
