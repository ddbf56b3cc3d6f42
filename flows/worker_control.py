"""Starting, finding, describing and stopping the resident worker (``assay server start|status|stop``).

The control side of ``flows/warm_worker.py``: the CLI imports this module, never the worker's
serving side, which itself runs ``assay.cli`` in its children (so the two never import each other).
The worker's state file (``PREFECT_HOME/assay-server/worker/``, 0600) names its pid and token;
a pid is taken for the worker only while its command line still names that token.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from assay.atomic_files import atomic_write
from assay.flows.local_server import ServerState, _is_supervisor, _locked, _pid_alive
from assay.paths import PACKAGE_DIR
from assay.worker_client import OPT_OUT_ENV, SOCKET_NAME, STATE_NAME, identity, mismatch, worker_dir

if TYPE_CHECKING:  # annotations only
    from assay.schemas import JsonObject

WORKER_MODULE = "assay.flows.warm_worker"
READY_TIMEOUT_S = 300.0


def read_worker_state(directory: Path) -> JsonObject | None:
    try:
        state = json.loads((directory / STATE_NAME).read_text())
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


def _is_worker(state: JsonObject) -> bool:
    """The recorded pid is alive and is the worker started with that token (not a reused pid)."""
    try:
        argv = Path(f"/proc/{int(state['pid'])}/cmdline").read_bytes().split(b"\0")
    except (OSError, KeyError, ValueError, TypeError):
        return False
    return WORKER_MODULE.encode() in argv and str(state.get("token", "")).encode() in argv


def _write_state(directory: Path, state: JsonObject) -> None:
    atomic_write(directory / STATE_NAME, json.dumps(state).encode(), mode=0o600)


def running_worker(home: Path | None = None) -> JsonObject | None:
    """The worker of this home, if one is up (ready or still importing)."""
    state = read_worker_state(worker_dir(home))
    return state if state is not None and _is_worker(state) else None


# -- started and stopped by `assay server start|stop` ----------------------------------------------


def start(server: ServerState, home: Path | None = None, timeout_s: float = READY_TIMEOUT_S) -> JsonObject:
    """Start the worker for ``server`` unless one runs for it; wait until it listens."""
    directory = worker_dir(home)
    stale = running_worker(home)
    if stale is not None and (stale.get("server_token") != server.token
                              or mismatch(identity(), stale.get("identity") or identity())):
        stop(home)  # left from an earlier server, or runs other code than this tree's
    with _locked(directory.parent):
        directory.mkdir(mode=0o700, exist_ok=True)
        directory.chmod(0o700)
        state = running_worker(home)
        launched = _launch(directory, server) if state is None else None
        state = launched[0] if launched else state
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        current = read_worker_state(directory)
        # between its fork and exec a new process still shows our command line: ask Popen
        alive = launched[1].poll() is None if launched else current is not None and _is_worker(current)
        if current is None or current.get("token") != state["token"] or not alive:
            raise RuntimeError(f"the resident worker exited while starting (log: {directory / 'worker.log'})")
        if "identity" in current:
            return current
        time.sleep(0.1)
    raise RuntimeError(f"the resident worker was not ready within {timeout_s:.0f} s (log: {directory / 'worker.log'})")


def _launch(directory: Path, server: ServerState) -> tuple[JsonObject, subprocess.Popen[bytes]]:
    from assay.flows.ephemeral_server import keyless_env

    token = secrets.token_hex(8)
    package_root = str(PACKAGE_DIR.parent)  # the folder that holds assay (checkout or site-packages)
    given_path = os.environ.get("PYTHONPATH", "")
    env = {**keyless_env(), "PREFECT_API_URL": server.api_url,
           "PYTHONPATH": os.pathsep.join(filter(None, [package_root, given_path]))}
    with open(os.open(directory / "worker.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", WORKER_MODULE, "serve", "--token", token, "--server-token", server.token,
             "--pythonpath", given_path, "--dir", str(directory)],
            env=env, cwd=str(directory), stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
        )
    state = {"pid": process.pid, "token": token, "server_token": server.token, "started": time.time()}
    _write_state(directory, state)
    return state, process


def stop(home: Path | None = None, timeout_s: float = 15.0) -> JsonObject | None:
    """Stop this home's worker if one runs; its socket and state file go with it."""
    directory = worker_dir(home)
    if not directory.is_dir():
        return None
    with _locked(directory.parent):
        state = running_worker(home)
        (directory / STATE_NAME).unlink(missing_ok=True)  # a worker whose state file is gone stops too
    if state is not None:
        _terminate(state, timeout_s)
    (directory / SOCKET_NAME).unlink(missing_ok=True)
    return state


def _terminate(state: JsonObject, timeout_s: float = 15.0) -> None:
    pid = int(state["pid"])
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while _pid_alive(pid) and _is_worker(state) and time.monotonic() < deadline:
        time.sleep(0.05)


def start_beside_server() -> str:
    """``assay server start``: the kept server (found or started) and, unless ``ASSAY_WORKER=0``,
    the worker beside it; what runs, in lines."""
    from assay import apply_offline_env
    from assay.flows.local_server import acquire, idle_seconds

    apply_offline_env()
    if os.environ.get("PREFECT_API_URL"):
        raise ValueError("PREFECT_API_URL is set: runs use that server, so assay keeps none")
    idle = idle_seconds()
    if idle <= 0:
        raise ValueError("ASSAY_SERVER_IDLE_SECONDS=0 asks for a temporary server per run: there is none to keep")
    server = acquire(idle)
    deadline = time.monotonic() + 10
    while server.started_here and not _is_supervisor(server.state) and time.monotonic() < deadline:
        time.sleep(0.05)  # between its fork and its exec a new process still shows our command line
    try:
        server.wait(float(os.environ.get("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")), warm=())
        lines = [f"server:   {server.api_url} (pid {server.state.pid}, {'started' if server.started_here else 'already up'}; "
                 f"stops after {idle:g} s without a run)"]
        if os.environ.get(OPT_OUT_ENV) == "0":
            return "\n".join([*lines, f"worker:   not started ({OPT_OUT_ENV}=0)"])
        if not hasattr(socket, "SO_PEERCRED"):  # the client could not check who answers on the socket
            return "\n".join([*lines, "worker:   not started (it needs Linux)"])
        start(server.state)
    finally:
        server.release()
    return "\n".join([*lines, describe()])


def describe(home: Path | None = None) -> str:
    """The worker's line in ``assay server status``."""
    state = running_worker(home)
    if state is None:
        return "worker:   none (`assay server start` starts one)"
    if "identity" not in state:
        return f"worker:   pid {state['pid']}, starting"
    other = mismatch(identity(), state["identity"])
    return (f"worker:   pid {state['pid']}, ready on {worker_dir(home) / SOCKET_NAME}"
            + (f" ({other}: runs of this tree start in their own process)" if other else ""))
