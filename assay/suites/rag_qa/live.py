"""Live generation replay for rag_qa: retrieve with the local index, answer through litellm.

This reproduces seed 003's RAG pipeline (chunk 500/200, top-k retrieval, its system prompt,
temperature 0) against any litellm model, so a run can regenerate answers instead of reading
recorded ones. litellm and the embedding stack are imported lazily: importing this module
stays cheap.

Every knob comes from the run's typed spec: ``spec.generator`` (model, endpoint, key variable,
retries, timeout, max tokens, chunking, embedding model) and ``spec.k``; ``ctx.concurrency``
bounds the requests in flight.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from assay.replay.llm_calls import CallSettings, Progress, complete, map_bounded, run_sync
from assay.spec import RunSpec
from assay.suites.kit import ReplayContext
from assay.suites.rag_qa.schema import RagCase

# Seed 003, verbatim (including the leading newline).
ANSWER_SYSTEM_PROMPT = """
You are a knowledgeable, friendly assistant representing the company.
If relevant, use the given context to answer any question.
If you don't know the answer, say so.
Context:
{context}
"""


def live_generations(cases: list[RagCase], kb_root: Path, ctx: ReplayContext) -> list[dict[str, Any]]:
    """Retrieve and answer every case live; one RagGeneration-shaped dict per case, in order.

    A case whose request still fails after retries gets ``answer=""`` and ``error`` set; this
    function only raises for run-wide problems (missing generator/key, unreadable KB, model
    unavailable). Safe to call with or without a running event loop in the calling thread.
    """
    if not cases:
        return []
    settings = CallSettings.for_generator(ctx.spec.generator, ctx.concurrency)
    retrieved = retrieve(cases, kb_root, ctx.spec, ctx.progress)

    async def answer(pair: tuple[RagCase, list[dict[str, Any]]], semaphore: asyncio.Semaphore) -> dict[str, Any]:
        case, hits = pair
        done = await complete(build_messages(case.question, [h["text"] for h in hits]), settings, semaphore)
        return {
            "case_id": case.id,
            "retrieved": hits,
            "model": settings.model,
            "answer": done.text,
            "latency_s": done.latency_s,
            "input_tokens": done.input_tokens,
            "output_tokens": done.output_tokens,
            "error": done.error,
        }

    pairs = list(zip(cases, retrieved, strict=True))
    return run_sync(
        lambda: map_bounded(pairs, answer, settings.concurrency, ctx.progress, "answers", lambda r: r["error"] is not None)
    )


def retrieve(
    cases: list[RagCase], kb_root: Path, spec: RunSpec, progress: Progress = lambda message: None
) -> list[list[dict[str, Any]]]:
    """Build the index once and return, per case, its top-k chunks as RetrievedChunk dicts
    (source, text, score = cosine similarity), best first."""
    from assay.replay.chunking import chunk_documents
    from assay.replay.embedding import EmbeddingIndex, load_model

    chunks = chunk_documents(Path(kb_root), spec.generator.chunk_size, spec.generator.chunk_overlap)
    started = time.perf_counter()
    model = load_model(spec.generator.embedding_model)
    loaded = time.perf_counter()
    index = EmbeddingIndex.build(chunks, model)
    documents = len({c.source for c in chunks})
    progress(
        f"indexed {len(chunks)} chunks from {documents} documents "
        f"(model {loaded - started:.1f}s, embeddings {time.perf_counter() - loaded:.1f}s)"
    )
    hits = index.search_many([c.question for c in cases], spec.k)
    return [[{"source": c.source, "text": c.text, "score": score} for c, score in row] for row in hits]


def build_messages(question: str, context_texts: list[str]) -> list[dict[str, str]]:
    """Seed 003's prompt: retrieved texts joined by blank lines in the system message."""
    context = "\n\n".join(context_texts)
    return [
        {"role": "system", "content": ANSWER_SYSTEM_PROMPT.format(context=context)},
        {"role": "user", "content": question},
    ]
