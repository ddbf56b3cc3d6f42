"""The memory suite end to end on real Prefect and GX: offline jury, audit, rerun, live replay
through litellm against a loopback server, and a user's own summarizer as --target."""

import json
import re
import sys

import pandas as pd
import pytest

from assay.deep_audit import audit_deep
from assay.lineage.audit import audit_run
from assay.lineage.manifest import load_manifest
from assay.lineage.store import ArtifactStore
from tests.conftest import ROOT
from tests.support.cli import cli, run_id_of
from tests.support.memory_data import CASES, write_memory_dataset
from tests.support.openai_server import OpenAICompatServer


@pytest.fixture(scope="module")
def offline_run(prefect_server, tmp_path_factory):
    root = tmp_path_factory.mktemp("memory")
    data = write_memory_dataset(root / "data")
    out = root / "runs"
    result, output = cli("run", "memory", "--dataset", str(data), "--offline", "--out", str(out))
    assert result.exit_code == 0, output
    return data, out, run_id_of(output)


def test_offline_run_scores_every_query_and_passes_audit(offline_run):
    _, out, run_id = offline_run
    assert audit_run(ArtifactStore(str(out)), run_id).ok
    scores = pd.read_parquet(out / run_id / "scores.parquet")
    final = scores[scores["judge"].isna()]
    overall = final[final["metric"] == "overall"].set_index("case_id")["value"]
    assert set(overall.index) == {c["id"] for c in CASES}
    assert overall.between(0, 100).all()
    report = (out / run_id / "report.md").read_text(encoding="utf-8")
    for case in CASES:
        assert case["id"] in report
    assert "## By scenario" in report and "Offline jury" in report
    assert (out / run_id / "charts" / "overall_by_scenario.png").is_file()


def test_rerun_reuses_every_step(offline_run):
    _, out, run_id = offline_run
    result, output = cli("rerun", run_id, "--out", str(out))
    assert result.exit_code == 0, output
    manifest = load_manifest(ArtifactStore(str(out)), run_id_of(output))
    assert {s.status for s in manifest.steps} == {"reused"}, [(s.name, s.status) for s in manifest.steps]


def _summarizer_reply(body):
    """A summarizer that carries the running memory forward and appends the window's user turns."""
    user = body["messages"][-1]["content"]
    previous = re.search(r"## 지금까지의 메모리\n(.*?)\n\n##", user, re.DOTALL).group(1).strip()
    window = re.search(r"<<<TURNS>>>\n(.*?)\n<<<END TURNS>>>", user, re.DOTALL).group(1)
    said = [line.removeprefix("user: ") for line in window.splitlines() if line.startswith("user: ")]
    memory = " ".join(([] if previous == "(없음)" else [previous]) + said)
    return json.dumps({"memory": memory, "entities": ["AWS"]}, ensure_ascii=False)


def test_live_replay_summarises_each_session_once_through_litellm(offline_run, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-test-key-0000")
    data, _, _ = offline_run
    out = tmp_path / "runs"
    with OpenAICompatServer(responder=_summarizer_reply) as server:
        result, output = cli("run", "memory", "--dataset", str(data), "--offline", "--replay", "live",
                             "--generator", "openai/summarizer", "--api-base", server.base_url, "--out", str(out))
        assert result.exit_code == 0, output
        sessions = {c["session_id"] for c in CASES}
        # windows of 6 turns over 7-turn sessions: two calls per session, no more
        assert server.count(model="summarizer") == 2 * len(sessions)
    run_id = run_id_of(output)
    scores = pd.read_parquet(out / run_id / "scores.parquet")
    final = scores[scores["judge"].isna()].set_index(["case_id", "metric"])["value"]
    # the live memory holds everything the user said, so the update query's new value is there
    assert final[("t2-q1", "fact_recall")] == 1.0
    assert audit_run(ArtifactStore(str(out)), run_id).ok


def test_a_users_own_summarizer_runs_as_target(offline_run, tmp_path, monkeypatch):
    data, _, _ = offline_run
    module = tmp_path / "my_summarizer.py"
    module.write_text(
        "def summarize(turns):\n"
        "    return {'memory': ' '.join(t['text'] for t in turns if t['role'] == 'user'), 'entities': []}\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "runs"
    result, output = cli("run", "memory", "--dataset", str(data), "--offline", "--replay", "live",
                         "--target", "my_summarizer:summarize", "--out", str(out))
    assert result.exit_code == 0, output
    run_id = run_id_of(output)
    scores = pd.read_parquet(out / run_id / "scores.parquet")
    final = scores[scores["judge"].isna()].set_index(["case_id", "metric"])["value"]
    assert final[("t3-q1", "fact_recall")] == 1.0  # the GCP figure the recorded (empty) memory lacked
    sys.modules.pop("my_summarizer", None)


def test_bundled_memory_dataset_runs_offline_and_with_a_loopback_llm_jury(prefect_server, tmp_path, monkeypatch):
    """The default dataset (no --dataset): every bundled query is scored and reported, by the
    offline jury and by an LLM jury on a loopback server; both runs audit clean."""
    bundled = ROOT / "datasets" / "memory"
    queries = [json.loads(line)["id"] for line in (bundled / "cases.jsonl").read_text(encoding="utf-8").splitlines()]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-memory-secret")
    with OpenAICompatServer() as server:
        for extra in (["--offline"], ["--api-base", server.base_url, "--judge", "openai/a", "--judge", "openai/b"]):
            result, output = cli("run", "memory", "--out", str(tmp_path), *extra)
            assert result.exit_code == 0, output
            run_id = run_id_of(output)
            assert audit_run(ArtifactStore(str(tmp_path)), run_id).ok
            sent = server.count()
            deep = audit_deep(ArtifactStore(str(tmp_path)), run_id)  # recomputed from stored raw replies
            assert deep.ok and server.count() == sent, deep.lines()
            scores = pd.read_parquet(tmp_path / run_id / "scores.parquet")
            overall = scores[scores["judge"].isna() & (scores["metric"] == "overall")]
            assert sorted(overall["case_id"]) == sorted(queries) and overall["value"].notna().all()
            report = (tmp_path / run_id / "report.md").read_text(encoding="utf-8")
            assert all(q in report for q in queries)
        assert server.count(model="a") == len(queries)  # one call per query and judge
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert b"sk-memory-secret" not in path.read_bytes(), path
