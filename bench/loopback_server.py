"""A cheap loopback OpenAI-compatible server for benchmarks: one asyncio loop, keep-alive.

    python bench/loopback_server.py --latency 0.05      # prints its base URL, serves until killed

Each chat completion waits ``--latency`` seconds (asyncio.sleep, so waiting costs nothing)
and answers with JSON that fills the requested ``response_format`` schema. The answer body is
built once per (model, schema) and reused, so the server spends well under a millisecond per
request and a benchmark measures its clients, not itself. Tests use the fault-injecting
threaded server in ``tests/support/openai_server.py`` instead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiohttp import web  # noqa: E402

from tests.support.openai_server import schema_filling_responder  # noqa: E402


def make_app(latency_s: float) -> web.Application:
    answers: dict[str, bytes] = {}

    async def chat(request: web.Request) -> web.Response:
        body: dict[str, Any] = await request.json()
        model = str(body.get("model", ""))
        cache_key = model + json.dumps(body.get("response_format"), sort_keys=True)
        answer = answers.get(cache_key)
        if answer is None:
            content = schema_filling_responder(body)
            answer = answers[cache_key] = json.dumps(
                {
                    "id": "chatcmpl-bench",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 200, "completion_tokens": 20, "total_tokens": 220},
                },
                ensure_ascii=False,
            ).encode("utf-8")
        if latency_s:
            await asyncio.sleep(latency_s)
        return web.Response(body=answer, content_type="application/json")

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    return app


async def serve(latency_s: float) -> None:
    runner = web.AppRunner(make_app(latency_s), access_log=None, keepalive_timeout=75)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(f"http://127.0.0.1:{port}/v1", flush=True)
    await asyncio.Event().wait()


def main() -> None:
    parser = argparse.ArgumentParser(description="cheap loopback OpenAI-compatible server")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per request")
    args = parser.parse_args()
    try:
        asyncio.run(serve(args.latency))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
