"""Calls to the system under test through litellm, for every suite's live replay.

One place for what every live replay needs: settings from the run spec (model, endpoint,
key variable, timeouts, retries), credentials joined only at call time, retries with
jittered backoff on transient errors, a bounded number of requests in flight, progress
lines, and errors that are redacted before anything stores them. litellm is imported lazily.
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from assay.redact import call_endpoint, redact, secret_values
from assay.schemas import JsonObject

if TYPE_CHECKING:
    from assay.spec import GeneratorSpec

Progress = Callable[[str], None]
T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class CallSettings:
    """How each request is made. ``api_key`` is kept out of repr so it never lands in logs."""

    model: str
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    concurrency: int = 8
    max_retries: int = 4
    retry_base_s: float = 1.0
    retry_max_s: float = 30.0
    timeout_s: float = 60.0
    max_tokens: int | None = None

    @classmethod
    def for_generator(cls, generator: GeneratorSpec, concurrency: int) -> CallSettings:
        """The settings of a run's generator (its knobs are typed and validated in the spec)."""
        if not generator.model:
            raise ValueError("live replay needs a generator model (--generator, a litellm model string)")
        return cls(
            model=generator.model,
            api_base=generator.api_base,
            api_key=api_key_from(generator.api_key_env),
            concurrency=max(1, concurrency),
            max_retries=generator.max_retries,
            retry_base_s=generator.retry_base_s,
            retry_max_s=generator.retry_max_s,
            timeout_s=generator.timeout_s,
            max_tokens=generator.max_tokens,
        )


def api_key_from(env_name: str | None) -> str | None:
    """The key from the named env var; None lets litellm use the provider's usual variable."""
    if not env_name:
        return None
    value = os.environ.get(env_name)
    if not value:
        # A configuration error for the whole run, so fail before any request is made.
        raise ValueError(f"api_key_env names {env_name!r}, but that environment variable is not set")
    return value


@dataclass
class Completion:
    text: str
    latency_s: float | None
    input_tokens: int | None
    output_tokens: int | None
    error: str | None
    attempts: int


def run_sync(make_coro: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to completion from synchronous code (in a helper thread's loop when
    the caller already runs one: asyncio.run refuses to nest)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make_coro())  # type: ignore[arg-type]
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-live-replay") as pool:
        return pool.submit(lambda: asyncio.run(make_coro())).result()  # type: ignore[arg-type]


async def map_bounded(
    items: Sequence[T],
    call: Callable[[T, asyncio.Semaphore], Awaitable[R]],
    concurrency: int,
    progress: Progress,
    noun: str,
    failed: Callable[[R], bool],
) -> list[R]:
    """``call`` over every item with at most ``concurrency`` requests in flight; a progress
    line about every tenth of the way ("generated 20/48 answers (1 failed)")."""
    import litellm

    litellm.suppress_debug_info = True  # no "Give Feedback" banners on every error
    semaphore = asyncio.Semaphore(concurrency)  # created here: bound to this loop
    total, done, n_failed = len(items), 0, 0
    step = max(1, math.ceil(total / 10))

    async def one(item: T) -> R:
        nonlocal done, n_failed
        result = await call(item, semaphore)
        done += 1
        n_failed += failed(result)
        if done % step == 0 or done == total:
            progress(f"generated {done}/{total} {noun} ({n_failed} failed)")
        return result

    return list(await asyncio.gather(*(one(item) for item in items)))


async def complete(
    messages: list[dict[str, str]], settings: CallSettings, semaphore: asyncio.Semaphore, temperature: float = 0
) -> Completion:
    """One chat completion with retries; never raises (except cancellation). The semaphore
    bounds requests in flight and is not held while backing off."""
    import litellm

    # One retry policy for every litellm call in assay: 408/429/5xx, timeouts and connection
    # errors are transient; auth and bad requests are not.
    from assay.judges.llm import classify_error

    request: JsonObject = {
        "model": settings.model,
        "messages": messages,
        "temperature": temperature,
        "timeout": settings.timeout_s,
        # Retries happen here, with backoff; the SDK's own retries would hide and multiply calls.
        "max_retries": 0,
        "num_retries": 0,
    }
    if settings.api_base:
        # The spec holds the public URL; credentials in it come back only for the call itself.
        request["api_base"], auth_headers = call_endpoint(settings.api_base)
        if auth_headers:
            request["extra_headers"] = auth_headers
    if settings.api_key:
        request["api_key"] = settings.api_key
    if settings.max_tokens:
        request["max_tokens"] = int(settings.max_tokens)

    for attempt in range(settings.max_retries + 1):
        async with semaphore:
            started = time.perf_counter()
            try:
                response = await litellm.acompletion(**request)
            except Exception as exc:
                if attempt == settings.max_retries or classify_error(exc) != "transient":
                    return _failed(exc, settings, attempt + 1)
            else:
                return _succeeded(response, time.perf_counter() - started, attempt + 1)
        await asyncio.sleep(backoff_s(attempt, settings))
    raise AssertionError("unreachable: the last attempt always returns")


def backoff_s(attempt: int, settings: CallSettings) -> float:
    """Exponential backoff with "equal jitter": half fixed, half random, so a burst of failed
    requests does not retry in lockstep. Seconds."""
    delay = min(settings.retry_max_s, settings.retry_base_s * 2**attempt)
    return delay / 2 + random.uniform(0, delay / 2)


def _succeeded(response: Any, latency_s: float, attempts: int) -> Completion:
    """latency_s is the successful request's own round trip, excluding earlier attempts."""
    choice = response.choices[0]
    text = choice.message.content or ""
    usage = getattr(response, "usage", None)
    return Completion(
        text=text,
        latency_s=latency_s,
        input_tokens=getattr(usage, "prompt_tokens", None),
        output_tokens=getattr(usage, "completion_tokens", None),
        error=None if text else f"model returned no text (finish_reason={choice.finish_reason})",
        attempts=attempts,
    )


def _failed(exc: BaseException, settings: CallSettings, attempts: int) -> Completion:
    # Providers sometimes echo credentials (the key, the Authorization header, the URL).
    secrets = [*secret_values(), *([settings.api_key] if settings.api_key else [])]
    message = redact(f"{type(exc).__name__} after {attempts} attempt(s): {exc}", secrets)
    return Completion(text="", latency_s=None, input_tokens=None, output_tokens=None, error=message[:1000], attempts=attempts)
