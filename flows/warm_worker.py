"""The resident worker: a fork server beside the kept local Prefect server, for fast CLI runs.

A new ``assay run`` process spends 4-5 s importing Prefect, the flow, pandas and the suites, and
a folder's first run adds Great Expectations, matplotlib and the Korean analyser. This process
pays for them once: ``assay server start`` starts it beside the kept server
(``flows/local_server.py``); it imports all of that, builds and first uses the analyser, then
listens on ``PREFECT_HOME/assay-server/worker/worker.sock`` (directory 0700, socket 0600). For
each ``assay run`` the client (``assay/worker_client.py``) hands over, it forks a child that
takes the client's stdin/stdout/stderr, environment, working directory, ``sys.path`` and argv,
takes a lease on the kept server, refreshes Prefect's settings and logging (Prefect reads both
when it is imported), runs the command line exactly as the client would have, and exits with its
status, which this process sends back. A SIGINT or SIGTERM the client relays goes to the child.

Forking is safe because this process starts no thread of its own and never runs a flow: the
only other threads are the idle pools native libraries start on import or first use (OpenBLAS,
pyarrow's jemalloc, the analyser's workers), none of them holding a lock while it waits, and a
child analyses one text at a time on its own thread. It stops (removing its socket and state)
when the kept server it was started for stops — idle, ``assay server stop``, or gone — or when
its state file stops naming it. It keeps no key variable of its own (it starts keyless like
the server) and logs nothing a client sent.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import select
import signal
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from assay.flows.local_server import (
    _die_with_parent,
    _is_supervisor,
    _locked,
    lease_running,
    read_state,
)
from assay.flows.worker_control import (  # the control side; `stop` also for bench/small_runs.py
    WORKER_MODULE,
    _write_state,
    read_worker_state,
    stop,  # noqa: F401
)
from assay.worker_client import (
    SOCKET_NAME,
    STATE_NAME,
    identity,
    mismatch,
    read_message,
    send_message,
)

if TYPE_CHECKING:  # annotations only
    from assay.schemas import JsonObject

POLL_SECONDS = 0.5
REQUEST_TIMEOUT_S = 10.0
EXIT_FAILED = 1
# What a run imports, beyond the flow: the validation gate, its reports and the partitions' tables;
# what the flow engine and a judged run import once the server is up (FLOW_RUN_MODULES,
# JUDGE_CALL_MODULES, read in _warm); and what the steps import when they first run: the jury
# runner, the report and its Markdown, the scores' Parquet, the manifest's attestation. Each
# suite's own modules are imported through the registry (``_warm``). A child that still imports
# a module says which with ASSAY_TIMELINE=1 (the note ``modules the run imported``).
WARM_MODULES = (
    "assay.flows.evaluate", "assay.cli", "pandas", "matplotlib",
    "great_expectations", "great_expectations.data_context.types.base",
    "great_expectations.expectations.expectation_configuration",
    "assay.judges.offline",
    "assay.preflight", "assay.rerun_trust", "assay.gates", "assay.flows.console", "anyio._backends._asyncio",
    "assay.validation.gate", "assay.validation.report", "assay.aggregation", "assay.metrics.agreement",
    "assay.judges.runner", "assay.lineage.attestation", "fsspec.implementations.chained",
    "assay.rendering.publish", "assay.rendering.beside", "markdown", "markdown.extensions.attr_list", "markdown.extensions.codehilite",
    "markdown.extensions.fenced_code", "markdown.extensions.tables", "pygments.formatters",
    "pyarrow.parquet", "pyarrow.pandas_compat",
)


# -- the worker process -----------------------------------------------------------------------------


def _warm() -> None:
    """Import what runs need, build the analyser (its models load on first use) and draw a chart."""
    from assay.flows.ephemeral_server import FLOW_RUN_MODULES, JUDGE_CALL_MODULES

    for name in (*WARM_MODULES, *FLOW_RUN_MODULES, *JUDGE_CALL_MODULES):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    _load_suites()
    complete_deferred_models()
    _validate_demos()
    from assay.judges.prices import read_price_map

    read_price_map()  # a lean judge's price lookup, in every judged run
    from assay.judges.offline.text import analyse
    from assay.suites.kit.charts import hbar_chart

    analyse("한국어 분석기를 미리 불러옵니다.")
    # pyplot on the Agg backend as the suites select it, its fonts found and a PNG encoded once
    hbar_chart({"warm": 0.4, "up": 0.8}, (0.0, 1.0), 0.5, "score", "warm-up")
    import gc

    from assay import memory

    gc.collect()
    gc.freeze()  # what is loaded now stays: a child's collections (assay.memory) skip it, and leave its pages shared
    memory.count_from_here()  # and a child's first step does not give back what was loaded here


def _load_suites() -> None:
    """Every registered suite built once, so its modules are loaded (a run only names one of them),
    and the offline jury's rules found (it scans every built-in suite's ``offline`` module)."""
    from assay.judges.offline.suite_rules import built_in
    from assay.suites.registry import get_suite, suite_names

    for name in suite_names():
        try:
            get_suite(name)
        except Exception:  # noqa: BLE001 - a plugin suite that fails to load fails in its own run, as without a worker
            pass
    built_in()


def complete_deferred_models(packages: tuple[str, ...] = ("prefect", "assay")) -> int:
    """Build the pydantic models of ``packages`` whose build pydantic deferred (a forward
    reference not yet defined when the class was made): each would be built on its first use,
    in every child (Prefect's client and state schemas while a flow run is created, ~0.1 CPU s).
    Each is built from its own module's names only; one that cannot be built yet stays deferred,
    as before. How many were built."""
    from pydantic import BaseModel

    seen: set[type[BaseModel]] = set()
    stack: list[type[BaseModel]] = [BaseModel]
    built = 0
    while stack:
        for model in stack.pop().__subclasses__():
            if model in seen:
                continue
            seen.add(model)
            stack.append(model)
            deferred = not model.__dict__.get("__pydantic_complete__", True)
            if deferred and model.__module__.split(".")[0] in packages:
                with contextlib.suppress(Exception):  # a model pydantic cannot build yet stays as it was
                    built += bool(model.model_rebuild(raise_errors=False, _types_namespace={}))
    return built


def _validate_demos() -> None:
    """Every registered suite's validation gate run once on its bundled dataset: the children
    find Great Expectations' context, data sources, assets and built suites kept
    (``assay.validation.gx_session``) and GX's first-use work done."""
    from tqdm import tqdm

    from assay.suites.registry import get_suite, suite_names
    from assay.validation.gate import run_gate

    # GX's progress bars would start tqdm's monitor thread here, and a worker with a thread
    # cannot fork safely; a child's first bar starts its own with the interval put back.
    interval, tqdm.monitor_interval = tqdm.monitor_interval, 0
    try:
        for name in suite_names():
            try:
                suite = get_suite(name)
                run_gate(suite, suite.load_dataset(suite.default_dataset))
            except Exception:  # noqa: BLE001 - a demo that cannot be validated leaves its run to build what it needs
                pass
    finally:
        tqdm.monitor_interval = interval


def _server_alive(directory: Path, server_token: str) -> bool:
    state = read_state(directory.parent)
    return state is not None and state.token == server_token and _is_supervisor(state)


class Worker:
    """The accept loop: one forked child per run, its exit status back to its client."""

    def __init__(self, directory: Path, token: str, server_token: str, pythonpath: str) -> None:
        self.directory, self.token, self.server_token = directory, token, server_token
        self.identity = {**identity(), "pythonpath": pythonpath}
        self.children: dict[int, socket.socket | None] = {}  # child pid -> its client's connection
        self.stopping = False

    def still_wanted(self) -> bool:
        state = read_worker_state(self.directory)
        return (not self.stopping and state is not None and state.get("token") == self.token
                and _server_alive(self.directory, self.server_token))

    def serve(self) -> int:
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)  # wakes select through the pipe
        signal.signal(signal.SIGTERM, self._on_term)
        signal.signal(signal.SIGINT, self._on_term)
        listener = self._listen()
        self._fds = [wake_r, wake_w]
        try:
            with _locked(self.directory.parent):
                state = read_worker_state(self.directory)
                if state is None or state.get("token") != self.token:
                    return 0
                _write_state(self.directory, {**state, "identity": self.identity})
            self._loop(listener, wake_r)
        finally:
            listener.close()
            self._remove_files()
        return 0

    def _remove_files(self) -> None:
        """The socket and state file, if they are still this worker's."""
        with _locked(self.directory.parent):
            state = read_worker_state(self.directory)
            if state is not None and state.get("token") == self.token:
                (self.directory / STATE_NAME).unlink(missing_ok=True)
                (self.directory / SOCKET_NAME).unlink(missing_ok=True)

    def _on_term(self, signum: int, frame: object) -> None:
        self.stopping = True

    def _listen(self) -> socket.socket:
        path = self.directory / SOCKET_NAME
        path.unlink(missing_ok=True)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            listener.bind(str(path))
        finally:
            os.umask(old_umask)
        path.chmod(0o600)
        listener.listen(16)
        return listener

    def _loop(self, listener: socket.socket, wake_r: int) -> None:
        """Serve until no longer wanted; then, not accepting, until the runs under way have ended
        (their clients get their exit status)."""
        last_check, accepting = 0.0, True
        while accepting or self.children:
            if accepting and time.monotonic() - last_check >= POLL_SECONDS:
                last_check = time.monotonic()
                if not self.still_wanted():
                    accepting = False
                    listener.close()
                    self._remove_files()
            watched = [wake_r, *(c for c in self.children.values() if c)] + ([listener] if accepting else [])
            readable, _, _ = select.select(watched, [], [], POLL_SECONDS)
            if wake_r in readable:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_r, 512)
            self._reap()
            for conn in readable:
                if conn is listener:
                    self._accept(listener)
                elif conn is not wake_r:
                    self._client_said(conn)

    def _accept(self, listener: socket.socket) -> None:
        conn, _ = listener.accept()
        fds: list[int] = []
        try:
            conn.settimeout(REQUEST_TIMEOUT_S)
            request, fds = _read_request(conn)
            refused = mismatch(self.identity, request.get("identity") or {})
            if refused or len(fds) != 3:
                send_message(conn, {"refused": refused or "no stdio"})
                conn.close()
                return
        except Exception as exc:  # noqa: BLE001 - whatever a client sends, the worker keeps serving
            # said without anything the client sent: its request holds its environment
            print(f"worker: a request was not served ({type(exc).__name__})", file=sys.stderr, flush=True)
            conn.close()
            for fd in fds:
                os.close(fd)
            return
        try:
            pid = os.fork()
        except (OSError, RuntimeError) as exc:  # no memory, or a library's fork guard: the client runs it
            send_message(conn, {"refused": f"the worker could not fork ({type(exc).__name__})"})
            conn.close()
            for fd in fds:
                os.close(fd)
            return
        if pid == 0:  # the child never returns
            _run_child(request, fds, [listener, conn, *(c for c in self.children.values() if c)], self._fds)
        for fd in fds:
            os.close(fd)
        self.children[pid] = conn
        try:
            conn.settimeout(None)
            send_message(conn, {"started": pid})
        except OSError:  # the client is gone already: its run stops, as the client's own end would have
            self._hung_up(pid, conn)

    def _hung_up(self, pid: int, conn: socket.socket) -> None:
        conn.close()
        self.children[pid] = None
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)

    def _client_said(self, conn: socket.socket) -> None:
        pid = next(p for p, c in self.children.items() if c is conn)
        try:
            sig = int(read_message(conn).get("signal", 0))
        except Exception:  # noqa: BLE001 - gone, or not our protocol: its run stops as if it hung up
            self._hung_up(pid, conn)
            return
        if sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def _reap(self) -> None:
        for pid in list(self.children):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done == 0:
                continue
            conn = self.children.pop(pid)
            code = os.waitstatus_to_exitcode(status)
            if conn is not None:
                with contextlib.suppress(OSError):
                    send_message(conn, {"exit": code if code >= 0 else 128 - code})
                conn.close()


