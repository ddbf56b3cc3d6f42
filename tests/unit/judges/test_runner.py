"""JuryRunner: retries, drops, reruns through the call store, budget, concurrency, secrets.

Every LLM call is a real HTTP call to the loopback server; counts are taken at the server.
Each test runs twice: with judges sending through litellm and through the lean transport
(``assay.judges.transport``), which must behave the same under the runner's policy.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import threading
import time
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

import assay  # noqa: F401  (offline switches before litellm)
from assay.hashing import canonical_json
from assay.judges.base import JudgeResult, LocalJudge
from assay.judges.llm import LiteLLMJudge
from assay.judges.runner import JuryRunner
from assay.judges.store import CallStore, UntrustedRecord
from tests.support.openai_server import Fault, OpenAICompatServer


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
    sha256 = hashlib.sha256(b"test.answer_quality/1").hexdigest()

    def __init__(self, padding: str = "") -> None:
        self.padding = padding

    def messages(self, item: Item, lang: str) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": f"[{lang}] Rate the answer 0-10.{self.padding}"},
            {"role": "user", "content": item.model_dump_json()},
        ]


class EchoOfflineJudge(LocalJudge):
    """A deterministic offline judge double: the protocol's local plumbing plus its own ajudge."""

    name, model, weight = "offline-echo", "offline/echo", 1.0

    def __init__(self) -> None:
        self.calls = 0

    async def ajudge(self, prompt, item, case_id, lang="ko", request=None):
        self.calls += 1
        verdict = {"score": float(len(item.answer) % 11), "reason": "length"}
        return JudgeResult(
            judge=self.name,
            model=self.model,
            prompt_id=prompt.id,
            case_id=case_id,
            verdict=verdict,
            raw_text=json.dumps(verdict),
            attempts=1,
        )


PROMPT = FakePrompt()


def items(n: int) -> list[tuple[str, Item]]:
    return [(f"case-{i:03d}", Item(question=f"q{i}", answer="a" * (i + 1))) for i in range(n)]


TRANSPORT = "auto"  # set per test by the transport fixture


@pytest.fixture(autouse=True, params=["litellm", "lean"])
def transport(request, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "TRANSPORT", request.param)
    return request.param


def judge(server: OpenAICompatServer, model: str = "judge-a", **kw) -> LiteLLMJudge:
    kw.setdefault("transport", TRANSPORT)
    return LiteLLMJudge(f"openai/{model}", api_base=server.base_url, **kw)


def runner(judges, store=None, **kw) -> JuryRunner:
    kw.setdefault("backoff_base_s", 0.01)
    kw.setdefault("backoff_max_s", 0.05)
    return JuryRunner(judges, store=store, **kw)


@pytest.fixture
def server():
    with OpenAICompatServer() as srv:
        yield srv


def test_429_burst_is_retried_then_succeeds(server):
    server.add_fault(Fault(kind="status", status=429, model="judge-a", times=2))
    run = runner([judge(server)]).run(PROMPT, items(1))
    result = run.results["case-000"][0]
    assert result.ok and result.attempts == 3
    assert server.count(model="judge-a") == 3 and server.count(status=429) == 2
    stats = run.judge_stats["judge-a"]
    assert (stats.sent, stats.retries, stats.failed) == (3, 2, 0)
    assert run.dropped_judges == {}


def test_permanent_401_is_not_retried_and_the_judge_is_dropped(server):
    server.add_fault(Fault(kind="status", status=401, model="judge-b"))
    run = runner([judge(server, "judge-a"), judge(server, "judge-b")], max_retries=4).run(PROMPT, items(3))
    assert server.count(model="judge-b") == 3  # one attempt per case, no retries
    assert all(run.results[c][0].ok for c in run.results)
    assert all(run.results[c][1].error_kind == "permanent" for c in run.results)
    assert set(run.dropped_judges) == {"judge-b"}
    assert "permanent x3" in run.dropped_judges["judge-b"]
    assert [r.judge for r in run.results["case-000"]] == ["judge-a", "judge-b"]  # judge order


