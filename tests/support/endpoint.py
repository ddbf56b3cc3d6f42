"""A loopback HTTP system under test (one asyncio loop on a thread, aiohttp, keep-alive): POST a
JSON body, get the test's reply. The test sets the behaviour per request — the reply, a delay
(to force timeouts), an HTTP error — and reads back how often each case was called and with
which headers."""

from __future__ import annotations

import asyncio
import json
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from aiohttp import web

# (status, reply: JSON-able or text, delay seconds) for the n-th call (0-based) of a case
Behaviour = Callable[[dict[str, Any], int], tuple[int, Any, float]]


class LoopbackEndpoint:
    def __init__(self, behaviour: Behaviour, key: Callable[[dict[str, Any]], str] = lambda body: str(body)) -> None:
        self.behaviour = behaviour
        self.key = key
        self.calls: Counter[str] = Counter()
        self.headers: list[dict[str, str]] = []
        self.peers: set[tuple[str, int]] = set()  # distinct client connections (keep-alive reuses them)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._port = 0
        self._ready = threading.Event()

    async def _handle(self, request: web.Request) -> web.Response:
        body = json.loads(await request.read() or b"{}")
        key = self.key(body)
        n = self.calls[key]
        self.calls[key] += 1  # one loop: no lock needed
        self.headers.append(dict(request.headers))
        peer = request.transport.get_extra_info("peername") if request.transport else None
        if peer:
            self.peers.add(tuple(peer[:2]))
        status, reply, delay = self.behaviour(body, n)
        if delay:
            await asyncio.sleep(delay)
        if isinstance(reply, str):
            return web.Response(status=status, text=reply, content_type="text/plain")
        return web.json_response(reply, status=status, dumps=lambda v: json.dumps(v, ensure_ascii=False))

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        app = web.Application()
        app.router.add_post("/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        self._port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._ready.set()
        loop.run_forever()
        loop.run_until_complete(self._runner.cleanup())
        loop.close()

    def __enter__(self) -> LoopbackEndpoint:
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        assert self._ready.wait(10), "the loopback endpoint did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}/rag/answer"

    def total(self) -> int:
        return sum(self.calls.values())
