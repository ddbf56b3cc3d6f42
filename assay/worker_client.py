"""Hand ``assay run`` to the resident worker, if one is up and runs this very code.

A new process spends 4-5 s importing Prefect, the flow and their libraries before a run's
first step; the resident worker (``flows/warm_worker.py``, started by ``assay server start``)
has them imported already and forks a child per run. This client is standard library only, so
deciding costs milliseconds. It hands a run over only when the worker matches this process:

- the same tree (``tree_version``: the code-version hash of ``assay/`` that step caches key on,
  plus ``flows/`` and ``tasks/``, imported as ``assay.flows`` and ``assay.tasks``), the same Python executable, the same ``assay`` package
  directory and the same ``PYTHONPATH``;
- the run would use the kept local server (no ``PREFECT_API_URL`` of its own, no
  ``ASSAY_SERVER_IDLE_SECONDS=0``, no ``ASSAY_EARLY_SERVER=0``), as the worker's children do;
- ``ASSAY_WORKER`` is not ``0``.

It sends argv, the working directory, ``sys.path`` and the environment (secrets included: they
cross this user's 0600 socket only and are never logged or stored) with its stdin, stdout and
stderr descriptors (``SCM_RIGHTS``), so the child writes straight to this terminal. It relays
SIGINT and SIGTERM to the child and exits with the child's status. Anything unusual before the
child starts (no socket, another tree, a refused or broken connection) returns ``None``: the
caller runs the command in this process exactly as without a worker.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import struct
import sys
from pathlib import Path
from typing import Any

OPT_OUT_ENV = "ASSAY_WORKER"
SOCKET_NAME = "worker.sock"
STATE_NAME = "worker.json"
HEADER = struct.Struct(">I")  # every message: its length, then that many bytes of JSON
MAX_MESSAGE = 64 * 1024 * 1024
CONNECT_TIMEOUT_S = 5.0
EXIT_FAILED = 1
_decided = False  # once per process: the console entry asks first, assay.cli.main then runs here


def worker_dir(home: Path | None = None) -> Path:
    """Where the worker's socket and state live: beside the kept server's (``flows/local_server.py``), mode 0700."""
    home = home or Path(os.environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser().resolve()
    return home / "assay-server" / "worker"


def tree_version() -> str:
    """The code version step caches key on (``assay/``), extended to the flow's own packages."""
    # FLOW_PACKAGES: the flow code (assay.flows, assay.tasks) code_version leaves out
    from assay.lineage.code_version import FLOW_PACKAGES, code_version
    from assay.paths import PACKAGE_DIR

    digest = hashlib.sha256(code_version().encode())
    for package in FLOW_PACKAGES:
        root = PACKAGE_DIR / package  # the repository's flows/ (a link in a checkout) or the wheel's copy
        for path in sorted(root.rglob("*.py")) if root.is_dir() else []:
            if "__pycache__" not in path.parts:
                digest.update(path.relative_to(root.parent).as_posix().encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def identity() -> dict[str, str]:
    """What must be equal between this process and the worker for a run to be the same run."""
    from assay.paths import PACKAGE_DIR

    return {"tree": tree_version(), "python": sys.executable, "package": str(PACKAGE_DIR),
            "pythonpath": os.environ.get("PYTHONPATH", ""), "interpreter": interpreter_options()}


def interpreter_options() -> str:
    """What the interpreter read when it started and a forked child cannot change: its flags
    (-O, -X dev, -W …) and the ``PYTHON*`` variables (``PYTHONHASHSEED``, ``PYTHONWARNINGS`` …),
    as a hash (the worker's state file records it; no variable's value is written there)."""
    variables = sorted((k, v) for k, v in os.environ.items() if k.startswith("PYTHON") and k != "PYTHONPATH")
    return hashlib.sha256(json.dumps([repr(sys.flags), sys.warnoptions, variables]).encode()).hexdigest()


def mismatch(mine: dict[str, str], theirs: dict[str, str]) -> str | None:
    """The first field that differs, said for a person; None when they match."""
    words = {"tree": "code", "python": "a different Python executable", "package": "a different assay package",
             "pythonpath": "a different PYTHONPATH",
             "interpreter": "different interpreter options (flags or PYTHON* variables)"}
    for key, what in words.items():
        if mine.get(key) != theirs.get(key):
            return f"the resident worker was started with {'other ' if key == 'tree' else ''}{what}"
    return None


def uses_kept_server(env: os._Environ[str] | dict[str, str]) -> bool:
    """The run would use the kept local server, as every run in the worker does."""
    if env.get("PREFECT_API_URL") or env.get("ASSAY_EARLY_SERVER") == "0":
        return False
    if env.get("PREFECT_SERVER_EPHEMERAL_ENABLED", "").lower() in ("0", "false", "no"):
        return False
    idle = env.get("ASSAY_SERVER_IDLE_SECONDS", "").strip()
    try:
        return not idle or float(idle) > 0
    except ValueError:
        return False  # the run itself says what is wrong with it


# -- messages ---------------------------------------------------------------------------------------


def send_message(sock: socket.socket, message: dict[str, Any], fds: list[int] | None = None) -> None:
    body = json.dumps(message).encode()
    header = HEADER.pack(len(body))
    if fds:
        socket.send_fds(sock, [header], fds)
    else:
        sock.sendall(header)
    sock.sendall(body)


def _recv_exactly(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(left)
        if not chunk:
            raise ConnectionError("closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_message(sock: socket.socket) -> dict[str, Any]:
    size = HEADER.unpack(_recv_exactly(sock, HEADER.size))[0]
    if size > MAX_MESSAGE:
        raise ConnectionError("message too large")
    message = json.loads(_recv_exactly(sock, size))
    if not isinstance(message, dict):
        raise ConnectionError("not a message")
    return message


# -- the client -------------------------------------------------------------------------------------


def _dim(line: str) -> None:
    colour = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
    sys.stderr.write(f"\x1b[2m{line}\x1b[0m\n" if colour else f"{line}\n")
    sys.stderr.flush()


def _worker_state(directory: Path) -> dict[str, Any] | None:
    try:
        state = json.loads((directory / STATE_NAME).read_text())
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) and isinstance(state.get("identity"), dict) else None


def _connect(directory: Path, worker_pid: int) -> socket.socket | None:
    """A connection to the worker's socket whose peer is that worker, run by this user."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        sock.connect(str(directory / SOCKET_NAME))
        peer = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
        if peer[0] != worker_pid or peer[1] != os.getuid():
            raise ConnectionError("not the recorded worker")
        return sock
    except (OSError, ValueError, struct.error):
        sock.close()
        return None


def _plain_stdio() -> bool:
    """sys.stdin/stdout/stderr are descriptors 0-2, which the child can be given (not closed, not
    replaced by a caller that captures them in memory)."""
    try:
        return [s.fileno() for s in (sys.stdin, sys.stdout, sys.stderr)] == [0, 1, 2]
    except (AttributeError, OSError, ValueError):  # None, io.StringIO, a closed stream
        return False


def hand_over(argv: list[str]) -> int | None:
    """Run ``assay ARGV`` in the resident worker and return its exit status, or None to run here."""
    global _decided
    if _decided:
        return None
    _decided = True
    if not argv or argv[0] != "run" or "--help" in argv or os.environ.get(OPT_OUT_ENV) == "0":
        return None
    if not uses_kept_server(os.environ) or not hasattr(socket, "SO_PEERCRED"):
        return None
    if not _plain_stdio():
        return None
    directory = worker_dir()
    state = _worker_state(directory)
    if state is None:
        return None
    mine = identity()
    different = mismatch(mine, state["identity"])
    if different:
        _dim(f"assay: {different}; running in this process (`assay server start` renews it)")
        return None
    sock = _connect(directory, int(state.get("pid", -1)))
    if sock is None:
        return None
    with sock:
        return _run_remote(sock, argv, mine)


def _run_remote(sock: socket.socket, argv: list[str], mine: dict[str, str]) -> int | None:
    umask = os.umask(0o077)
    os.umask(umask)
    request = {"argv": [sys.argv[0], *argv], "cwd": os.getcwd(), "env": dict(os.environ), "sys_path": sys.path,
               "identity": mine, "umask": umask,
               # click names the program from these (`assay run` or `python -m assay.cli run` in its usage lines)
               "main_package": getattr(sys.modules.get("__main__"), "__package__", None),
               "stdio": [[s.encoding, s.errors] for s in (sys.stdin, sys.stdout, sys.stderr)]}
    started = False

    def relay(signum: int, frame: object) -> None:
        if not started:  # nothing runs yet, or the worker does not answer: this process ends, and so does the run
            raise KeyboardInterrupt
        with contextlib.suppress(OSError):
            send_message(sock, {"signal": int(signum)})

    previous = {sig: signal.signal(sig, relay) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        try:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            send_message(sock, request, [0, 1, 2])
            sock.settimeout(None)  # once sent, the run may start: never also run it here after a timeout
            reply = read_message(sock)
        except (OSError, ValueError, ConnectionError, TypeError, AttributeError, struct.error):
            return None  # nothing ran: the worker answered nothing, or refused the descriptors
        if "started" not in reply:
            return None  # refused (e.g. another tree): this process runs it
        started = True
        while "exit" not in reply:
            reply = read_message(sock)
        return int(reply["exit"])
    except (OSError, ValueError, ConnectionError, struct.error):
        sys.stderr.write("assay: the resident worker stopped during the run; rerun it (ASSAY_WORKER=0 runs here)\n")
        sys.stderr.flush()
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