def test_malformed_reply_is_retried_then_recorded_with_raw_text(server, tmp_path):
    server.add_fault(Fault(kind="malformed", model="judge-a"))
    store = CallStore(str(tmp_path / "calls"))
    run = runner([judge(server)], store=store, max_retries=2).run(PROMPT, items(1))
    result = run.results["case-000"][0]
    assert server.count(model="judge-a") == 3
    assert result.error_kind == "malformed" and result.raw_text == "this is not json {"
    assert result.verdict is None and result.attempts == 3
    assert store.keys() == []  # failures are never stored
    assert "judge-a" in run.dropped_judges


def test_rerun_resends_only_failed_calls_and_second_rerun_sends_none(server, tmp_path):
    store = CallStore(str(tmp_path / "calls"))
    jury = [judge(server, "judge-a"), judge(server, "judge-b")]
    server.add_fault(Fault(kind="status", status=500, model="judge-b", times=2))
    first = runner(jury, store=store, max_retries=0).run(PROMPT, items(5))
    assert server.count(model="judge-a") == 5 and server.count(model="judge-b") == 5
    failed = {c for c, rs in first.results.items() if not rs[1].ok}
    assert len(failed) == 2 and first.dropped_judges == {}
    assert len(store.keys()) == 8

    server.reset_counts()
    second = runner(jury, store=store, max_retries=0).run(PROMPT, items(5))
    assert server.count(model="judge-a") == 0 and server.count(model="judge-b") == 2
    resent = {r.case_id for rs in second.results.values() for r in rs if not r.cached}
    assert resent == failed
    assert all(r.ok for rs in second.results.values() for r in rs)
    assert second.judge_stats["judge-a"].reused == 5 and second.judge_stats["judge-b"].reused == 3
    assert second.request_keys == first.request_keys

    server.reset_counts()
    third = runner(jury, store=store).run(PROMPT, items(5))
    assert server.count() == 0
    assert all(r.cached and r.ok for rs in third.results.values() for r in rs)


def test_cached_request_sends_nothing_and_record_has_lineage(server, tmp_path):
    store = CallStore(str(tmp_path / "calls"))
    first = runner([judge(server)], store=store).run(PROMPT, items(1))
    key = first.results["case-000"][0].request_key
    record = store.get(key)
    assert record["prompt_id"] == PROMPT.id and record["prompt_sha256"] == PROMPT.sha256
    assert record["model"] == "openai/judge-a" and record["judge"] == "judge-a"
    assert (
        record["request"]["params"]["response_format"]["json_schema"]["schema"] == Verdict.model_json_schema()
    )
    assert json.loads(record["response"]["raw_text"]) == {"score": 5.0, "reason": "ok"}
    assert set(record["response"]["usage"]) == {"input_tokens", "output_tokens", "cost_usd"}
    server.reset_counts()
    again = runner([judge(server)], store=store).run(PROMPT, items(1))
    assert server.count() == 0
    assert again.results["case-000"][0].cached and again.results["case-000"][0].verdict == {
        "score": 5.0,
        "reason": "ok",
    }
    assert again.judge_stats["judge-a"].sent == 0 and again.judge_stats["judge-a"].cost_usd == 0


def test_budget_guard_stops_before_exceeding(server):
    # gpt-4o has a price in litellm's bundled cost map, so every call costs something.
    prompt = FakePrompt(padding=" Consider accuracy and completeness." * 40)
    probe = runner([judge(server, "gpt-4o", max_tokens=64)]).run(prompt, items(1))
    per_call = probe.judge_stats["gpt-4o"].cost_usd
    assert per_call > 0
    server.reset_counts()
    limit = 3.5 * per_call
    run = runner(
        [judge(server, "gpt-4o", max_tokens=64)], max_cost_usd=limit, concurrency_per_provider=1
    ).run(prompt, items(8))
    outcomes = [rs[0] for rs in run.results.values()]
    ok = [r for r in outcomes if r.ok]
    assert run.budget_exhausted
    assert len(ok) == 3 and server.count() == 3
    assert all(r.error_kind == "budget" for r in outcomes if not r.ok)
    assert run.spent_usd <= limit and run.judge_stats["gpt-4o"].cost_usd <= limit
    assert run.judge_stats["gpt-4o"].sent == 3


