"""LiteLLMJudge: real litellm calls against the loopback OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field

import assay  # noqa: F401  (offline switches before litellm)
from assay.judges.base import Judge
from assay.judges.llm import (
    LiteLLMJudge,
    MalformedReply,
    _redact,
    parse_verdict,
    provider_of,
    public_api_base,
)
from assay.judges.store import request_key
from assay.judges.verdicts import json_objects
from tests.conftest import ROOT
from tests.support.openai_server import Fault, OpenAICompatServer, schema_filling_responder


class Verdict(BaseModel):
    score: float = Field(ge=0, le=10)
    reason: str


class Item(BaseModel):
    question: str
    answer: str


class FakePrompt:
    """Duck-typed stand-in for assay.judges.prompts.Prompt."""

    id = "test.answer_quality"
    version = "1"
    verdict_model = Verdict

    def messages(self, item: Item, lang: str) -> list[dict[str, str]]:
        system = "답변을 0-10으로 평가하세요." if lang == "ko" else "Rate the answer 0-10."
        return [{"role": "system", "content": system}, {"role": "user", "content": item.model_dump_json()}]

    @property
    def sha256(self) -> str:
        return hashlib.sha256(b"test.answer_quality/1").hexdigest()


PROMPT = FakePrompt()
ITEM = Item(question="2+2?", answer="4")


@pytest.fixture
def server():
    with OpenAICompatServer() as srv:
        yield srv


def judge_once(judge: LiteLLMJudge, prompt=PROMPT, item=ITEM, lang="ko"):
    return asyncio.run(judge.ajudge(prompt, item, "case-1", lang=lang))


# -- parsing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"score": 7, "reason": "good"}',
        '```json\n{"score": 7, "reason": "good"}\n```',
        '```\n{"score": 7, "reason": "good"}\n```\nHope this helps.',
        '{"score": 7, "reason": "good"}\n\nThe answer is correct because 2+2=4.',
        'Here is my verdict: {"score": 7, "reason": "good"} -- done',
    ],
)
def test_parse_accepts_plain_fenced_and_trailing_text(text):
    assert parse_verdict(text, Verdict) == {"score": 7.0, "reason": "good"}


@pytest.mark.parametrize(
    "text", ["", "this is not json {", '{"score": 11, "reason": "x"}', '{"reason": "x"}']
)
def test_parse_rejects_malformed_or_invalid(text):
    with pytest.raises(MalformedReply):
        parse_verdict(text, Verdict)


@given(score=st.floats(0, 10), reason=st.text(max_size=40), tail=st.text(max_size=40))
def test_parse_roundtrips_any_valid_verdict_with_trailing_text(score, reason, tail):
    text = json.dumps({"score": score, "reason": reason}, ensure_ascii=False) + "\n" + tail
    assert json_objects(text)[0] == {"score": score, "reason": reason}
    assert parse_verdict(text, Verdict)["score"] == score


def test_provider_and_public_api_base():
    assert provider_of("gemini/gemini-2.5-flash", None) == "gemini"
    assert provider_of("openai/x", "http://127.0.0.1:8080/v1") == "127.0.0.1:8080"
    assert public_api_base("https://user:pw@proxy.example.com/v1?key=abc") == "https://proxy.example.com/v1"
    assert _redact("bad key sk-abcdef", "sk-abcdef") == "bad key ***"


def test_judge_satisfies_protocol():
    judge = LiteLLMJudge("openai/judge-a")
    assert isinstance(judge, Judge)
    assert judge.offline is False and judge.name == "judge-a" and judge.weight == 1.0


# -- calls against the loopback server ----------------------------------------------------------


@pytest.fixture(params=["litellm", "lean"])
def transport(request):
    """Every call test runs through litellm and through the lean transport: same behaviour."""
    return request.param


def test_structured_output_request_and_success(server, transport):
    judge = LiteLLMJudge("openai/judge-a", api_base=server.base_url, transport=transport, max_tokens=300)
    result = judge_once(judge)
    assert result.ok and result.verdict == {"score": 5.0, "reason": "ok"}
    assert result.error is None and result.attempts == 1 and result.latency_s > 0
    assert result.usage.output_tokens > 0 and result.usage.cost_usd == 0.0  # unknown model: no price
    body = server.requests[0].body
    assert body["response_format"]["json_schema"]["schema"] == Verdict.model_json_schema()
    assert body["temperature"] == 0.2 and body["max_tokens"] == 300
    assert body["messages"][0]["content"].startswith("답변")


def test_fenced_reply_is_parsed(transport):
    fenced = lambda body: "```json\n" + schema_filling_responder(body) + "\n```\nThat is my verdict."  # noqa: E731
    with OpenAICompatServer(responder=fenced) as srv:
        result = judge_once(LiteLLMJudge("openai/judge-a", api_base=srv.base_url, transport=transport))
    assert result.ok and result.verdict["score"] == 5.0
    assert result.raw_text.startswith("```json")


def test_known_model_gets_a_cost(server, transport):
    result = judge_once(LiteLLMJudge("openai/gpt-4o", api_base=server.base_url, transport=transport))
    assert result.ok and result.usage.cost_usd > 0


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (429, "transient"),
        (500, "transient"),
        (503, "transient"),
        (408, "transient"),
        (400, "permanent"),
        (401, "permanent"),
        (403, "permanent"),
        (404, "permanent"),
        (422, "permanent"),
    ],
)
def test_http_errors_are_classified_and_attempted_once(server, status, kind, transport):
    server.add_fault(Fault(kind="status", status=status))
    result = judge_once(LiteLLMJudge("openai/judge-a", api_base=server.base_url, transport=transport))
    assert not result.ok and result.error_kind == kind, result.error
    assert server.count() == 1  # neither litellm nor the OpenAI SDK retried on their own


def test_malformed_reply_keeps_raw_text(server, transport):
    server.add_fault(Fault(kind="malformed"))
    result = judge_once(LiteLLMJudge("openai/judge-a", api_base=server.base_url, transport=transport))
    assert result.error_kind == "malformed" and result.raw_text == "this is not json {"
    assert result.usage.output_tokens > 0


def test_timeout_is_transient(server, transport):
    server.add_fault(Fault(kind="timeout", delay_s=3))
    result = judge_once(LiteLLMJudge("openai/judge-a", api_base=server.base_url, transport=transport, timeout_s=0.5))
    assert result.error_kind == "transient" and result.latency_s < 2.5, result.error


def test_key_comes_from_env_at_call_time_and_is_never_kept(server, monkeypatch, transport):
    secret = "sk-test-SECRET-0123456789"
    judge = LiteLLMJudge("openai/judge-a", api_base=server.base_url, transport=transport, api_key_env="ASSAY_TEST_JUDGE_KEY")
    monkeypatch.delenv("ASSAY_TEST_JUDGE_KEY", raising=False)
    missing = judge_once(judge)
    assert missing.error_kind == "permanent" and "ASSAY_TEST_JUDGE_KEY" in missing.error
    assert server.count() == 0
    monkeypatch.setenv("ASSAY_TEST_JUDGE_KEY", secret)
    result = judge_once(judge)
    assert result.ok
    assert secret not in result.model_dump_json() and secret not in repr(vars(judge))


def test_request_key_depends_on_content_not_on_secrets(server, monkeypatch):
    judge = LiteLLMJudge("openai/judge-a", api_base=server.base_url, api_key_env="ASSAY_TEST_JUDGE_KEY")

    def key(j, lang="ko"):
        req = j.request(PROMPT, ITEM, lang)
        return request_key(req.model, req.api_base, req.messages, req.params)

    monkeypatch.setenv("ASSAY_TEST_JUDGE_KEY", "one")
    first = key(judge)
    monkeypatch.setenv("ASSAY_TEST_JUDGE_KEY", "two")
    assert key(judge) == first
    assert key(judge, lang="en") != first
    assert key(LiteLLMJudge("openai/judge-a", api_base=server.base_url, temperature=0.0)) != first
    assert key(LiteLLMJudge("openai/judge-b", api_base=server.base_url)) != first
    assert key(LiteLLMJudge("openai/judge-a", api_base=server.base_url, transport="litellm")) == first


def test_config_store_runner_import_without_litellm():
    code = (
        "import sys, assay.judges.config, assay.judges.store, assay.judges.runner, assay.judges.llm;"
        "assert 'litellm' not in sys.modules, 'litellm imported at module level'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
