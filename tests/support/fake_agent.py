"""A loopback hiring agent for the agent suite's live replay: POST {"query": …} and get the
seed's response JSON. Behaviour per query is set by the test: answers, delays (to force
timeouts), HTTP errors, broken JSON, and answers that differ between repeats."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# (status, body text, delay seconds) for the n-th call (0-based) of a query
Behaviour = Callable[[str, int], tuple[int, str, float]]


def answer(message: str, items: list[dict[str, Any]], **extra: Any) -> str:
    return json.dumps({"assistantMessage": message, "dataUIList": items, "setting": {}, "filterType": "NONE", **extra},
                      ensure_ascii=False)


class FakeAgent:
    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.calls: Counter[str] = Counter()
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    def __enter__(self) -> FakeAgent:
        agent = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                query = str(body.get("query", ""))
                with agent._lock:
                    n = agent.calls[query]
                    agent.calls[query] += 1
                    agent.headers.append(dict(self.headers))
                status, text, delay = agent.behaviour(query, n)
                time.sleep(delay)
                data = text.encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout): nothing to answer

        class Server(ThreadingHTTPServer):
            request_queue_size = 128  # the default backlog of 5 drops concurrent connects

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()

    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/agent/chat"

    def total(self) -> int:
        with self._lock:
            return sum(self.calls.values())
