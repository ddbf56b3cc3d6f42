"""Live generation replay for rag_qa: retrieve with the local index, answer through litellm.

This reproduces seed 003's RAG pipeline (chunk 500/200, top-k retrieval, its system prompt,
temperature 0) against any litellm model, so a run can regenerate answers instead of reading
recorded ones. litellm and the embedding stack are imported lazily: importing this module
stays cheap.

``params`` keys (all optional except ``generator``):
    generator       litellm model string, e.g. "openai/gpt-4.1-nano"
    api_base        base URL of an OpenAI-compatible or provider endpoint
    api_key_env     name of the env var holding the API key; default: the provider's usual one
    k               chunks retrieved per question (10)
    concurrency     generation requests in flight at once (8)
    embedding_model name or local path for embedding.resolve_model_path (bundled MiniLM)
    chunk_size, chunk_overlap   characters (500, 200)
    max_retries     retries after the first attempt on 429/5xx/timeout/connection errors (4)
    retry_base_s, retry_max_s   exponential backoff base and cap, seconds (1.0, 30.0)
    timeout_s       per-request timeout, seconds (60)
    max_tokens      answer length cap (provider default)
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.redact import redact, secret_values, with_url_credentials
from assay.suites.rag_qa.schema import RagCase

# Seed 003, verbatim (including the leading newline).
ANSWER_SYSTEM_PROMPT = """
You are a knowledgeable, friendly assistant representing the company.
If relevant, use the given context to answer any question.
If you don't know the answer, say so.
Context:
{context}
"""

Progress = Callable[[str], None]


@dataclass(frozen=True)
class CallSettings:
    """How each answer request is made. ``api_key`` is kept out of repr so it never lands in
    logs or tracebacks."""

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
    def from_params(cls, params: dict[str, Any]) -> CallSettings:
        model = params.get("generator")
        if not model:
            raise ValueError("live replay needs params['generator'] (a litellm model string)")
        return cls(
            model=str(model),
            api_base=params.get("api_base"),
            api_key=_api_key(params.get("api_key_env")),
            concurrency=max(1, int(params.get("concurrency", 8))),
            max_retries=max(0, int(params.get("max_retries", 4))),
            retry_base_s=float(params.get("retry_base_s", 1.0)),
            retry_max_s=float(params.get("retry_max_s", 30.0)),
            timeout_s=float(params.get("timeout_s", 60.0)),
            max_tokens=params.get("max_tokens"),
        )


def _api_key(env_name: str | None) -> str | None:
    """The key from the named env var; None lets litellm use the provider's usual variable."""
    if not env_name:
        return None
    value = os.environ.get(env_name)
    if not value:
        # A configuration error for the whole run, so fail before any request is made.
        raise ValueError(f"api_key_env names {env_name!r}, but that environment variable is not set")
    return value


def live_generations(
    cases: list[RagCase], kb_root: Path, params: dict[str, Any], progress: Progress = lambda message: None
) -> list[dict[str, Any]]:
    """Retrieve and answer every case live; one RagGeneration-shaped dict per case, in order.

    A case whose request still fails after retries gets ``answer=""`` and ``error`` set; this
    function only raises for run-wide problems (missing generator/key, unreadable KB, model
    unavailable). Safe to call with or without a running event loop in the calling thread.
    """
    if not cases:
        return []
    settings = CallSettings.from_params(params)
    retrieved = retrieve(cases, kb_root, params, progress)
    return _run_sync(lambda: _generate_all(cases, retrieved, settings, progress))


def retrieve(
    cases: list[RagCase], kb_root: Path, params: dict[str, Any], progress: Progress = lambda message: None
) -> list[list[dict[str, Any]]]:
    """Build the index once and return, per case, its top-k chunks as RetrievedChunk dicts
    (source, text, score = cosine similarity), best first."""
    from assay.replay.chunking import chunk_documents
    from assay.replay.embedding import EmbeddingIndex, load_model

    chunks = chunk_documents(
        Path(kb_root), int(params.get("chunk_size", 500)), int(params.get("chunk_overlap", 200))
    )
    started = time.perf_counter()
    model = load_model(params.get("embedding_model"))
    loaded = time.perf_counter()
    index = EmbeddingIndex.build(chunks, model)
    documents = len({c.source for c in chunks})
    progress(
        f"indexed {len(chunks)} chunks from {documents} documents "
        f"(model {loaded - started:.1f}s, embeddings {time.perf_counter() - loaded:.1f}s)"
    )
    hits = index.search_many([c.question for c in cases], int(params.get("k", 10)))
    return [[{"source": c.source, "text": c.text, "score": score} for c, score in row] for row in hits]


