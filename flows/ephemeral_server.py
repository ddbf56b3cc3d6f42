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
``/api/health``. Like Prefect's own temporary server, it lives until the process exits.
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
from pathlib import Path


class EarlyServer:
    def __init__(self) -> None:
        self.port = _free_port()
        self.process = _launch(self.port)
        os.environ["PREFECT_API_URL"] = self.api_url
        atexit.register(self.stop)

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    def wait(self, timeout_s: float) -> None:
        """Block until the server is healthy, then route every Prefect client to it."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            code = self.process.poll()
            if code is not None:
                raise RuntimeError(f"Prefect's temporary server exited with code {code}")
            try:
                with urllib.request.urlopen(f"{self.api_url}/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"Prefect's temporary server did not answer within {timeout_s:.0f} s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_early() -> EarlyServer | None:
    """Start the temporary server now if Prefect would start one (no API URL, not disabled)
    and can still be told where it is (not imported yet)."""
    if os.environ.get("ASSAY_EARLY_SERVER") == "0":  # Prefect starts its own, later (benchmarks compare)
        return None
    if "prefect" in sys.modules or os.environ.get("PREFECT_API_URL") or os.environ.get("PREFECT_SERVER_EPHEMERAL_ENABLED", "").lower() in (
        "0", "false", "no",
    ):
        return None
    if importlib.util.find_spec("prefect") is None or importlib.util.find_spec("uvicorn") is None:
        return None
    return EarlyServer()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _launch(port: int) -> subprocess.Popen[bytes]:
    spec = importlib.util.find_spec("prefect")
    assert spec is not None and spec.origin is not None
    app_dir = Path(spec.origin).parent.parent  # what Prefect passes: prefect.__module_path__.parent
    env = {**os.environ, "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1", "PREFECT__SERVER_FINAL": "1"}
    return subprocess.Popen(
        [
            sys.executable, "-m", "uvicorn", "--app-dir", str(app_dir), "--factory",
            "prefect.server.api.server:create_app", "--host", "127.0.0.1", "--port", str(port),
            "--log-level", "error", "--lifespan", "on",
        ],
        env=env,
    )
