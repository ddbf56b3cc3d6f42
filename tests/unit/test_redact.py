"""The redaction layer: credentials in URLs, provider key values, credential shapes, logs."""

import json
import logging

from hypothesis import given
from hypothesis import strategies as st

from assay.lineage.store import ArtifactStore
from assay.redact import (
    install_log_redaction,
    public_url,
    redact,
    redact_obj,
    register_secret_env,
    strip_url_credentials,
    with_url_credentials,
)


def test_provider_key_values_are_masked_wherever_they_occur(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "anthro-secret-value-123")
    monkeypatch.setenv("MY_GATEWAY_TOKEN", "gw-token-98765")
    text = "Incorrect API key provided: anthro-secret-value-123 (gateway gw-token-98765)"
    assert redact(text) == "Incorrect API key provided: *** (gateway ***)"


def test_registered_names_are_secrets_too(monkeypatch):
    monkeypatch.setenv("JUDGE_CREDENTIAL", "very-private-credential")
    assert "very-private" in redact("x very-private-credential")
    register_secret_env("JUDGE_CREDENTIAL")
    assert redact("x very-private-credential") == "x ***"


def test_credential_shapes_and_urls():
    assert redact("Authorization: Bearer abcdefghijklmnopqrstuvwxyz") == "Authorization: Bearer ***"
    assert redact("key sk-proj-abcdefghijklmnopqrstuv leaked") == "key *** leaked"
    assert redact("GET http://bob:pw1234@host:8/v1 failed") == "GET http://host:8/v1 failed"
    # ordinary prose is left alone
    assert redact("basic requirements and the bearer of the card") == "basic requirements and the bearer of the card"
    assert redact("예산은 1.5억 원입니다") == "예산은 1.5억 원입니다"


def test_url_credentials_are_kept_for_calls_only():
    public = strip_url_credentials("https://user:s3cr3t-pass@llm.internal:8443/v1?api_key=zzzzzzzz&x=1")
    assert public == "https://llm.internal:8443/v1?api_key=***&x=1"
    assert with_url_credentials(public) == "https://user:s3cr3t-pass@llm.internal:8443/v1?api_key=zzzzzzzz&x=1"
    assert redact("failed: s3cr3t-pass") == "failed: ***"
    assert public_url(None) is None and public_url("http://h/v1") == "http://h/v1"


def test_structured_records_are_redacted_before_they_are_stored(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-0123456789abcdefghij")
    store = ArtifactStore(str(tmp_path))
    sha = store.put_jsonl([{"error": "bad key sk-live-0123456789abcdefghij", "nested": {"k": ["sk-live-0123456789abcdefghij"]}}])
    stored = store.get(sha).decode()
    assert "0123456789abcdefghij" not in stored and json.loads(stored)["nested"]["k"] == ["***"]
    assert redact_obj({"a": ("x", 1)}) == {"a": ["x", 1]}


def test_log_records_are_redacted(monkeypatch, caplog):
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-secret-abcdef")
    install_log_redaction()
    logger = logging.getLogger("assay.test.redact")
    with caplog.at_level(logging.INFO):
        logger.info("calling with %s", "gemini-secret-abcdef")
    assert "gemini-secret" not in caplog.text and "calling with ***" in caplog.text


def test_url_user_info_becomes_a_basic_header_at_call_time_and_its_encoding_is_a_secret(monkeypatch):
    import base64

    from assay.redact import call_endpoint

    monkeypatch.delenv("ASSAY_URL_CREDENTIALS", raising=False)
    public = strip_url_credentials("http://bob:s3cret-pass@127.0.0.1:8000/v1?team=a")
    url, headers = call_endpoint(public)
    token = base64.b64encode(b"bob:s3cret-pass").decode()
    assert url == "http://127.0.0.1:8000/v1?team=a" and headers == {"Authorization": f"Basic {token}"}
    assert redact(f"Incorrect API key provided: Basic {token}") == "Incorrect API key provided: Basic ***"
    assert call_endpoint("http://127.0.0.1:9/v1") == ("http://127.0.0.1:9/v1", {})


def test_a_call_endpoint_follows_the_credentials_given_later(monkeypatch):
    """Asked once per judge call and kept: but only while the stored credentials are the same."""
    from assay.redact import call_endpoint

    monkeypatch.delenv("ASSAY_URL_CREDENTIALS", raising=False)
    public = "http://127.0.0.1:8001/v1"
    assert call_endpoint(public) == (public, {})
    call_endpoint(public)[1]["Authorization"] = "changed by a caller"  # a caller's copy, not the kept one
    assert call_endpoint(public) == (public, {})
    strip_url_credentials("http://eve:other-pass@127.0.0.1:8001/v1")
    url, headers = call_endpoint(public)
    assert url == public and headers["Authorization"].startswith("Basic ")


@given(st.lists(st.sampled_from(["Bearer ", "Basic ", "sk-", "AIza", "api_key=", "X-API-KEY: ", "https://u:p@h/",
                                 "abcdefghijklmnop0123456789", " ", "\"", ":", "=", "a1b2", "가나다"]), max_size=12))
def test_the_marker_search_never_skips_a_shape_that_would_match(parts):
    from assay.redact import _SHAPES

    text = "".join(parts)
    expected = text
    for shape, replacement in _SHAPES:
        expected = shape.sub(replacement, expected)
    assert redact(text, []) == expected


def test_registered_names_reach_processes_started_later_and_json_escaped_forms_are_masked(monkeypatch):
    import subprocess
    import sys

    monkeypatch.setenv("HEADER_VALUE_VAR", 'quote"d-secret-ü-4321')
    register_secret_env("HEADER_VALUE_VAR")
    child = subprocess.run([sys.executable, "-c", "from assay.redact import redact; print(redact('x quote\"d-secret-ü-4321'))"],
                           capture_output=True, text=True, check=True)
    assert child.stdout.strip() == "x ***"  # a Dask worker or subprocess flow masks the same values
    assert redact(json.dumps({"echo": 'quote"d-secret-ü-4321'})) == '{"echo": "***"}'
    assert redact(json.dumps({"echo": 'quote"d-secret-ü-4321'}, ensure_ascii=False)) == '{"echo": "***"}'


def test_a_call_record_is_stored_with_its_response_redacted(tmp_path, monkeypatch):
    from assay.judges.store import CallStore

    monkeypatch.setenv("RAG_AUTH_HEADER", "echoed-value-77aa")
    register_secret_env("RAG_AUTH_HEADER")
    store = CallStore(tmp_path)
    key = CallStore.request_key("m", None, [{"role": "user", "content": "q"}], {})
    store.put(key, {"model": "m", "api_base": None, "request": {"messages": [{"role": "user", "content": "q"}], "params": {}},
                    "response": {"raw_text": "headers: {'X-Auth': 'echoed-value-77aa'}"}})
    assert b"echoed-value-77aa" not in next(tmp_path.rglob("*.json")).read_bytes()
    assert store.get(key)["response"]["raw_text"] == "headers: {'X-Auth': '***'}"  # still a trusted record


# Texts built from the markers' own characters, their case variants (İ and ı among them), Korean
# and JSON's escapes: the substring shortcut must agree with the marker regex on every one.
_MARKER_ALPHABET = list("apiAPIİıBearsicBsk-AIza:/ \\\"n연차휴가") + ["Bearer", "Basic", "sk-", "AIza", "://", "api", "APİ", "apı"]


@given(st.lists(st.sampled_from(_MARKER_ALPHABET), max_size=12).map("".join))
def test_marker_shortcut_agrees_with_the_regex(text):
    from assay.redact import _SHAPE_MARKERS, _has_marker

    assert _has_marker(text) is (_SHAPE_MARKERS.search(text) is not None)


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.sampled_from(_MARKER_ALPHABET)
    | st.lists(st.sampled_from(_MARKER_ALPHABET + ["gw-token-98765", "\n", "é"]), max_size=6).map("".join),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["api_base", "k", "raw", "tok"]), inner,
                                                                 max_size=4),
    max_leaves=12,
)


