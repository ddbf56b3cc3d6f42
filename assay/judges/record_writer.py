"""A jury run's call-store writes, each awaited on a worker thread, and what they left behind.

Each answered call's record is written (stamped and encoded once, written once and atomically,
then handed on as the run's evidence) on a thread of the default pool while the event loop
goes on with other calls, and its caller waits for it before taking the next call. Measured
at 960 calls against a loopback judge, the two other ways were slower: on the loop's own
thread, each write's file system calls stalled every call in flight (a busy disk: the span at
200 ms grew 10%); on one writer thread fed by a queue without waiting, the writer got the
interpreter back only every few milliseconds beside the busy loop, and at 50 ms its queue held
most of the run's records at the last reply (1.5 s of writing after it). Waiting for each
write keeps the writes in step with the answers, and a waiting loop leaves them the interpreter.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from assay.judges.store import CallStore
from assay.schemas import JsonObject

OnStored = Callable[[str, JsonObject, bytes], object]  # what it returns is not used


class RecordWriter:
    """Writes ``(key, record)`` pairs to ``store``; ``on_stored(key, record, data)`` gets each
    record this writer stored, as the store holds it, and its bytes, on the writing thread."""

    def __init__(self, store: CallStore, on_stored: OnStored | None = None) -> None:
        self.store = store
        self.on_stored = on_stored
        self.stored: dict[str, JsonObject] = {}  # key -> record as stored by this writer
        self.errors: list[str] = []  # records that could not be written

    async def put(self, key: str, record: JsonObject, request_json: bytes | None = None) -> None:
        """Write one record on a worker thread (``request_json``: its request part's canonical
        JSON, if known); never raises: a failed write is reported in ``errors``."""
        await asyncio.to_thread(self.write, key, record, request_json)

    def write(self, key: str, record: JsonObject, request_json: bytes | None = None) -> None:
        # A store outage must not throw away an answer already paid for: the verdict is kept and
        # the missing record reported (an audit will also flag it).
        try:
            written = self.store.write_once(key, record, request_json)
        except Exception as exc:  # noqa: BLE001 - reported with the run, never raised into it
            self.errors.append(f"{key}: {type(exc).__name__}: {exc}"[:500])
            return
        if written.record is None:  # another writer's record was there first: the run reads it later
            return
        self.stored[key] = written.record
        if self.on_stored is not None:
            try:
                self.on_stored(key, written.record, written.data)
            except Exception:  # noqa: BLE001 - the caller keeps the record again later, and fails there
                pass
