"""Records of the memory suite (seed 001): sessions, evaluation queries, stored memories."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.metrics.memory import Fact

SCENARIOS = ("continuous", "topic_switch", "update", "noise")
Scenario = Literal["continuous", "topic_switch", "update", "noise"]


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant", "system"]
    text: str


class Session(BaseModel):
    """One long conversation the summarizer condenses into a memory."""

    model_config = ConfigDict(extra="ignore")

    id: str
    scenario: Scenario
    title: str = ""
    turns: list[Turn] = Field(min_length=1)


class FactSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fact: str = Field(min_length=1, description="what the memory should state, in words")
    keywords: list[str] = Field(min_length=1, description="all must appear for the fact to count as stated")

    def to_fact(self) -> Fact:
        return Fact(self.fact, tuple(self.keywords))


class MemoryCase(BaseModel):
    """An evaluation query at the end of a session, with what a useful memory must hold."""

    model_config = ConfigDict(extra="ignore")

    id: str
    session_id: str
    scenario: Scenario
    query: str = Field(min_length=1)
    expected_facts: list[FactSpec] = Field(default_factory=list)
    stale_facts: list[FactSpec] = Field(default_factory=list, description="superseded values; must not read as current")
    conversation: list[Turn] = Field(
        default_factory=list,
        description="the session's turns, attached when cases are parsed: shown to a reader of the report, never to the judge",
    )


class MemoryGeneration(BaseModel):
    """What the summarizer stored for the case's session (one memory serves every query of it)."""

    model_config = ConfigDict(extra="ignore")

    case_id: str
    session_id: str
    memory: str = ""
    entities: list[str] = Field(default_factory=list)
    error: str | None = None
    model: str | None = None
    latency_s: float | None = Field(default=None, ge=0, description="the summarizer call's time (live target)")
