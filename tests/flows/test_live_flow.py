"""Live generation replay through the whole flow: retrieval with the bundled embedding model
over the KB, answers from a loopback OpenAI-compatible generator, offline jury."""

import json

import pytest

from assay.lineage.audit import audit_run
from assay.lineage.store import ArtifactStore
from tests.support.cli import cli, run_id_of
from tests.support.openai_server import OpenAICompatServer

pytestmark = pytest.mark.slow


def test_live_replay_run(prefect_server, bundled_rag_qa, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    n_cases = sum(1 for line in (bundled_rag_qa / "cases.jsonl").read_text().splitlines() if line.strip())
    kb_docs = {str(p.relative_to(bundled_rag_qa / "kb")) for p in (bundled_rag_qa / "kb").rglob("*.md")}
    with OpenAICompatServer(responder=lambda body: "별빛투어의 답변입니다.") as server:
        result, output = cli(
            "run", "rag_qa", "--offline", "--replay", "live", "--generator", "openai/generator",
            "--api-base", server.base_url, "--out", str(tmp_path), "-k", "5",
        )
        assert result.exit_code == 0, output
        assert server.count(model="generator") == n_cases
        run_id = run_id_of(output)
        # A rerun with another concurrency reuses every step: not one answer is regenerated.
        rerun, rerun_output = cli("rerun", run_id, "--out", str(tmp_path), "--concurrency", "4", "--trust-spec")
        assert rerun.exit_code == 0, rerun_output
        assert server.count(model="generator") == n_cases, "rerun re-sent generator calls"
        assert "7 of 7 steps reused from cache" in rerun_output
    manifest = json.loads((tmp_path / run_id / "manifest.json").read_text())
    generations_path = tmp_path / run_id / manifest["artifacts"]["generations/generations.jsonl"]["path"]
    generations = [json.loads(line) for line in generations_path.read_text().splitlines() if line.strip()]
    assert len(generations) == n_cases
    for generation in generations:
        assert generation["answer"] == "별빛투어의 답변입니다." and generation["error"] is None
        assert len(generation["retrieved"]) == 5
        assert {chunk["source"] for chunk in generation["retrieved"]} <= kb_docs
    assert manifest["run_spec"]["replay"] == "live" and manifest["models"]["generator"] == "openai/generator"
    assert manifest["run_spec"]["generator"]["chunk_size"] == 500 and "concurrency" not in manifest["run_spec"]
    assert audit_run(ArtifactStore(str(tmp_path)), run_id).ok
