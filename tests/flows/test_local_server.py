"""assay's local Prefect server that outlives one CLI run (``flows/local_server.py``): the next
run reuses it, it stops by itself when idle or when its state file goes, concurrent starts make
one server, and a stale state file is replaced. Every process here is a real one; each test (or
the fixture two tests share) stops its server at the end."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from assay.flows.ephemeral_server import healthy
from assay.flows.local_server import (
    SUPERVISOR_MODULE,
    ServerState,
    prefect_version,
    read_state,
    server_dir,
    stop,
)

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

# Takes a lease on the local server of $PREFECT_HOME (found or started), waits until it answers,
# holds the lease for HOLD seconds, checks it still answers, releases it and prints its state.
CLIENT = """
import json, os, sys, time
from assay.flows.ephemeral_server import healthy
from assay.flows.local_server import acquire
server = acquire(float(os.environ["ASSAY_SERVER_IDLE_SECONDS"]))
server.wait(240)
time.sleep(float(os.environ.get("HOLD", "0")))
assert healthy(server.api_url), "the server stopped while a lease was held"
server.release()
print(json.dumps({"pid": server.state.pid, "port": server.state.port, "started_here": server.started_here}))
"""


def env_for(home: Path, idle: float, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    return {**env, "PREFECT_HOME": str(home), "ASSAY_SERVER_IDLE_SECONDS": f"{idle:g}", **extra}


def client(home: Path, idle: float, **extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", CLIENT], cwd=ROOT, env=env_for(home, idle, **extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def result_of(process: subprocess.Popen[str]) -> dict:
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def supervisors(home: Path) -> list[int]:
    """Pids of every supervisor process started for this home."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if SUPERVISOR_MODULE.encode() in argv and str(server_dir(home)).encode() in argv:
            found.append(int(proc.name))
    return found


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # a zombie (exited, not yet reaped by its parent) has stopped too
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def wait_gone(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if gone(pid):
            return True
        time.sleep(0.1)
    return gone(pid)


def answers(port: int) -> bool:
    return healthy(f"http://127.0.0.1:{port}/api")


@contextlib.contextmanager
def servers_stopped_after(home: Path) -> Iterator[Path]:
    """``home``, whose servers are stopped at the end, whatever was done with it."""
    try:
        yield home
    finally:
        stop(home)
        for pid in supervisors(home):
            os.kill(pid, 15)
            wait_gone(pid, 15)


@pytest.fixture
def home(short_tmp_path):
    """A PREFECT_HOME whose servers are stopped at the end, whatever the test did (a short path:
    the resident worker's socket lives under it)."""
    home = short_tmp_path / "prefect-home"
    home.mkdir()
    with servers_stopped_after(home):
        yield home


def assay(home: Path, idle: float, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assay.cli", *args], cwd=ROOT, env=env_for(home, idle),
                          capture_output=True, text=True, timeout=600)


def test_a_second_run_reuses_the_server_the_first_left_running(home, tmp_path):
    out = tmp_path / "runs"
    first = assay(home, 120, "run", "rag_qa", "--offline", "--out", str(out))
    assert first.returncode == 0, first.stderr[-3000:]
    state = read_state(server_dir(home))
    assert state is not None and supervisors(home) == [state.pid] and answers(state.port)

    second = assay(home, 120, "run", "rag_qa", "--offline", "--out", str(out))
    assert second.returncode == 0, second.stderr[-3000:]
    assert read_state(server_dir(home)) == state  # same pid, port and token: not restarted
    assert supervisors(home) == [state.pid]
    run_dir = Path(next(line.split()[-1] for line in second.stdout.splitlines() if line.startswith("run dir:")))
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "completed"
    assert {s["status"] for s in manifest["steps"]} == {"reused"}
    assert not list((server_dir(home) / "leases").iterdir())  # both runs released their lease

    status = assay(home, 120, "server", "status")
    assert status.returncode == 0 and f"pid:      {state.pid}" in status.stdout, status.stdout
    stopped = assay(home, 120, "server", "stop")
    assert f"pid {state.pid}" in stopped.stdout, stopped.stdout + stopped.stderr
    assert wait_gone(state.pid, 15) and not answers(state.port)
    assert assay(home, 120, "server", "status").returncode == 1


def test_the_server_stops_by_itself_after_the_idle_period_but_not_during_a_lease(home):
    # The lease is held for 6 s, twice the idle period: the client checks the server still answers.
    started = result_of(client(home, 3, HOLD="6"))
    assert started["started_here"]
    assert wait_gone(started["pid"], 60), "the idle server did not stop"
    assert read_state(server_dir(home)) is None and not answers(started["port"])
    assert supervisors(home) == []


def environ_of(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(item.decode().split("=", 1) for item in raw.split(b"\0") if b"=" in item)


def children_of(pid: int) -> list[int]:
    return [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()]


SECRETS = {"OPENAI_API_KEY": "sk-provider-key-value-1", "RAG_SERVICE_TOKEN": "rag-token-value-2",
           "ASSAY_SIGNING_KEY": "signing-key-value-3", "PLAIN_NAMED_KEY": "registered-value-4",
           "ASSAY_AGENT_HEADERS": '{"X-Tenant": "tenant-value-5"}', "DB_PASSWORD": "db-password-value-6"}

# As `assay run --api-key-env PLAIN_NAMED_KEY` does, then takes a lease (which starts the server).
SECRET_CLIENT = "from assay.redact import register_secret_env; register_secret_env('PLAIN_NAMED_KEY')\n" + CLIENT


@dataclass
class StartedAtOnce:
    home: Path
    results: list[dict]  # what each client printed
    environs: dict[int, dict[str, str]]  # of the supervisor and its server, read while they ran


@pytest.fixture(scope="module")
def started_at_once(tmp_path_factory):
    """Three clients started at once, each with a run's keys and header variables in its
    environment (registering a plainly named one as `assay run --api-key-env` does): whichever
    starts the kept server, the supervisor's and the server's environments are read while up."""
    home = tmp_path_factory.mktemp("at-once") / "prefect-home"
    home.mkdir()
    with servers_stopped_after(home):
        clients = [subprocess.Popen([sys.executable, "-c", SECRET_CLIENT], cwd=ROOT, env=env_for(home, 120, **SECRETS),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
        results = [result_of(c) for c in clients]
        supervisor = results[0]["pid"]
        yield StartedAtOnce(home, results, {pid: environ_of(pid) for pid in [supervisor, *children_of(supervisor)]})


def test_concurrent_starts_make_one_server_which_stops_when_its_state_file_goes(started_at_once):
    home, results = started_at_once.home, started_at_once.results
    assert len({(r["pid"], r["port"]) for r in results}) == 1, results
    assert sum(r["started_here"] for r in results) == 1
    assert supervisors(home) == [results[0]["pid"]]

    (server_dir(home) / "state.json").unlink()
    assert wait_gone(results[0]["pid"], 30), "the server did not stop when its state file was removed"
    assert not answers(results[0]["port"])


def test_the_kept_server_and_its_supervisor_hold_no_key_or_header_variable(started_at_once):
    """Issue 33, item 8: a run's keys do not stay in the detached server's environment."""
    assert len(started_at_once.environs) > 1, "the supervisor started no server"
    for pid, env in started_at_once.environs.items():
        assert not set(SECRETS) & set(env), (pid, sorted(set(SECRETS) & set(env)))
        assert not any(value in "\0".join(env.values()) for value in SECRETS.values())
        assert env["PREFECT_HOME"] == str(started_at_once.home)  # what the server needs is still there


def test_a_stale_state_file_is_replaced(home):
    directory = server_dir(home)
    directory.mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    for pid in (dead.pid, os.getpid()):  # a dead pid, then a live one that is not our supervisor
        stale = ServerState(pid=pid, port=9, started=0.0, token="0" * 16, prefect_version=prefect_version(),
                            prefect_home=str(home.resolve()), idle_seconds=120)
        (directory / "state.json").write_text(json.dumps(stale.__dict__))
        result = result_of(client(home, 120))
        assert result["started_here"] and result["pid"] != pid and result["port"] != 9
        stop(home)
        assert wait_gone(result["pid"], 15)


def test_the_temporary_server_holds_no_key_or_header_variable(monkeypatch):
    from assay.flows.ephemeral_server import EarlyServer
    from assay.redact import register_secret_env

    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    register_secret_env("PLAIN_NAMED_KEY")
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    server = EarlyServer()
    try:
        deadline = time.monotonic() + 30
        while not (env := environ_of(server.process.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)  # until the interpreter has been exec'd
        assert server.process.poll() is None
    finally:
        server.discard()
    assert not set(SECRETS) & set(env) and "PATH" in env
