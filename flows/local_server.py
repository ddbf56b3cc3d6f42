"""A local Prefect server that outlives one CLI run, so the next run finds it up.

Starting Prefect's temporary server costs an identical rerun most of its seconds (about 3 CPU
seconds of Prefect's own imports, and the wall time of its start-up). When no
``PREFECT_API_URL`` is set and ``ASSAY_SERVER_IDLE_SECONDS`` is not ``0``, ``assay run`` and
``assay rerun`` use a server that assay started earlier for the same ``PREFECT_HOME``, or start
one that stays up after the run:

- **Detached**: a small supervisor (``python -m assay.flows.local_server serve``) in its own session,
  with the same server command and environment as the temporary server
  (``flows/ephemeral_server.py``: loopback, a free port, telemetry off, offline switches, no block
  catalogue). Its log is ``PREFECT_HOME/assay-server/server.log``.
- **Found again**: ``PREFECT_HOME/assay-server/state.json`` records the supervisor's pid, the
  port, the start time, a random token, the Prefect version and ``PREFECT_HOME``. A client uses
  it only if that pid is alive and is this supervisor with this token (its command line), and
  the version and home match; otherwise the file is stale and replaced. ``wait`` then checks
  ``/api/health``.
- **One at a time**: finding or starting a server happens under ``fcntl.flock`` on
  ``PREFECT_HOME/assay-server/lock``, so concurrent runs start one server.
- **Gone when idle**: every run holds a lease (``leases/<pid>``) from before it reads the state
  until it ends. The supervisor shuts the server down once no live lease has existed for the idle
  period (the setting of the run that started it) — checked under the same lock, so a run that
  has just taken a lease is never left without its server — or at once when its state file is
  removed or names another token. A lease whose process died counts as released.

``assay server status`` and ``assay server stop`` show and stop it. Nothing here imports
prefect: the client sets ``PREFECT_API_URL`` before Prefect reads its settings.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import importlib.metadata
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from assay.flows.ephemeral_server import (
    FLOW_RUN_MODULES,
    free_port,
    keyless_env,
    server_command,
    server_env,
    wait_healthy,
)
from assay.paths import PACKAGE_DIR

IDLE_ENV = "ASSAY_SERVER_IDLE_SECONDS"
DEFAULT_IDLE_SECONDS = 600.0
SUPERVISOR_MODULE = "assay.flows.local_server"
POLL_SECONDS = 0.5


def idle_seconds() -> float:
    """``ASSAY_SERVER_IDLE_SECONDS``; 0 means a temporary server per run, stopped at its exit."""
    raw = os.environ.get(IDLE_ENV, "").strip()
    if not raw:
        return DEFAULT_IDLE_SECONDS
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{IDLE_ENV} must be a number of seconds, got {raw!r}") from None
    if value < 0:
        raise ValueError(f"{IDLE_ENV} must be 0 or more, got {raw!r}")
    return value


def prefect_home() -> Path:
    return Path(os.environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser().resolve()


def server_dir(home: Path | None = None) -> Path:
    return (home or prefect_home()) / "assay-server"


def prefect_version() -> str:
    return importlib.metadata.version("prefect")


@dataclass(frozen=True)
class ServerState:
    pid: int  # the supervisor's
    port: int
    started: float
    token: str
    prefect_version: str
    prefect_home: str
    idle_seconds: float

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"


def read_state(directory: Path) -> ServerState | None:
    try:
        return ServerState(**json.loads((directory / "state.json").read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _write_state(directory: Path, state: ServerState) -> None:
    tmp = directory / "state.json.tmp"
    tmp.write_text(json.dumps(asdict(state)))
    tmp.replace(directory / "state.json")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _is_supervisor(state: ServerState) -> bool:
    """The pid is alive and is the supervisor started with this token (not a reused pid)."""
    if Path("/proc/self").is_dir():
        try:
            argv = Path(f"/proc/{state.pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return False
    else:  # no procfs (macOS): ask ps
        done = subprocess.run(["ps", "-o", "command=", "-p", str(state.pid)], capture_output=True)
        argv = done.stdout.split()
    return SUPERVISOR_MODULE.encode() in argv and state.token.encode() in argv


def owned_state(directory: Path) -> ServerState | None:
    """The recorded server if it is ours and running: same Prefect, same home, live supervisor."""
    state = read_state(directory)
    if state is None or state.prefect_version != prefect_version() or state.prefect_home != str(directory.parent):
        return None
    return state if _is_supervisor(state) else None


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / "lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class LocalServer:
    """A client's hold on the local server: its lease, until ``release``."""

    def __init__(self, state: ServerState, lease: Path, started_here: bool) -> None:
        self.state, self.lease, self.started_here = state, lease, started_here
        os.environ["PREFECT_API_URL"] = self.api_url
        atexit.register(self.release)

    @property
    def api_url(self) -> str:
        return self.state.api_url

    def wait(self, timeout_s: float, warm: tuple[str, ...] = FLOW_RUN_MODULES) -> None:
        wait_healthy(self.api_url, timeout_s, warm, alive=lambda: _is_supervisor(self.state),
                     what=f"assay's local Prefect server (log: {self.lease.parent.parent / 'server.log'})")

    def release(self) -> None:
        """End this run's lease: the idle period starts when the last lease ends."""
        with contextlib.suppress(FileNotFoundError):
            self.lease.unlink()

    def discard(self) -> None:
        """The run will not happen: release the lease (the server stays for the next run)."""
        self.release()
        atexit.unregister(self.release)
        if os.environ.get("PREFECT_API_URL") == self.api_url:
            del os.environ["PREFECT_API_URL"]


