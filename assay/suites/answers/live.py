"""Live replay for answers: your own system answers every case (``--target URL`` or
``module:function``, through ``assay.replay.targets``).

The endpoint gets ``{"question": "<input>"}`` unless the target gives its own body template
(``"{input}"``, ``"{question}"``, ``"{id}"`` and ``"{group}"`` are filled in); the answer is read at
``answer`` and the retrieved contexts at ``contexts`` unless the target names other paths.
"""

from __future__ import annotations

from assay.replay.targets import TargetCall, TargetReply, call_target, context_record
from assay.schemas import JsonObject
from assay.suites.answers.schema import AnswerCase
from assay.suites.kit import ReplayContext

DEFAULT_BODY = '{"question": "{input}"}'


def target_generations(cases: list[AnswerCase], ctx: ReplayContext) -> list[JsonObject]:
    target = ctx.spec.target
    if target is None:
        raise ValueError("answers has no built-in system to replay: give --target URL or module:function")
    calls = [TargetCall(case_id=c.id, fields={"input": c.input, "question": c.input, "id": c.id, "group": c.group})
             for c in cases]
    replies = call_target(target, calls, default_body=DEFAULT_BODY, concurrency=ctx.concurrency,
                          store_path=ctx.call_store, progress=ctx.progress)
    return [_generation(reply, target.identity) for reply in replies]


def _generation(reply: TargetReply, identity: str) -> JsonObject:
    error = reply.error
    if error is None and reply.answer is None:
        error = "the target's reply has no answer at its answer path"
    return {
        "case_id": reply.case_id,
        "output": reply.answer or "",
        "contexts": [context_record(c) for c in reply.contexts or []],
        "model": identity,
        "latency_s": reply.latency_s,
        "error": error,
    }
