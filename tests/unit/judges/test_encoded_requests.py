"""A judge request's canonical JSON is made once and spliced into its key and its stored record:
each must be the bytes encoding it whole gives. The request body is not canonical (its order counts)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.hashing import canonical_json, canonical_members
from assay.judges.base import JudgeRequest
from assay.judges.store import CallStore, request_key, stamped, stamped_and_encoded
from assay.judges.transport import Call, request_body

TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)  # Korean, controls, quotes, emoji
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20,
)
MESSAGES = st.lists(st.fixed_dictionaries({"role": st.sampled_from(["system", "user"]), "content": TEXT}), max_size=3)
PARAMS = st.dictionaries(TEXT.filter(lambda k: k not in ("model", "messages")), JSON_VALUES, max_size=4)


@given(st.dictionaries(TEXT, JSON_VALUES, max_size=6))
def test_a_dict_of_encoded_members_is_the_dicts_canonical_json(value):
    assert canonical_members({k: canonical_json(v) for k, v in value.items()}) == canonical_json(value)


@settings(max_examples=200)
@given(st.text(max_size=20), st.none() | st.text(max_size=20), MESSAGES, PARAMS)
def test_a_requests_key_and_record_part_are_those_of_the_whole(model, api_base, messages, params):
    request = JudgeRequest(model, api_base, messages, params)
    assert request.key == request_key(model, api_base, messages, params)
    assert request.record_json == canonical_json({"messages": messages, "params": params})


def test_the_lean_body_keeps_the_order_the_verdict_schema_declares():
    """Not canonical JSON: structured output follows the schema's property order, so sorting it
    changed what a model (and the loopback judge) answered, and so the stored raw text."""
    import asyncio

    from pydantic import BaseModel

    from assay.judges.llm import LiteLLMJudge, response_format_for
    from tests.support.openai_server import OpenAICompatServer

    class Verdict(BaseModel):
        feedback: str
        accuracy: int
        completeness: int

    class Prompt:
        id, verdict_model = "order", Verdict

        def messages(self, item, lang):
            return [{"role": "system", "content": "평가"}, {"role": "user", "content": item.feedback}]

    item = Verdict(feedback="질문", accuracy=1, completeness=1)
    with OpenAICompatServer() as server:
        judge = LiteLLMJudge("openai/judge", api_base=server.base_url, transport="lean", max_tokens=64)
        result = asyncio.run(judge.ajudge(Prompt(), item, "c1"))
        sent = server.requests[0].body
    assert result.ok
    assert list(sent) == ["model", "messages", "temperature", "max_tokens", "response_format"]
    assert list(sent["response_format"]["json_schema"]["schema"]["properties"]) == ["feedback", "accuracy", "completeness"]
    messages = Prompt().messages(item, "ko")
    params = {"temperature": 0.2, "max_tokens": 64, "response_format": response_format_for(Verdict)}
    assert request_body(Call("openai/judge", None, None, {}, messages, params, 5.0)) == json.dumps(
        {"model": "judge", "messages": messages, **params}, ensure_ascii=False).encode("utf-8")


def test_a_record_is_stamped_and_encoded_as_it_would_be_whole(tmp_path, monkeypatch):
    request = JudgeRequest("openai/m", "http://127.0.0.1:1/v1", [{"role": "user", "content": "질문 \"인용\" \n 끝"}],
                           {"temperature": 0.2, "response_format": {"type": "json_schema", "schema": {"설명": 1.5}}})
    record = {"judge": "m", "model": "openai/m", "api_base": request.api_base, "offline": False,
              "request": {"messages": request.messages, "params": request.params},
              "response": {"raw_text": '{"score": 3}', "latency_s": 0.05}, "created_at": "2026-11-29T05:00:00+00:00"}
    for signing in ("", "a-signing-key-for-this-test"):
        monkeypatch.setenv("ASSAY_SIGNING_KEY", signing)
        stamped_record, data = stamped_and_encoded(request.key, record, request.record_json)
        assert stamped_record == stamped(request.key, record) and data == canonical_json(stamped_record)
        store = CallStore(str(tmp_path / f"calls-{bool(signing)}"))
        written = store.write_once(request.key, record, request.record_json)
        assert written.data == canonical_json(written.record)
        assert store.get(request.key) == written.record  # it hashes to its key and its digest holds


def test_only_a_hex_request_key_names_a_file(tmp_path):
    import pytest

    store = CallStore(str(tmp_path / "calls"))
    assert store.get("ab" * 32) is None
    for bad in ("../../etc/passwd", "AB" * 32, "abcdef1", "ab" * 32 + "\n", "ab" * 31 + "g0", ""):
        with pytest.raises(ValueError, match="not a request key"):
            store.get(bad)
