"""Start Prefect's temporary local server early, beside the imports, not after them.

Without ``PREFECT_API_URL`` Prefect starts a temporary server on the first API call: it
imports the whole server application in the calling process (seconds of CPU, only to build a
command line), then launches the same server in a subprocess and waits for it. The command line
starts it here instead, as the very first thing, with the same command and environment Prefect
uses (``SubprocessASGIServer``), so the server boots while this process imports the flow,
pandas and the suite, and the server application is imported once, in the child only.

Nothing here imports prefect: Prefect reads ``PREFECT_API_URL`` into its settings when it is
first imported, so ``start_early`` sets it before that (and does nothing once prefect is
imported, e.g. a second run in one process). ``wait`` blocks until the server answers
``/api/health``, and meanwhile imports what the flow run needs next (this process is idle
while the server boots). Like Prefect's own temporary server, it lives until the process exits.

Two things a server that lives and dies with one run does not need, and which cost seconds:

- Registering Prefect's built-in block catalogue at start-up (``SERVER_ENV``): only the UI
  offers it, and this server has none. The block type a run uses (its result storage) is
  registered by ``Block.save`` itself; a persistent ``prefect server start`` still registers the
  catalogue when it starts.
- Flow run heartbeats (``no_heartbeats``): they let a server notice a run whose process died,
  but this server dies with that process. Their thread is joined at the end of the flow run,
  which waits out its one-second sleep (half a second on average).

A user's own value for any of these settings wins.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from assay.spec import RunSpec

SERVER_ENV = {"PREFECT_API_BLOCKS_REGISTER_ON_START": "false", "PREFECT_MEMOIZE_BLOCK_AUTO_REGISTRATION": "false"}
HEARTBEAT_ENV = ("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "PREFECT_RUNNER_HEARTBEAT_FREQUENCY")

# Imported by the flow run after the server is up (measured with ``ASSAY_TIMELINE``); importing
# them while waiting for it takes them off the critical path. A missing one is skipped.
FLOW_RUN_MODULES = (
    "fastapi.encoders",  # Prefect serializes flow parameters with it
    "prefect.engine", "prefect.flow_engine", "prefect.task_engine", "prefect.artifacts",
    "prefect.utilities.visualization", "prefect.concurrency.context", "prefect.telemetry.run_telemetry",
)
# What the first run in an output folder (no cached step yet) imports next: Great Expectations
# for the validation gate, seconds of CPU. A rerun, whose steps are cache hits, never imports it.
FIRST_RUN_MODULES = (
    "great_expectations", "great_expectations.data_context.types.base",
    "great_expectations.expectations.expectation_configuration",
)
# What a run with remote judges imports at its first judge call: the lean transport's HTTP
# client (~0.3 s; litellm imports it too), otherwise paid inside the judge step.
JUDGE_CALL_MODULES = ("aiohttp",)


def warm_modules(spec: RunSpec, first_run: bool) -> tuple[str, ...]:
    """The modules to import while the server is awaited, for this run."""
    judged = bool(spec.jury and spec.jury.judges)
    return FLOW_RUN_MODULES + (FIRST_RUN_MODULES if first_run else ()) + (JUDGE_CALL_MODULES if judged else ())


class RunServer(Protocol):
    """What a run asks of the server it started early: this module's temporary one, or assay's
    local server kept up between runs (``flows/local_server.py``)."""

    @property
    def api_url(self) -> str: ...

    def wait(self, timeout_s: float, warm: tuple[str, ...] = FLOW_RUN_MODULES) -> None: ...

    def release(self) -> None: ...

    def discard(self) -> None: ...


class EarlyServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.process = _launch(self.port)
        os.environ["PREFECT_API_URL"] = self.api_url
        atexit.register(self.stop)

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    def wait(self, timeout_s: float, warm: tuple[str, ...] = FLOW_RUN_MODULES) -> None:
        """Import ``warm`` modules, then block until the server is healthy."""
        wait_healthy(self.api_url, timeout_s, warm, alive=lambda: self.process.poll() is None,
                     what="Prefect's temporary server")

    def release(self) -> None:
        """The run is over; this server still stops only at exit (a second run in this process may use it)."""

    def discard(self) -> None:
        """Stop the server now and forget it: the run it was started for will not happen."""
        self.stop()
        atexit.unregister(self.stop)
        if os.environ.get("PREFECT_API_URL") == self.api_url:
            del os.environ["PREFECT_API_URL"]

    def stop(self) -> None:
        from assay import timeline

        timeline.mark("server stop")
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        timeline.mark("server stopped")


def start_early(launch: Callable[[], RunServer] | None = None) -> RunServer | None:
    """Start the temporary server now if Prefect would start one (no API URL, not disabled)
    and can still be told where it is (not imported yet); ``launch`` replaces the temporary
    server with another (assay's local server, ``flows/local_server.py``)."""
    if os.environ.get("ASSAY_EARLY_SERVER") == "0":  # Prefect starts its own, later (benchmarks compare)
        return None
    if "prefect" in sys.modules or os.environ.get("PREFECT_API_URL") or os.environ.get("PREFECT_SERVER_EPHEMERAL_ENABLED", "").lower() in (
        "0", "false", "no",
    ):
        return None
    if importlib.util.find_spec("prefect") is None or importlib.util.find_spec("uvicorn") is None:
        return None
    return launch() if launch is not None else EarlyServer()


@contextmanager
def no_heartbeats() -> Iterator[None]:
    """Flow runs in this block (this thread) send no heartbeats, unless the user set a frequency."""
    if any(os.environ.get(name) for name in HEARTBEAT_ENV):
        yield
        return
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield


# The server's own settings (its database, e.g. PREFECT_SERVER_DATABASE_PASSWORD) stay with it.
SERVER_SETTINGS = ("PREFECT_SERVER_", "PREFECT_API_DATABASE_")


def keyless_env() -> dict[str, str]:
    """This process's environment without any key, token or header variable
    (``assay.redact.without_secrets``), the server's own settings kept: the server never calls a
    provider, and a kept server outlives the run by minutes."""
    from assay.redact import without_secrets

    own = {name: value for name, value in os.environ.items() if name.startswith(SERVER_SETTINGS)}
    return {**without_secrets(dict(os.environ)), **own}


def server_env() -> dict[str, str]:
    """The server's environment: ``keyless_env``, with ``SERVER_ENV`` where the user set nothing."""
    return {**SERVER_ENV, **keyless_env(), "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1", "PREFECT__SERVER_FINAL": "1"}


def wait_healthy(api_url: str, timeout_s: float, warm: tuple[str, ...], alive: Callable[[], bool], what: str) -> None:
    """Import ``warm`` modules (a missing one is skipped), then block until ``api_url`` answers
    ``/api/health``; fails as soon as ``alive`` says the server process is gone."""
    deadline = time.monotonic() + timeout_s
    for name in warm:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    while time.monotonic() < deadline:
        if not alive():
            raise RuntimeError(f"{what} exited")
        if healthy(api_url):
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not answer within {timeout_s:.0f} s")


def healthy(api_url: str) -> bool:
    """Whether the Prefect API at ``api_url`` answers its health check."""
    try:
        with urllib.request.urlopen(f"{api_url}/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_command(port: int) -> list[str]:
    """The command Prefect runs for its temporary server (``SubprocessASGIServer``), loopback only."""
    spec = importlib.util.find_spec("prefect")
    assert spec is not None and spec.origin is not None
    app_dir = Path(spec.origin).parent.parent  # what Prefect passes: prefect.__module_path__.parent
    return [
        sys.executable, "-m", "uvicorn", "--app-dir", str(app_dir), "--factory",
        "prefect.server.api.server:create_app", "--host", "127.0.0.1", "--port", str(port),
        "--log-level", "error", "--lifespan", "on",
    ]


def _launch(port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(server_command(port), env=server_env())
