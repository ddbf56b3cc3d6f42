"""A jury run's call-store writes, on one thread of their own, in the order the answers came.

Why one thread and a queue: a write (the record stamped and encoded, written once and
atomically, then handed on as the run's evidence) costs about half a millisecond of CPU.
Handed one by one to a thread pool and awaited, every answer also cost the event loop's thread
a future, a wake-up and a hop back, and several pool threads took turns at the interpreter
with the loop. Here the loop only enqueues; one thread writes; the run waits for the queue to
be empty before it returns (or stops), so every answered call is stored when the run ends.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from assay.judges.store import CallStore
from assay.schemas import JsonObject

OnStored = Callable[[str, JsonObject, bytes], None]


class RecordWriter:
    """Writes ``(key, record)`` pairs to ``store`` on one thread; ``on_stored(key, record, data)``
    gets each record this writer stored, as the store holds it, and its bytes."""

    def __init__(self, store: CallStore, on_stored: OnStored | None = None) -> None:
        self.store = store
        self.on_stored = on_stored
        self.stored: dict[str, JsonObject] = {}  # key -> record as stored; read once closed
        self.errors: list[str] = []  # records that could not be written
        self._queue: queue.SimpleQueue[tuple[str, JsonObject, bytes | None] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def put(self, key: str, record: JsonObject, request_json: bytes | None = None) -> None:
        """Queue one record (``request_json``: its request part's canonical JSON, if known)."""
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
