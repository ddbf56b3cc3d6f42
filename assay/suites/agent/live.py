"""Live replay of the agent suite: POST each query to the agent's URL, N times.

Each call is one JSON POST (the body template with the query filled in; an ``Authorization:
Bearer`` header from ``--api-key-env`` when given; any other headers as a JSON object in the
environment variable ``ASSAY_AGENT_HEADERS``, whose values are treated as secrets; credentials in
the URL become a Basic header),
timed, with a timeout, under a bounded concurrency. The raw body, the time and any error are
kept whatever happens: a timeout, an HTTP error or broken JSON is data for the metrics, never a
crash. Successful calls are stored (``.assay/agent-calls``, keyed by URL, body and repeat), so a
rerun sends again only the calls that failed.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Any

from assay.judges.store import CallStore, UntrustedRecord
from assay.redact import call_endpoint, redact
from assay.replay.llm_calls import run_sync
from assay.suites.agent.schema import AgentCase
from assay.suites.kit import ReplayContext

DEFAULT_BODY = '{"query": "{query}"}'
HEADERS_ENV = "ASSAY_AGENT_HEADERS"
CALL_MODEL = "agent-http"  # names the record kind in the call store


def body_for(template: str | None, query: str) -> str:
    """The template with ``{query}`` replaced by the query as a JSON string's content."""
    return (template or DEFAULT_BODY).replace("{query}", json.dumps(query, ensure_ascii=False)[1:-1])


def live_calls(cases: list[AgentCase], ctx: ReplayContext) -> list[dict[str, Any]]:
    target = ctx.spec.generator.target or ""
    if not target.startswith(("http://", "https://")):
        raise ValueError("the agent suite's live replay posts to your agent: give --target http(s)://…")
    store = CallStore(ctx.call_store) if ctx.call_store else None
    return run_sync(lambda: _all_calls(cases, ctx, target, store))


async def _all_calls(cases: list[AgentCase], ctx: ReplayContext, target: str, store: CallStore | None) -> list[dict[str, Any]]:
    import httpx

    generator, progress = ctx.spec.generator, ctx.progress
    repeats = generator.repeats
    semaphore = asyncio.Semaphore(ctx.concurrency)
    url, headers = call_endpoint(target)
    headers = {"Content-Type": "application/json", **headers}
    headers.update(extra_headers())
    key_env = generator.api_key_env
    if key_env and os.environ.get(key_env):
        headers["Authorization"] = f"Bearer {os.environ[key_env]}"
    done, total = 0, len(cases) * repeats
    stats = {"sent": 0, "reused": 0, "failed": 0}

    async with httpx.AsyncClient(timeout=generator.timeout_s) as client:

        async def one(case: AgentCase, repeat: int) -> dict[str, Any]:
            nonlocal done
            body = body_for(generator.body_template, case.query)
            key = CallStore.request_key(CALL_MODEL, target, [{"role": "user", "content": body}], {"repeat": repeat})
            call = await asyncio.to_thread(_stored, store, key) if store else None
            if call is not None:
                stats["reused"] += 1
            else:
                async with semaphore:
                    call = await _post(client, url, headers, body)
                stats["sent"] += 1
                if call["error"]:
                    stats["failed"] += 1
                elif store is not None:
                    await asyncio.to_thread(store.put, key, {
                        "model": CALL_MODEL, "api_base": target,
                        "request": {"messages": [{"role": "user", "content": body}], "params": {"repeat": repeat}},
                        "response": {"raw_text": call["raw"], "response_time_sec": call["response_time_sec"]},
                    })
            done += 1
            if done % 10 == 0 or done == total:
                progress(f"agent calls: {done}/{total} ({stats['sent']} sent, {stats['reused']} reused, {stats['failed']} failed)")
            return {"repeat": repeat, **call}

        results = await asyncio.gather(*(one(case, r) for case in cases for r in range(repeats)))
    by_case: dict[str, list[dict[str, Any]]] = {c.id: [] for c in cases}
    for case, result in zip((c for c in cases for _ in range(repeats)), results, strict=True):
        by_case[case.id].append(result)
    return [{"case_id": case_id, "calls": calls} for case_id, calls in by_case.items()]


def extra_headers() -> dict[str, str]:
    """Headers from ``ASSAY_AGENT_HEADERS`` (a JSON object); their values never reach the store."""
    raw = os.environ.get(HEADERS_ENV, "")
    if not raw:
        return {}
    try:
        headers = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{HEADERS_ENV} must be a JSON object of header names to values: {exc.msg}") from None
    if not isinstance(headers, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise ValueError(f"{HEADERS_ENV} must be a JSON object of header names to text values")
    return headers


def _stored(store: CallStore, key: str) -> dict[str, Any] | None:
    try:
        record = store.get(key)
    except UntrustedRecord:
        store.quarantine(key)
        return None
    if record is None:
        return None
    response = record.get("response") or {}
    return {"raw": response.get("raw_text"), "response_time_sec": response.get("response_time_sec"), "error": None}


async def _post(client: Any, url: str, headers: dict[str, str], body: str) -> dict[str, Any]:
    import httpx

    started = time.perf_counter()
    try:
        response = await client.post(url, content=body.encode("utf-8"), headers=headers)
    except httpx.TimeoutException:
        return {"raw": None, "response_time_sec": None, "error": f"timeout after {time.perf_counter() - started:.1f}s"}
    except httpx.HTTPError as exc:
        return {"raw": None, "response_time_sec": None, "error": redact(f"{type(exc).__name__}: {exc}")[:500]}
    seconds = round(time.perf_counter() - started, 4)
    text = response.text
    if response.status_code >= 400:
        return {"raw": text[:2000], "response_time_sec": seconds, "error": redact(f"HTTP {response.status_code}: {text[:300]}")}
    return {"raw": text, "response_time_sec": seconds, "error": None}
