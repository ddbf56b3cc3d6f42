"""A judge request's canonical JSON is made once and spliced into its key, its request body and
its stored record: every one of those must be the bytes encoding it whole gives."""

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


@settings(max_examples=100)
@given(MESSAGES, PARAMS)
def test_the_lean_body_holds_the_model_name_messages_and_every_param(messages, params):
    request = JudgeRequest("openai/judge-ü", "http://127.0.0.1:1/v1", messages, params)
    call = Call("openai/judge-ü", "http://127.0.0.1:1/v1", None, {}, messages, params, 5.0,
                request.messages_json, request.params_json)
    expected = {"model": "judge-ü", "messages": messages, **params}
    assert json.loads(request_body(call)) == expected
    assert json.loads(request_body(Call("openai/judge-ü", None, None, {}, messages, params, 5.0))) == expected


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
