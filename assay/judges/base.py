"""The judge protocol shared by LLM judges (litellm) and the offline jury.

A judge answers a typed prompt input with a typed verdict. Whatever it is, it returns a
``JudgeResult``: the parsed verdict (or why there is none), the raw text it produced,
token usage, cost and latency, so every score can be traced to a raw response.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from assay.hashing import canonical_json, canonical_members, sha256_bytes
from assay.schemas import JsonObject

ErrorKind = Literal["transient", "permanent", "malformed", "budget"]


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = Field(default=0.0, description="litellm's cost where known; 0 for local endpoints")


class JudgeResult(BaseModel):
    judge: str = Field(description="judge name as configured, e.g. 'gpt-4o' or 'offline-lexical'")
    model: str
    prompt_id: str
    case_id: str
    verdict: JsonObject | None = Field(default=None, description="validated verdict, None if failed")
    raw_text: str | None = Field(default=None, description="exactly what the judge returned")
    error: str | None = None
    error_kind: ErrorKind | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    attempts: int = 0
    request_key: str | None = Field(default=None, description="content key of the request in the call store")
    cached: bool = Field(default=False, description="answered from the call store, nothing sent")
    status_code: int | None = Field(
        default=None, exclude=True, description="HTTP status of a failed attempt; steers the rate limit, never stored"
    )

    @property
    def ok(self) -> bool:
        return self.verdict is not None


@dataclass(frozen=True)
class JudgeRequest:
    """Everything that determines a judge's answer; its content is the call-store key."""

    model: str
    api_base: str | None
    messages: list[JsonObject]
    params: JsonObject = field(default_factory=dict)

    # Each part's canonical JSON is made once and spliced into the key, the request body and
    # the stored record (a request is never changed once built).
    @cached_property
    def messages_json(self) -> bytes:
        return canonical_json(self.messages)

    @cached_property
    def params_json(self) -> bytes:
        return canonical_json(self.params)

    @cached_property
    def key(self) -> str:
        """The call-store key: ``assay.judges.store.request_key`` of this request."""
        return sha256_bytes(canonical_members({
            "model": canonical_json(self.model), "api_base": canonical_json(self.api_base),
            "messages": self.messages_json, "params": self.params_json,
        }))

    @property
    def record_json(self) -> bytes:
        """``canonical_json`` of the ``request`` part of its call record: messages and params."""
        return canonical_members({"messages": self.messages_json, "params": self.params_json})


@runtime_checkable
class Judge(Protocol):
    """What the jury runner needs of a judge, LLM or offline; nothing is discovered by probing.

    ``request`` is pure and keys the call store, so it must carry everything that decides the
    verdict: an LLM judge's model, endpoint and sampling settings; an offline judge's
    ``version`` (a hash of its rule source), so a rule change makes new keys and the store
    never serves a verdict the current rules would not give.
    """

    name: str
    model: str
    weight: float
    offline: bool
    max_tokens: int

    @property
    def provider(self) -> str:
        """Concurrency bucket: requests to one provider share one limit."""
        ...

    @property
    def version(self) -> str:
        """What identifies this judge's behaviour beyond its request."""
        ...

    def request(self, prompt: Any, item: BaseModel, lang: str = "ko") -> JudgeRequest: ...

    def parse(self, raw_text: str | None, prompt: Any) -> JsonObject:
        """The validated verdict in ``raw_text`` (raises ``MalformedReply``)."""
        ...

    def estimate_cost_usd(self, request: JudgeRequest, output_tokens: int) -> float: ...

    async def ajudge(
        self, prompt: Any, item: BaseModel, case_id: str, lang: str = "ko", request: JudgeRequest | None = None
    ) -> JudgeResult:
        """One attempt for one typed input; failures are ``error_kind``s, never exceptions."""
        ...


class LocalJudge:
    """The protocol's plumbing for judges that compute locally (offline, deterministic).

    Subclasses implement ``ajudge``. ``version`` hashes the source of every class the judge is
    built from (rules included) plus ``rule_files``, so editing a rule changes the call keys.
    """

    offline = True
    max_tokens = 0
    rule_files: ClassVar[tuple[Path, ...]] = ()

    @property
    def provider(self) -> str:
        return "local"

    @property
    def version(self) -> str:
        return rule_source_hash(type(self))

    def request(self, prompt: Any, item: BaseModel, lang: str = "ko") -> JudgeRequest:
        params = {"judge": self.name, "offline": True, "version": self.version}  # type: ignore[attr-defined]
        return JudgeRequest(self.model, None, prompt.messages(item, lang), params)  # type: ignore[attr-defined]

    def parse(self, raw_text: str | None, prompt: Any) -> JsonObject:
        from assay.judges.verdicts import parse_verdict

        return parse_verdict(raw_text, prompt.verdict_model)

    def estimate_cost_usd(self, request: JudgeRequest, output_tokens: int) -> float:
        return 0.0


@functools.cache
def rule_source_hash(cls: type) -> str:
    """sha256 (16 hex) over the source files of ``cls`` and every class it is built from, and
    its ``rule_files``: a judge's behaviour as code, so a changed rule is a different judge."""
    files: set[Path] = set(getattr(cls, "rule_files", ()))
    for klass in cls.__mro__:
        if klass.__module__.split(".")[0] in ("builtins", "typing", "abc"):
            continue
        try:
            files.add(Path(inspect.getfile(klass)).resolve())
        except (TypeError, OSError):
            continue
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