def test_budget_is_shared_by_the_runs_of_one_runner(server):
    prompt = FakePrompt(padding=" Consider accuracy and completeness." * 40)
    jury = runner([judge(server, "gpt-4o", max_tokens=64)], max_cost_usd=0.01)
    first = jury.run(prompt, items(5))
    second = jury.run(prompt, [(f"other-{i}", item) for i, (_, item) in enumerate(items(20))])
    assert not first.budget_exhausted and second.budget_exhausted
    assert first.spent_usd + second.spent_usd == pytest.approx(jury.spent_usd)
    assert jury.spent_usd <= 0.01


def test_budget_holds_with_concurrent_calls(server):
    prompt = FakePrompt(padding=" 정확성과 완전성을 고려하세요." * 40)  # tiktoken counts Korean generously
    limit = 0.02
    run = runner(
        [judge(server, "gpt-4o", max_tokens=64)], max_cost_usd=limit, concurrency_per_provider=4
    ).run(prompt, items(40))
    assert run.budget_exhausted and 0 < server.count() < 40
    assert run.spent_usd <= limit


def test_unpriced_models_are_never_blocked_by_the_budget(server):
    run = runner([judge(server)], max_cost_usd=0.0).run(PROMPT, items(3))
    assert not run.budget_exhausted and server.count() == 3


def test_api_key_never_reaches_the_store_or_results(server, tmp_path, monkeypatch):
    secret = "sk-assay-test-9f8e7d6c5b4a39281706"
    monkeypatch.setenv("ASSAY_TEST_JUDGE_KEY", secret)
    store = CallStore(str(tmp_path / "calls"))
    server.add_fault(Fault(kind="status", status=401, model="judge-b"))
    jury = [
        judge(server, "judge-a", api_key_env="ASSAY_TEST_JUDGE_KEY"),
        judge(server, "judge-b", api_key_env="ASSAY_TEST_JUDGE_KEY"),
    ]
    run = runner(jury, store=store).run(PROMPT, items(3))
    files = list(Path(tmp_path / "calls").rglob("*"))
    assert any(f.is_file() for f in files)
    for f in files:
        if f.is_file():
            assert secret.encode() not in f.read_bytes(), f
    assert secret not in run.model_dump_json()


def test_concurrency_bound_per_provider(tmp_path):
    latency, limit = 0.1, 3
    with OpenAICompatServer(latency_s=latency) as srv:
        # two judges on one endpoint share one provider bucket
        jury = [judge(srv, "judge-a"), judge(srv, "judge-b")]
        started = time.perf_counter()
        run = runner(jury, concurrency_per_provider=limit).run(PROMPT, items(9))
        wall = time.perf_counter() - started
        # The server records a request after sleeping `latency`, so [at - latency, at] lies
        # inside the time it was really in flight: overlaps of these are a lower bound.
        spans = [(r.at - latency, r.at) for r in srv.requests]
    assert all(r.ok for rs in run.results.values() for r in rs)
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans], key=lambda x: (x[0], x[1]))
    in_flight = peak = 0
    for _, delta in events:
        in_flight += delta
        peak = max(peak, in_flight)
    assert 2 <= peak <= limit
    assert wall >= (18 / limit) * latency * 0.95  # 18 calls, at most `limit` at a time