def build_messages(question: str, context_texts: list[str]) -> list[dict[str, str]]:
    """Seed 003's prompt: retrieved texts joined by blank lines in the system message."""
    context = "\n\n".join(context_texts)
    return [
        {"role": "system", "content": ANSWER_SYSTEM_PROMPT.format(context=context)},
        {"role": "user", "content": question},
    ]


def _run_sync(make_coro: Callable[[], Any]) -> Any:
    """Run a coroutine to completion from synchronous code.

    asyncio.run refuses to nest inside a running loop (e.g. a notebook or an async Prefect
    task), so in that case the coroutine gets a fresh loop in a helper thread.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make_coro())
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-live-replay") as pool:
        return pool.submit(lambda: asyncio.run(make_coro())).result()


async def _generate_all(
    cases: list[RagCase], retrieved: list[list[dict[str, Any]]], settings: CallSettings, progress: Progress
) -> list[dict[str, Any]]:
    import litellm

    litellm.suppress_debug_info = True  # no "Give Feedback" banners on every error
    semaphore = asyncio.Semaphore(settings.concurrency)  # created here: bound to this loop
    total, done, failed = len(cases), 0, 0
    step = max(1, math.ceil(total / 10))

    async def one(case: RagCase, hits: list[dict[str, Any]]) -> dict[str, Any]:
        nonlocal done, failed
        result = await _generate_one(case, hits, settings, semaphore)
        done += 1
        failed += result["error"] is not None
        if done % step == 0 or done == total:
            progress(f"generated {done}/{total} answers ({failed} failed)")
        return result

    return list(await asyncio.gather(*(one(c, h) for c, h in zip(cases, retrieved, strict=True))))


async def _generate_one(
    case: RagCase, hits: list[dict[str, Any]], settings: CallSettings, semaphore: asyncio.Semaphore
) -> dict[str, Any]:
    """Answer one case with retries; never raises (except cancellation)."""
    import litellm

    # One retry policy for every litellm call in assay: 408/429/5xx, timeouts and connection
    # errors are transient; auth and bad requests are not.
    from assay.judges.llm import classify_error

    base = {"case_id": case.id, "retrieved": hits, "model": settings.model}
    request: dict[str, Any] = {
        "model": settings.model,
        "messages": build_messages(case.question, [h["text"] for h in hits]),
        "temperature": 0,
        "timeout": settings.timeout_s,
        # Retries happen here, with backoff; the SDK's own retries would hide and multiply calls.
        "max_retries": 0,
        "num_retries": 0,
    }
    if settings.api_base:
        # The spec holds the public URL; credentials in it come back only for the call itself.
        request["api_base"] = with_url_credentials(settings.api_base)
    if settings.api_key:
        request["api_key"] = settings.api_key
    if settings.max_tokens:
        request["max_tokens"] = int(settings.max_tokens)

    for attempt in range(settings.max_retries + 1):
        attempts = attempt + 1
        # The semaphore bounds requests in flight; it is not held while backing off.
        async with semaphore:
            started = time.perf_counter()
            try:
                response = await litellm.acompletion(**request)
                latency = time.perf_counter() - started
                return _succeeded(base, response, latency)
            except Exception as exc:
                if attempt == settings.max_retries or classify_error(exc) != "transient":
                    return _failed(base, exc, settings, attempts)
        await asyncio.sleep(_backoff_s(attempt, settings))
    raise AssertionError("unreachable: the last attempt always returns")


def _backoff_s(attempt: int, settings: CallSettings) -> float:
    """Exponential backoff with "equal jitter": half fixed, half random, so a burst of
    failed requests does not retry in lockstep. Seconds."""
    delay = min(settings.retry_max_s, settings.retry_base_s * 2**attempt)
    return delay / 2 + random.uniform(0, delay / 2)


def _succeeded(base: dict[str, Any], response: Any, latency_s: float) -> dict[str, Any]:
    """latency_s is the successful request's own round trip, excluding earlier failed
    attempts and backoff."""
    choice = response.choices[0]
    answer = choice.message.content or ""
    usage = getattr(response, "usage", None)
    error = None if answer else f"model returned no answer text (finish_reason={choice.finish_reason})"
    return {
        **base,
        "answer": answer,
        "latency_s": latency_s,
        "input_tokens": getattr(usage, "prompt_tokens", None),
        "output_tokens": getattr(usage, "completion_tokens", None),
        "error": error,
    }


def _failed(
    base: dict[str, Any], exc: BaseException, settings: CallSettings, attempts: int
) -> dict[str, Any]:
    # Providers sometimes echo credentials (the key, the Authorization header, the URL).
    secrets = [*secret_values(), *([settings.api_key] if settings.api_key else [])]
    message = redact(f"{type(exc).__name__} after {attempts} attempt(s): {exc}", secrets)
    return {
        **base,
        "answer": "",
        "latency_s": None,
        "input_tokens": None,
        "output_tokens": None,
        "error": message[:1000],
    }
