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
        "COLUMNS": "250",  # rich tables would cut long deployment names

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


def deployments_in_prefect_yaml() -> list[dict]:
    """Every deployment prefect.yaml declares: a suite added there is exercised here too."""
    import yaml

    return yaml.safe_load((ROOT / "prefect.yaml").read_text(encoding="utf-8"))["deployments"]


def start_deployment(env: dict[str, str], name: str, params: dict) -> str:
    started = prefect(env, "deployment", "run", f"assay-evaluate/{name}", "--params", json.dumps(params))
    return next(line.split()[-1] for line in started.splitlines() if "uuid" in line.lower())


def flow_run_state(env: dict[str, str], flow_run_id: str) -> str:
    """The flow run's state type as the Prefect API reports it (what the UI shows)."""
    with urllib.request.urlopen(f"{env['PREFECT_API_URL']}/flow_runs/{flow_run_id}", timeout=30) as response:
        return json.loads(response.read())["state_type"]


def manifests(out: Path) -> list[dict]:
    found = [json.loads((p / "manifest.json").read_text()) for p in out.iterdir() if (p / "manifest.json").exists()]
    return sorted(found, key=lambda m: m["created_at"] + m["run_id"])


@pytest.fixture(scope="module")
def deployed(server):
    prefect(server, "work-pool", "create", "assay-local", "--type", "process")
    deployed = prefect(server, "deploy", "--all")
    names = [d["name"] for d in deployments_in_prefect_yaml()]
    listing = prefect(server, "deployment", "ls")
    assert all(name in deployed and name in listing for name in names), deployed + listing
    return server


@pytest.mark.parametrize("deployment", deployments_in_prefect_yaml(), ids=lambda d: d["name"])
def test_each_suite_deployment_runs_through_a_worker_and_passes_audit(deployed, tmp_path, deployment):
    env = deployed
    assert deployment["schedules"] and deployment["schedules"][0]["cron"], "every suite runs on a schedule"
    assert deployment["parameters"]["spec"]["suite"], deployment
    out = tmp_path / "runs"
    flow_run_id = start_deployment(env, deployment["name"], {"options": {"out": str(out)}})
    worker_output = run_worker_once(env)
    assert flow_run_state(env, flow_run_id) == "COMPLETED", worker_output[-4000:]

    (manifest,) = manifests(out)
    assert manifest["status"] == "completed" and manifest["suite"] == deployment["parameters"]["spec"]["suite"]
    assert manifest["prefect"]["flow_run_id"] == flow_run_id
    assert manifest["run_spec"]["jury"]["panel"], "the deployment's open jury was resolved and recorded"
    on_dask = deployment["entrypoint"].startswith("flows/on_dask.py")
    assert manifest["options"]["runner"] == ("dask" if on_dask else "threads"), "the runner that did the work"
    audit = subprocess.run(
        [str(BIN / "assay"), "audit", str(out / manifest["run_id"])], capture_output=True, text=True, cwd=ROOT, env=env
    )
    assert audit.returncode == 0 and "audit PASSED" in audit.stdout, audit.stdout + audit.stderr


def test_a_deployment_asked_for_a_runner_its_entrypoint_lacks_fails_before_any_step(deployed, tmp_path):
    """options.runner cannot change a deployment's task runner: asking for Dask on the thread
    entrypoint fails the flow run with the entrypoint to use, instead of recording a runner
    that did not run."""
    out = tmp_path / "runs"
    flow_run_id = start_deployment(deployed, "rag_qa-nightly", {"options": {"out": str(out), "runner": "dask"}})
    worker_output = run_worker_once(deployed)
    assert flow_run_state(deployed, flow_run_id) == "FAILED", worker_output[-4000:]
    assert "flows/on_dask.py:evaluate_on_dask" in worker_output, worker_output[-4000:]
    assert not out.exists() or not manifests(out), "no step ran"


def test_an_incomplete_deployment_run_is_failed_in_prefect_and_a_retry_reuses_its_steps(deployed, tmp_path):
    """Every judge answers 401: the run is incomplete and its flow run FAILED in the Prefect API;
    once the endpoint is fixed, `prefect flow-run retry` re-executes it reusing the cached steps."""
    from tests.support.openai_server import Fault, OpenAICompatServer

    env = {**deployed, "OPENAI_API_KEY": "sk-server-test-key"}
    out = tmp_path / "runs"
    with OpenAICompatServer() as judge_server:
        judge_server.add_fault(Fault(kind="status", status=401, model="a"))
        spec = {"suite": "memory", "jury": {"judges": [{"model": "openai/a", "api_base": judge_server.base_url}]}}
        flow_run_id = start_deployment(env, "memory-nightly", {"spec": spec, "options": {"out": str(out)}})
        worker_output = run_worker_once(env)
        assert flow_run_state(env, flow_run_id) == "FAILED", worker_output[-4000:]
        (incomplete,) = manifests(out)
        assert incomplete["status"] == "incomplete", incomplete["message"]
        assert "every judge was dropped" in incomplete["message"]
        assert judge_server.count(status=401) > 0

        judge_server.clear_faults()
        prefect(env, "flow-run", "retry", flow_run_id)
        worker_output = run_worker_once(env)
        assert flow_run_state(env, flow_run_id) == "COMPLETED", worker_output[-4000:]
    first, retried = manifests(out)
    assert first["run_id"] == incomplete["run_id"] and retried["prefect"]["flow_run_id"] == flow_run_id
    assert retried["status"] == "completed", retried["message"]
    steps = {s["name"]: s["status"] for s in retried["steps"]}
    assert steps["validate"] == steps["replay"] == steps["metrics:facts"] == "reused", steps
    assert steps["metrics:jury"] == "ran", steps  # only what failed is done again
