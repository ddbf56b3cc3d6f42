"""The jury runner: every judge on every case, concurrently, with one retry/cache/budget policy.

Why one runner instead of a Prefect task per call: a task run costs tens of milliseconds, a
suite has thousands of judge calls, and lineage is kept per request in the ``CallStore``
instead: batch the calls inside one task, don't fan out into a task per call.

Policy, per (case, judge) call:

1. Build the request and its content key. An LLM judge whose key is in the store is answered
   from the store: nothing is sent (``cached=True``). Offline judges are always recomputed
   (cheap and deterministic; a cache hit could hide a change to their code) but their records
   are still written, so lineage is uniform across live and offline juries.
2. Budget: right before each attempt is sent, if spent + this call's estimate would exceed
   ``max_cost_usd``, it is not sent (``error_kind="budget"``); if only the estimates of calls
   in flight stand in the way, it waits for them to settle and decides again.
   The estimate is litellm's token count and price (0 for unpriced models) with the output
   taken as the largest reply seen so far (first: min(512, max_tokens)), and never below the
   dearest call this judge made in the run. It is an estimate: the first in-flight calls of a
   judge can overshoot when the provider counts more tokens than litellm does.
3. Send under the provider's adaptive limit (``assay.judges.limits``: at most the configured
   concurrency, halved on a 429, grown back while latency holds) and the process's gate for
   that provider (one ceiling shared by every runner of the run: families, partitions).
   Transient errors and malformed replies are retried with exponential backoff and full
   jitter (the slots are released while sleeping); permanent errors are not.
4. Only successful results are stored, so a rerun re-sends exactly the failed calls. An offline
   judge's records are kept with the run (``JuryRun.call_records``) instead of the call store:
   they are never read back, and one file per call costs more than the judgement itself.

A judge all of whose calls failed in a run is *dropped* (recorded with the reason); the
ensemble renormalises the remaining weights (SPEC §1).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import math
import random
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, PrivateAttr

from assay.cancellation import raise_if_stopped
from assay.judges.base import Judge, JudgeRequest, JudgeResult, Usage
from assay.judges.limits import AdaptiveLimit, provider_gate
from assay.judges.record_writer import OnStored, RecordWriter
from assay.judges.store import CallStore, UntrustedRecord, now_iso, stamped
from assay.judges.verdicts import MalformedReply
from assay.schemas import JsonObject

if TYPE_CHECKING:
    from assay.judges.second_process import SecondProcess

# Output tokens assumed for a judge's first budgeted call, before any reply was seen; later
# estimates use the largest reply observed for that judge in this run.
PRIOR_OUTPUT_TOKENS = 512
RETRYABLE = ("transient", "malformed")


class JudgeStats(BaseModel):
    """Per-judge counters for one run. Tokens and cost cover requests sent in this run only."""

    sent: int = Field(default=0, description="requests actually sent, retries included")
    reused: int = Field(default=0, description="calls answered from the call store")
    failed: int = Field(default=0, description="calls without a verdict after retries")
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


class JuryRun(BaseModel):
    prompt_id: str
    prompt_sha256: str | None = None
    results: dict[str, list[JudgeResult]] = Field(description="case_id -> one result per judge, judge order")
    judge_stats: dict[str, JudgeStats]
    dropped_judges: dict[str, str] = Field(default_factory=dict, description="judge name -> why")
    budget_exhausted: bool = False
    spent_usd: float = Field(default=0.0, description="USD spent on requests sent in this run")
    store_errors: list[str] = Field(default_factory=list, description="records that could not be written")
    request_keys: list[str] = Field(
        default_factory=list, description="content keys, case order x judge order"
    )
    untrusted_records: list[str] = Field(
        default_factory=list, description="stored records that failed their hash or key check, set aside and re-sent"
    )
    # Call records (key -> record, as the call store keeps them): every offline judge's, and
    # the remote ones this run wrote to or read from the call store, so the step stores them
    # with the run's lineage without reading them back; not part of the stored jury run itself.
    _call_records: dict[str, JsonObject] = PrivateAttr(default_factory=dict)

    @property
    def call_records(self) -> dict[str, JsonObject]:
        return self._call_records


class _Budget:
    """Spent and reserved (in-flight estimates) USD for one run, on one event loop."""

    def __init__(self, limit_usd: float | None, already_spent_usd: float = 0.0) -> None:
        self.limit = limit_usd
        self.before = already_spent_usd  # spent by earlier runs of the same runner
        self.spent = already_spent_usd
        self.reserved = 0.0
        self.exhausted = False
        self._settled = asyncio.Condition()

    async def reserve(self, estimate: float) -> bool:
        """Reserve ``estimate`` USD; False (and ``exhausted``) if it cannot fit.

        If the call fits what is spent but not what is in flight, wait for in-flight calls to
        settle (they often cost less than estimated) before deciding.
        """
        if self.limit is None:
            return True
        async with self._settled:
            while True:
                if self.spent + estimate > self.limit:
                    self.exhausted = True
                    return False
                if self.spent + self.reserved + estimate <= self.limit:
                    self.reserved += estimate
                    return True
                await self._settled.wait()

    async def settle(self, estimate: float, actual: float) -> None:
        async with self._settled:
            if self.limit is not None:
                self.reserved -= estimate
            self.spent += actual
            self._settled.notify_all()


class JuryRunner:
    """Run a jury over a batch. Backoff times are seconds.

    ``max_cost_usd`` (USD) bounds what this runner spends over ALL its ``run`` calls, so one
    runner shared by a suite's prompts shares one budget. Runs on one runner are sequential.
    """

    def __init__(
        self,
        judges: list[Judge],
        store: CallStore | None = None,
        concurrency_per_provider: int = 8,
        max_retries: int = 4,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 20,
        max_cost_usd: float | None = None,
        lang: str = "ko",
        progress: Callable[[str], None] | None = None,
        send: bool = True,
        on_stored: OnStored | None = None,
    ) -> None:
        names = [j.name for j in judges]
        duplicates = sorted(n for n, c in Counter(names).items() if c > 1)
        if duplicates:
            raise ValueError(f"judge names must be unique, repeated: {duplicates}")
        if concurrency_per_provider < 1 or max_retries < 0:
            raise ValueError("concurrency_per_provider must be >= 1 and max_retries >= 0")
        self.judges = list(judges)
        self.store = store
        self.concurrency_per_provider = concurrency_per_provider
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.max_cost_usd = max_cost_usd
        self.lang = lang
        self.progress = progress or (lambda message: None)
        self.send = send  # False: answer remote judges from the store only (a deep audit)
        # Called on the writer's thread with each record this runner wrote to the store and its
        # bytes as stored, right after it is written: a caller keeps it as evidence while later
        # calls are in flight.
        self.on_stored = on_stored
        self._rng = random.Random()
        self.spent_usd = 0.0  # over all run() calls: max_cost_usd bounds the runner's total

    # -- public entry points ---------------------------------------------------------------
    def run(self, prompt: Any, items: list[tuple[str, BaseModel]]) -> JuryRun:
        """Synchronous run. Inside a running event loop it runs on a fresh thread's loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self._run_on_a_new_loop(prompt, items)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-jury") as pool:
            return pool.submit(self._run_on_a_new_loop, prompt, items).result()

    def _run_on_a_new_loop(self, prompt: Any, items: list[tuple[str, BaseModel]]) -> JuryRun:
        """``asyncio.run(self.arun(...))``, but the main task returns nothing: on the main thread
        ``asyncio.run`` formats its SIGINT handler, whose text holds the main task's repr and so
        its result's; a JuryRun of thousands of results takes ~0.2 s to repr, twice a run.

        A large run judges part of its calls in a child process when a core is free
        (``assay.judges.second_process.should_split``), forked here, before this thread's loop exists."""
        from assay.judges import second_process

        _check_unique(items)
        child, here = None, None
        if second_process.should_split(self, len(items) * len(self.judges)):
            child, here = second_process.fork(self, prompt, items)
        box: list[JuryRun] = []

        async def main() -> None:
            box.append(await self.arun(prompt, items, child, here))

        try:
            asyncio.run(main())
        finally:
            if child is not None:
                child.wait()  # already waited for unless the run failed: the child and its slots
        return box[0]

    async def arun(
        self, prompt: Any, items: list[tuple[str, BaseModel]], child: SecondProcess | None = None,
        here: list[int] | None = None,
    ) -> JuryRun:
        """Every judge on every case; with ``child``, only the calls ``here`` (indices in case
        order x judge order) are judged on this loop and the child's are merged in."""
        _check_unique(items)
        state, calls, results = self._start(prompt, items)
        if child is not None:
            child.start_reading(self.on_stored)
        with _collector_frozen():
            try:
                await self._judge(state, calls, results, range(len(calls)) if here is None else here)
                if child is not None:
                    from assay.judges.second_process import merge

                    await asyncio.to_thread(child.wait)
                    left = merge(child, state, results)
                    if left:  # the child failed: its calls are judged here (answers it stored are reused)
                        await self._judge(state, calls, results, left)
            finally:
                from assay.judges.transport import close_sessions

                await close_sessions()  # HTTP sessions are bound to this loop, which ends with the run
        return state.finish(items, results)

    async def judge_some(
        self, prompt: Any, items: list[tuple[str, BaseModel]], indices: list[int]
    ) -> tuple[_RunState, list[JudgeResult | None]]:
        """The calls ``indices`` of a run over ``items`` (a second process's share), unfinished:
        its state and the results by call index."""
        state, calls, results = self._start(prompt, items)
        with _collector_frozen():
            try:
                await self._judge(state, calls, results, indices)
            finally:
                from assay.judges.transport import close_sessions

                await close_sessions()
        return state, results

    def _start(self, prompt: Any, items: list[tuple[str, BaseModel]]) -> tuple[_RunState, list[Call], list[Any]]:
        state = _RunState(self, prompt, total=len(items) * len(self.judges))
        for judge in self.judges:
            prepare = getattr(judge, "prepare_calls", None)  # e.g. a price lookup, started before any call
            if prepare is not None:
                prepare()
        calls = [(judge, case_id, item) for case_id, item in items for judge in self.judges]
        return state, calls, [None] * len(calls)  # each result filled once

    async def _judge(self, state: _RunState, calls: list[Call], results: list[Any], indices: Iterable[int]) -> None:
        """The calls ``indices``, each taken once and in order by the callers under way."""
        wanted = list(indices)
        pending = iter(wanted)

        async def caller() -> None:
            for index in pending:  # shared by every caller
                judge, case_id, item = calls[index]
                results[index] = await state.call(judge, case_id, item)

        await asyncio.gather(*(caller() for _ in range(self.callers(len(wanted)))))

    def callers(self, n_calls: int) -> int:
        """How many calls are under way at once (built, waiting for a slot, sent or retrying).

        Twice what the providers let fly: the next requests are built while replies are
        awaited, and a reply is read as soon as it comes, instead of after every request of the
        run has been built and keyed (seconds at thousands of 9 KB prompts, with the first
        replies waiting). Offline judges are not rate-limited: each call is under way at once.
        """
        if any(judge.offline for judge in self.judges):
            return max(1, n_calls)
        providers = len({judge.provider for judge in self.judges})
        return max(1, min(n_calls, 2 * self.concurrency_per_provider * providers))

    # -- helpers used by _RunState -------------------------------------------------------
    def backoff_s(self, attempt: int) -> float:
        """Full jitter: uniform in [0, min(max, base * 2**(attempt-1))] seconds."""
        return self._rng.uniform(0, min(self.backoff_max_s, self.backoff_base_s * 2 ** (attempt - 1)))


