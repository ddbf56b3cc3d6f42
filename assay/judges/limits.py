"""Adaptive concurrency per provider: back off when the provider says "too many", grow back
while its latency holds, never above the configured limit.

Additive increase, multiplicative decrease (the rule TCP uses for the same problem): a 429
halves the limit, at most once per round trip so one burst of rejections is one signal; every
answer whose latency stays within twice the best seen adds 1/limit, so the limit grows by about
one per round trip's worth of answers. The limit starts at the configured ceiling: a provider
that never pushes back is used at full concurrency from the first call.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections import deque

LATENCY_HOLDS = 2.0  # an answer slower than this many times the best seen does not grow the limit


class AdaptiveLimit:
    """An asyncio semaphore whose size moves between 1 and ``ceiling`` (use ``async with``)."""

    def __init__(self, ceiling: int) -> None:
        if ceiling < 1:
            raise ValueError("the concurrency ceiling must be >= 1")
        self.ceiling = ceiling
        self.limit = float(ceiling)
        self.inflight = 0
        self.cuts = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._best_latency_s: float | None = None
        self._last_cut = float("-inf")

    @property
    def slots(self) -> int:
        return max(1, int(self.limit))

    async def acquire(self) -> None:
        if self.inflight < self.slots and not self._waiters:
            self.inflight += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # the slot was handed over just as we were cancelled
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
            raise

    def release(self) -> None:
        self.inflight -= 1
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self.inflight < self.slots:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self.inflight += 1
                waiter.set_result(None)

    async def __aenter__(self) -> AdaptiveLimit:
        await self.acquire()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()

    def observe(self, latency_s: float, throttled: bool) -> None:
        """Feed one attempt's outcome: ``throttled`` for a 429, else its latency in seconds."""
        now = time.monotonic()
        if throttled:
            round_trip = self._best_latency_s or latency_s  # before any answer: the 429's own
            if now - self._last_cut >= round_trip:
                self.limit = max(1.0, self.limit / 2)
                self._last_cut = now
                self.cuts += 1
            return
        if latency_s <= 0:
            return
        best = self._best_latency_s = min(self._best_latency_s or latency_s, latency_s)
        if latency_s <= LATENCY_HOLDS * best and self.limit < self.ceiling:
            self.limit = min(float(self.ceiling), self.limit + 1 / self.limit)
            self._wake()


class ProviderGate:
    """At most ``ceiling`` calls in flight to one provider across the whole process: every jury
    runner, on whichever thread and event loop, holds one of these slots while its call is out.

    Each runner has its own ``AdaptiveLimit`` (and its own event loop), and a run scores its
    families and partitions with several runners at once; without this gate each would send
    up to the ceiling. Slots are counted under a thread lock; a waiter is woken on its own loop
    (``call_soon_threadsafe``), first come first served. Nothing outlives the process, so a
    crashed run cannot leave a slot taken.
    """

    def __init__(self, ceiling: int) -> None:
        if ceiling < 1:
            raise ValueError("the concurrency ceiling must be >= 1")
        self.ceiling = ceiling
        self.inflight = 0
        self.most_inflight = 0  # the highest ``inflight`` seen (tests and benches read it)
        self._lock = threading.Lock()
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    async def acquire(self) -> None:
        with self._lock:
            if self.inflight < self.ceiling and not self._waiters:
                self._take()
                return
            loop = asyncio.get_running_loop()
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, waiter))
        try:
            await waiter
        except asyncio.CancelledError:
            with self._lock:
                queued = (loop, waiter) in self._waiters
                if queued:
                    self._waiters.remove((loop, waiter))
            if not queued and waiter.done() and not waiter.cancelled():
                self.release()  # granted just as we were cancelled; a cancelled grant is returned by _grant
            raise

    def release(self) -> None:
        with self._lock:
            while self._waiters:
                loop, waiter = self._waiters.popleft()
                try:  # the slot passes straight to the waiter: ``inflight`` stays as it is
                    loop.call_soon_threadsafe(self._grant, waiter)
                    return
                except RuntimeError:  # its loop has closed: nobody is waiting there any more
                    continue
            self.inflight -= 1

    def _take(self) -> None:
        self.inflight += 1
        self.most_inflight = max(self.most_inflight, self.inflight)

    def take_free(self, wanted: int) -> int:
        """Take up to ``wanted`` slots that are free now, without waiting (none while others
        queue for one); how many were taken. Each is given back with ``release``: a second
        process's share of the ceiling is held here while its calls are out."""
        with self._lock:
            taken = 0 if self._waiters else max(0, min(wanted, self.ceiling - self.inflight))
            for _ in range(taken):
                self._take()
            return taken

    def _grant(self, waiter: asyncio.Future[None]) -> None:
        if waiter.done():  # cancelled while the slot was on its way: pass it on
            self.release()
        else:
            waiter.set_result(None)

    async def __aenter__(self) -> ProviderGate:
        await self.acquire()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()


def share_per_process(concurrency: int, processes: int) -> int:
    """Each process's share of a run's per-provider ceiling when its metric steps run in
    ``processes`` processes at once (a Dask cluster's workers): together they stay within it
    (at least one call each, so a ceiling below the worker count is exceeded by the difference)."""
    return max(1, concurrency // max(1, processes))


_GATES: dict[tuple[str, int], ProviderGate] = {}
_GATES_LOCK = threading.Lock()


def _fresh_gates_in_a_forked_child() -> None:
    """A forked child starts with no gates: the slots it inherited are its parent's calls, and a
    lock another thread held at the fork would never be released there."""
    global _GATES_LOCK
    _GATES.clear()
    _GATES_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_fresh_gates_in_a_forked_child)


def provider_gate(provider: str, ceiling: int) -> ProviderGate:
    """This process's gate for ``provider`` at ``ceiling`` calls in flight (one per pair, for
    the life of the process: the run's families and partitions, and its reruns, share it)."""
    with _GATES_LOCK:
        gate = _GATES.get((provider, ceiling))
        if gate is None:
            gate = _GATES[(provider, ceiling)] = ProviderGate(ceiling)
        return gate
