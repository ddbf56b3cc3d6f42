"""The rag_qa flow with an LLM jury on a loopback OpenAI-compatible server: a judge that
fails every call is dropped and named, and reruns re-send exactly the failed calls."""

import pandas as pd
import pytest

from assay.lineage.audit import audit_run
from assay.lineage.manifest import load_manifest
from assay.lineage.store import ArtifactStore
from tests.support.cli import cli, run_id_of
from tests.support.openai_server import Fault, OpenAICompatServer


@pytest.fixture
def loopback(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value")
    with OpenAICompatServer(latency_s=0.005) as server:
        yield server


def test_failed_judge_is_dropped_then_rerun_resends_only_its_calls(prefect_server, loopback, bundled_rag_qa, tmp_path):
    n_cases = sum(1 for line in (bundled_rag_qa / "cases.jsonl").read_text().splitlines() if line.strip())
    loopback.add_fault(Fault(kind="status", status=401, model="c"))  # permanent: no retries
    args = ["run", "rag_qa", "--out", str(tmp_path), "--api-base", loopback.base_url]
    for judge in ("openai/a", "openai/b", "openai/c"):
        args += ["--judge", judge]
    result, output = cli(*args)
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    assert loopback.count(model="a") == n_cases and loopback.count(model="c") == n_cases

    store = ArtifactStore(str(tmp_path))
    manifest = load_manifest(store, run_id)
    answer_step = next(s for s in manifest.steps if s.name == "metrics:answer")
    assert "dropped: c" in answer_step.detail
    report = (tmp_path / run_id / "report.md").read_text()
    assert "LLM jury" in report and "- c:" in report  # the dropped judge is named with its missing scores
    scores = pd.read_parquet(tmp_path / run_id / "scores.parquet")
    ensemble = scores[scores["judge"].isna() & (scores["metric"] == "accuracy")]
    assert ensemble["value"].notna().all()  # a and b still score every case
    judged_c = scores[scores["judge"] == "c"]
    assert judged_c["value"].isna().all() and judged_c["unscored_reason"].str.contains("permanent").all()
    # the key never reaches artifacts
    for path in (tmp_path / run_id).rglob("*"):
        if path.is_file():
            assert b"sk-test-secret-value" not in path.read_bytes(), path
    assert audit_run(store, run_id).ok

    loopback.clear_faults()
    loopback.reset_counts()
    result, output = cli("rerun", run_id, "--out", str(tmp_path), "--trust-spec")
    assert result.exit_code == 0, output
    # what the recorded spec sends keys to is said before the rerun starts
    assert f"judge openai/a at {loopback.base_url}" in output and "unsigned run" in output
    assert loopback.count(model="a") == 0 and loopback.count(model="b") == 0
    assert loopback.count(model="c") == n_cases
    rerun_id = run_id_of(output)
    rerun = load_manifest(store, rerun_id)
    assert rerun.parent_run == run_id
    step = next(s for s in rerun.steps if s.name == "metrics:answer")
    assert (step.status, step.judge_calls_sent, step.judge_calls_reused) == ("ran", n_cases, 2 * n_cases)
    assert {s.status for s in rerun.steps if s.name != "metrics:answer" and s.name not in ("aggregate", "publish")} == {"reused"}
    scores = pd.read_parquet(tmp_path / rerun_id / "scores.parquet")
    assert scores.loc[scores["judge"] == "c", "value"].notna().all()

    loopback.reset_counts()
    result, output = cli("rerun", rerun_id, "--out", str(tmp_path), "--trust-spec")
    assert result.exit_code == 0, output
    assert loopback.count() == 0
    second = load_manifest(store, run_id_of(output))
    assert {s.status for s in second.steps} == {"reused"}
