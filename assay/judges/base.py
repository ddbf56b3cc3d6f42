"""The judge protocol shared by LLM judges (litellm) and the offline jury.

A judge answers a typed prompt input with a typed verdict. Whatever it is, it returns a
``JudgeResult``: the parsed verdict (or why there is none), the raw text it produced,
token usage, cost and latency, so every score can be traced to a raw response.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

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
    verdict: dict[str, Any] | None = Field(default=None, description="validated verdict, None if failed")
    raw_text: str | None = Field(default=None, description="exactly what the judge returned")
    error: str | None = None
    error_kind: ErrorKind | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    attempts: int = 0
    request_key: str | None = Field(default=None, description="content key of the request in the call store")
    cached: bool = Field(default=False, description="answered from the call store, nothing sent")

    @property
    def ok(self) -> bool:
        return self.verdict is not None


@runtime_checkable
class Judge(Protocol):
    name: str
    model: str
    weight: float
    offline: bool

    async def ajudge(self, prompt: Any, item: BaseModel, case_id: str) -> JudgeResult:
        """Answer ``prompt`` for one typed input ``item``."""
        ...
