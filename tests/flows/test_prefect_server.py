"""The documented operations path, for real: `prefect server` on loopback, a process work pool,
`prefect deploy --all` from prefect.yaml, deployment runs served by a process worker, then audit.

Every flow run the tests check is started first and then served by ONE worker lifetime (`prefect
worker start --run-once` submits every scheduled run it finds, each in its own flow-run process,
and exits when all have finished), as a worker serves a night's schedule; each test then checks its
own run's state in the Prefect API, its manifest and its audit. Only the retry needs a second
worker, after the first run failed."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import cli
from tests.support.openai_server import Fault, OpenAICompatServer

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
            time.sleep(0.5)
    raise TimeoutError(f"prefect server at {url} not healthy after {timeout}s")


def prefect(env: dict[str, str], *args: str, timeout: float = 180) -> str:
    out = subprocess.run(
        [str(BIN / "prefect"), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert out.returncode == 0, f"prefect {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}"
    return out.stdout


def api(env: dict[str, str], method: str, path: str, body: dict | None = None) -> Any:
    """One call of the Prefect REST API; a 503 (Prefect's "retry me" for a busy database) is retried."""
    for attempt in range(6):
        request = urllib.request.Request(
            f"{env['PREFECT_API_URL']}{path}", method=method, headers={"Content-Type": "application/json"},
            data=json.dumps(body).encode() if body is not None else None,
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                text = response.read()
            return json.loads(text) if text else None
        except urllib.error.HTTPError as exc:
            if exc.code != 503 or attempt == 5:
                raise
            time.sleep(2 + attempt * 2)
    raise AssertionError("unreachable")


def run_worker_once(env: dict[str, str]) -> str:
    """A worker that picks up every pending flow run, runs them, and exits when all have ended."""
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
    api_url = f"http://127.0.0.1:{port}/api"
    env = {
        **os.environ,
        "PREFECT_HOME": str(home),
        "PREFECT_API_URL": api_url,
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
        wait_healthy(api_url, 180)
        yield env
    finally:
        process.terminate()
        process.wait(timeout=30)


def deployments_in_prefect_yaml() -> list[dict]:
    """Every deployment prefect.yaml declares: a suite added there is exercised here too."""
    import yaml

    return yaml.safe_load((ROOT / "prefect.yaml").read_text(encoding="utf-8"))["deployments"]


def start_deployment(env: dict[str, str], name: str, params: dict, job_variables: dict | None = None) -> str:
    """A flow run of the deployment, scheduled now (what `prefect deployment run` asks the API for:
    the deployment's parameters with these top-level keys replaced)."""
    deployment = api(env, "GET", f"/deployments/name/assay-evaluate/{name}")
    body = {"parameters": params, "job_variables": job_variables or {}}
    return api(env, "POST", f"/deployments/{deployment['id']}/create_flow_run", body)["id"]


def start_deployment_by_cli(env: dict[str, str], name: str, params: dict) -> str:
    started = prefect(env, "deployment", "run", f"assay-evaluate/{name}", "--params", json.dumps(params))
    return next(line.split()[-1] for line in started.splitlines() if "uuid" in line.lower())


def flow_run_state(env: dict[str, str], flow_run_id: str) -> str:
    """The flow run's state type as the Prefect API reports it (what the UI shows)."""
    return api(env, "GET", f"/flow_runs/{flow_run_id}")["state_type"]


def flow_run_says(env: dict[str, str], flow_run_id: str) -> str:
    """What the flow run told Prefect: its state's message and its log lines (the UI's run page)."""
    state = api(env, "GET", f"/flow_runs/{flow_run_id}")["state"]
    logs = api(env, "POST", "/logs/filter", {"logs": {"flow_run_id": {"any_": [flow_run_id]}}, "limit": 200})
    return "\n".join([state.get("message") or "", *(entry["message"] for entry in logs)])


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


@dataclass
class FlowRun:
    id: str
    out: Path  # the run's `options.out`


@dataclass
class Served:
    env: dict[str, str]
    runs: dict[str, FlowRun]  # by deployment name, and "runner-mismatch", "incomplete"
    worker_output: str
    judge_server: OpenAICompatServer  # the loopback judge the incomplete run calls (401 until a test clears it)


JUDGE_KEY = "sk-server-test-key"


@pytest.fixture(scope="module")
def served(deployed, tmp_path_factory):
    """Every deployment's run, a run asking for a runner its entrypoint lacks, and a memory run
    whose every judge answers 401: started, then served by one worker lifetime."""

    def out_for(name: str) -> Path:
        return tmp_path_factory.mktemp(name) / "runs"

    with OpenAICompatServer() as judge_server:
        judge_server.add_fault(Fault(kind="status", status=401, model="a"))
        runs = {}
        for deployment in deployments_in_prefect_yaml():
            out = out_for(deployment["name"])
            runs[deployment["name"]] = FlowRun(start_deployment(deployed, deployment["name"], {"options": {"out": str(out)}}), out)
        out = out_for("runner-mismatch")  # started by the CLI a user types, as docs/deployment.md shows
        runs["runner-mismatch"] = FlowRun(
            start_deployment_by_cli(deployed, "rag_qa-nightly", {"options": {"out": str(out), "runner": "dask"}}), out)
        out = out_for("incomplete")
        spec = {"suite": "memory", "jury": {"judges": [{"model": "openai/a", "api_base": judge_server.base_url}]}}
        # the key reaches this flow run only (a worker's environment would give it to every run)
        flow_run_id = start_deployment(deployed, "memory-nightly", {"spec": spec, "options": {"out": str(out)}},
                                       {"env": {"OPENAI_API_KEY": JUDGE_KEY}})
        runs["incomplete"] = FlowRun(flow_run_id, out)
        worker_output = run_worker_once(deployed)
        yield Served(deployed, runs, worker_output, judge_server)


@pytest.mark.parametrize("deployment", deployments_in_prefect_yaml(), ids=lambda d: d["name"])
def test_each_suite_deployment_runs_through_a_worker_and_passes_audit(served, deployment):
    env, run = served.env, served.runs[deployment["name"]]
    assert deployment["schedules"] and deployment["schedules"][0]["cron"], "every suite runs on a schedule"
    assert deployment["parameters"]["spec"]["suite"], deployment
    assert flow_run_state(env, run.id) == "COMPLETED", flow_run_says(env, run.id)[-3000:] + served.worker_output[-2000:]

    (manifest,) = manifests(run.out)
    assert manifest["status"] == "completed" and manifest["suite"] == deployment["parameters"]["spec"]["suite"]
    assert manifest["prefect"]["flow_run_id"] == run.id
    assert manifest["run_spec"]["jury"]["panel"], "the deployment's open jury was resolved and recorded"
    on_dask = deployment["entrypoint"].startswith("flows/on_dask.py")
    assert manifest["options"]["runner"] == ("dask" if on_dask else "threads"), "the runner that did the work"
    audit, output = cli("audit", str(run.out / manifest["run_id"]))
    assert audit.exit_code == 0 and "audit PASSED" in output, output


def test_a_deployment_asked_for_a_runner_its_entrypoint_lacks_fails_before_any_step(served):
    """options.runner cannot change a deployment's task runner: asking for Dask on the thread
    entrypoint fails the flow run with the entrypoint to use, instead of recording a runner
    that did not run."""
    env, run = served.env, served.runs["runner-mismatch"]
    said = flow_run_says(env, run.id)
    assert flow_run_state(env, run.id) == "FAILED", said[-3000:] + served.worker_output[-2000:]
    assert "flows/on_dask.py:evaluate_on_dask" in said, said[-4000:]
    assert not run.out.exists() or not manifests(run.out), "no step ran"


def test_an_incomplete_deployment_run_is_failed_in_prefect_and_a_retry_reuses_its_steps(served):
    """Every judge answers 401: the run is incomplete and its flow run FAILED in the Prefect API;
    once the endpoint is fixed, `prefect flow-run retry` re-executes it reusing the cached steps."""
    env, run, judge_server = served.env, served.runs["incomplete"], served.judge_server
    assert flow_run_state(env, run.id) == "FAILED", flow_run_says(env, run.id)[-3000:] + served.worker_output[-2000:]
    (incomplete,) = manifests(run.out)
    assert incomplete["status"] == "incomplete", incomplete["message"]
    assert "every judge was dropped" in incomplete["message"]
    assert judge_server.count(status=401) > 0

    judge_server.clear_faults()
    prefect(env, "flow-run", "retry", run.id)
    worker_output = run_worker_once(env)
    assert flow_run_state(env, run.id) == "COMPLETED", worker_output[-4000:]
    first, retried = manifests(run.out)
    assert first["run_id"] == incomplete["run_id"] and retried["prefect"]["flow_run_id"] == run.id
    assert retried["status"] == "completed", retried["message"]
    steps = {s["name"]: s["status"] for s in retried["steps"]}
    assert steps["validate"] == steps["replay"] == steps["metrics:facts"] == "reused", steps
    assert steps["metrics:jury"] == "ran", steps  # only what failed is done again
