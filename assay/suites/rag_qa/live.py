"""Live generation replay for rag_qa: your own RAG system (``--target``, through
``assay.replay.targets``), or the built-in pipeline: retrieve with the local index, answer
through litellm.

This reproduces seed 003's RAG pipeline (chunk 500/200, top-k retrieval, its system prompt,
temperature 0) against any litellm model, so a run can regenerate answers instead of reading
recorded ones. litellm and the embedding stack are imported lazily: importing this module
stays cheap.

Every knob comes from the run's typed spec: ``spec.generator`` (model, endpoint, key variable,
retries, timeout, max tokens, chunking, embedding model) and ``spec.k``; ``ctx.concurrency``
bounds the requests in flight. With ``spec.target`` set, the user's own system answers instead.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from assay.replay.llm_calls import CallSettings, Progress, complete, map_bounded, run_sync
from assay.replay.targets import TargetCall, TargetReply, call_target, context_record
from assay.schemas import JsonObject
from assay.spec import RunSpec
from assay.suites.kit import ReplayContext
from assay.suites.rag_qa.schema import RagCase

DEFAULT_BODY = '{"question": "{question}"}'

# Seed 003, verbatim (including the leading newline).
ANSWER_SYSTEM_PROMPT = """
You are a knowledgeable, friendly assistant representing the company.
If relevant, use the given context to answer any question.
If you don't know the answer, say so.
Context:
{context}
"""


def live_generations(cases: list[RagCase], kb_root: Path, ctx: ReplayContext) -> list[JsonObject]:
    """Retrieve and answer every case live; one RagGeneration-shaped dict per case, in order.

    A case whose request still fails after retries gets ``answer=""`` and ``error`` set; this
    function only raises for run-wide problems (missing generator/key, unreadable KB, model
    unavailable). Safe to call with or without a running event loop in the calling thread.
    """
    if not cases:
        return []
    if ctx.spec.target is not None:
        return target_generations(cases, ctx)
    settings = CallSettings.for_generator(ctx.spec.generator, ctx.concurrency)
    retrieved = retrieve(cases, kb_root, ctx.spec, ctx.progress)

    async def answer(pair: tuple[RagCase, list[JsonObject]], semaphore: asyncio.Semaphore) -> JsonObject:
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
) -> list[list[JsonObject]]:
    """Build the index once and return, per case, its top-k chunks as RetrievedChunk dicts
    (source, text, score = cosine similarity), best first."""
    from assay.suites.rag_qa.chunking import chunk_documents
    from assay.suites.rag_qa.embedding import EmbeddingIndex, load_model

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


def target_generations(cases: list[RagCase], ctx: ReplayContext) -> list[JsonObject]:
    """Your own RAG system answers every case (``--target``): it receives the question (and the
    case's id and category), and its answer and retrieved contexts become the generation."""
    target = ctx.spec.target
    assert target is not None
    calls = [TargetCall(case_id=c.id, fields={"question": c.question, "id": c.id, "category": c.category})
             for c in cases]
    replies = call_target(
        target, calls, default_body=DEFAULT_BODY, concurrency=ctx.concurrency,
        store_path=ctx.call_store, progress=ctx.progress,
    )
    return [_generation(reply, target.identity) for reply in replies]


def _generation(reply: TargetReply, identity: str) -> JsonObject:
    error = reply.error
    if error is None and reply.answer is None:
        error = "the target's reply has no answer at its answer path"
    return {
        "case_id": reply.case_id,
        "retrieved": [context_record(c) for c in reply.contexts or []],
        "model": identity,
        "answer": reply.answer or "",
        "latency_s": reply.latency_s,
        "error": error,
    }
