"""The shared target layer: HTTP endpoints and Python callables, retries, timeouts, latency,
header values from the environment (never stored), and the call store that lets a rerun
re-send only the calls that failed."""

from __future__ import annotations

import asyncio
import json

import pytest

from assay.replay.targets import (
    TargetCall,
    call_target,
    fill_body,
    load_function,
    read_path,
    register_function,
)
from assay.spec import SpecError, TargetSpec, build_run_spec
from tests.support.endpoint import LoopbackEndpoint

RAG_BODY = '{"question": "{question}"}'


def calls(*questions: str) -> list[TargetCall]:
    return [TargetCall(case_id=f"c{i}", fields={"question": q, "id": f"c{i}"}) for i, q in enumerate(questions)]


def answering(body, n):
    q = body["question"]
    return 200, {"answer": f"A:{q}", "contexts": [{"text": f"ctx {q}", "source": "doc.md"}]}, 0.0


def test_http_target_reads_answer_and_contexts_with_latency_and_headers(monkeypatch, tmp_path):
    monkeypatch.setenv("RAG_TOKEN", "tok-very-secret-123")
    with LoopbackEndpoint(answering, key=lambda b: b["question"]) as server:
        spec = TargetSpec(url=server.url, headers={"Authorization": "Bearer RAG_TOKEN"})
        replies = call_target(spec, calls("안녕", "b"), default_body=RAG_BODY, store_path=str(tmp_path / "store"))
    assert [r.answer for r in replies] == ["A:안녕", "A:b"]
    assert replies[0].contexts == [{"text": "ctx 안녕", "source": "doc.md"}]
    assert all(r.error is None and r.latency_s is not None and r.attempts == 1 for r in replies)
    assert {h["Authorization"] for h in server.headers} == {"Bearer tok-very-secret-123"}
    for path in (tmp_path / "store").rglob("*"):
        if path.is_file():
            assert b"tok-very-secret-123" not in path.read_bytes()


def test_transient_errors_are_retried_with_backoff_and_client_errors_are_not(tmp_path):
    def flaky(body, n):
        if body["question"] == "flaky" and n == 0:
            return 503, "busy", 0.0
        if body["question"] == "bad":
            return 400, {"detail": "bad request"}, 0.0
        return answering(body, n)

    with LoopbackEndpoint(flaky, key=lambda b: b["question"]) as server:
        spec = TargetSpec(url=server.url, max_retries=2, retry_base_s=0.01, retry_max_s=0.02)
        flaky_reply, bad_reply = call_target(spec, calls("flaky", "bad"), default_body=RAG_BODY)
    assert flaky_reply.error is None and flaky_reply.attempts == 2 and flaky_reply.answer == "A:flaky"
    assert bad_reply.error.startswith("HTTP 400") and bad_reply.attempts == 1
    assert server.calls == {"flaky": 2, "bad": 1}


def test_timeouts_are_errors_and_a_rerun_resends_only_failed_calls(tmp_path):
    slow = {"slow"}

    def behaviour(body, n):
        return answering(body, n)[:2] + ((1.0 if body["question"] in slow else 0.0),)

    store = str(tmp_path / "store")
    with LoopbackEndpoint(behaviour, key=lambda b: b["question"]) as server:
        spec = TargetSpec(url=server.url, timeout_s=0.3, max_retries=0)
        first = call_target(spec, calls("fast", "slow", "fast2"), default_body=RAG_BODY, store_path=store)
        assert [r.error is None for r in first] == [True, False, True]
        assert "timeout" in first[1].error
        slow.clear()  # the system recovers
        second = call_target(spec, calls("fast", "slow", "fast2"), default_body=RAG_BODY, store_path=store)
    assert [r.answer for r in second] == ["A:fast", "A:slow", "A:fast2"]
    assert [r.reused for r in second] == [True, False, True]
    assert server.calls == {"fast": 1, "slow": 2, "fast2": 1}
    assert len(server.peers) <= 8  # connections are kept alive and reused, not one per call


