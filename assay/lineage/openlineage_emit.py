"""Sending a run's OpenLineage events: off unless configured, never failing or holding up a run.

Configured the way OpenLineage users configure every integration: ``OPENLINEAGE_URL`` (HTTP),
``OPENLINEAGE_CONFIG`` or an ``openlineage.yml`` in the working directory or ``~/.openlineage``
(http, file, console, kafka … transports), or ``OPENLINEAGE__TRANSPORT__TYPE`` and its sibling
variables;
``OPENLINEAGE_DISABLED=true`` turns it off. Without any of these nothing is imported or sent.

A live run hands each event to a background thread and goes on; the first event the backend
refuses or lets time out stops sending for the rest of the run, and the run's end waits at most
``ASSAY_OPENLINEAGE_WAIT_S`` seconds (default 10) for the events still queued. Either is said
once; ``assay lineage RUN --openlineage`` sends the run's events later from its manifest.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay.redact import redact

WAIT_ENV = "ASSAY_OPENLINEAGE_WAIT_S"
DEFAULT_WAIT_S = 10.0
SENDER_THREAD = "assay-openlineage"
_DONE = object()


class _NotFromSender(logging.Filter):
    """Drops what the HTTP stack logs while the sender retries a dead backend ("Retrying …" lines
    on the run's console): the sender says what went wrong, once."""

    def filter(self, record: logging.LogRecord) -> bool:
        return threading.current_thread().name != SENDER_THREAD


_QUIET = _NotFromSender()
for _name in ("urllib3.connectionpool", "urllib3.util.retry", "openlineage"):
    if _QUIET not in logging.getLogger(_name).filters:
        logging.getLogger(_name).addFilter(_QUIET)


def config_file() -> Path | None:
    """The ``openlineage.yml`` the client will read, in its order of precedence."""
    named = os.environ.get("OPENLINEAGE_CONFIG")
    candidates = [Path(named)] if named else []
    candidates += [Path.cwd() / "openlineage.yml", Path.home() / ".openlineage" / "openlineage.yml"]
    return next((path for path in candidates if path.is_file()), None)


def configured() -> bool:
    """True when the environment configures an OpenLineage transport (and does not disable it)."""
    if os.environ.get("OPENLINEAGE_DISABLED", "").strip().lower() == "true":
        return False
    if os.environ.get("OPENLINEAGE_URL") or os.environ.get("OPENLINEAGE__TRANSPORT__TYPE"):
        return True
    return config_file() is not None


def wait_seconds() -> float:
    try:
        return max(0.0, float(os.environ.get(WAIT_ENV, DEFAULT_WAIT_S)))
    except ValueError:
        return DEFAULT_WAIT_S


def new_client() -> Any:
    """An OpenLineage client configured from the environment and files as the client reads them.

    The client copies ``OPENLINEAGE_URL`` into ``OPENLINEAGE__TRANSPORT__…`` variables of this
    process; those are removed again once it has read its configuration, so a long-lived process
    (a worker running many flows) does not keep a backend its environment no longer names."""
    from openlineage.client import OpenLineageClient

    before = set(os.environ)
    try:
        return OpenLineageClient()
    finally:
        for name in set(os.environ) - before:
            if name.startswith("OPENLINEAGE"):
                del os.environ[name]


class EventSender:
    """Emits events through an OpenLineage client on one background thread, in order.

    ``say`` receives at most one line for the whole run (a backend that failed, or events left
    unsent when the wait ran out); it is called from the thread that calls ``send``/``close``.
    """

    def __init__(self, client: Any, say: Callable[[str], None], wait_s: float | None = None) -> None:
        self.client = client
        self.say = say
        self.wait_s = wait_seconds() if wait_s is None else wait_s
        self.sent = 0
        self.handed = 0
        self._queue: queue.Queue[Any] = queue.Queue()
        self._problem: str | None = None
        self._said = False
        self._thread = threading.Thread(target=self._work, name=SENDER_THREAD, daemon=True)
        self._thread.start()

    def send(self, event: Any) -> None:
        self._speak()
        if self._problem is None:
            self.handed += 1
            self._queue.put(event)

    def close(self) -> None:
        """Wait (at most ``wait_s``) for the queued events; say so if some were not sent."""
        self._queue.put(_DONE)
        self._thread.join(self.wait_s)
        if self._thread.is_alive() and self._problem is None:
            self._problem = (f"the lineage backend did not take every event within {self.wait_s:g} s "
                             f"({self.handed - self.sent} of {self.handed} not sent)")
        self._speak()

    def _speak(self) -> None:
        if self._problem and not self._said:
            self._said = True
            self.say(f"OpenLineage: {self._problem}; the run goes on without it "
                     "(send its events later with `assay lineage RUN --openlineage`)")

    def _work(self) -> None:
        while (event := self._queue.get()) is not _DONE:
            if self._problem is not None:
                continue
            try:
                self.client.emit(event)
                self.sent += 1
            except Exception as exc:  # noqa: BLE001 - any transport failure: stop sending, say it once
                self._problem = f"sending an event failed ({redact(f'{type(exc).__name__}: {exc}')[:300]})"


class LiveLineage:
    """The flow's hook: a START when the run and each step begin, an end event when each step
    settles and when the run finishes. A no-op unless OpenLineage is configured."""

    def __init__(self, store: Any, manifest: Any, say: Callable[[str], None]) -> None:
        self.store = store
        self.manifest = manifest
        self.say = say
        self.sender: EventSender | None = None
        self.open_steps: dict[str, datetime] = {}
        if not configured():
            return
        try:
            self.sender = EventSender(new_client(), say)
        except Exception as exc:  # noqa: BLE001 - a bad configuration must not fail the run
            say(f"OpenLineage is configured but could not start: {redact(str(exc))[:300]}; no events are sent")
            return
        self._send(lambda ol: ol.run_started(self.manifest))

    @property
    def active(self) -> bool:
        return self.sender is not None

    def step_started(self, name: str) -> None:
        if self.sender is None:
            return
        when = datetime.now(UTC)
        self.open_steps[name] = when
        self._send(lambda ol: ol.step_started(self.manifest, name, when))

    def step_ended(self, record: Any) -> None:
        if self.sender is None:
            return
        self.open_steps.pop(record.name, None)
        from assay.cancellation import stop_requested

        stopped = stop_requested()
        self._send(lambda ol: ol.step_ended(self.store, self.manifest, record,
                                            ol.step_end_time(record) if record.started_at else datetime.now(UTC),
                                            stopped=stopped))

    def run_ended(self, root_hash: str | None) -> None:
        """The end of every step still open (ABORT for a stopped run, FAIL otherwise), then the
        flow-level end event with the manifest's root hash; waits a bounded time for delivery."""
        if self.sender is None:
            return
        from assay.lineage.manifest import StepRecord

        stopped = self.manifest.status == "stopped"
        for name in list(self.open_steps):
            record = StepRecord(name=name, status="failed", detail=f"the run ended ({self.manifest.status}) before this step did")
            self._send(lambda ol, r=record: ol.step_ended(self.store, self.manifest, r, datetime.now(UTC), stopped=stopped))
        self.open_steps.clear()
        self._send(lambda ol: ol.run_ended(self.store, self.manifest, root_hash, datetime.now(UTC)))
        if self.sender is not None:
            self.sender.close()
            self.sender = None

    def _send(self, build: Callable[[Any], Any]) -> None:
        """Build an event (here, so it reflects the manifest now) and queue it."""
        from assay.lineage import openlineage

        assert self.sender is not None
        try:
            event = build(openlineage)
        except Exception as exc:  # noqa: BLE001 - lineage is a report on the run, never a reason to fail it
            self.say(f"OpenLineage: could not build an event ({type(exc).__name__}: {redact(str(exc))[:200]}); "
                     "no further events are sent for this run")
            self.sender = None
            return
        self.sender.send(event)


def emit_events(events: list[Any], client: Any | None = None) -> int:
    """Send events in order and synchronously (a backfill): the number sent; raises on the
    first one the backend refuses."""
    client = client or new_client()
    for event in events:
        client.emit(event)
    close = getattr(client, "close", None)
    if close is not None:
        close(wait_seconds())
    return len(events)


class NotConfigured(RuntimeError):
    pass


def backfill(store: Any, run_id: str) -> int:
    """Send a finished run's events, built from its manifest (which must pass its anchor check);
    the number sent."""
    from assay.lineage import openlineage
    from assay.lineage.audit import anchor_check
    from assay.lineage.manifest import Manifest, load_manifest_record

    if not configured():
        raise NotConfigured("OpenLineage is not configured: set OPENLINEAGE_URL, OPENLINEAGE_CONFIG or "
                            "OPENLINEAGE__TRANSPORT__TYPE, or write an openlineage.yml (docs/lineage.md)")
    anchor = anchor_check(store, run_id)
    if not anchor.ok:
        raise ValueError(f"run {run_id}'s manifest fails its anchor check: {'; '.join(anchor.manifest)}; "
                         f"see `assay audit {run_id}`")
    record = load_manifest_record(store, run_id)
    manifest = Manifest.model_validate(record)
    return emit_events(openlineage.events_of_run(store, manifest, record.get("root_hash") or None))
