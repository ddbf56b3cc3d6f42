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
