"""A small headless-Chromium harness over the DevTools protocol, for the report's browser test.

It starts ``/usr/bin/chromium`` with a fresh profile and every background service off, opens a
page, and records what a page must never do: a network request (anything but the page's own
``file:`` URL and ``data:`` images) and a script error (an uncaught exception or a console
error). It can run a JavaScript expression (to click), and take a screenshot.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
]


def chromium_path() -> str | None:
    return CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")


class Browser:
    """One Chromium process and one page, driven over its DevTools websocket."""

    def __init__(self, width: int = 1280, height: int = 1000) -> None:
        from websockets.sync.client import connect

        self.profile = tempfile.mkdtemp(prefix="assay-chromium-")
        self.process = subprocess.Popen(
            [chromium_path() or CHROMIUM, *FLAGS, f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
             "--remote-debugging-port=0", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        browser_ws = self._devtools_url()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self._ids = itertools.count(1)
        port = re.search(r":(\d+)/", browser_ws).group(1)  # type: ignore[union-attr]
        page_ws = self._page_target(port)
        self.ws = connect(page_ws, max_size=64 * 1024 * 1024, open_timeout=30)
        for method in ("Network.enable", "Runtime.enable", "Log.enable", "Page.enable"):
            self.call(method)
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def _devtools_url(self) -> str:
        deadline = time.time() + 60
        assert self.process.stderr is not None
        while time.time() < deadline:
            line = self.process.stderr.readline()
            if not line and self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.process.returncode}")
            found = re.search(r"DevTools listening on (ws://\S+)", line)
            if found:
                return found.group(1)
        raise TimeoutError("chromium did not start its DevTools server in 60 s")

    @staticmethod
    def _page_target(port: str) -> str:
        import urllib.request

        # Loopback only: the DevTools endpoint of the process this harness started.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as response:  # noqa: S310
            targets = json.loads(response.read())
        return next(t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page")

    # -- protocol ----------------------------------------------------------------------------
    def call(self, method: str, timeout: float = 60, **params: Any) -> dict[str, Any]:
        msg_id = next(self._ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        deadline = time.time() + timeout
        while True:
            message = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.time())))
            if message.get("id") == msg_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._event(message)

    def _event(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            if not url.startswith(("file:", "data:", "about:")):
                self.requests.append(url)
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.errors.append(details.get("exception", {}).get("description") or details.get("text", "exception"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            self.errors.append("console.error: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            self.errors.append("log: " + params["entry"].get("text", ""))

    def drain(self, seconds: float) -> None:
        """Collect events for a while (requests and errors the page makes after loading)."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                self._event(json.loads(self.ws.recv(timeout=max(0.05, deadline - time.time()))))
            except TimeoutError:
                return

    # -- actions --------------------------------------------------------------------------------
    def open(self, path: Path) -> None:
        self.call("Page.navigate", url=path.resolve().as_uri())
        deadline = time.time() + 60
        while time.time() < deadline:  # wait for the load event
            message = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.time())))
            self._event(message)
            if message.get("method") == "Page.loadEventFired":
                break
        self.drain(0.5)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def open_case(self, case_id: str) -> None:
        """Find a case in the report's explorer with its search box and click its row, as a person would."""
        quoted = json.dumps(case_id)
        self.evaluate(
            "(() => { const s = document.getElementById('explorer-search'); s.value = " + quoted + ";"
            " s.dispatchEvent(new Event('input'));"
            " document.querySelector('tr.case-row[data-case=' + JSON.stringify(" + quoted + ") + ']').click(); })()"
        )
        self.drain(0.3)

    def screenshot(self, path: Path, full_page: bool = False) -> bytes:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        png = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        path.write_bytes(png)
        return png

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def require_browser() -> bool:
    """CI insists on a browser (``.ci/run`` sets ASSAY_REQUIRE_BROWSER=1); elsewhere the test skips."""
    return os.environ.get("ASSAY_REQUIRE_BROWSER") == "1"
