"""A jury run's call-store writes: on the event loop's own thread for a local store, on one
thread of their own for a remote one; either way every answered call is stored when the run ends.

Why not a thread for a local store: a write (the record stamped and encoded, written once and
atomically, then handed on as the run's evidence) is ~0.4 ms of CPU on the one interpreter
the loop also needs, so a thread cannot overlap it with the calls; and a thread whose work is
many short system calls gets the interpreter back only every few milliseconds while the loop
is busy: measured at 50 ms a call, its queue held most of the run's records when the last
reply came (1.5 s of writing after it). Handing each write to a thread pool and awaiting it
kept pace, but cost the loop a future, a wake-up and a hop per call. A remote store's write
waits on the network: that waiting goes on a thread, which drains a queue in order.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from assay.judges.store import CallStore
from assay.schemas import JsonObject

OnStored = Callable[[str, JsonObject, bytes], None]


class RecordWriter:
    """Writes ``(key, record)`` pairs to ``store`` (``on_thread``: on a thread of its own; by
    default only for a remote store); ``on_stored(key, record, data)`` gets each record this
    writer stored, as the store holds it, and its bytes."""

    def __init__(self, store: CallStore, on_stored: OnStored | None = None, on_thread: bool | None = None) -> None:
        self.store = store
        self.on_stored = on_stored
        self.on_thread = not store.local if on_thread is None else on_thread
        self.stored: dict[str, JsonObject] = {}  # key -> record as stored; read once closed
        self.errors: list[str] = []  # records that could not be written
        self._queue: queue.SimpleQueue[tuple[str, JsonObject, bytes | None] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def put(self, key: str, record: JsonObject, request_json: bytes | None = None) -> None:
        """Write one record, or queue it for the writer's thread (``request_json``: its request
        part's canonical JSON, if known)."""
        if not self.on_thread:
            self._write(key, record, request_json)
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._write_all, name="assay-call-store", daemon=True)
            self._thread.start()
        self._queue.put((key, record, request_json))

    def close(self) -> None:
        """Wait until every record queued so far is written (or failed): the end of a run."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None

    def _write_all(self) -> None:
        while (item := self._queue.get()) is not None:
            self._write(*item)

    def _write(self, key: str, record: JsonObject, request_json: bytes | None) -> None:
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
