"""A large jury run's calls split over a forked child process: the same run as in one process
(results, counters, call records, the call store), one in-flight budget for the provider
across both processes, duplicates sent once, and a failed child's calls judged by the parent.

Real forks, real HTTP calls to the loopback server (counted there), a real call store."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import threading
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

import assay  # noqa: F401  (offline switches before litellm)
from assay.judges import second_process
from assay.judges.limits import ProviderGate, provider_gate
from assay.judges.llm import LiteLLMJudge
from assay.judges.runner import JuryRun, JuryRunner
from assay.judges.store import CallStore
from tests.support.openai_server import Fault, OpenAICompatServer

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

LIMIT = 6


class Verdict(BaseModel):
    score: float = Field(ge=0, le=10)
    reason: str


class Item(BaseModel):
    question: str
    answer: str


class Prompt:
    id = "test.split"
    version = "1"
    verdict_model = Verdict
    sha256 = hashlib.sha256(b"test.split/1").hexdigest()

    def messages(self, item: Item, lang: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": "Rate the answer 0-10."}, {"role": "user", "content": item.model_dump_json()}]


def items(n: int) -> list[tuple[str, BaseModel]]:
    return [(f"c{i:03d}", Item(question=f"q{i}", answer="a" * (i % 7))) for i in range(n)]


def runner(server: OpenAICompatServer, store: Path | None, **kw) -> JuryRunner:
    judges = [LiteLLMJudge(f"openai/judge-{x}", api_base=server.base_url, transport="lean") for x in "ab"]
    kw.setdefault("concurrency_per_provider", LIMIT)
    return JuryRunner(judges, CallStore(store) if store else None, backoff_base_s=0.01, **kw)


def clockless(value):
    if isinstance(value, dict):
        return {k: clockless(v) for k, v in value.items() if k not in {"created_at", "latency_s", "digest", "response_sha256"}}
    if isinstance(value, list):
        return [clockless(v) for v in value]
    return value


def comparable(run: JuryRun) -> dict:
    dumped = run.model_dump(mode="json")
    return clockless(dumped) | {"records": clockless(run.call_records)}


def stored_files(root: Path) -> dict[str, dict]:
    return {p.name: clockless(json.loads(p.read_bytes())) for p in sorted(root.rglob("*.json"))}


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setattr(second_process, "MIN_CALLS", 1)  # split the tests' small runs too
    monkeypatch.setattr("assay.cores.usable_cores", lambda: 2)
    with OpenAICompatServer(latency_s=0.02) as server:
        yield server


def test_a_split_run_is_the_run_one_process_makes(server, tmp_path, monkeypatch) -> None:
    kept: dict[str, list[str]] = {"one": [], "two": []}
    runs = {}
    for processes in ("1", "2"):
        monkeypatch.setenv(second_process.SWITCH, processes)
        side = "one" if processes == "1" else "two"
        jury = runner(server, tmp_path / side, on_stored=lambda key, record, data, side=side: kept[side].append(key))
        runs[side] = jury.run(Prompt(), items(40))
        assert all(r.ok for rs in runs[side].results.values() for r in rs)
    one, two = runs["one"], runs["two"]
    assert comparable(two) == comparable(one)  # results in case order, counters, keys, records
    assert two.judge_stats["judge-a"].sent == 40 and two.judge_stats["judge-b"].sent == 40
    assert sorted(kept["two"]) == sorted(kept["one"]) and len(kept["one"]) == 80  # every record kept once
    assert stored_files(tmp_path / "two") == stored_files(tmp_path / "one")
    assert server.count(status=200) == 2 * 80


def test_the_provider_never_sees_more_than_the_limit_across_both_processes(server, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(second_process.SWITCH, "2")
    server.latency_s = 0.05
    results: list[JuryRun] = []
    # Two runners at once in this process (two families), one of them split: one ceiling for all.
    threads = [threading.Thread(target=lambda i=i: results.append(runner(server, tmp_path / f"s{i}").run(Prompt(), items(30))))
               for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(results) == 2 and all(r.ok for run in results for rs in run.results.values() for r in rs)
    assert server.count(status=200) == 2 * 60
    assert LIMIT // 2 < server.max_in_flight <= LIMIT, server.max_in_flight
    gate = provider_gate(runner(server, None).judges[0].provider, LIMIT)
    assert gate.inflight == 0  # the child's share given back


def test_identical_inputs_are_judged_on_one_side_and_sent_once(server, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(second_process.SWITCH, "2")
    cases = items(20) + [(f"dup{i:03d}", item) for i, (_, item) in enumerate(items(20))]
    sides = second_process.sides(cases)
    assert sides[:20] == sides[20:] and 0 < sum(sides) < len(sides)
    run = runner(server, tmp_path / "calls").run(Prompt(), cases)
    assert server.count(status=200) == 2 * 20  # each distinct request once, over both processes
    assert sum(s.reused for s in run.judge_stats.values()) == 2 * 20
    assert [r.cached for r in run.results["dup005"]] == [True, True]


def test_a_failed_child_leaves_its_calls_to_the_parent(server, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(second_process.SWITCH, "2")

    async def broken(self, prompt, items, indices):
        raise RuntimeError("the child broke")

    monkeypatch.setattr(JuryRunner, "judge_some", broken)  # only the child calls it
    messages: list[str] = []
    run = runner(server, tmp_path / "calls", progress=messages.append).run(Prompt(), items(30))
    assert all(r.ok for rs in run.results.values() for r in rs) and len(run.results) == 30
    assert server.count(status=200) == 60
    assert any("second judge process failed" in m and "the child broke" in m for m in messages)


def test_a_child_stored_answer_is_reused_when_the_parent_takes_over(server, tmp_path, monkeypatch) -> None:
    """The child dies after storing some answers: the parent re-sends only the rest."""
    monkeypatch.setenv(second_process.SWITCH, "2")
    real = JuryRunner.judge_some

    async def dies_midway(self, prompt, items, indices):
        await real(self, prompt, items, indices[:4])
        os._exit(3)

    monkeypatch.setattr(JuryRunner, "judge_some", dies_midway)
    run = runner(server, tmp_path / "calls").run(Prompt(), items(30))
    assert all(r.ok for rs in run.results.values() for r in rs)
    assert server.count(status=200) == 60  # the child's 4 answers were not asked again
    assert sum(s.reused for s in run.judge_stats.values()) == 4


def test_only_large_runs_with_a_core_to_spare_split(server, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(second_process, "MIN_CALLS", 200)
    monkeypatch.delenv(second_process.SWITCH, raising=False)
    monkeypatch.setattr("assay.cores.usable_cores", lambda: 2)
    load = [1.5]
    monkeypatch.setattr(second_process.os, "getloadavg", lambda: (load[0], 0.0, 0.0))
    jury = runner(server, tmp_path / "calls")
    assert not second_process.should_split(jury, 199)
    assert second_process.should_split(jury, 200)
    load[0] = 2.9  # the run and its local judge on 2 cores: a core still idles now and then
    assert second_process.should_split(jury, 10_000)
    load[0] = 3.1  # no core to spare on 2
    assert not second_process.should_split(jury, 10_000)
    monkeypatch.setenv(second_process.SWITCH, "2")  # whatever the load
    assert second_process.should_split(jury, 10_000)
    monkeypatch.setenv(second_process.SWITCH, "1")
    load[0] = 0.0
    assert not second_process.should_split(jury, 10_000)
    monkeypatch.delenv(second_process.SWITCH)
    assert not second_process.should_split(runner(server, tmp_path / "c", max_cost_usd=1.0), 10_000)  # one budget's accounting
    assert not second_process.should_split(runner(server, tmp_path / "c", send=False), 10_000)
    monkeypatch.setattr("assay.cores.usable_cores", lambda: 1)
    assert not second_process.should_split(jury, 10_000)


def test_a_429_in_the_child_is_retried_there(server, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(second_process.SWITCH, "2")
    server.add_fault(Fault("status", status=429, times=6))
    run = runner(server, tmp_path / "calls").run(Prompt(), items(20))
    assert all(r.ok for rs in run.results.values() for r in rs)
    assert sum(s.retries for s in run.judge_stats.values()) == 6


def test_take_free_takes_only_free_slots_and_release_gives_them_back() -> None:
    gate = ProviderGate(4)

    async def scenario() -> None:
        await gate.acquire()
        assert gate.take_free(5) == 3 and gate.inflight == 4
        assert gate.take_free(1) == 0
        for _ in range(3):
            gate.release()
        assert gate.inflight == 1
        gate.release()

    asyncio.run(scenario())
    assert gate.inflight == 0


def test_a_forked_child_starts_with_fresh_gates() -> None:
    gate = provider_gate("127.0.0.1:1", 2)
    assert gate.take_free(2) == 2
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        fresh = provider_gate("127.0.0.1:1", 2)
        os.write(write, b"%d" % (fresh is not gate and fresh.take_free(2) == 2))
        os._exit(0)
    os.close(write)
    assert os.read(read, 8) == b"1"
    os.waitpid(pid, 0)
    gate.release()
    gate.release()


def test_the_childs_records_are_kept_as_artifacts_there_and_adopted_here(server, tmp_path, monkeypatch) -> None:
    from assay.lineage.store import ArtifactStore
    from assay.pipeline import KeptCalls

    class CountingStore(ArtifactStore):
        puts = 0

        def put_json(self, obj, encoded=None):
            CountingStore.puts += 1  # counted in this process only: the child's puts are its own
            return super().put_json(obj, encoded)

    monkeypatch.setenv(second_process.SWITCH, "2")
    store = CountingStore(str(tmp_path / "artifacts"))
    kept = KeptCalls(store)
    run = runner(server, tmp_path / "calls", on_stored=kept).run(Prompt(), items(30))
    here = sum(1 for key in run.call_records if key in kept.records_and_shas)
    assert here == len(run.call_records) == 60
    fresh = ArtifactStore(str(tmp_path / "fresh"))
    for key, record in run.call_records.items():
        assert kept.sha(key, record) == fresh.put_json(record)  # the child's bytes are put_json's
        assert store.get(kept.sha(key, record)) == fresh.get(fresh.put_json(record))
    assert 0 < CountingStore.puts < 60  # the parent kept only its own calls' records


def test_a_refused_fork_leaves_the_run_in_one_process(server, tmp_path, monkeypatch) -> None:
    # filelock's fork guard raises this while another thread changes a lock's descriptor (seen in CI)
    attempts = []

    def refused() -> int:
        attempts.append(1)
        raise RuntimeError("os.fork is unsafe while filelock is changing descriptor ownership")

    monkeypatch.setenv(second_process.SWITCH, "2")
    monkeypatch.setattr(second_process.os, "fork", refused)
    run = runner(server, tmp_path / "calls").run(Prompt(), items(30))
    assert len(attempts) == second_process.FORK_ATTEMPTS
    assert all(r.ok for rs in run.results.values() for r in rs) and len(run.results) == 30
    assert server.count(status=200) == 2 * 30  # every call judged here, once
    gate = provider_gate(runner(server, None).judges[0].provider, LIMIT)
    assert gate.inflight == 0  # the slots taken for the child given back
