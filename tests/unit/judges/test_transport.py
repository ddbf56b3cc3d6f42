"""The lean transport for OpenAI-compatible endpoints, under the jury runner's real policy,
against the loopback server: success, 429 retry, 401 permanent, malformed reply retried, an
echoed key redacted. Also which judges get it, and the adaptive per-provider limit."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel, Field

import assay  # noqa: F401  (offline switches before litellm)
from assay.judges.limits import AdaptiveLimit
from assay.judges.llm import LiteLLMJudge, classify_error
from assay.judges.runner import JuryRunner
from assay.judges.store import CallStore
from assay.judges.transport import (
    EndpointError,
    LiteLLMTransport,
    OpenAICompatTransport,
    read_completion,
    transport_for,
)
from tests.support.openai_server import Fault, OpenAICompatServer


class Verdict(BaseModel):
    score: float = Field(ge=0, le=10)
    reason: str


class Item(BaseModel):
    answer: str


class Prompt:
    id, version, sha256, verdict_model = "test.lean", "1", "0" * 64, Verdict

    def messages(self, item: Item, lang: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": "Rate 0-10."}, {"role": "user", "content": item.answer}]


PROMPT = Prompt()
ITEMS = [("c1", Item(answer="four")), ("c2", Item(answer="five"))]


@pytest.fixture
def server():
    with OpenAICompatServer() as srv:
        yield srv


def lean(server: OpenAICompatServer, **kw) -> LiteLLMJudge:
    judge = LiteLLMJudge("openai/judge-a", api_base=server.base_url, **kw)
    assert isinstance(judge.transport, OpenAICompatTransport)  # chosen automatically
    return judge


def run(judges, store=None, **kw):
    return JuryRunner(judges, store, backoff_base_s=0.01, backoff_max_s=0.02, **kw).run(PROMPT, ITEMS)


def test_success_is_parsed_stored_and_sent_once(server, tmp_path):
    store = CallStore(tmp_path / "calls")
    jury = run([lean(server)], store=store)
    results = [r for rs in jury.results.values() for r in rs]
    assert all(r.ok and r.verdict == {"score": 5.0, "reason": "ok"} for r in results)
    assert server.count() == 2 and all(r.usage.output_tokens > 0 for r in results)
    body = server.requests[0].body
    assert body["model"] == "judge-a" and body["response_format"]["json_schema"]["name"] == "Verdict"
    assert all(store.get(r.request_key) is not None for r in results)
    rerun = run([lean(server)], store=store)  # answered from the store: nothing sent
    assert server.count() == 2 and all(r.cached for rs in rerun.results.values() for r in rs)


def test_429_is_retried_then_succeeds(server):
    server.add_fault(Fault(kind="status", status=429, times=2))
    jury = run([lean(server)])
    assert all(r.ok for rs in jury.results.values() for r in rs)
    assert server.count(status=429) == 2 and jury.judge_stats["judge-a"].retries == 2


def test_401_is_permanent_and_not_retried(server):
    server.add_fault(Fault(kind="status", status=401))
    jury = run([lean(server)])
    results = [r for rs in jury.results.values() for r in rs]
    assert all(r.error_kind == "permanent" and "HTTP 401" in r.error for r in results)
    assert server.count() == 2 and "judge-a" in jury.dropped_judges


def test_malformed_reply_is_retried(server):
    server.add_fault(Fault(kind="malformed", times=1))
    jury = run([lean(server)])
    assert all(r.ok for rs in jury.results.values() for r in rs)
    assert server.count() == 3 and jury.judge_stats["judge-a"].retries == 1


def test_an_echoed_key_is_redacted(server, monkeypatch):
    secret = "sk-lean-transport-0123456789abcdef"
    monkeypatch.setenv("ASSAY_TEST_LEAN_KEY", secret)
    server.add_fault(Fault(kind="echo-auth"))
    jury = run([lean(server, api_key_env="ASSAY_TEST_LEAN_KEY")])
    result = jury.results["c1"][0]
    assert result.error_kind == "permanent" and "Incorrect API key" in result.error
    assert secret not in jury.model_dump_json() and secret not in result.error


def test_a_body_that_is_not_a_completion_is_transient():
    # A proxy answering 200 with HTML is a broken transport, worth another try (as with litellm).
    with pytest.raises(EndpointError) as caught:
        read_completion(b"<html>bad gateway</html>")
    assert caught.value.status_code is None and classify_error(caught.value) == "transient"
    assert classify_error(EndpointError("HTTP 429: slow down", 429)) == "transient"
    assert classify_error(EndpointError("HTTP 400: bad", 400)) == "permanent"


def test_transport_choice():
    assert isinstance(transport_for("openai/x", "http://127.0.0.1:8000/v1"), OpenAICompatTransport)
    assert isinstance(transport_for("openai/gpt-4o", None), LiteLLMTransport)  # OpenAI itself: litellm
    assert isinstance(transport_for("anthropic/claude", "http://127.0.0.1:8000"), LiteLLMTransport)
    assert isinstance(transport_for("openai/x", "https://gw.example/v1?api-version=2"), LiteLLMTransport)
    assert isinstance(transport_for("openai/x", "http://127.0.0.1:8000/v1", "litellm"), LiteLLMTransport)
    with pytest.raises(ValueError, match="lean transport needs"):
        transport_for("gemini/x", None, "lean")


def test_adaptive_limit_halves_on_429_and_grows_back_within_the_ceiling():
    async def scenario() -> list[float]:
        limit = AdaptiveLimit(8)
        seen = [limit.limit]
        limit.observe(0.05, throttled=True)
        seen.append(limit.limit)
        limit.observe(0.05, throttled=True)  # same round trip: one signal, no second cut
        seen.append(limit.limit)
        for _ in range(200):
            limit.observe(0.05, throttled=False)
        seen.append(limit.limit)
        limit.observe(0.5, throttled=False)  # latency did not hold: no growth
        return seen

    assert asyncio.run(scenario()) == [8.0, 4.0, 4.0, 8.0]


def test_adaptive_limit_bounds_what_is_in_flight():
    async def scenario() -> int:
        limit, peak, inflight = AdaptiveLimit(3), 0, 0

        async def work() -> None:
            nonlocal peak, inflight
            async with limit:
                inflight += 1
                peak = max(peak, inflight)
                await asyncio.sleep(0.01)
                inflight -= 1

        await asyncio.gather(*(work() for _ in range(20)))
        assert limit.inflight == 0
        return peak

    assert asyncio.run(scenario()) == 3
