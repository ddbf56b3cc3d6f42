"""A loopback OpenAI-compatible chat-completions server for tests and benchmarks.

Real litellm calls go to it over HTTP on 127.0.0.1. Latency, HTTP error bursts, malformed
output and timeouts are injectable per model, and every request is recorded so a test can
count exactly what was sent.

    with OpenAICompatServer(latency_s=0.01) as server:
        litellm.completion(model="openai/judge-a", api_base=server.base_url, api_key="x", ...)
        server.count(model="judge-a")
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], str]


@dataclass
class Fault:
    """A fault injected into matching requests.

    kind: "status" (answer with HTTP `status`), "malformed" (HTTP 200 with text that is not
    the requested JSON), "timeout" (sleep `delay_s` before answering), or "echo-auth" (HTTP 401
    whose message quotes the request's Authorization header, as some providers do).
    times: how many matching requests get the fault; None means every one.
    """

    kind: str
    model: str | None = None
    status: int = 500
    times: int | None = None
    delay_s: float = 30.0

    def matches(self, model: str) -> bool:
        return (self.model is None or self.model == model) and (self.times is None or self.times > 0)


@dataclass
class RecordedRequest:
    model: str
    body: dict[str, Any]
    status: int
    at: float = field(default_factory=time.time)


def schema_filling_responder(body: dict[str, Any]) -> str:
    """Answer with a JSON object that satisfies the requested response_format schema.

    Numbers get the middle of their range (or 4), strings "ok", lists stay empty.
    """
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or {}
    return json.dumps(_fill(schema, schema), ensure_ascii=False)


def _fill(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        return _fill(root.get("$defs", {}).get(name, {}), root)
    if "anyOf" in schema:
        return _fill(next(s for s in schema["anyOf"] if s.get("type") != "null"), root)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return {k: _fill(v, root) for k, v in schema.get("properties", {}).items()}
    if kind in ("number", "integer"):
        lo, hi = schema.get("minimum"), schema.get("maximum")
        value = (lo + hi) / 2 if lo is not None and hi is not None else 4
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if "enum" in schema:
        return schema["enum"][0]
    return "ok"


class OpenAICompatServer:
    def __init__(self, latency_s: float = 0.0, responder: Responder | None = None) -> None:
        self.latency_s = latency_s
        self.responder: Responder = responder or schema_filling_responder
        self.faults: list[Fault] = []
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0  # chat requests being answered right now
        self.max_in_flight = 0  # the most ever answered at once (a concurrency limit's witness)
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> OpenAICompatServer:
        handler = _make_handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._httpd.request_queue_size = 512
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> OpenAICompatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    # -- control and inspection ------------------------------------------------------------
    def add_fault(self, fault: Fault) -> None:
        with self._lock:
            self.faults.append(fault)

    def clear_faults(self) -> None:
        with self._lock:
            self.faults.clear()

    def count(self, model: str | None = None, status: int | None = None) -> int:
        with self._lock:
            return sum(
                1
                for r in self.requests
                if (model is None or r.model == model) and (status is None or r.status == status)
            )

    def reset_counts(self) -> None:
        with self._lock:
            self.requests.clear()
            self.max_in_flight = self.in_flight

    def _take_fault(self, model: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.matches(model):
                    if fault.times is not None:
                        fault.times -= 1
                    return fault
        return None

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _record(self, model: str, body: dict[str, Any], status: int) -> None:
        with self._lock:
            self.requests.append(RecordedRequest(model=model, body=body, status=status))


def _make_handler(server: OpenAICompatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": []})
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            model = str(body.get("model", ""))
            # Counted from the request read to just before its reply is written: never longer
            # than the client has it in flight, so a limit the client keeps is never overstated.
            server._enter()
            self._counted = True
            try:
                self._answer(model, body)
            finally:
                self._uncount()

        def _uncount(self) -> None:
            if getattr(self, "_counted", False):
                self._counted = False
                server._leave()

        def _answer(self, model: str, body: dict[str, Any]) -> None:
            if server.latency_s:
                time.sleep(server.latency_s)
            fault = server._take_fault(model)
            if fault and fault.kind == "timeout":
                time.sleep(fault.delay_s)
            if fault and fault.kind == "echo-auth":
                server._record(model, body, 401)
                echoed = f"Incorrect API key provided: {self.headers.get('Authorization', '')}"
                self._send(401, {"error": {"message": echoed, "type": "authentication_error"}})
                return
            if fault and fault.kind == "status":
                server._record(model, body, fault.status)
                kind = "authentication_error" if fault.status == 401 else "server_error"
                self._send(fault.status, {"error": {"message": f"injected {fault.status}", "type": kind}})
                return
            content = "this is not json {" if fault and fault.kind == "malformed" else server.responder(body)
            server._record(model, body, 200)
            prompt_tokens = sum(len(str(m.get("content", ""))) // 4 for m in body.get("messages", []))
            completion_tokens = max(1, len(content) // 4)
            self._send(
                200,
                {
                    "id": f"chatcmpl-{len(server.requests)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": completion_tokens,
                        "total_tokens": prompt_tokens + completion_tokens,
                    },
                },
            )

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self._uncount()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (e.g. its timeout fired); nothing to tell it

    return Handler


def main() -> None:
    """Serve on loopback in its own process (benchmarks keep it off the client's GIL)."""
    import argparse

    parser = argparse.ArgumentParser(description="loopback OpenAI-compatible server")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per request")
    args = parser.parse_args()
    server = OpenAICompatServer(latency_s=args.latency).start()
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
