"""RecordWriter: a jury run's call-store writes on one thread, all done when it is closed."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

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


@pytest.mark.parametrize("on_thread", [True, False, None])
def test_every_record_is_written_in_order_before_close_returns(tmp_path, on_thread):
    store = CallStore(str(tmp_path / "calls"))
    handed: list[tuple[str, str, bytes]] = []
    writer = RecordWriter(store, lambda key, rec, data: handed.append((key, threading.current_thread().name, data)),
                          on_thread=on_thread)
    records = [record(i) for i in range(50)]
    for r in records:
        writer.put(key_of(r), r)
    writer.close()
    keys = [key_of(r) for r in records]
    assert [key for key, _, _ in handed] == keys  # in the order they came
    # a local store is written on the caller's thread unless told otherwise
    assert {name for _, name, _ in handed} == {"assay-call-store" if on_thread else threading.current_thread().name}
    assert all(data == Path(store.path(key)).read_bytes() == canonical_json(writer.stored[key]) for key, _, data in handed)
    assert all(writer.stored[key] == store.get(key) for key in keys) and writer.errors == []


def test_a_failed_write_is_reported_and_the_others_are_written(tmp_path):
    records = [record(i) for i in range(5)]
    bad = key_of(records[2])
    store = FailingStore(str(tmp_path / "calls"), {bad})
    writer = RecordWriter(store, lambda key, rec, data: (_ for _ in ()).throw(RuntimeError("evidence store down")))
    for r in records:
        writer.put(key_of(r), r)
    writer.close()
    assert len(writer.errors) == 1 and writer.errors[0].startswith(f"{bad}: OSError") and "No space" in writer.errors[0]
    assert sorted(writer.stored) == sorted(key_of(r) for r in records if key_of(r) != bad)  # on_stored's failure costs nothing
    assert store.get(bad) is None


def test_a_record_another_writer_stored_first_is_kept_and_not_handed_on(tmp_path):
    store = CallStore(str(tmp_path / "calls"))
    first = record(1)
    store.write(key_of(first), {**first, "response": {"raw_text": "the other writer's"}})
    handed: list[str] = []
    writer = RecordWriter(store, lambda key, rec, data: handed.append(key))
    writer.put(key_of(first), first)
    writer.close()
    assert handed == [] and writer.stored == {} and store.get(key_of(first))["response"]["raw_text"] == "the other writer's"


def test_a_remote_stores_records_are_written_on_the_writers_thread():
    """An fsspec store's write waits on the network: on a thread of its own, never the loop's."""
    import uuid

    store = CallStore(f"memory://assay-writer-{uuid.uuid4().hex}/calls")
    names: set[str] = set()
    writer = RecordWriter(store, lambda key, rec, data: names.add(threading.current_thread().name))
    assert writer.on_thread
    records = [record(i) for i in range(10)]
    for r in records:
        writer.put(key_of(r), r)
    writer.close()
    assert names == {"assay-call-store"} and all(store.get(key_of(r)) == writer.stored[key_of(r)] for r in records)
