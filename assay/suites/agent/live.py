"""Live replay of the agent suite: send each query to the agent, N times.

The agent is the run's target (``assay.replay.targets``): usually a URL to POST the body
template to (``{"query": "{query}"}`` by default; an ``Authorization: Bearer`` header from
``--api-key-env``; any other headers as a JSON object in the environment variable
``ASSAY_AGENT_HEADERS``, whose values are treated as secrets), or a Python callable. Each call is
timed, with a timeout, under a bounded concurrency, and is not retried by default: a timeout,
an HTTP error or broken JSON is data for the metrics, never a crash. Answered calls are kept in
the target call store (keyed by target, body and repeat), so a rerun sends again only the calls
that failed.
"""

from __future__ import annotations

import json
import os

from assay.replay.targets import TargetCall, TargetReply, call_target
from assay.schemas import JsonObject
from assay.suites.agent.schema import AgentCase
from assay.suites.kit import ReplayContext

DEFAULT_BODY = '{"query": "{query}"}'
HEADERS_ENV = "ASSAY_AGENT_HEADERS"


def live_calls(cases: list[AgentCase], ctx: ReplayContext) -> list[JsonObject]:
    target = ctx.spec.target
    if target is None:
        raise ValueError("the agent suite's live replay calls your agent: give --target http(s)://… or module:function")
    repeats = ctx.spec.generator.repeats
    calls = [TargetCall(case_id=c.id, fields={"query": c.query}, repeat=r) for c in cases for r in range(repeats)]
    replies = call_target(
        target, calls, default_body=DEFAULT_BODY, answer_path=None, contexts_path=None, default_retries=0,
        concurrency=ctx.concurrency, store_path=ctx.call_store, progress=ctx.progress, extra_headers=extra_headers(),
    )
    by_case: dict[str, list[JsonObject]] = {c.id: [] for c in cases}
    for reply in replies:
        by_case[reply.case_id].append(_call(reply))
    return [{"case_id": case_id, "calls": calls} for case_id, calls in by_case.items()]


def _call(reply: TargetReply) -> JsonObject:
    """One repeat as the agent's metrics read it: the raw body, its time, any error."""
    raw = reply.raw if reply.raw is not None or reply.data is None else json.dumps(reply.data, ensure_ascii=False)
    return {"repeat": reply.repeat, "raw": raw, "response_time_sec": reply.latency_s, "error": reply.error}


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
