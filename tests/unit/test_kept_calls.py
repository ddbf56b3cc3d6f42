"""pipeline.KeptCalls: a judged step's call records become artifacts as the call store takes
them, and an artifact's bytes are the same whether it was kept during the run or put after."""

from __future__ import annotations

import threading

from assay.lineage.store import ArtifactStore
from assay.pipeline import KeptCalls


class CountingStore(ArtifactStore):
    def __init__(self, root: str) -> None:
        super().__init__(root)
        self.puts = 0

    def put_json(self, obj, encoded=None):
        self.puts += 1
        return super().put_json(obj, encoded)


def record(i: int) -> dict:
    return {"key": f"{i:064x}", "request": {"model": "openai/j", "api_base": "http://127.0.0.1:1/v1"},
            "response": {"raw_text": f'{{"score": {i % 5 + 1}}}'}}


def test_a_kept_record_is_put_once_and_its_sha_is_put_jsons(tmp_path):
    store = CountingStore(str(tmp_path / "store"))
    kept = KeptCalls(store)
    records = [record(i) for i in range(20)]
    threads = [threading.Thread(target=kept.keep, args=(r["key"], r)) for r in records]  # the writer's threads
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.puts == 20
    shas = [kept.sha(r["key"], r) for r in records]
    assert store.puts == 20  # nothing put twice
    fresh = ArtifactStore(str(tmp_path / "other"))
    assert shas == [fresh.put_json(r) for r in records]  # the same bytes as a put after the run
    assert all(store.get(sha) == fresh.get(sha) for sha in shas)


def test_a_record_not_kept_or_another_object_is_put_at_the_end(tmp_path):
    store = CountingStore(str(tmp_path / "store"))
    kept = KeptCalls(store)
    first = record(1)
    kept.keep(first["key"], first)
    read_again = dict(first)  # e.g. read back from the call store: another object
    assert kept.sha(first["key"], read_again) == kept.sha(first["key"], first)
    assert store.puts == 2
    assert kept.sha("f" * 64, record(2)) == ArtifactStore(str(tmp_path / "x")).put_json(record(2))


def test_a_record_kept_with_the_call_stores_bytes_is_stored_as_put_json_stores_it(tmp_path, monkeypatch):
    """The call store hands on the bytes it wrote (the record's canonical JSON, its request not
    redacted: it must hash to its key); the artifact is still the redacted record's."""
    from assay.hashing import canonical_json

    monkeypatch.setenv("KEPT_PROBE_API_KEY", "kept-probe-secret-123")
    store = CountingStore(str(tmp_path / "store"))
    kept = KeptCalls(store)
    plain, leaky = record(1), record(2)
    leaky["request"]["messages"] = [{"role": "user", "content": "the key is kept-probe-secret-123"}]
    for r in (plain, leaky):
        kept.keep(r["key"], r, canonical_json(r))
    fresh = ArtifactStore(str(tmp_path / "other"))
    assert [kept.sha(r["key"], r) for r in (plain, leaky)] == [fresh.put_json(r) for r in (plain, leaky)]
    assert b"kept-probe-secret-123" not in store.get(kept.sha(leaky["key"], leaky))


def test_an_adopted_record_gives_the_sha_it_was_kept_with_and_is_not_put_again(tmp_path):
    """The judge step's second process keeps its records in the same store and sends their shas."""
    store = CountingStore(str(tmp_path / "store"))
    elsewhere = KeptCalls(ArtifactStore(str(tmp_path / "store")))  # the other process's KeptCalls
    kept = KeptCalls(store)
    r = record(3)
    sha = elsewhere(r["key"], r)  # callable: the jury runner's on_stored
    kept.adopt(r["key"], r, sha)
    assert kept.sha(r["key"], r) == sha == ArtifactStore(str(tmp_path / "x")).put_json(r)
    assert store.puts == 0
