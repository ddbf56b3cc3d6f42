"""The agent suite end to end on real Prefect and GX: the bundled recorded responses offline,
rerun and audit; live replay against a loopback agent that answers, times out and returns
broken JSON (scored 0, never a crash); a rerun re-sends only the calls that failed."""

import json

import pandas as pd
import pytest

from assay.deep_audit import audit_deep
from assay.lineage.audit import audit_run
from assay.lineage.manifest import load_manifest
from assay.lineage.store import ArtifactStore
from tests.conftest import ROOT
from tests.support.cli import cli, run_id_of
from tests.support.fake_agent import FakeAgent, answer

BUNDLED = ROOT / "datasets" / "agent"


def final_scores(out, run_id) -> pd.DataFrame:
    scores = pd.read_parquet(out / run_id / "scores.parquet")
    return scores[scores["judge"].isna()].pivot(index="case_id", columns="metric", values="value")


def test_bundled_recorded_responses_offline_then_rerun_and_audits(prefect_server, tmp_path):
    out = tmp_path / "runs"
    result, output = cli("run", "agent", "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    ids = [json.loads(line)["id"] for line in (BUNDLED / "cases.jsonl").read_text(encoding="utf-8").splitlines()]
    scores = final_scores(out, run_id)
    assert sorted(scores.index) == sorted(ids) and scores["total"].notna().all()
    assert scores.loc["a27", ["accuracy", "stability", "latency"]].tolist() == [0, 0, 0]  # every call timed out
    assert scores.loc["a29", "stability"] == pytest.approx(5 / 3)  # two of three bodies were broken JSON
    report = (out / run_id / "report.md").read_text(encoding="utf-8")
    assert all(i in report for i in ids) and "## Slowest queries" in report and "## Least consistent queries" in report
    store = ArtifactStore(str(out))
    assert audit_run(store, run_id).ok and audit_deep(store, run_id).ok

    result, output = cli("rerun", run_id, "--out", str(out))
    assert result.exit_code == 0, output
    manifest = load_manifest(store, run_id_of(output))
    assert {s.status for s in manifest.steps} == {"reused"}


QUERIES = [
    {"id": "ok", "query": "김민준 지원자 추가해줘", "latency_class": "SINGLE", "expected_intent": "ADD",
     "checks": [{"path": "dataUIList[0].actionType", "op": "equals", "value": "ADD"}]},
    {"id": "slow", "query": "지원자 목록 보여줘", "latency_class": "SINGLE", "expected_intent": "VIEW",
     "checks": [{"path": "dataUIList[0].actionType", "op": "equals", "value": "VIEW"}]},
    {"id": "broken", "query": "단계별 지원자 수 알려줘", "latency_class": "MULTI", "expected_intent": "VIEW",
     "checks": [{"path": "aggregates.count", "op": "ge", "value": 1}]},
]


def behaviour(query: str, n: int) -> tuple[int, str, float]:
    if query.startswith("김민준"):
        return 200, answer("김민준 지원자를 추가했습니다.", [{"formType": "CANDIDATE_FORM", "actionType": "ADD"}]), 0.0
    if query.startswith("지원자 목록"):
        # the first two calls ever made for this query time out; later ones answer
        return 200, answer("지원자 목록입니다.", [{"formType": "CANDIDATE_LIST", "actionType": "VIEW"}]), (3.0 if n < 2 else 0.0)
    return 200, '{"assistantMessage": "단계별 지원자 수는', 0.0  # broken JSON, every time


def test_live_replay_against_a_loopback_agent_and_a_rerun_that_resends_only_failed_calls(prefect_server, tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    (data / "cases.jsonl").write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in QUERIES), encoding="utf-8")
    out = tmp_path / "runs"
    monkeypatch.setenv("AGENT_TOKEN", "agent-secret-token-123")
    monkeypatch.setenv("ASSAY_AGENT_HEADERS", '{"X-Tenant-Key": "tenant-secret-456"}')
    with FakeAgent(behaviour) as agent:
        args = ["run", "agent", "--dataset", str(data), "--offline", "--out", str(out), "--replay", "live",
                "--target", agent.url, "--repeats", "3", "--gen-timeout", "1", "--api-key-env", "AGENT_TOKEN"]
        result, output = cli(*args)
        # two of nine calls timed out: scored (0) as the seed does, and still failed calls, so the
        # run is incomplete (exit 4) with the banner, as no --max-failed-calls allows them
        assert result.exit_code == 4, output
        assert ("1 of 3 cases had failed calls, scored as failures by this suite: 2 of 9 target calls failed "
                f"(first: {agent.url}, timeout: {agent.url} gave no reply within 1 s") in output, output
        assert agent.total() == 9 and agent.headers[0]["Authorization"] == "Bearer agent-secret-token-123"
        assert agent.headers[0]["X-Tenant-Key"] == "tenant-secret-456"
        run_id = run_id_of(output)
        scores = final_scores(out, run_id)
        assert scores.loc["ok", "total"] > 4
        assert scores.loc["broken", ["accuracy", "stability"]].tolist() == [0, 0]  # broken JSON: 0, no crash
        assert scores.loc["slow", "stability"] == pytest.approx(5 / 3)  # two timeouts of three
        generations = (out / run_id / "objects").rglob("*")
        assert any(b"gave no reply within 1 s" in p.read_bytes() for p in generations if p.is_file())

        result, output = cli("rerun", run_id, "--out", str(out), "--trust-spec")
        assert result.exit_code == 0, output
        # only the two timed-out calls went out again; a broken body was delivered (HTTP 200),
        # so it is the agent's answer, kept and scored, not a call to retry
        assert agent.calls["지원자 목록 보여줘"] == 5 and agent.calls["김민준 지원자 추가해줘"] == 3
        assert agent.calls["단계별 지원자 수 알려줘"] == 3
        rerun = run_id_of(output)
        assert final_scores(out, rerun).loc["slow", "stability"] == 5
        replay_step = next(s for s in load_manifest(ArtifactStore(str(out)), rerun).steps if s.name == "replay")
        assert replay_step.status == "ran"
    for path in out.rglob("*"):
        if path.is_file():
            assert b"agent-secret-token-123" not in path.read_bytes(), path
            assert b"tenant-secret-456" not in path.read_bytes(), path
