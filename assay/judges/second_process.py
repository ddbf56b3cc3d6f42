"""A large jury run's calls over two cores: about half of them judged in a forked child process.

Why: against a fast endpoint the judge calls are client-CPU bound (aiohttp, JSON, hashing and
writing each call's evidence: ~3 ms of one interpreter per call), so one process caps a 50 ms
judge far below the configured concurrency. A child forked at the start of the run has the
run's judges, prompt and cases already in memory; it judges its share on its own event loop
and sends back what the run keeps (each stored call record's bytes, then every result and
counter), and the parent merges them in case order, so the jury run, the call store and every
artifact are what a run in one process writes.

One budget: the parent takes the child's share of each provider's slots from its own process
gate (``ProviderGate.take_free``) before forking and holds them until the child is done, so the
parent's runners and the child together never have more than ``--concurrency`` calls in flight
to a provider. Identical requests (duplicate cases) go to the same side, so each is sent once,
as in one process: the cases are split by a hash of their typed input.

Only where it pays: a run with at least ``MIN_CALLS`` remote calls on two usable cores, no cost
budget (one process's accounting), no offline judge, a local call store (or none), and a core
to spare (the 1-minute load average at most the usable cores plus one: the run itself and a
local judge count for one or more). Measured on a 2-core machine (docs/performance.md): at load
1.1-2.1 a 960-call judge step took 0.81-0.85 of its time at 50 ms and the same at 200 ms (at load
2.0-2.5 a gate at the cores alone kept it off: the run's own previous minute counts in the load
average); at load 8-14 it took 0.90 at 50 ms but
1.10 at 200 ms (the fork of a large process and its copy-on-write pages cost more than a busy
second core gave back). ``ASSAY_JUDGE_PROCESSES=1`` keeps every run in one process, ``=2`` splits
whatever the load.

Fork safety: the parent process has other threads (Prefect's, other families'). The child runs
only its own event loop and the standard library, aiohttp and pydantic on it; the judge modules
re-create their locks in a forked child (``os.register_at_fork``), the child logs nothing and
ends with ``os._exit``. A fork the process refuses (a library's fork guard in another thread,
no memory) leaves the run in one process. If the child does not report within ``STARTUP_S``
or goes silent for longer than a call can take, or fails, the parent stops it and judges its
calls itself (answers it already stored are reused from the call store).
"""

from __future__ import annotations

import json
import os
import select
import signal
import struct
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from assay import cancellation, timeline
from assay import cores as machine_cores
from assay.hashing import canonical_json
from assay.judges.base import JudgeResult
from assay.judges.limits import ProviderGate, provider_gate
from assay.judges.record_writer import OnStored
from assay.schemas import JsonObject

if TYPE_CHECKING:
    from assay.judges.runner import JuryRunner, _RunState

SWITCH = "ASSAY_JUDGE_PROCESSES"
MIN_CALLS = 200  # below this the fork and the merge cost more than a second core gives back
STARTUP_S = 30.0  # the child's first frame must come within this
HEARTBEAT_S = 1.0
FORK_ATTEMPTS, FORK_RETRY_S = 3, 0.01  # a refused fork is retried briefly, then the run stays in one process
# The child's share of the cases and of the in-flight slots. More than half: the parent also
# parsed the step's inputs, reads the child's frames, writes the scores, and shares its
# interpreter with the run's other families (retrieval).
CHILD_SHARE = 0.6

_FRAME = struct.Struct(">cI")  # kind, payload length
STARTED, HEARTBEAT, STORED, READ_BACK, DONE, FAILED = b"S", b"H", b"R", b"C", b"D", b"X"


def should_split(runner: JuryRunner, n_calls: int) -> bool:
    """True when this run's calls are to be judged in two processes (see the module doc)."""
    switch = os.environ.get(SWITCH, "").strip()
    if switch == "1" or not hasattr(os, "fork"):
        return False
    cores = machine_cores.usable_cores()
    if n_calls < MIN_CALLS or cores < 2:
        return False
    if switch != "2" and os.getloadavg()[0] > cores + 1:
        return False  # no core to spare: measured slower then at a 200 ms judge (docs/performance.md)
    store = runner.store
    return (runner.send and runner.max_cost_usd is None and runner.concurrency_per_provider >= 2
            and not any(judge.offline for judge in runner.judges) and (store is None or store.local))