def acquire(idle_s: float, home: Path | None = None) -> LocalServer:
    """Take a lease on this home's running server, or start one, under the lock."""
    directory = server_dir(home)
    with _locked(directory):
        lease = _take_lease(directory)
        state = owned_state(directory)
        if state is not None:
            return LocalServer(state, lease, started_here=False)
        state = _start(directory, idle_s)
        return LocalServer(state, lease, started_here=True)


def lease_running(home: Path | None = None) -> LocalServer | None:
    """Take a lease on this home's server if one runs; never start one (the resident worker's
    children: a run's key variables are known only after its checks)."""
    directory = server_dir(home)
    with _locked(directory):
        state = owned_state(directory)
        return LocalServer(state, _take_lease(directory), started_here=False) if state is not None else None


def _take_lease(directory: Path) -> Path:
    leases = directory / "leases"
    leases.mkdir(exist_ok=True)
    lease = leases / str(os.getpid())
    lease.touch()
    return lease


def _start(directory: Path, idle_s: float) -> ServerState:
    token = secrets.token_hex(8)
    port = free_port()
    package_root = str(PACKAGE_DIR.parent)  # the folder that holds assay (checkout or site-packages)
    # The supervisor and its server never call a provider: no key, token or header variable
    # stays in their environment for the idle minutes they outlive the run (server_env drops
    # them again for the server itself).
    env = {**keyless_env(),
           "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    env.pop("PREFECT_API_URL", None)
    with open(directory / "server.log", "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", SUPERVISOR_MODULE, "serve", "--port", str(port), "--token", token,
             "--idle", str(idle_s), "--dir", str(directory)],
            env=env, cwd=str(directory), stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
        )
    state = ServerState(pid=process.pid, port=port, started=time.time(), token=token,
                        prefect_version=prefect_version(), prefect_home=str(directory.parent), idle_seconds=idle_s)
    _write_state(directory, state)
    return state


def stop(home: Path | None = None, timeout_s: float = 15.0) -> ServerState | None:
    """Stop this home's server if one runs; returns what was stopped."""
    directory = server_dir(home)
    with _locked(directory):
        state = owned_state(directory)
        (directory / "state.json").unlink(missing_ok=True)  # a supervisor without it stops too
    if state is None:
        return None
    with contextlib.suppress(ProcessLookupError):
        os.kill(state.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while _pid_alive(state.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return state


# -- the supervisor (the detached process) ----------------------------------------------------------


def _live_leases(leases: Path) -> int:
    live = 0
    for lease in leases.glob("*"):
        if lease.name.isdigit() and _pid_alive(int(lease.name)):
            live += 1
        else:
            lease.unlink(missing_ok=True)  # its run died without releasing it
    return live


def _still_named(directory: Path, token: str) -> bool:
    state = read_state(directory)
    return state is not None and state.token == token


def _die_with_parent() -> None:
    """In the server process: Linux sends it SIGTERM if the supervisor dies, even by SIGKILL."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def serve(port: int, token: str, idle_s: float, directory: Path) -> int:
    """Run the server until it is idle for ``idle_s``, its state file stops naming it, or SIGTERM."""
    with _locked(directory):  # the client that started us has written the state file
        pass
    server = subprocess.Popen(server_command(port), env=server_env(), stdin=subprocess.DEVNULL,
                              preexec_fn=_die_with_parent)
    stopping = False

    def on_term(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    leases = directory / "leases"
    last_busy = time.monotonic()
    try:
        while not stopping and server.poll() is None:
            if not _still_named(directory, token):
                break
            if _live_leases(leases):
                last_busy = time.monotonic()
            elif time.monotonic() - last_busy >= idle_s:
                with _locked(directory):  # no run can take a lease while we decide
                    if not _live_leases(leases) and _still_named(directory, token):
                        (directory / "state.json").unlink(missing_ok=True)
                        break
                last_busy = time.monotonic()
            time.sleep(POLL_SECONDS)
    finally:
        with _locked(directory):
            if _still_named(directory, token):
                (directory / "state.json").unlink(missing_ok=True)
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    return 0


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog=f"python -m {SUPERVISOR_MODULE}")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("serve", help="run the server until idle (started by assay itself)")
    run.add_argument("--port", type=int, required=True)
    run.add_argument("--token", required=True)
    run.add_argument("--idle", type=float, required=True)
    run.add_argument("--dir", type=Path, required=True)
    args = parser.parse_args(argv)
    return serve(args.port, args.token, args.idle, args.dir)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