def test_offline_judges_are_recomputed_but_recorded(server, tmp_path):
    store = CallStore(str(tmp_path / "calls"))
    offline = EchoOfflineJudge()
    jury = [judge(server), offline]
    first = runner(jury, store=store).run(PROMPT, items(2))
    offline_keys = {first.results[c][1].request_key for c in first.results}
    # Recorded with the run (the step stores them with its lineage), not in the call store,
    # which they would never be read back from.
    assert {k: first.call_records[k]["model"] for k in offline_keys} == dict.fromkeys(offline_keys, "offline/echo")
    assert all(first.call_records[k]["key"] == k and first.call_records[k]["response_sha256"] for k in offline_keys)
    assert all(store.get(k) is None for k in offline_keys)
    second = runner(jury, store=store).run(PROMPT, items(2))
    assert offline.calls == 4  # recomputed, never read back
    assert second.judge_stats["offline-echo"].reused == 0 and second.judge_stats["judge-a"].reused == 2
    assert [r.judge for r in second.results["case-000"]] == ["judge-a", "offline-echo"]


def test_a_judge_that_raises_does_not_sink_the_others(server):
    class Broken(EchoOfflineJudge):
        name = "broken"

        async def ajudge(self, prompt, item, case_id, lang="ko", request=None):
            raise RuntimeError("bug in judge")

    run = runner([judge(server), Broken()]).run(PROMPT, items(2))
    assert all(rs[0].ok for rs in run.results.values())
    assert all(rs[1].error_kind == "permanent" for rs in run.results.values())
    assert "broken" in run.dropped_judges


def test_run_works_inside_a_running_event_loop_and_reports_progress(server):
    messages: list[str] = []
    jury = runner([judge(server, "judge-a"), judge(server, "judge-b")], progress=messages.append)

    async def inside_loop():
        return jury.run(PROMPT, items(10))

    run = asyncio.run(inside_loop())
    assert len(run.results) == 10 and server.count() == 20
    assert len(messages) == 10 and messages[-1].startswith("judges: 20/20 calls done")


def test_language_reaches_the_prompt(server):
    runner([judge(server)], lang="en").run(PROMPT, items(1))
    assert server.requests[0].body["messages"][0]["content"].startswith("[en]")


def test_duplicate_judge_names_are_rejected(server):
    with pytest.raises(ValueError, match="unique"):
        JuryRunner([judge(server), judge(server)], store=None)


def test_identical_requests_in_one_run_are_sent_once(server, tmp_path):
    store = CallStore(str(tmp_path / "calls"))
    same = Item(question="q", answer="a")
    run = runner([judge(server)], store=store).run(PROMPT, [("x", same), ("y", same), ("z", same)])
    assert server.count() == 1 and len(store.keys()) == 1
    assert [r.ok for rs in run.results.values() for r in rs] == [True, True, True]
    assert run.judge_stats["judge-a"].reused == 2
    assert {rs[0].case_id for rs in run.results.values()} == {"x", "y", "z"}


# -- the call store ----------------------------------------------------------------------------


def stored_request(text: str) -> tuple[str, dict]:
    """A request key and the request part of a record that hashes to it."""
    messages, params = [{"role": "user", "content": text}], {"temperature": 0.2}
    key = CallStore.request_key("openai/m", None, messages, params)
    return key, {"model": "openai/m", "api_base": None, "request": {"messages": messages, "params": params}}


def test_store_is_write_once_and_tolerates_damage(tmp_path):
    store = CallStore(str(tmp_path / "calls"))
    key, request = stored_request("hi")
    path = store.put(key, {**request, "response": {"raw_text": "first"}})
    store.put(key, {**request, "response": {"raw_text": "second"}})
    assert store.get(key)["response"]["raw_text"] == "first" and store.get(key)["key"] == key
    assert [p.name for p in Path(path).parent.iterdir()] == [f"{key}.json"]  # no temp files left
    Path(path).write_text("{ truncated", encoding="utf-8")
    with pytest.raises(UntrustedRecord, match="not valid JSON"):  # the runner sets it aside, re-sends
        store.get(key)
    assert store.get("0" * 64) is None
    with pytest.raises(ValueError):
        store.get("../../etc/passwd")


