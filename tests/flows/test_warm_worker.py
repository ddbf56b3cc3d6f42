"""The resident worker (``flows/warm_worker.py``, ``assay/worker_client.py``): ``assay server
start`` starts it beside the kept server; ``assay run`` is handed to it and runs in a child forked
for the run, with the same scores and artifacts as a run in the client's own process; a second
identical run reuses every step; a changed tree is refused by the client, which runs the command
itself; Ctrl-C reaches the child; ``assay server stop`` removes the socket.

The worker is started from a copy of the tree (so the test can change its code), with real
processes throughout; each test stops its server and worker at the end."""

from __future__ import annotations

import json
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from assay.worker_client import SOCKET_NAME, STATE_NAME, worker_dir
from bench.scale import synthesize
from tests.flows.test_local_server import (  # noqa: F401  (home: a fixture)
    ROOT,
    env_for,
    home,
    servers_stopped_after,
    supervisors,
    wait_gone,
)

pytestmark = pytest.mark.slow


def copy_of_the_code(copy: Path) -> Path:
    """A copy of the code (its datasets linked), so a test can change it under the worker."""
    for package in ("assay", "flows", "tasks"):
        # symlinks=True: assay/flows and assay/tasks stay links to the copy's own flows/ and tasks/
        shutil.copytree(ROOT / package, copy / package, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "datasets").symlink_to(ROOT / "datasets")
    return copy


@pytest.fixture
def tree(tmp_path):
    return copy_of_the_code(tmp_path / "tree")


@pytest.fixture(scope="module")
def shared_tree(tmp_path_factory):
    """The copy the first two tests share (the second changes it, last)."""
    return copy_of_the_code(tmp_path_factory.mktemp("copy") / "tree")


def env_of(prefect_home: Path, tree: Path, **extra: str) -> dict[str, str]:
    return {**env_for(prefect_home, 300), "PYTHONPATH": str(tree), **extra}


def assay(prefect_home: Path, tree: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assay.cli", *args], cwd=tree, env=env_of(prefect_home, tree, **extra),
                          capture_output=True, text=True, timeout=600)


def worker_state(prefect_home: Path) -> dict:
    return json.loads((worker_dir(prefect_home) / STATE_NAME).read_text())


def run_of(done: subprocess.CompletedProcess[str]) -> tuple[dict, Path]:
    assert done.returncode == 0, done.stderr[-3000:]
    run_dir = Path(next(line.split()[-1] for line in done.stdout.splitlines() if line.startswith("run dir:")))
    return json.loads((run_dir / "manifest.json").read_text()), run_dir


STARTER_KEY = "sk-in-the-starting-shell-0123456789"
RUN_KEY = "sk-in-the-run-environment-0123456789"


@pytest.fixture(scope="module")
def kept_home():
    """The PREFECT_HOME of the server and worker the first two tests share (a short path: the
    worker's socket lives under it); whatever runs there is stopped at the end."""
    path = Path(tempfile.mkdtemp(prefix="assay-t-"))
    (path / "prefect-home").mkdir()
    with servers_stopped_after(path / "prefect-home") as prefect_home:
        yield prefect_home
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def started(kept_home, shared_tree):
    """The kept server and the worker, up; one worker serves the first test's runs and is then
    replaced and stopped by the second (which checks it goes); stopped at the end in any case."""
    done = assay(kept_home, shared_tree, "server", "start", OPENAI_API_KEY=STARTER_KEY)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "worker:   pid" in done.stdout and "ready" in done.stdout, done.stdout
    yield worker_state(kept_home)
    assay(kept_home, shared_tree, "server", "stop")