class _RunState:
    """Everything mutable about one run, kept off the runner so runs do not share state."""

    def __init__(self, runner: JuryRunner, prompt: Any, total: int) -> None:
        self.runner = runner
        self.prompt = prompt
        self.total = total
        self.done = 0
        self.step = max(1, math.ceil(total / 10))
        self.budget = _Budget(runner.max_cost_usd, runner.spent_usd)
        self.stats = {j.name: JudgeStats() for j in runner.judges}
        self.max_output_tokens: dict[str, int] = {}
        self.max_call_cost: dict[str, float] = {}
        self.limits: dict[str, AdaptiveLimit] = {}
        self.inflight: dict[str, asyncio.Future[JudgeResult]] = {}
        self.untrusted_records: list[str] = []
        self.offline_records: dict[str, JsonObject] = {}
        self.stored_records: dict[str, JsonObject] = {}  # records read back from the store
        self.writer = RecordWriter(runner.store, runner.on_stored) if runner.store is not None else None

    def limit(self, judge: Judge) -> AdaptiveLimit | None:
        if judge.offline:
            return None  # local computation: nothing to rate-limit
        provider = judge.provider
        if provider not in self.limits:
            self.limits[provider] = AdaptiveLimit(self.runner.concurrency_per_provider)
        return self.limits[provider]

    @contextlib.asynccontextmanager
    async def _slot(self, judge: Judge, limit: AdaptiveLimit | None) -> AsyncIterator[None]:
        """This run's adaptive slot, then one of the process's slots for the provider: the
        run's other runners (families, partitions) share the same ceiling."""
        if limit is None:
            yield
            return
        async with limit, provider_gate(judge.provider, self.runner.concurrency_per_provider):
            yield

    def request(self, judge: Judge, item: BaseModel) -> JudgeRequest:
        return judge.request(self.prompt, item, self.runner.lang)

    async def call(self, judge: Judge, case_id: str, item: BaseModel) -> JudgeResult:
        try:
            result = await self._call(judge, case_id, item)
        except Exception as exc:  # a judge bug must not sink the other judges' calls
            result = self._error_result(judge, case_id, exc)
        if not result.ok:
            self.stats[judge.name].failed += 1
        self._tick()
        return result

    async def _call(self, judge: Judge, case_id: str, item: BaseModel) -> JudgeResult:
        request = self.request(judge, item)
        key = request.key
        if judge.offline:
            return await self._send(judge, case_id, item, request, key)
        # An identical request already in this run (duplicate case, same model twice) is sent
        # once; the others share its answer, so the store stays write-once and consistent.
        first = self.inflight.get(key)
        if first is not None:
            return self._shared(judge, case_id, await asyncio.shield(first))
        future: asyncio.Future[JudgeResult] = asyncio.get_running_loop().create_future()
        self.inflight[key] = future
        try:
            result = await self._reuse_or_send(judge, case_id, item, request, key)
        except Exception as exc:
            result = self._error_result(judge, case_id, exc, key)
        future.set_result(result)
        return result

    async def _reuse_or_send(
        self, judge: Judge, case_id: str, item: BaseModel, request: JudgeRequest, key: str
    ) -> JudgeResult:
        store = self.runner.store
        if store is not None:
            cached = await self._from_store(store, judge, case_id, key)
            if cached is not None:
                self.stats[judge.name].reused += 1
                return cached
        if not self.runner.send:
            return self._error_result(judge, case_id, LookupError("no stored response for this call"), key)
        return await self._send(judge, case_id, item, request, key)

    async def _send(
        self, judge: Judge, case_id: str, item: BaseModel, request: JudgeRequest, key: str
    ) -> JudgeResult:
        """Attempts with retries; stores the first successful result."""
        stats = self.stats[judge.name]
        total = Usage()
        attempt = 0
        while True:
            attempt += 1
            # The budget is checked once a slot is free, right before sending, so only
            # requests actually in flight hold a reservation.
            limit = self.limit(judge)
            async with self._slot(judge, limit):
                raise_if_stopped()  # SIGTERM: send nothing new; answered calls are already stored
                estimate = self._estimate(judge, request)
                if not await self.budget.reserve(estimate):
                    return self._budget_result(judge, case_id, key, attempt - 1, total, estimate)
                result = await self._attempt(judge, case_id, item, request)
                if limit is not None:
                    limit.observe(result.latency_s, throttled=result.status_code == 429)
            await self.budget.settle(estimate, result.usage.cost_usd)
            self._account(judge, result.usage)
            total = _add(total, result.usage)
            result.usage, result.attempts, result.request_key = total, attempt, key
            if result.ok:
                if judge.offline:
                    self.offline_records[key] = stamped(key, self._record(judge, request, result))
                elif self.writer is not None:
                    await self.writer.put(key, self._record(judge, request, result), request.record_json)
                return result
            if result.error_kind not in RETRYABLE or attempt > self.runner.max_retries:
                return result
            stats.retries += 1
            await asyncio.sleep(self.runner.backoff_s(attempt))

    async def _attempt(
        self, judge: Judge, case_id: str, item: BaseModel, request: JudgeRequest
    ) -> JudgeResult:
        self.stats[judge.name].sent += 1
        # The request is built once; the judge need not rebuild it per attempt.
        return await judge.ajudge(self.prompt, item, case_id, lang=self.runner.lang, request=request)

    async def _from_store(self, store: CallStore, judge: Judge, case_id: str, key: str) -> JudgeResult | None:
        try:
            # A local miss is one failed open (~10 µs): far cheaper than a thread hop per call.
            record = store.get(key) if store.local else await asyncio.to_thread(store.get, key)
        except UntrustedRecord as exc:
            where = await asyncio.to_thread(store.quarantine, key)
            self.untrusted_records.append(f"{exc} (moved to {where}; sent again)")
            return None
        if record is None:
            return None
        raw_text = (record.get("response") or {}).get("raw_text")
        try:
            verdict = judge.parse(raw_text, self.prompt)
        except MalformedReply:
            return None  # e.g. the verdict model got stricter: ask again
        self.stored_records[key] = record
        return JudgeResult(
            judge=judge.name,
            model=judge.model,
            prompt_id=self.prompt.id,
            case_id=case_id,
            verdict=verdict,
            raw_text=raw_text,
            request_key=key,
            cached=True,
        )

    def _shared(self, judge: Judge, case_id: str, first: JudgeResult) -> JudgeResult:
        if first.ok:
            self.stats[judge.name].reused += 1
        return first.model_copy(
            update={
                "judge": judge.name,
                "model": judge.model,
                "case_id": case_id,
                "cached": first.ok,
                "usage": Usage(),
                "attempts": 0,
                "latency_s": 0.0,
            }
        )

    def _error_result(
        self, judge: Judge, case_id: str, exc: Exception, key: str | None = None
    ) -> JudgeResult:
        return JudgeResult(
            judge=judge.name,
            model=judge.model,
            prompt_id=self.prompt.id,
            case_id=case_id,
            error=f"{type(exc).__name__}: {exc}"[:2000],
            error_kind="permanent",
            request_key=key,
        )

    def _estimate(self, judge: Judge, request: JudgeRequest) -> float:
        if self.budget.limit is None or judge.offline:
            return 0.0  # no budget to guard, or nothing priced: skip the token counting
        prior = min(PRIOR_OUTPUT_TOKENS, judge.max_tokens or PRIOR_OUTPUT_TOKENS)
        output_tokens = self.max_output_tokens.get(judge.name, prior)
        # Our token count may differ from the provider's tokenizer, so never estimate below the
        # dearest call this judge has actually made in this run.
        return max(float(judge.estimate_cost_usd(request, output_tokens)), self.max_call_cost.get(judge.name, 0.0))

    def _account(self, judge: Judge, usage: Usage) -> None:
        stats = self.stats[judge.name]
        stats.input_tokens += usage.input_tokens
        stats.output_tokens += usage.output_tokens
        stats.cost_usd += usage.cost_usd
        self.max_call_cost[judge.name] = max(self.max_call_cost.get(judge.name, 0.0), usage.cost_usd)
        if usage.output_tokens:
            seen = self.max_output_tokens.get(judge.name, 0)
            self.max_output_tokens[judge.name] = max(seen, usage.output_tokens)

    def _budget_result(
        self, judge: Judge, case_id: str, key: str, attempts: int, usage: Usage, estimate: float
    ) -> JudgeResult:
        b = self.budget
        return JudgeResult(
            judge=judge.name,
            model=judge.model,
            prompt_id=self.prompt.id,
            case_id=case_id,
            error=(
                f"budget: this call (estimated ${estimate:.6f}) on top of ${b.spent:.6f} spent "
                f"would exceed max_cost_usd ${b.limit:.6f}; not sent"
            ),
            error_kind="budget",
            usage=usage,
            attempts=attempts,
            request_key=key,
        )

    def _record(self, judge: Judge, request: JudgeRequest, result: JudgeResult) -> JsonObject:
        raw_text = result.raw_text
        if raw_text is None:  # an offline judge may hand back only the verdict
            raw_text = json.dumps(result.verdict, ensure_ascii=False, sort_keys=True)
        return {
            "judge": judge.name,
            "model": request.model,
            "api_base": request.api_base,
            "offline": bool(judge.offline),
            "prompt_id": self.prompt.id,
            "prompt_sha256": self.prompt.sha256,
            "prompt_version": self.prompt.version,
            "request": {"messages": request.messages, "params": request.params},
            "response": {
                "raw_text": raw_text,
                "usage": result.usage.model_dump(),
                "latency_s": round(result.latency_s, 6),
                "attempts": result.attempts,
            },
            "created_at": now_iso(),
        }

    def _tick(self) -> None:
        self.done += 1
        if self.done % self.step == 0 or self.done == self.total:
            sent = sum(s.sent for s in self.stats.values())
            reused = sum(s.reused for s in self.stats.values())
            failed = sum(s.failed for s in self.stats.values())
            self.runner.progress(
                f"judges: {self.done}/{self.total} calls done ({sent} sent, {reused} reused, {failed} failed)"
            )

    def finish(self, items: list[tuple[str, BaseModel]], flat: list[JudgeResult]) -> JuryRun:
        self.runner.spent_usd = self.budget.spent
        n = len(self.runner.judges)
        results = {case_id: flat[i * n : (i + 1) * n] for i, (case_id, _) in enumerate(items)}
        dropped: dict[str, str] = {}
        for j, judge in enumerate(self.runner.judges):
            mine = [flat[i * n + j] for i in range(len(items))]
            if mine and not any(r.ok for r in mine):
                kinds = Counter(r.error_kind or "unknown" for r in mine)
                summary = ", ".join(f"{k} x{c}" for k, c in kinds.most_common())
                dropped[judge.name] = f"all {len(mine)} calls failed ({summary}); first: {mine[0].error}"
        run = JuryRun(
            prompt_id=self.prompt.id,
            prompt_sha256=self.prompt.sha256,
            results=results,
            judge_stats=self.stats,
            dropped_judges=dropped,
            budget_exhausted=self.budget.exhausted,
            spent_usd=self.budget.spent - self.budget.before,
            store_errors=list(self.writer.errors) if self.writer is not None else [],
            untrusted_records=self.untrusted_records,
            request_keys=[r.request_key for r in flat if r.request_key],
        )
        run.call_records.update(self.stored_records)
        if self.writer is not None:  # every write was awaited: all are in
            run.call_records.update(self.writer.stored)
        run.call_records.update(self.offline_records)
        return run


Call = tuple[Judge, str, BaseModel]  # (judge, case id, typed input)


def _check_unique(items: list[tuple[str, BaseModel]]) -> None:
    case_ids = [case_id for case_id, _ in items]
    if len(set(case_ids)) != len(case_ids):
        raise ValueError("case ids must be unique within a run")


@contextlib.contextmanager
def _collector_frozen() -> Iterator[None]:
    """Everything alive now (imported modules, litellm's price map, Prefect) outlives the run;
    frozen, the collector stops rescanning those ~10^5 objects while thousands of short calls
    allocate. Unfrozen afterwards: no lasting change to the process. A process that froze its
    libraries already (``assay.memory.freeze_long_lived``) keeps them so."""
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    try:
        yield
    finally:
        if freeze:
            gc.unfreeze()


def _add(a: Usage, b: Usage) -> Usage:
    return Usage(
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        cost_usd=a.cost_usd + b.cost_usd,
    )