def test_python_callables_sync_async_and_failing(tmp_path):
    def sync_answer(question):
        return {"answer": question.upper(), "contexts": ["c1"]}

    async def async_answer(question, id):  # noqa: A002 - a case field's name
        await asyncio.sleep(0)
        return f"{id}:{question}"

    def broken(question):
        raise RuntimeError("model offline")

    for fn, expected in ((sync_answer, ["A", "B"]), (async_answer, ["c0:a", "c1:b"])):
        replies = call_target(TargetSpec(function=register_function(fn)), calls("a", "b"), default_body=RAG_BODY)
        assert [r.answer for r in replies] == expected and all(r.latency_s is not None for r in replies)
    failed = call_target(TargetSpec(function=register_function(broken)), calls("a"), default_body=RAG_BODY)
    assert failed[0].error.startswith("target raised RuntimeError: model offline")
    assert failed[0].attempts == 1  # the user's exception is not transient


def test_a_lambda_is_named_but_cannot_be_imported_again():
    name = register_function(lambda question: question)
    assert "<lambda>" in name
    import assay.replay.targets as targets

    targets._REGISTERED.pop(name)
    with pytest.raises(ValueError, match="lambda or closure"):
        load_function(name)


def test_body_template_and_paths():
    body = fill_body('{"q": "{question}", "turns": "{turns}", "note": "id={id}"}',
                     {"question": 'say "hi"', "turns": [{"role": "user"}], "id": "x1"})
    assert body == '{"q": "say \\"hi\\"", "turns": [{"role": "user"}], "note": "id=x1"}'
    assert read_path({"data": {"items": [{"t": "a"}]}}, "data.items.0.t") == "a"
    assert read_path({"data": {}}, "data.items.0") is None


def test_header_values_must_be_variable_names():
    with pytest.raises(ValueError, match="NAME of the environment variable"):
        TargetSpec(url="http://x/y", headers={"Authorization": "Bearer sk-abc-123-secret!"})
    with pytest.raises(ValueError, match="either a url or a function"):
        TargetSpec()


def test_cli_target_options_build_the_spec(tmp_path):
    file = tmp_path / "target.yaml"
    file.write_text("url: http://127.0.0.1:9/rag\nanswer_path: data.answer\nheaders: {X-Key: MY_KEY}\n", encoding="utf-8")
    spec, _ = build_run_spec("rag_qa", default_dataset=tmp_path, cli={
        "replay": "live", "target_file": file, "generator_timeout_s": 5.0, "offline": True})
    assert spec.target.url == "http://127.0.0.1:9/rag" and spec.target.answer_path == "data.answer"
    assert spec.target.timeout_s == 5.0 and spec.target.headers == {"X-Key": "MY_KEY"}
    spec, _ = build_run_spec("memory", default_dataset=tmp_path, cli={
        "replay": "live", "target": "my_mod:summarize", "offline": True})
    assert spec.target.function == "my_mod:summarize"
    with pytest.raises(SpecError, match="--target"):
        build_run_spec("rag_qa", default_dataset=tmp_path, cli={"replay": "live", "target": "not a target", "offline": True})


def test_older_specs_with_generator_target_still_load():
    from assay.spec import RunSpec

    spec = RunSpec.model_validate({"suite": "agent", "replay": "live", "generator": {
        "target": "http://127.0.0.1:9/agent", "body_template": '{"query": "{query}"}', "api_key_env": "AGENT_TOKEN",
        "repeats": 2}})
    assert spec.target.url == "http://127.0.0.1:9/agent"
    assert spec.target.headers == {"Authorization": "Bearer AGENT_TOKEN"} and spec.generator.repeats == 2


def test_the_api_takes_a_target_as_a_spec_or_dict(tmp_path):
    spec, _ = build_run_spec("rag_qa", default_dataset=tmp_path, cli={
        "replay": "live", "offline": True,
        "target_spec": {"url": "http://127.0.0.1:9/rag", "headers": {"X-Key": "MY_KEY"}, "max_retries": 1}})
    assert spec.target == TargetSpec(url="http://127.0.0.1:9/rag", headers={"X-Key": "MY_KEY"}, max_retries=1)


def test_a_new_version_calls_every_case_afresh(tmp_path):
    store = str(tmp_path / "store")
    with LoopbackEndpoint(answering, key=lambda b: b["question"]) as server:
        for version in ("v1", "v1", "v2"):
            call_target(TargetSpec(url=server.url, version=version), calls("a"), default_body=RAG_BODY, store_path=store)
    assert server.calls == {"a": 2}  # v1 once (then reused), v2 once