def sides(items: list[tuple[str, BaseModel]]) -> list[bool]:
    """Per case, True if the child judges it: about ``CHILD_SHARE`` of them, equal inputs on the
    same side (their requests are equal: sent once, the others share the answer, as in one
    process)."""
    return [hash(_frozen(item)) % 10 < CHILD_SHARE * 10 for _, item in items]


def _frozen(value: Any) -> Any:
    """``value`` as nested tuples, so it hashes by content: equal inputs, equal hashes (Python's
    string hash: 9 ms for 960 rag_qa cases, where a JSON dump of each took 0.08 CPU s)."""
    if isinstance(value, BaseModel):
        return (type(value).__qualname__, *(_frozen(v) for v in value.__dict__.values()))
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    if isinstance(value, float):
        return repr(value)  # a NaN hashes by identity, its text does not
    if isinstance(value, (str, int, bool, bytes)) or value is None:
        return value
    return repr(value)  # anything else: its text decides


@dataclass
class SecondProcess:
    """The parent's handle on the forked child: its pid, the pipe it reports on, the call
    indices it judges and the gate slots held for it."""

    pid: int
    read_fd: int
    there: list[int]
    held: list[tuple[ProviderGate, int]]
    idle_limit_s: float
    records: list[tuple[str, JsonObject, bool]] = field(default_factory=list)  # key, record, newly stored
    done: dict[str, Any] | None = None
    failure: str | None = None
    _reader: threading.Thread | None = None
    _slots_lock: threading.Lock = field(default_factory=threading.Lock)

    def start_reading(self, on_stored: OnStored | None) -> None:
        """Read the child's frames on a thread as they come (its pipe must never fill up);
        ``on_stored(key, record, data)`` is called there with each record the child stored, as
        the run's own record writer calls it."""
        self._reader = threading.Thread(target=self._read, args=(on_stored,), name="assay-judge-child", daemon=True)
        self._reader.start()

    def wait(self) -> None:
        """Until the child has reported everything (or failed) and ended."""
        try:
            if self._reader is not None:
                self._reader.join()
        finally:
            self.give_back_slots()
            _reap(self.pid)

    def give_back_slots(self) -> None:
        """The child's share of the gates, given back as soon as it has no call out: this
        process's calls may be waiting for them (two split runs at once hold a share each)."""
        with self._slots_lock:
            held, self.held = self.held, []
        _give_back(held)

    def _read(self, on_stored: OnStored | None) -> None:
        stream = _Frames(self.read_fd)
        limit, forwarded_stop = STARTUP_S, False
        try:
            while True:
                if cancellation.stop_requested() and not forwarded_stop:
                    forwarded_stop = True
                    _signal(self.pid, signal.SIGTERM)  # it stops sending, as this process does
                frame = stream.next(timeout_s=0.5)
                if frame is None:
                    if stream.idle_s() > limit:
                        raise TimeoutError(f"the judge process sent nothing for {limit:.0f} s")
                    continue
                kind, payload = frame
                limit = self.idle_limit_s
                if kind in (STORED, READ_BACK):
                    key, kept_sha, data = payload[:64].decode("ascii"), payload[64:128].decode("ascii").strip(), payload[128:]
                    record = json.loads(data)
                    self.records.append((key, record, kind == STORED))
                    if kind == STORED and on_stored is not None:
                        _keep(on_stored, key, record, data, kept_sha)
                elif kind == DONE:
                    self.done = json.loads(payload)
                    return
                elif kind == FAILED:
                    raise RuntimeError(payload.decode("utf-8", "replace"))
        except EOFError:
            self.failure = "the judge process ended without its results"
        except Exception as exc:  # noqa: BLE001 - the parent judges the calls itself instead
            self.failure = f"{type(exc).__name__}: {exc}"[:2000]
        finally:
            if self.done is None:
                _signal(self.pid, signal.SIGKILL)
                _reap(self.pid)  # none of its calls is out any more
            self.give_back_slots()
            os.close(self.read_fd)