@given(_JSONISH)
def test_put_json_bytes_are_the_walked_redaction_whatever_the_shortcut(value):
    """ArtifactStore.put_json skips the walk when the canonical text cannot hold a secret: its
    bytes must still be exactly canonical_json(redact_obj(value))."""
    import os

    from assay.hashing import canonical_json
    from assay.redact import redacted_canonical_json

    os.environ["MY_GATEWAY_TOKEN"] = "gw-token-98765"
    try:
        assert redacted_canonical_json(value) == canonical_json(redact_obj(value))
    finally:
        del os.environ["MY_GATEWAY_TOKEN"]


def test_secret_values_follow_every_change_of_the_environment_and_are_worked_out_once_otherwise(monkeypatch):
    import assay.redact as redaction

    worked_out = []
    now = redaction._secret_values_now
    monkeypatch.setattr(redaction, "_secret_values_now", lambda: worked_out.append(1) or now())
    monkeypatch.setenv("CACHE_PROBE_API_KEY", "first-probe-value")
    assert "first-probe-value" in redaction.secret_values()
    assert "first-probe-value" in redaction.secret_values()
    assert len(worked_out) == 1  # nothing changed: the values found last time
    monkeypatch.setenv("CACHE_PROBE_API_KEY", "second-probe-value")  # changed in place
    assert "second-probe-value" in redaction.secret_values() and "first-probe-value" not in redaction.secret_values()
    monkeypatch.setenv("PLAIN_NAMED_VARIABLE", "registered-later-value")
    assert "registered-later-value" not in redaction.secret_values()
    register_secret_env("PLAIN_NAMED_VARIABLE")
    assert "registered-later-value" in redaction.secret_values()
    monkeypatch.delenv("CACHE_PROBE_API_KEY")
    assert "second-probe-value" not in redaction.secret_values()
    values = redaction.secret_values()
    values.clear()  # a caller's list is its own
    assert "registered-later-value" in redaction.secret_values()


@given(_JSONISH)
def test_the_walk_gives_what_redacting_every_string_gives_twice_over(value):
    """redact_obj keeps short strings' redactions (for the values they were made with): the walk
    must still give what redacting each string afresh gives, the first time and the next."""
    import os

    from assay.redact import secret_values

    def afresh(v, values):
        if isinstance(v, str):
            return redact(v, values)
        if isinstance(v, dict):
            return {afresh(k, values): afresh(x, values) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [afresh(x, values) for x in v]
        return v

    os.environ["MY_GATEWAY_TOKEN"] = "gw-token-98765"
    try:
        values = secret_values()
        assert redact_obj(value) == afresh(value, values) == redact_obj(value)
    finally:
        del os.environ["MY_GATEWAY_TOKEN"]


def test_a_kept_redaction_is_never_used_for_other_secret_values(monkeypatch):
    monkeypatch.setenv("ROTATING_API_KEY", "first-rotating-secret")
    assert redact_obj({"k": "uses first-rotating-secret"}) == {"k": "uses ***"}
    monkeypatch.setenv("ROTATING_API_KEY", "second-rotating-secret")
    assert redact_obj({"k": "uses first-rotating-secret"}) == {"k": "uses first-rotating-secret"}
    assert redact_obj(["uses second-rotating-secret"]) == ["uses ***"]