def test_store_works_on_fsspec_urls():
    store = CallStore("memory://assay-test/calls")
    key, request = stored_request("")
    store.put(key, {**request, "response": {"raw_text": "{}"}})
    assert store.get(key)["response"]["raw_text"] == "{}"
    assert store.keys() == [key] and key in store


def test_real_prompt_with_offline_jury_and_llm_judge(server, tmp_path):
    prompts = pytest.importorskip("assay.judges.prompts")
    offline = pytest.importorskip("assay.judges.offline")
    prompt = prompts.RAG_ANSWER
    item = prompt.input_model.model_validate(dict(prompt.example))
    store = CallStore(str(tmp_path / "calls"))
    jury = [judge(server), *offline.offline_jury()]
    run = runner(jury, store=store).run(prompt, [("c1", item)])
    assert [r.ok for r in run.results["c1"]] == [True] * len(jury), run.results
    assert run.prompt_sha256 == prompt.sha256
    assert server.requests[0].body["messages"] == prompt.messages(item, "ko")
    # LLM calls are in the call store; offline ones travel with the run
    records = [run.call_records.get(k) or store.get(k) for k in run.request_keys]
    assert sorted(r["model"] for r in records) == sorted(j.model for j in jury)


RULE_MODULE = '''
import json
from assay.hashing import canonical_json
from assay.judges.base import JudgeResult, LocalJudge


class RuleJudge(LocalJudge):
    name, model, weight = "rule", "offline/rule", 1.0

    async def ajudge(self, prompt, item, case_id, lang="ko", request=None):
        verdict = {{"score": {score}, "reason": "rule"}}
        return JudgeResult(judge=self.name, model=self.model, prompt_id=prompt.id, case_id=case_id,
                           verdict=verdict, raw_text=json.dumps(verdict), attempts=1)
'''


