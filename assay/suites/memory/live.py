"""Live replay of the memory suite: the system under test is the memory summarizer.

Either a recursive summarizer through litellm (windows of turns, the running memory carried
forward; its prompt is ``rules/summarizer.yaml``), or the user's own summarizer as the run's
target (``--target``): ``module:function(turns) -> {"memory": str, "entities": [str]}`` in-process,
or an http(s) endpoint receiving ``{"turns": [...], "session_id": ...}``.
Each session is summarised once; every query of the session is judged against that memory.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import yaml

from assay.judges.prompts.base import fill
from assay.replay.llm_calls import CallSettings, complete, map_bounded, run_sync
from assay.replay.targets import TargetCall, call_target
from assay.schemas import JsonObject
from assay.spec import TargetSpec
from assay.suites.kit import ReplayContext
from assay.suites.memory.dataset import readable_sessions
from assay.suites.memory.schema import MemoryCase, Session

RULES = Path(__file__).resolve().parent / "rules" / "summarizer.yaml"
DELIMITERS = ("<<<TURNS>>>", "<<<END TURNS>>>")
DEFAULT_BODY = '{"turns": "{turns}", "session_id": "{session_id}"}'
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def live_memories(cases: list[MemoryCase], sessions: list[JsonObject], ctx: ReplayContext) -> list[JsonObject]:
    """One MemoryGeneration-shaped dict per case; a session that could not be summarised gives
    its cases an ``error`` (they are unscored, with the reason), never an exception."""
    readable = readable_sessions(sessions)
    needed = list(dict.fromkeys(c.session_id for c in cases))
    target = ctx.spec.target
    if target is not None:
        memories = _target_memories(target, needed, readable, ctx)
        model = target.identity
    else:
        settings = CallSettings.for_generator(ctx.spec.generator, ctx.concurrency)
        model = settings.model
        done = run_sync(lambda: map_bounded(
            needed,
            lambda sid, sem: _summarize_llm(readable.get(sid), sid, settings, sem, ctx.spec.lang),
            settings.concurrency, ctx.progress, "memories", lambda m: m.get("error") is not None,
        ))
        memories = dict(zip(needed, done, strict=True))
    first = {}  # session -> its first case: the one a failed summary is counted with (assay.failed_calls)
    out = []
    for c in cases:
        memory = memories[c.session_id]
        shared = {"counted_with": first[c.session_id]} if memory.get("error") and c.session_id in first else {}
        first.setdefault(c.session_id, c.id)
        out.append({"case_id": c.id, "session_id": c.session_id, "model": model, **memory, **shared})
    return out


def _target_memories(
    target: TargetSpec, needed: list[str], sessions: dict[str, Session], ctx: ReplayContext
) -> dict[str, JsonObject]:
    """Your summarizer condenses each session once: it receives ``turns`` (a list of
    ``{"role", "text"}``) and ``session_id``, and returns ``{"memory": str, "entities": [str]}``
    (or the memory text alone)."""
    readable = [sid for sid in needed if sid in sessions]
    calls = [TargetCall(case_id=sid, fields={"turns": [t.model_dump() for t in sessions[sid].turns], "session_id": sid})
             for sid in readable]
    replies = call_target(target, calls, default_body=DEFAULT_BODY, answer_path=None, contexts_path=None,
                          concurrency=ctx.concurrency, store_path=ctx.call_store, progress=ctx.progress)
    memories = {sid: _error(f"session {sid} could not be read from sessions.jsonl") for sid in needed}
    for reply in replies:
        if reply.error:
            memories[reply.case_id] = {**_error(reply.error), "latency_s": reply.latency_s}
            continue
        try:
            memories[reply.case_id] = {**_memory_record(reply.data), "latency_s": reply.latency_s}
        except TypeError as exc:
            memories[reply.case_id] = _error(str(exc))
    return memories


async def _summarize_llm(
    session: Session | None, sid: str, settings: CallSettings, semaphore: asyncio.Semaphore, lang: str
) -> JsonObject:
    if session is None:
        return _error(f"session {sid} could not be read from sessions.jsonl")
    rules = yaml.safe_load(RULES.read_text(encoding="utf-8"))
    template = rules["en" if lang == "en" else "ko"]
    window = int(rules["window_turns"])
    memory: JsonObject = {"memory": "", "entities": []}
    for start in range(0, len(session.turns), window):
        turns = session.turns[start : start + window]
        values = {
            "memory": memory["memory"] or "(없음)",
            "entities": ", ".join(memory["entities"]) or "(없음)",
            "start": str(start + 1),
            "end": str(start + len(turns)),
            "turns": "\n".join(f"{t.role}: {_undelimit(t.text)}" for t in turns),
        }
        messages = [{"role": "system", "content": template["system"]}, {"role": "user", "content": fill(template["user"], values)}]
        reply = await complete(messages, settings, semaphore)
        if reply.error:
            return _error(f"window {values['start']}-{values['end']}: {reply.error}")
        memory = parse_memory(reply.text)
    return memory


def _undelimit(text: str) -> str:
    """Turn text cannot close the data block it sits in."""
    for token in DELIMITERS:
        text = text.replace(token, token.replace("<<<", "‹‹‹"))
    return text


def parse_memory(text: str) -> JsonObject:
    """The summarizer's JSON reply; a reply that is not JSON is taken as the memory text."""
    match = _JSON_OBJECT.search(text or "")
    if match:
        try:
            return _memory_record(json.loads(match.group(0)))
        except (ValueError, TypeError):
            pass
    return {"memory": (text or "").strip(), "entities": [], "error": None}


def _memory_record(value: Any) -> JsonObject:
    if isinstance(value, str):
        return {"memory": value, "entities": [], "error": None}
    if not isinstance(value, dict) or not isinstance(value.get("memory", ""), str):
        raise TypeError(f"a summarizer must return {{'memory': str, 'entities': [str]}}, got {type(value).__name__}")
    entities = value.get("entities") or []
    return {"memory": value.get("memory", ""), "entities": [str(e) for e in entities], "error": None}


def _error(message: str) -> JsonObject:
    return {"memory": "", "entities": [], "error": message}