def _read_request(conn: socket.socket) -> tuple[JsonObject, list[int]]:
    from assay.worker_client import HEADER, MAX_MESSAGE

    header, fds, _, _ = socket.recv_fds(conn, HEADER.size, 3)
    if len(header) < HEADER.size:
        header += conn.recv(HEADER.size - len(header), socket.MSG_WAITALL)
    size = HEADER.unpack(header)[0]
    if size > MAX_MESSAGE:
        raise ValueError("request too large")
    body = b""
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            raise ConnectionError("closed")
        body += chunk
    request = json.loads(body)
    if not isinstance(request, dict):
        raise ValueError("not a request")
    return request, list(fds)


# -- a run's child ----------------------------------------------------------------------------------


def _run_child(request: JsonObject, fds: list[int], inherited: list[socket.socket], own_fds: list[int]) -> None:
    """Become the client's ``assay`` process for one command, then exit with its status."""
    code = EXIT_FAILED
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a new interpreter
        for sock in inherited:
            sock.close()
        for fd in own_fds:
            os.close(fd)
        _die_with_parent()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        _adopt_stdio(request["stdio"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.argv = [str(a) for a in request["argv"]]
        sys.modules["__main__"].__package__ = request.get("main_package")  # click's program name, as the client's
        os.umask(int(request["umask"]))
        sys.path[:] = [str(p) for p in request["sys_path"]]
        code = _run_command()
    except KeyboardInterrupt:  # Ctrl-C before the run installed its handlers: as the interpreter ends
        code = 128 + signal.SIGINT
    except BaseException as exc:  # noqa: BLE001 - the child must reach os._exit, and says one line
        with contextlib.suppress(Exception):
            if os.environ.get("ASSAY_DEBUG") == "1":  # as assay.cli.main: where it happened, on request
                import traceback

                traceback.print_exc()
            sys.stderr.write(f"assay: the resident worker could not run the command: {type(exc).__name__}\n")
    finally:
        _exit(code)


def _adopt_stdio(stdio: list[list[str]]) -> None:
    """New text streams on descriptors 0-2 (now the client's), with the client's encodings."""
    for fd, name, (encoding, errors) in zip((0, 1, 2), ("stdin", "stdout", "stderr"), stdio, strict=True):
        line_buffered = fd == 2 or (fd == 1 and os.isatty(fd))  # as the interpreter's own streams
        stream = open(fd, "r" if fd == 0 else "w", buffering=1 if line_buffered else -1,  # noqa: SIM115
                      encoding=encoding, errors=errors, closefd=False)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _run_command() -> int:
    """``assay.cli.main`` as in a new process: its environment applied to Prefect first."""
    import assay.worker_client
    from assay import cli, timeline

    assay.worker_client._decided = True  # noqa: SLF001 - this is the worker's child: it runs the command
    timeline.mark("worker child forked")
    _note_imports_at_exit(set(sys.modules))
    _forget_warnings()
    cli._prepare_prefect(any(arg in ("-v", "--verbose") for arg in sys.argv[2:]))  # noqa: SLF001
    # the kept server this worker was started for, which the run uses as one it found up
    cli.worker_lease = lease_running()
    _refresh_prefect()
    timeline.mark("worker child set up (lease, Prefect settings)")
    try:
        cli.main()
    except SystemExit as exc:
        return _status_of(exc.code)
    return 0


def _note_imports_at_exit(loaded: set[str]) -> None:
    """With ASSAY_TIMELINE=1: which modules the run imported that the worker had not (each one
    is import time every run pays; ``WARM_MODULES`` is where to add it)."""
    import atexit

    from assay import timeline

    # registered after the timeline's own exit handler, so it runs before that one prints
    atexit.register(lambda: timeline.note("modules the run imported", sorted(set(sys.modules) - loaded)))


def _forget_warnings() -> None:
    """A warning shown once per place shows again, as in a new process (the worker may have seen it)."""
    import warnings

    kept = list(warnings.filters)
    warnings.resetwarnings()  # marks every module's record of shown warnings out of date
    warnings.filters[:] = kept
    warnings.onceregistry.clear()


def _refresh_prefect() -> None:
    """Prefect reads its settings and configures logging when imported: again, with this environment
    (and handlers that write to this stderr)."""
    from prefect.context import refresh_global_settings_context
    from prefect.logging.configuration import setup_logging

    refresh_global_settings_context()
    setup_logging(incremental=False)


def _status_of(code: object) -> int:
    """An exit status as the interpreter makes it from ``SystemExit.code``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    sys.stderr.write(f"{code}\n")
    return EXIT_FAILED


def _exit(code: int) -> None:
    """End the child as an interpreter ends: wait for its threads, run its exit handlers, flush."""
    import atexit
    import threading

    with contextlib.suppress(BaseException):
        threading._shutdown()  # type: ignore[attr-defined]  # noqa: SLF001 - what Py_Finalize does first
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()  # noqa: SLF001 - the run's own (its lease, ASSAY_TIMELINE's line)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    os._exit(code)


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog=f"python -m {WORKER_MODULE}")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="import, warm up and serve runs (started by `assay server start`)")
    serve.add_argument("--token", required=True)
    serve.add_argument("--server-token", required=True)
    serve.add_argument("--pythonpath", default="")
    serve.add_argument("--dir", type=Path, required=True)
    args = parser.parse_args(argv)
    before = identity()["tree"]
    from assay.cli import _prepare_prefect

    _prepare_prefect(verbose=False)  # Prefect is imported with the settings a run's command line gives it
    _warm()
    worker = Worker(args.dir, args.token, args.server_token, args.pythonpath)
    if worker.identity["tree"] != before:  # the tree changed while it was imported: which code is loaded?
        print("worker: the code changed while it was imported; not serving", file=sys.stderr, flush=True)
        return 1
    if threading_started():
        print("worker: a Python thread started while warming up; not serving (forking it would be unsafe)",
              file=sys.stderr, flush=True)
        return 1
    return worker.serve()


def threading_started() -> bool:
    import threading

    return threading.active_count() > 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
