"""answers case and generation schemas: any table of questions and answers.

A case is an input (a question, an instruction) with an optional reference answer and an
optional group label; its generation is the system's output with the contexts it retrieved,
if any. Only the input and the output are required.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

DEFAULT_GROUP = "all"
Scalar = str | int | float | bool | None


class AnswerCase(BaseModel):
    id: str = Field(description="unique case id")
    input: str = Field(description="what the system was asked")
    reference: str | None = Field(default=None, description="the expected answer; none: correctness is not scored")
    group: str = Field(default=DEFAULT_GROUP, description="any label; results are broken down by it")
    metadata: dict[str, Scalar] = Field(default_factory=dict, description="kept with the case, shown in the report")


class Context(BaseModel):
    text: str
    source: str = Field(default="", description="document id; empty when unknown")
    score: float | None = Field(default=None, description="retriever similarity, higher is closer")


class AnswerGeneration(BaseModel):
    case_id: str
    output: str
    contexts: list[Context] = Field(default_factory=list, description="retrieved contexts, best first; none: "
                                    "faithfulness and context relevance are not scored")
    latency_s: float | None = Field(default=None, ge=0)
    model: str | None = None
    error: str | None = Field(default=None, description="why no output was produced (live replay)")
