"""A run killed (SIGTERM) in the middle of its judge step stops promptly, and resumes with
`assay rerun` without re-sending any judge call that had completed."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay.judges.store import CallStore
from assay.lineage.manifest import load_manifest
from assay.lineage.store import ArtifactStore
from tests.support.cli import cli, run_id_of
from tests.support.openai_server import OpenAICompatServer

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def test_sigterm_during_judging_then_rerun(prefect_server, bundled_rag_qa, tmp_path, monkeypatch):
    n_calls = 3 * sum(1 for line in (bundled_rag_qa / "cases.jsonl").read_text().splitlines() if line.strip())
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    with OpenAICompatServer(latency_s=0.1) as server:
        args = [sys.executable, "-m", "assay.cli", "run", "rag_qa", "--out", str(tmp_path),
                "--api-base", server.base_url, "--concurrency", "2",
                "--judge", "openai/a", "--judge", "openai/b", "--judge", "openai/c"]
        env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect-home")}
        env.pop("PREFECT_API_URL", None)  # the killed run uses its own ephemeral server
        process = subprocess.Popen(args, cwd=ROOT, env=env, start_new_session=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.time() + 240
        while server.count() < n_calls // 3 and time.time() < deadline and process.poll() is None:
            time.sleep(0.2)
        assert process.poll() is None, process.stdout.read() if process.stdout else ""
        os.kill(process.pid, signal.SIGTERM)
        output = process.communicate(timeout=120)[0]
        sent_before = server.count()
        assert process.returncode == 143, output
        assert 0 < sent_before < n_calls, output  # stopped mid-step, not after finishing it
        assert "Resume: assay rerun" in output

        run_id = run_id_of(output)
        store = ArtifactStore(str(tmp_path))
        assert load_manifest(store, run_id).status == "stopped"
        completed = len(list(CallStore(store.path(".assay", "judge-calls")).keys()))
        assert completed > 0

        server.reset_counts()
        result, output = cli("rerun", run_id, "--out", str(tmp_path), "--trust-spec")
        assert result.exit_code == 0, output
        assert server.count() == n_calls - completed  # nothing that had completed is sent again
        rerun_id = run_id_of(output)
        manifest = load_manifest(store, rerun_id)
        assert manifest.status == "completed" and manifest.parent_run == run_id
        step = next(s for s in manifest.steps if s.name == "metrics:answer")
        assert step.judge_calls_reused == completed


def test_a_run_killed_outright_is_listed_as_interrupted_with_the_rerun_hint(bundled_rag_qa, tmp_path, monkeypatch):
    """SIGKILL leaves no chance to write an end: `assay runs` tells from the recorded process
    that the run is gone (issue 33, item 9), and `assay rerun` resumes it."""
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    with OpenAICompatServer(latency_s=0.2) as server:
        args = [sys.executable, "-m", "assay.cli", "run", "rag_qa", "--out", str(tmp_path),
                "--api-base", server.base_url, "--concurrency", "1", "--judge", "openai/a"]
        env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect-home")}
        env.pop("PREFECT_API_URL", None)
        process = subprocess.Popen(args, cwd=ROOT, env=env, start_new_session=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.time() + 240
        while server.count() < 2 and time.time() < deadline and process.poll() is None:
            time.sleep(0.2)
        assert process.poll() is None, process.stdout.read() if process.stdout else ""
        store = ArtifactStore(str(tmp_path))
        (run_id,) = store.list_runs()
        result, output = cli("runs", "--out", str(tmp_path))
        assert result.exit_code == 0 and f"{run_id} " in output and " running " in output, output
        os.killpg(process.pid, signal.SIGKILL)  # the run and its temporary server, with no goodbye
        process.communicate(timeout=60)
        assert load_manifest(store, run_id).status == "running"  # what the killed run left
        result, output = cli("runs", "--out", str(tmp_path))
        assert result.exit_code == 0 and " interrupted " in output and f"resume: assay rerun {run_id}" in output, output