def load_rule_judge(path: Path, score: float):
    """Write the rule module with ``score`` and import it afresh (a new class, as in a new run)."""
    import importlib.util

    path.write_text(RULE_MODULE.format(score=score), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"rule_judge_{int(score)}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as for any imported module; the version reads its file
    # Python trusts a cached .pyc whose source has the same size and mtime second: the rewrite a
    # moment later would load the first version's bytecode. A user's edit comes seconds later.
    dont_write_before, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = dont_write_before
    return module.RuleJudge()


def test_an_edited_offline_rule_is_a_new_judge_version_and_is_asked_again(tmp_path):
    store = CallStore(str(tmp_path / "calls"))
    rules = tmp_path / "rule_judge.py"
    old = runner([load_rule_judge(rules, 3)], store=store).run(PROMPT, items(1))
    new_judge = load_rule_judge(rules, 7)
    new = runner([new_judge], store=store).run(PROMPT, items(1))
    before, after = old.results["case-000"][0], new.results["case-000"][0]
    assert before.verdict["score"] == 3 and after.verdict["score"] == 7  # not the stored old verdict
    assert before.request_key != after.request_key and not after.cached
    stored = new.call_records[after.request_key]  # what `assay lineage` shows for the new score
    assert json.loads(stored["response"]["raw_text"])["score"] == 7
    assert old.call_records[before.request_key]["request"]["params"]["version"] != new_judge.version
    assert new_judge.request(PROMPT, items(1)[0][1]).params["version"] == new_judge.version


def test_an_edited_stored_answer_is_set_aside_and_asked_again(server, tmp_path):
    store = CallStore(str(tmp_path / "calls"))
    first = runner([judge(server)], store=store).run(PROMPT, items(2))
    key = first.results["case-000"][0].request_key
    path = Path(store.path(key))
    record = json.loads(path.read_text())
    record["response"]["raw_text"] = json.dumps({"score": 10, "reason": "edited"})  # hash left stale
    path.write_text(json.dumps(record))
    sent_before = server.count(model="judge-a")

    again = runner([judge(server)], store=store).run(PROMPT, items(2))
    assert server.count(model="judge-a") == sent_before + 1  # only the edited call is re-sent
    assert len(again.untrusted_records) == 1 and "response hash" in again.untrusted_records[0]
    assert again.results["case-000"][0].verdict == first.results["case-000"][0].verdict
    assert again.results["case-001"][0].cached
    assert list(path.parent.glob(f"{key}.json.untrusted-*"))  # the edited bytes are kept as evidence
    assert store.get(key)["response"]["raw_text"] != record["response"]["raw_text"]


def test_a_planted_record_under_another_request_key_is_not_trusted(server, tmp_path):
    store = CallStore(str(tmp_path / "calls"))
    first = runner([judge(server)], store=store).run(PROMPT, items(1))
    key = first.results["case-000"][0].request_key
    record = json.loads(Path(store.path(key)).read_text())
    record["request"]["messages"][1]["content"] = "something else"
    Path(store.path(key)).write_text(json.dumps(record))
    with pytest.raises(UntrustedRecord, match="does not hash to its key"):
        store.get(key)
    assert key not in store


def test_under_a_signing_key_a_rewritten_answer_with_recomputed_hashes_is_set_aside_and_asked_again(
    server, tmp_path, monkeypatch
):
    """A writer of the store without the key rewrites raw_text and recomputes the plain sha256
    (issue 33, item 2): the keyed digest no longer matches, so the call is sent again."""
    from assay.hashing import sha256_json

    monkeypatch.setenv("ASSAY_SIGNING_KEY", "sign-key-for-tests-1")
    store = CallStore(str(tmp_path / "calls"))
    first = runner([judge(server)], store=store).run(PROMPT, items(2))
    key = first.results["case-000"][0].request_key
    path = Path(store.path(key))
    record = json.loads(path.read_text())
    assert record["digest"].startswith("hmac-sha256:")
    record["response"]["raw_text"] = json.dumps({"score": 10, "reason": "forged"})
    record["response_sha256"] = sha256_json(record["response"])  # every plain hash agrees again
    path.write_text(json.dumps(record))
    sent_before = server.count(model="judge-a")

    again = runner([judge(server)], store=store).run(PROMPT, items(2))
    assert server.count(model="judge-a") == sent_before + 1
    assert len(again.untrusted_records) == 1 and "not authenticated with ASSAY_SIGNING_KEY" in again.untrusted_records[0]
    assert again.results["case-000"][0].verdict == first.results["case-000"][0].verdict
    assert list(path.parent.glob(f"{key}.json.untrusted-*"))
    monkeypatch.delenv("ASSAY_SIGNING_KEY")
    record.pop("digest")
    path.write_text(json.dumps(record))  # without a key a store writer's record is taken on its hashes
    assert store.get(key)["response"]["raw_text"] == record["response"]["raw_text"]


def test_replies_are_read_while_later_requests_are_still_to_be_built(tmp_path):
    """The first reply is read after about twice the concurrency of requests are built, not after
    all of them (with a task per call up front, every request of the run was built and keyed
    before the first reply was looked at)."""
    limit, n = 4, 120
    built: list[int] = []
    built_at_first_reply: list[int] = []

    class CountingPrompt(FakePrompt):
        def messages(self, item, lang):
            built.append(1)
            return super().messages(item, lang)

    class ReadingJudge(LiteLLMJudge):
        def parse(self, raw_text, prompt):
            built_at_first_reply.append(len(built))
            return super().parse(raw_text, prompt)

    with OpenAICompatServer(latency_s=0.01) as srv:
        jury = [ReadingJudge("openai/judge-a", api_base=srv.base_url, transport=TRANSPORT)]
        run = runner(jury, store=CallStore(str(tmp_path / "calls")), concurrency_per_provider=limit).run(
            CountingPrompt(), items(n))
    assert all(r.ok for rs in run.results.values() for r in rs) and len(built) == n
    assert built_at_first_reply[0] <= 2 * limit + 1


def test_the_records_a_run_stored_are_kept_as_the_store_holds_them(server, tmp_path):
    """The metric step adopts each call's record from the run, not from a second read of the store."""
    store = CallStore(str(tmp_path / "calls"))
    first = runner([judge(server)], store=store).run(PROMPT, items(3))
    keys = first.request_keys
    assert sorted(first.call_records) == sorted(keys)
    assert all(first.call_records[key] == store.get(key) for key in keys)
    again = runner([judge(server)], store=store).run(PROMPT, items(3))  # answered from the store
    assert all(again.call_records[key] == store.get(key) for key in keys)


def test_each_stored_record_is_handed_on_while_the_run_goes_on(server, tmp_path):
    """``on_stored`` gets every record the run wrote, as the store holds it, before the run ends
    (the metric step keeps it as evidence while later calls are in flight); a failing
    ``on_stored`` costs no verdict and no record."""
    store = CallStore(str(tmp_path / "calls"))
    handed: dict[str, dict] = {}
    handed_bytes: dict[str, bytes] = {}

    def keep(key, record, data):
        handed[key], handed_bytes[key] = record, data

    run = runner([judge(server)], store=store, on_stored=keep).run(PROMPT, items(4))
    assert sorted(handed) == sorted(run.request_keys)
    assert all(handed[key] is run.call_records[key] and handed[key] == store.get(key) for key in handed)
    # the bytes handed on are the stored file's, the record's canonical JSON
    assert all(handed_bytes[key] == Path(store.path(key)).read_bytes() == canonical_json(handed[key]) for key in handed)

    def broken(key, record, data):
        raise OSError("disk full")

    other = CallStore(str(tmp_path / "other"))
    failed = runner([judge(server)], store=other, on_stored=broken).run(PROMPT, items(4))
    assert all(r.ok for results in failed.results.values() for r in results) and not failed.store_errors
    assert sorted(failed.call_records) == sorted(failed.request_keys)
    # a reused record was not written by this run: nothing handed on
    again: dict[str, dict] = {}
    runner([judge(server)], store=store, on_stored=lambda key, record, data: again.setdefault(key, record)).run(
        PROMPT, items(4))
    assert again == {}


def test_a_run_on_the_main_thread_never_formats_its_result(server, monkeypatch):
    """``asyncio.run`` on the main thread formats its SIGINT handler, whose text holds the main
    task and so its result: the repr of a JuryRun of thousands of results (~0.2 s each time)."""
    from assay.judges.runner import JuryRun

    assert threading.current_thread() is threading.main_thread()
    formatted: list[int] = []
    monkeypatch.setattr(JuryRun, "__repr__", lambda self: formatted.append(1) or "JuryRun(...)")
    run = runner([judge(server)]).run(PROMPT, items(3))
    assert len(run.results) == 3 and formatted == []


def test_a_store_that_fails_some_writes_costs_no_verdict_and_the_run_says_which(server, tmp_path):
    class HalfBroken(CallStore):
        def write_once(self, key, record, request_json=None):
            if int(key, 16) % 2:
                raise OSError(28, "No space left on device")
            return super().write_once(key, record, request_json)

    store = HalfBroken(str(tmp_path / "calls"))
    threads: set[str] = set()
    run = runner([judge(server)], store=store,
                 on_stored=lambda key, record, data: threads.add(threading.current_thread().name)).run(PROMPT, items(12))
    assert all(r.ok for results in run.results.values() for r in results)
    failed = sorted(k for k in run.request_keys if int(k, 16) % 2)
    assert failed and sorted(e.split(":", 1)[0] for e in run.store_errors) == failed
    assert all("No space left" in e for e in run.store_errors)
    assert sorted(run.call_records) == sorted(set(run.request_keys) - set(failed))  # what was written, when the run returned
    assert all(store.get(k) == run.call_records[k] for k in run.call_records)
    assert threads and threading.current_thread().name not in threads  # written off the run's loop thread
