"""RecordWriter: a jury run's call-store writes, each on a worker thread, and what they left."""

from __future__ import annotations

import asyncio
import threading
import uuid
from pathlib import Path

from assay.hashing import canonical_json
from assay.judges.record_writer import RecordWriter
from assay.judges.store import CallStore


def record(i: int) -> dict:
    return {"model": "openai/j", "api_base": None, "request": {"messages": [{"role": "user", "content": f"질문 {i}"}],
                                                                 "params": {}},
            "response": {"raw_text": f'{{"score": {i}}}'}}


def key_of(r: dict) -> str:
    return CallStore.request_key(r["model"], r["api_base"], r["request"]["messages"], r["request"]["params"])


class FailingStore(CallStore):
    def __init__(self, root: str, failing: set[str]) -> None:
        super().__init__(root)
        self.failing = failing

    def write_once(self, key, record, request_json=None):
        if key in self.failing:
            raise OSError(28, "No space left on device")
        return super().write_once(key, record, request_json)


def put_all(writer: RecordWriter, records: list[dict]) -> None:
    async def main() -> None:
        await asyncio.gather(*(writer.put(key_of(r), r) for r in records))

    asyncio.run(main())


def test_each_record_is_written_on_a_worker_thread_and_handed_on_with_its_bytes(tmp_path):
    store = CallStore(str(tmp_path / "calls"))
    handed: dict[str, tuple[str, bytes]] = {}
    writer = RecordWriter(store, lambda key, rec, data: handed.setdefault(key, (threading.current_thread().name, data)))
    records = [record(i) for i in range(20)]
    put_all(writer, records)  # every put awaited: all written when it returns
    keys = {key_of(r) for r in records}
    assert set(handed) == keys == set(writer.stored) and writer.errors == []
    assert threading.current_thread().name not in {name for name, _ in handed.values()}  # never the loop's thread
    assert all(data == Path(store.path(key)).read_bytes() == canonical_json(writer.stored[key])
               for key, (_, data) in handed.items())
    assert all(writer.stored[key] == store.get(key) for key in keys)


def test_a_failed_write_is_reported_and_the_others_are_written(tmp_path):
    records = [record(i) for i in range(5)]
    bad = key_of(records[2])
    store = FailingStore(str(tmp_path / "calls"), {bad})
    writer = RecordWriter(store, lambda key, rec, data: (_ for _ in ()).throw(RuntimeError("evidence store down")))
    put_all(writer, records)
    assert len(writer.errors) == 1 and writer.errors[0].startswith(f"{bad}: OSError") and "No space" in writer.errors[0]
    assert sorted(writer.stored) == sorted(key_of(r) for r in records if key_of(r) != bad)  # on_stored's failure costs nothing
    assert store.get(bad) is None


def test_a_record_another_writer_stored_first_is_kept_and_not_handed_on(tmp_path):
    store = CallStore(str(tmp_path / "calls"))
    first = record(1)
    store.write(key_of(first), {**first, "response": {"raw_text": "the other writer's"}})
    handed: list[str] = []
    writer = RecordWriter(store, lambda key, rec, data: handed.append(key))
    put_all(writer, [first])
    assert handed == [] and writer.stored == {} and store.get(key_of(first))["response"]["raw_text"] == "the other writer's"


def test_a_remote_store_is_written_the_same_way():
    store = CallStore(f"memory://assay-writer-{uuid.uuid4().hex}/calls")
    writer = RecordWriter(store)
    records = [record(i) for i in range(10)]
    put_all(writer, records)
    assert all(store.get(key_of(r)) == writer.stored[key_of(r)] for r in records)