def fork(runner: JuryRunner, prompt: Any, items: list[tuple[str, BaseModel]]) -> tuple[SecondProcess | None, list[int]]:
    """Fork the child for about half of the calls; (its handle, the call indices judged here).
    (None, every index) when the gates have no slots to spare for it."""
    judges = runner.judges
    n = len(judges)
    with timeline.timed("judge calls: cases split between two processes"):
        theirs = sides(items)
    there = [i * n + j for i, side in enumerate(theirs) if side for j in range(n)]
    here = [i * n + j for i, side in enumerate(theirs) if not side for j in range(n)]
    share = round(runner.concurrency_per_provider * CHILD_SHARE)
    held: list[tuple[ProviderGate, int]] = []
    for provider in sorted({judge.provider for judge in judges}):
        gate = provider_gate(provider, runner.concurrency_per_provider)
        held.append((gate, gate.take_free(share)))
    slots = min(taken for _, taken in held)
    if not there or not here or slots < 1:
        _give_back(held)
        return None, list(range(len(items) * n))
    _give_back([(gate, taken - slots) for gate, taken in held])  # every provider: the same share in the child
    held = [(gate, slots) for gate, _ in held]
    read_fd, write_fd = os.pipe()
    timeline.mark("judge calls: forking a second process")
    pid = _fork_or_none()
    if pid is None:  # no fork now: every call judged here, as in one process
        os.close(read_fd)
        os.close(write_fd)
        _give_back(held)
        timeline.mark("judge calls: no second process (fork refused)")
        return None, list(range(len(items) * n))
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        _child(runner, prompt, items, there, slots, write_fd)
    timeline.mark("judge calls: second process forked")
    os.close(write_fd)
    worst_call_s = max(getattr(judge, "timeout_s", 60.0) for judge in judges) + runner.backoff_max_s
    child = SecondProcess(pid, read_fd, there, held, idle_limit_s=worst_call_s + STARTUP_S)
    return child, here


def _fork_or_none(attempts: int = FORK_ATTEMPTS) -> int | None:
    """``os.fork()``'s pid, or None when the process refuses to fork now. A library in another
    thread may forbid it for a moment (filelock's audit hook raises RuntimeError while a lock
    changes hands) and the system may lack the memory or processes (OSError): a short retry,
    then the run goes on in one process. Not inside a timed block: the child must not take the
    timeline's lock."""
    for attempt in range(attempts):
        try:
            return os.fork()
        except (RuntimeError, OSError):
            if attempt + 1 < attempts:
                time.sleep(FORK_RETRY_S)
    return None


def _give_back(held: list[tuple[ProviderGate, int]]) -> None:
    """Release each gate's slots taken for the child."""
    for gate, taken in held:
        for _ in range(taken):
            gate.release()


def merge(child: SecondProcess, state: _RunState, results: list[Any]) -> list[int]:
    """The child's results into ``results`` (by call index) and its counters and records into
    ``state``; the call indices still without a result (the child failed: judge them here)."""
    if child.done is None:
        if child.failure:
            state.runner.progress(f"judges: the second judge process failed ({child.failure}); its calls are judged here")
        return [i for i in child.there if results[i] is None]
    done = child.done
    for index, dumped in zip(child.there, done["results"], strict=True):
        results[index] = JudgeResult.model_validate(dumped)
    for name, counts in done["stats"].items():
        stats = state.stats[name]
        for counter, value in counts.items():
            setattr(stats, counter, getattr(stats, counter) + value)
    state.budget.spent += done["spent_usd"]
    state.untrusted_records += done["untrusted_records"]
    for key, record, newly_stored in child.records:
        if newly_stored and state.writer is not None:
            state.writer.stored[key] = record
        else:
            state.stored_records[key] = record
    if state.writer is not None:
        state.writer.errors += done["store_errors"]
    for _ in child.there:
        state._tick()
    return []


