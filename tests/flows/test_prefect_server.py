"""The documented operations path, for real: `prefect server` on loopback, a process work
pool, `prefect deploy --all` from prefect.yaml, a worker, a deployment run, then audit."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, timeout: float) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(1)
    raise TimeoutError(f"prefect server at {url} not healthy after {timeout}s")


def prefect(env: dict[str, str], *args: str, timeout: float = 180) -> str:
    out = subprocess.run(
        [str(BIN / "prefect"), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert out.returncode == 0, f"prefect {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}"
    return out.stdout


def run_worker_once(env: dict[str, str]) -> str:
    """A worker that picks up the pending flow run, runs it, and exits."""
    worker = subprocess.Popen(
        [str(BIN / "prefect"), "worker", "start", "--pool", "assay-local", "--run-once"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        return worker.communicate(timeout=600)[0]
    finally:
        if worker.poll() is None:
            worker.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    home = tmp_path_factory.mktemp("prefect-home")
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {
        **os.environ,
        "PREFECT_HOME": str(home),
        "PREFECT_API_URL": api,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "DO_NOT_TRACK": "1",
        "PREFECT_CLI_PROMPT": "false",
        "ASSAY_PROJECT_DIR": str(ROOT),
        "PREFECT_LOGGING_LEVEL": "INFO",
    }
    env.pop("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", None)
    process = subprocess.Popen(
        [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_healthy(api, 180)
        yield env
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_deployment_run_by_a_worker_completes_and_passes_audit(server, tmp_path):
    env = server
    out = tmp_path / "runs"
    prefect(env, "work-pool", "create", "assay-local", "--type", "process")
    deployed = prefect(env, "deploy", "--all")
    assert all(f"{suite}-nightly" in deployed for suite in ("rag_qa", "report", "memory", "agent"))
    listing = prefect(env, "deployment", "ls")
    assert "rag_qa-nightly" in listing

    params = json.dumps({"options": {"out": str(out)}})
    started = prefect(env, "deployment", "run", "assay-evaluate/rag_qa-nightly", "--params", params)
    flow_run_id = next(
        line.split()[-1] for line in started.splitlines() if "UUID" in line or "uuid" in line.lower()
    )
    worker_output = run_worker_once(env)
    state = prefect(env, "flow-run", "inspect", flow_run_id)
    assert "COMPLETED" in state, worker_output[-4000:] + state[-2000:]

    runs = [p for p in out.iterdir() if (p / "manifest.json").exists()]
    assert len(runs) == 1, list(out.iterdir())
    manifest = json.loads((runs[0] / "manifest.json").read_text())
    assert manifest["status"] == "completed"
    assert manifest["prefect"]["flow_run_id"] == flow_run_id
    assert manifest["run_spec"]["jury"]["panel"], "the deployment's open jury was resolved and recorded"
    audit = subprocess.run(
        [str(BIN / "assay"), "audit", str(runs[0])], capture_output=True, text=True, cwd=ROOT, env=env
    )
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "audit PASSED" in audit.stdout

    # `prefect flow-run retry` re-executes the deployment run; every step is reused from cache
    prefect(env, "flow-run", "retry", flow_run_id)
    worker_output = run_worker_once(env)
    runs = sorted((p for p in out.iterdir() if (p / "manifest.json").exists()), key=lambda p: p.name)
    assert len(runs) == 2, worker_output[-4000:]
    retried = json.loads((runs[1] / "manifest.json").read_text())
    assert retried["prefect"]["flow_run_id"] == flow_run_id
    # every step but compare and publish is reused: the retry compares with the first run, and
    # that comparison is a section of its report, so the report is new
    assert {s["status"] for s in retried["steps"] if s["name"] not in ("compare", "publish")} == {"reused"}, retried["steps"]
    assert any(s["name"] == "compare" for s in retried["steps"])  # compared with the first run
    assert "## Comparison with the baseline" in (runs[1] / "report.md").read_text(encoding="utf-8")