def closed_port() -> int:
    """A loopback port nothing listens on."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_target_stops_after_a_few_connection_failures_naming_the_url():
    """Issue 34: 48 cases x 4 attempts against nothing took 32 s and never named the URL."""
    import time

    from assay.replay.targets import UNREACHABLE_AFTER, TargetUnreachable

    url = f"http://127.0.0.1:{closed_port()}/rag/answer"
    spec = TargetSpec(url=url, max_retries=3, retry_base_s=0.5, retry_max_s=2.0)
    started = time.perf_counter()
    with pytest.raises(TargetUnreachable) as caught:
        call_target(spec, calls(*(f"q{i}" for i in range(48))), default_body=RAG_BODY, concurrency=8)
    seconds = time.perf_counter() - started
    print(f"\nunreachable target given up after {seconds:.2f}s")
    message = str(caught.value)
    import re

    attempts = int(re.search(r"the first (\d+) connection attempts failed", message).group(1))
    # the calls already in flight (8) may fail too; then no call makes another attempt (not 48 x 4)
    assert url in message and UNREACHABLE_AFTER <= attempts <= 8 + UNREACHABLE_AFTER, message
    assert "\n" not in message and "ConnectError" in message
    assert isinstance(caught.value, ValueError)  # a permanent error: the replay step is not retried


def test_a_target_that_answered_is_not_given_up_on_when_it_later_refuses(tmp_path):
    """Connection failures after an answer are per-case failures (retried, then unmeasured), not an unreachable target."""
    with LoopbackEndpoint(answering, key=lambda b: b["question"]) as server:
        url = server.url
        first = call_target(TargetSpec(url=url), calls("a"), default_body=RAG_BODY)
    assert first[0].answer == "A:a"
    # the same address, now closed: still unreachable from the start of this replay
    from assay.replay.targets import TargetUnreachable

    with pytest.raises(TargetUnreachable):
        call_target(TargetSpec(url=url, max_retries=0), calls("a", "b", "c", "d"), default_body=RAG_BODY, concurrency=1)
    # fewer calls than the threshold: each fails on its own, named by address
    replies = call_target(TargetSpec(url=url, max_retries=0), calls("a", "b"), default_body=RAG_BODY, concurrency=1)
    assert all(r.error and r.error.startswith("cannot connect: ConnectError") for r in replies)


@pytest.mark.parametrize("value, problem", [
    ("htp://127.0.0.1/x", "must start with http:// or https:// (not htp://)"),
    ("http:///x", "needs a host name or address"),
    ("http://127.0.0.1:99999/x", "valid host and port"),
    ("http://exa mple.com/x", "needs a host name or address"),
])
def test_a_target_url_with_a_bad_scheme_or_host_is_refused_as_a_url(value, problem):
    from assay.spec import parse_target

    with pytest.raises(SpecError, match="--target") as caught:
        parse_target(value)
    assert problem in str(caught.value)


def test_a_target_implies_live_replay_and_refuses_recorded(tmp_path):
    spec, _ = build_run_spec("rag_qa", default_dataset=tmp_path, cli={"target": "http://127.0.0.1:9/rag", "offline": True})
    assert spec.replay == "live"
    with pytest.raises(SpecError, match="--replay recorded would not do"):
        build_run_spec("agent", default_dataset=tmp_path, cli={"target": "http://127.0.0.1:9/a", "replay": "recorded",
                                                                "offline": True})
def _forge_every_record(store, answer: str) -> int:
    """What a writer of the store without the signing key can do: rewrite each stored reply and
    recompute every plain hash the record carries."""
    from pathlib import Path

    from assay.hashing import sha256_json

    forged = 0
    for path in Path(store).glob("??/*.json"):
        record = json.loads(path.read_text())
        record["response"]["data"] = {"answer": answer, "contexts": []}
        record["response_sha256"] = sha256_json(record["response"])
        path.write_text(json.dumps(record))
        forged += 1
    return forged


def test_under_a_signing_key_a_forged_target_record_is_set_aside_by_name_and_called_again(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_SIGNING_KEY", "sign-key-for-tests-1")
    store = str(tmp_path / "store")
    said: list[str] = []
    with LoopbackEndpoint(answering, key=lambda b: b["question"]) as server:
        spec = TargetSpec(url=server.url)
        call_target(spec, calls("a", "b"), default_body=RAG_BODY, store_path=store)
        assert _forge_every_record(store, "FORGED") == 2
        again = call_target(spec, calls("a", "b"), default_body=RAG_BODY, store_path=store, progress=said.append)
    assert [r.answer for r in again] == ["A:a", "A:b"] and not any(r.reused for r in again)
    assert server.calls == {"a": 2, "b": 2}
    set_aside = [line for line in said if "set aside as" in line]
    assert len(set_aside) == 2 and all("not authenticated with ASSAY_SIGNING_KEY" in line for line in set_aside)
    assert len(list((tmp_path / "store").glob("??/*.json.untrusted-*"))) == 2  # kept as evidence


def test_without_a_key_records_are_reused_on_their_hashes_and_a_key_refuses_them(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_SIGNING_KEY", raising=False)
    store = str(tmp_path / "store")
    with LoopbackEndpoint(answering, key=lambda b: b["question"]) as server:
        spec = TargetSpec(url=server.url)
        call_target(spec, calls("a"), default_body=RAG_BODY, store_path=store)
        assert [r.reused for r in call_target(spec, calls("a"), default_body=RAG_BODY, store_path=store)] == [True]
        monkeypatch.setenv("ASSAY_SIGNING_KEY", "sign-key-for-tests-1")  # written without the key: not authenticated
        assert [r.reused for r in call_target(spec, calls("a"), default_body=RAG_BODY, store_path=store)] == [False]
        assert [r.reused for r in call_target(spec, calls("a"), default_body=RAG_BODY, store_path=store)] == [True]
    assert server.calls == {"a": 2}
def test_a_reply_that_echoes_its_headers_is_masked_before_anything_reads_or_stores_it(monkeypatch, tmp_path):
    # Variable names that say nothing about secrets: only the target spec marks them.
    monkeypatch.setenv("RAG_AUTH", "hdr-secret-0451\"q")
    monkeypatch.setenv("RAG_SESSION", "session-d41e0b")

    def echo(body, n):
        return 200, {"answer": f"A: {body['question']}", "contexts": [], "debug": body["question"]}, 0.0

    class Echo(LoopbackEndpoint):
        async def _handle(self, request):
            from aiohttp import web

            headers = dict(request.headers)
            return web.json_response({"answer": f"you sent {headers}", "contexts": [{"text": json.dumps(headers)}]})

    with Echo(echo) as server:
        spec = TargetSpec(url=server.url, headers={"Authorization": "Bearer RAG_AUTH", "X-Session": "RAG_SESSION"})
        replies = call_target(spec, calls("q"), default_body=RAG_BODY, store_path=str(tmp_path / "store"))
    reply = replies[0]
    assert reply.error is None and "***" in reply.answer
    shown = json.dumps(reply.model_dump(mode="json"))
    assert "hdr-secret-0451" not in shown and "session-d41e0b" not in shown and "hdr-secret-0451" not in reply.raw
    stored = b"".join(p.read_bytes() for p in (tmp_path / "store").rglob("*.json"))
    assert stored and b"hdr-secret-0451" not in stored and b"session-d41e0b" not in stored


def test_a_reply_that_breaks_an_input_limit_is_that_case_s_error(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_MAX_TEXT_CHARS", "50")

    def replies(body, n):
        q = body["question"]
        if q == "nan":
            return 200, '{"answer": "a", "score": NaN}', 0.0
        if q == "long":
            return 200, {"answer": "x" * 51}, 0.0
        return 200, {"answer": "fine"}, 0.0

    with LoopbackEndpoint(replies, key=lambda b: b["question"]) as server:
        out = call_target(TargetSpec(url=server.url), calls("nan", "long", "ok"), default_body=RAG_BODY)
    assert "not a finite number (reads as NaN)" in out[0].error and out[0].attempts == 1
    assert "a text of 51 characters; the limit is 50" in out[1].error
    assert out[2].error is None and out[2].answer == "fine"

    def nan_function(question):
        return {"answer": question, "confidence": float("nan")}

    out = call_target(TargetSpec(function=register_function(nan_function)), calls("q"), default_body=RAG_BODY)
    assert "not a finite number" in out[0].error