# -- the child -----------------------------------------------------------------------------
def _child(runner: JuryRunner, prompt: Any, items: list[tuple[str, BaseModel]], there: list[int],
           slots: int, write_fd: int) -> None:
    """Judge the calls ``there`` with ``slots`` calls in flight, report on ``write_fd``, exit."""
    status = 1
    out = _Writer(write_fd)
    try:
        signal.signal(signal.SIGTERM, lambda *_: cancellation.request_stop("stop requested"))
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which stops us
        out.send(STARTED, b"")
        runner.concurrency_per_provider = slots
        runner.progress = lambda message: None  # the parent reports progress
        keep = runner.on_stored if getattr(runner.on_stored, "adopt", None) is not None else None

        def stored(key: str, record: JsonObject, data: bytes) -> None:
            # kept here (in the same store) when the parent can adopt it, else by the parent
            kept_sha = keep(key, record, data) if keep is not None else None
            sha = kept_sha if isinstance(kept_sha, str) else ""
            out.send(STORED, key.encode("ascii") + sha.ljust(64).encode("ascii") + data)

        runner.on_stored = stored
        import asyncio

        box: list[tuple[_RunState, list[JudgeResult | None]]] = []

        async def main() -> None:
            heartbeat = asyncio.get_running_loop().call_later(HEARTBEAT_S, _beat, out)
            try:
                box.append(await runner.judge_some(prompt, items, there))
            finally:
                heartbeat.cancel()

        asyncio.run(main())
        state, results = box[0]
        for key, record in state.stored_records.items():
            out.send(READ_BACK, key.encode("ascii") + b" " * 64 + canonical_json(record))
        done = {
            "results": [results[i].model_dump(mode="json") for i in there],  # type: ignore[union-attr]
            "stats": {name: stats.model_dump() for name, stats in state.stats.items()},
            "spent_usd": state.budget.spent - state.budget.before,
            "untrusted_records": state.untrusted_records,
            "store_errors": list(state.writer.errors) if state.writer is not None else [],
        }
        out.send(DONE, json.dumps(done, ensure_ascii=False).encode("utf-8"))
        status = 0
    except BaseException:  # noqa: BLE001 - reported to the parent, which judges the calls itself
        try:
            out.send(FAILED, traceback.format_exc()[-2000:].encode("utf-8"))
        except BaseException:  # noqa: BLE001 - the parent is gone: nothing left to tell
            pass
    finally:
        os._exit(status)  # no atexit handlers, no flush of what the parent's threads buffered


def _keep(on_stored: OnStored, key: str, record: JsonObject, data: bytes, kept_sha: str) -> None:
    """``on_stored`` for a record the child stored; one that can ``adopt`` takes what the child
    kept in its place (``kept_sha``) instead of keeping it again."""
    adopt = getattr(on_stored, "adopt", None)
    try:
        if kept_sha and adopt is not None:
            adopt(key, record, kept_sha)
        else:
            on_stored(key, record, data)
    except Exception:  # noqa: BLE001 - as the record writer: the caller keeps the record again later
        pass


def _beat(out: _Writer) -> None:
    """Every second while the child's loop runs: it is alive (a stuck loop sends none)."""
    import asyncio

    out.send(HEARTBEAT, b"")
    asyncio.get_running_loop().call_later(HEARTBEAT_S, _beat, out)


class _Writer:
    """Frames to the parent, from the loop and the record writer's threads alike."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Lock()

    def send(self, kind: bytes, payload: bytes) -> None:
        data = _FRAME.pack(kind, len(payload)) + payload
        with self.lock:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view):]


class _Frames:
    """Frames read from the child's pipe, waiting at most ``timeout_s`` for each read."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.last = time.monotonic()

    def idle_s(self) -> float:
        return time.monotonic() - self.last

    def next(self, timeout_s: float) -> tuple[bytes, bytes] | None:
        while True:
            if len(self.buffer) >= _FRAME.size:
                kind, size = _FRAME.unpack_from(self.buffer)
                if len(self.buffer) >= _FRAME.size + size:
                    payload = bytes(self.buffer[_FRAME.size:_FRAME.size + size])
                    del self.buffer[:_FRAME.size + size]
                    return kind, payload
            ready, _, _ = select.select([self.fd], [], [], timeout_s)
            if not ready:
                return None
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                raise EOFError
            self.buffer += chunk
            self.last = time.monotonic()


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