def test_runs_through_the_worker_match_an_in_process_run(kept_home, shared_tree, started, tmp_path):
    directory = worker_dir(kept_home)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE((directory / SOCKET_NAME).stat().st_mode) == 0o600
    worker_pid = started["pid"]
    for junk in (b"", b"\x00\x00", b"\x00\x00\x00\x05nope!", b"\xff" * 64):  # not our protocol: still serving
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(directory / SOCKET_NAME))
            sock.sendall(junk)

    first = subprocess.Popen([sys.executable, "-m", "assay.cli", "run", "rag_qa", "--offline", "--out", str(tmp_path / "w")],
                             cwd=shared_tree, env=env_of(kept_home, shared_tree, RAG_SERVICE_API_KEY=RUN_KEY, ASSAY_TIMELINE="1"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = first.communicate(timeout=600)
    manifest, run_dir = run_of(subprocess.CompletedProcess(first.args, first.returncode, out, err))
    assert manifest["status"] == "completed"
    timeline = json.loads(next(line for line in err.splitlines() if line.startswith("assay-timeline "))[15:])
    # the child used the kept server as a run that found it up (no heartbeat thread to join at the end) ...
    assert "server healthy" in [label for label, _ in timeline["marks"]]
    # ... and imported none of what the worker loads for every run: the flow engine's, the judges' HTTP client, the suites
    imported = timeline["notes"]["modules the run imported"]
    assert not [m for m in imported if m.split(".")[0] in ("fastapi", "aiohttp", "graphviz") or m.startswith("assay.suites.")]
    assert manifest["process"]["pid"] not in (first.pid, worker_pid)  # a child forked for the run
    assert "✓ ingest" in err and "step               status" in err  # the child wrote to the client's stderr

    second = assay(kept_home, shared_tree, "run", "rag_qa", "--offline", "--out", str(tmp_path / "w"))
    manifest2, _ = run_of(second)
    assert {s["status"] for s in manifest2["steps"]} == {"reused"}
    assert manifest2["process"]["pid"] not in (manifest["process"]["pid"], worker_pid)
    assert worker_state(kept_home)["pid"] == worker_pid  # the same worker served both

    here = subprocess.Popen([sys.executable, "-m", "assay.cli", "run", "rag_qa", "--offline", "--out", str(tmp_path / "p")],
                            cwd=shared_tree, env=env_of(kept_home, shared_tree, ASSAY_WORKER="0"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, err = here.communicate(timeout=600)
    in_process, in_process_dir = run_of(subprocess.CompletedProcess(here.args, here.returncode, out, err))
    assert in_process["process"]["pid"] == here.pid  # ASSAY_WORKER=0: the client ran it
    assert manifest["artifacts"]["scores/all.jsonl"]["sha256"] == in_process["artifacts"]["scores/all.jsonl"]["sha256"]
    assert set(manifest["artifacts"]) == set(in_process["artifacts"])
    for name, entry in manifest["artifacts"].items():
        if entry["sha256"] != in_process["artifacts"][name]["sha256"]:  # only clock times may differ
            ours = json.loads((run_dir / entry["path"]).read_text(encoding="utf-8"))
            theirs = json.loads((in_process_dir / in_process["artifacts"][name]["path"]).read_text(encoding="utf-8"))
            assert _without_clocks(ours) == _without_clocks(theirs), name
    assert not list((kept_home / "assay-server" / "leases").iterdir())  # every run released its lease
    worker_env = Path(f"/proc/{worker_pid}/environ").read_bytes()
    assert b"OPENAI_API_KEY" not in worker_env and STARTER_KEY.encode() not in worker_env  # starts keyless
    for kept in (directory / "worker.log", directory / STATE_NAME):  # a run's variables are not kept
        assert RUN_KEY.encode() not in kept.read_bytes() and b"RAG_SERVICE_API_KEY" not in kept.read_bytes()


# What two runs of the same code on the same data record differently: when, and how long each call took
# (and the hashes over a reply that include its latency).
CLOCKS = {"created_at", "ge_load_time", "latency_s", "digest", "response_sha256"}


def _without_clocks(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_clocks(v) for k, v in value.items() if k not in CLOCKS}
    if isinstance(value, list):
        return [_without_clocks(v) for v in value]
    return value


def test_ctrl_c_reaches_the_child_another_tree_runs_here_stop_removes_the_socket(kept_home, shared_tree, started, tmp_path):
    dataset = synthesize("rag_qa", 600, tmp_path / "big")
    client = subprocess.Popen([sys.executable, "-m", "assay.cli", "run", "rag_qa", "--offline", "--dataset", str(dataset),
                               "--out", str(tmp_path / "w")], cwd=shared_tree, env=env_of(kept_home, shared_tree),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    said = []
    for line in client.stderr:  # the child's progress, on the client's stderr
        said.append(line)
        if line.startswith("✓ replay"):
            break
    client.send_signal(signal.SIGINT)
    out, rest = client.communicate(timeout=300)
    err = "".join(said) + rest
    assert client.returncode == 143, err[-3000:]  # stopped, as docs/exit-codes.md says
    assert "SIGINT: stopping after in-flight calls" in err and "Traceback" not in err
    manifest, _ = run_of(subprocess.CompletedProcess(client.args, 0, out, err))
    assert manifest["status"] == "stopped" and manifest["process"]["pid"] != client.pid

    for args in (["nosuite", "--offline"], ["rag_qa", "--no-such-option"], ["rag_qa", "--offline", "--concurrency", "0"]):
        refused = assay(kept_home, shared_tree, "run", *args)  # through the worker: the same refusal as in the client
        here = assay(kept_home, shared_tree, "run", *args, ASSAY_WORKER="0")
        assert (refused.returncode, refused.stdout, refused.stderr) == (here.returncode, here.stdout, here.stderr)
        assert refused.returncode in (1, 2) and refused.stderr and "resident worker" not in refused.stderr
    with open(shared_tree / "assay" / "timeline.py", "a", encoding="utf-8") as handle:
        handle.write("\n# changed after the worker started\n")
    changed = assay(kept_home, shared_tree, "run", "nosuite", "--offline")
    assert changed.returncode == 1 and "unknown suite 'nosuite'" in changed.stderr
    assert "the resident worker was started with other code; running in this process" in changed.stderr
    assert "Traceback" not in changed.stderr
    assert "started with other code" in assay(kept_home, shared_tree, "server", "status").stdout

    renewed = assay(kept_home, shared_tree, "server", "start")  # replaces the worker of the old code
    assert renewed.returncode == 0 and "already up" in renewed.stdout, renewed.stdout + renewed.stderr
    assert wait_gone(started["pid"], 15)
    worker_pid = worker_state(kept_home)["pid"]
    assert worker_pid != started["pid"] and "other code" not in assay(kept_home, shared_tree, "server", "status").stdout
    stopped = assay(kept_home, shared_tree, "server", "stop")
    assert f"stopped the resident worker (pid {worker_pid})" in stopped.stdout, stopped.stdout
    assert wait_gone(worker_pid, 15)
    assert not (worker_dir(kept_home) / SOCKET_NAME).exists() and not (worker_dir(kept_home) / STATE_NAME).exists()


def test_the_worker_stops_when_its_server_idles_out(home, tree):  # noqa: F811
    done = subprocess.run([sys.executable, "-m", "assay.cli", "server", "start"], cwd=tree, capture_output=True,
                          text=True, timeout=600, env={**env_of(home, tree), "ASSAY_SERVER_IDLE_SECONDS": "3"})
    assert done.returncode == 0 and "ready" in done.stdout, done.stderr[-3000:]
    worker_pid = worker_state(home)["pid"]
    assert wait_gone(worker_pid, 60)  # the server's idle period ended (no run took a lease), and the worker went
    assert not (worker_dir(home) / SOCKET_NAME).exists()
    deadline = time.monotonic() + 15
    while supervisors(home) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not supervisors(home)
