"""The client side of the resident worker (``assay/worker_client.py``): when it hands a run over
and when it leaves it to this process, what it sends (argv, cwd, environment, its stdio
descriptors), the relayed Ctrl-C and the exit status, with a stand-in worker on a real Unix
socket. The worker itself, with real runs, is ``tests/flows/test_warm_worker.py``."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from assay import worker_client
from assay.worker_client import (
    SOCKET_NAME,
    STATE_NAME,
    hand_over,
    identity,
    interpreter_options,
    mismatch,
    read_message,
    send_message,
    worker_dir,
)
from tests.conftest import ROOT


@pytest.fixture
def home(short_tmp_path, monkeypatch):
    """A PREFECT_HOME of its own (a short path: the worker's socket lives under it), an environment
    that would use the kept server, a fresh decision."""
    monkeypatch.setenv("PREFECT_HOME", str(short_tmp_path / "prefect-home"))
    for name in ("PREFECT_API_URL", "ASSAY_WORKER", "ASSAY_SERVER_IDLE_SECONDS", "ASSAY_EARLY_SERVER",
                 "PREFECT_SERVER_EPHEMERAL_ENABLED"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(worker_client, "_decided", False)
    directory = worker_dir()
    directory.mkdir(parents=True, mode=0o700)
    return directory


def record(directory, pid: int, **changed: str) -> None:
    (directory / STATE_NAME).write_text(json.dumps({"pid": pid, "token": "t", "identity": {**identity(), **changed}}))


def test_no_worker_means_this_process_runs_it(home, capfd):
    assert hand_over(["run", "rag_qa", "--offline"]) is None
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("argv, env", [
    (["suites"], {}),
    (["run", "rag_qa", "--help"], {}),
    (["run", "rag_qa"], {"ASSAY_WORKER": "0"}),
    (["run", "rag_qa"], {"PREFECT_API_URL": "http://127.0.0.1:4200/api"}),
    (["run", "rag_qa"], {"ASSAY_SERVER_IDLE_SECONDS": "0"}),
    (["run", "rag_qa"], {"ASSAY_SERVER_IDLE_SECONDS": "soon"}),  # the run itself says what is wrong
    (["run", "rag_qa"], {"ASSAY_EARLY_SERVER": "0"}),
])
def test_commands_and_settings_the_worker_does_not_take(home, monkeypatch, argv, env):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with FakeWorker(home) as worker:
        assert hand_over(argv) is None
    assert worker.requests == []


def test_a_worker_of_another_tree_is_not_used_and_says_so_in_one_line(home, capfd):
    with FakeWorker(home, tree="0" * 64) as worker:
        assert hand_over(["run", "rag_qa", "--offline"]) is None
    assert worker.requests == []
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "the resident worker was started with other code; running in this process" in err


@pytest.mark.parametrize("field, said", [
    ("tree", "other code"), ("python", "a different Python executable"), ("package", "a different assay package"),
    ("pythonpath", "a different PYTHONPATH"), ("interpreter", "different interpreter options"),
])
def test_every_difference_from_the_worker_is_named(field, said):
    mine = identity()
    assert mismatch(mine, dict(mine)) is None
    assert said in mismatch(mine, {**mine, field: "something else"})


def test_interpreter_options_include_flags_and_python_variables(monkeypatch):
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)  # whatever the environment running the tests set
    before = interpreter_options()
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    assert interpreter_options() != before
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")  # compared on its own, as given
    monkeypatch.delenv("PYTHONHASHSEED")
    assert interpreter_options() == before


def test_a_socket_whose_peer_is_not_the_recorded_worker_is_not_used(home, capfd):
    with FakeWorker(home, pid=1) as worker:  # someone else's process answers on the socket
        assert hand_over(["run", "rag_qa", "--offline"]) is None
    assert worker.requests == [] and capfd.readouterr().err == ""


@pytest.mark.parametrize("name, stream", [("stdin", None), ("stdout", io.StringIO())])
def test_stdio_that_is_not_descriptors_0_to_2_is_not_handed_over(home, monkeypatch, name, stream):
    monkeypatch.setattr(sys, name, stream)  # `assay run … <&-`; a caller capturing the output in memory
    with FakeWorker(home) as worker:
        assert hand_over(["run", "rag_qa", "--offline"]) is None
    assert worker.requests == []


def test_a_refusing_worker_leaves_the_run_to_this_process(home):
    with FakeWorker(home, reply={"refused": "another tree"}) as worker:
        assert hand_over(["run", "rag_qa", "--offline"]) is None
    assert len(worker.requests) == 1


def test_the_run_goes_over_with_its_environment_and_stdio_and_its_status_comes_back(home, monkeypatch, capfd):
    monkeypatch.setenv("SOME_API_KEY", "sk-test-secret")
    with FakeWorker(home, write=b"from the child\n", exit_code=5) as worker:
        assert hand_over(["run", "rag_qa", "--offline"]) == 5
    request, fds = worker.requests[0]
    assert request["argv"] == [sys.argv[0], "run", "rag_qa", "--offline"] and request["cwd"] == os.getcwd()
    assert request["env"]["SOME_API_KEY"] == "sk-test-secret" and request["sys_path"] == sys.path
    assert fds == 3
    assert "from the child" in capfd.readouterr().out  # written on the descriptor the client sent
    assert hand_over(["run", "rag_qa", "--offline"]) is None  # decided once per process


def test_ctrl_c_is_relayed_to_the_child(home):
    with FakeWorker(home, kill_client_with=signal.SIGINT) as worker:
        assert hand_over(["run", "rag_qa", "--offline"]) == 130
    assert worker.signals == [signal.SIGINT]


def test_a_worker_that_dies_during_the_run_ends_it_in_one_line(home, capfd):
    with FakeWorker(home, hang_up_after_start=True):
        assert hand_over(["run", "rag_qa", "--offline"]) == 1
    err = capfd.readouterr().err
    assert "the resident worker stopped during the run" in err and "Traceback" not in err


def test_deciding_imports_only_the_standard_library(tmp_path):
    """Up to the decision (here: a worker of another tree, so the tree's hash is computed too)."""
    directory = tmp_path / "assay-server" / "worker"
    directory.mkdir(parents=True)
    record(directory, os.getpid(), tree="0" * 64)
    code = ("import sys; before = set(sys.modules); from assay.worker_client import hand_over;"
            "assert hand_over(['run', 'rag_qa', '--offline']) is None;"
            "print(sorted({m.split('.')[0] for m in set(sys.modules) - before} - set(sys.stdlib_module_names) - {'assay'}))")
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "ASSAY_WORKER", "ASSAY_SERVER_IDLE_SECONDS")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**env, "PYTHONPATH": str(ROOT), "PREFECT_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "started with other code" in done.stderr
    assert done.stdout.split("\n")[-2] == "[]"


class FakeWorker:
    """A stand-in worker on the real socket path, answering one client in a thread."""

    def __init__(self, directory, pid: int | None = None, tree: str | None = None, reply: dict | None = None,
                 write: bytes = b"", exit_code: int = 0, kill_client_with: int | None = None,
                 hang_up_after_start: bool = False) -> None:
        self.directory, self.reply, self.write, self.exit_code = directory, reply, write, exit_code
        self.kill_client_with, self.hang_up = kill_client_with, hang_up_after_start
        self.requests: list[tuple[dict, int]] = []
        self.signals: list[int] = []
        record(directory, os.getpid() if pid is None else pid, **({"tree": tree} if tree else {}))
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(directory / SOCKET_NAME))
        self.listener.listen(1)
        self.listener.settimeout(10)
        self.thread = threading.Thread(target=self.serve, daemon=True)

    def __enter__(self) -> FakeWorker:
        """Also: sys.stdin/stdout/stderr on descriptors 0-2, as in a console command (pytest's
        capture replaces them while a test runs)."""
        self.streams = (sys.stdin, sys.stdout, sys.stderr)
        for fd, name in enumerate(("stdin", "stdout", "stderr")):  # but those a test set itself
            if getattr(sys, name) is not None and not isinstance(getattr(sys, name), io.StringIO):
                setattr(sys, name, open(fd, "r" if fd == 0 else "w", buffering=-1 if fd == 0 else 1, closefd=False))  # noqa: SIM115
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        sys.stdin, sys.stdout, sys.stderr = self.streams
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes an accept that no client will answer
        self.listener.close()
        self.thread.join(10)

    def serve(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return  # the client never connected
        with conn:
            header, fds, _, _ = socket.recv_fds(conn, 4, 3)
            if len(header) < 4:
                return  # the client hung up without a request (e.g. its peer check failed)
            body = b""
            size = int.from_bytes(header, "big")
            while len(body) < size:
                body += conn.recv(size - len(body))
            self.requests.append((json.loads(body), len(fds)))
            if fds and self.write:
                os.write(fds[1], self.write)
            for fd in fds:
                os.close(fd)
            if self.reply is not None:
                send_message(conn, self.reply)
                return
            send_message(conn, {"started": 12345})
            if self.hang_up:
                return
            if self.kill_client_with is not None:
                time.sleep(0.2)
                os.kill(os.getpid(), self.kill_client_with)  # the terminal's Ctrl-C, to the client
                self.signals.append(read_message(conn)["signal"])
                send_message(conn, {"exit": 128 + self.signals[-1]})
                return
            send_message(conn, {"exit": self.exit_code})


def _python_m_assay_cli(home, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m assay.cli ARGV`` in a new process, its imports listed (``-X importtime``). It
    keeps this process's PYTHONPATH (set or not), which the worker's identity compares: forcing one
    here would make every run a mismatch wherever pytest runs without it (as in CI)."""
    clean = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "ASSAY_WORKER", "ASSAY_SERVER_IDLE_SECONDS")}
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "assay.cli", *argv], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env={**clean, **env, "PREFECT_HOME": os.environ["PREFECT_HOME"]})


def _imported(stderr: str) -> set[str]:
    return {line.split("|")[-1].strip().split(".")[0] for line in stderr.splitlines() if line.startswith("import time:")}


def test_python_m_assay_cli_hands_over_as_the_assay_command_does(home):
    """Decided before the CLI's own imports (typer, pydantic), the worker's exit status returned."""
    with FakeWorker(home, exit_code=5) as worker:
        done = _python_m_assay_cli(home, "run", "rag_qa", "--offline")
    assert done.returncode == 5, done.stderr[-2000:]
    (request, n_fds), = worker.requests
    assert request["argv"][1:] == ["run", "rag_qa", "--offline"] and n_fds == 3
    assert request["main_package"] == "assay"  # click still names the program `python -m assay.cli`
    assert not _imported(done.stderr) & {"typer", "pydantic", "click", "prefect"}


def test_python_m_assay_cli_with_the_opt_out_runs_here(home):
    with FakeWorker(home, exit_code=5) as worker:
        done = _python_m_assay_cli(home, "run", "no_such_suite", "--offline", ASSAY_WORKER="0")
    assert worker.requests == []
    assert done.returncode == 1 and "unknown suite 'no_such_suite'" in done.stderr
    assert "typer" in _imported(done.stderr)  # the CLI ran in this process, once
    assert done.stderr.count("unknown suite") == 1
