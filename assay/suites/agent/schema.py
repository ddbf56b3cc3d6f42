"""Records of the agent suite (seed 004): queries to a hiring agent and its recorded calls."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.suites.agent.formulas import OPERATORS

LatencyClass = Literal["SINGLE", "MULTI"]
IntentLabel = Literal["ADD", "UPDATE", "DELETE", "VIEW", "MOVE", "CLARIFY", "ERROR", "OTHER"]
Operator = Literal["equals", "contains", "in", "ge", "le", "exists"]
assert set(OPERATORS) == set(Operator.__args__)  # one list of operators


class AccuracyCheck(BaseModel):
    """One expectation over the agent's response: ``path`` into it (``dataUIList[0].actionType``,
    ``setting.sort``, ``filterType``, ``aggregates.count``), an operator and the expected value."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(min_length=1)
    op: Operator = "equals"
    value: Any = None


class AgentCase(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str
    query: str = Field(min_length=1)
    latency_class: LatencyClass = "SINGLE"
    expected_intent: IntentLabel
    expected_result: str = Field(default="", description="what the request should achieve, in words (for the judge)")
    checks: list[AccuracyCheck] = Field(default_factory=list)


class AgentCall(BaseModel):
    """One repeat of a query: the raw body the agent returned, how long it took, and the
    transport error (timeout, HTTP status) if there was one."""

    model_config = ConfigDict(extra="ignore")

    repeat: int = Field(ge=0)
    raw: str | None = None
    response_time_sec: float | None = Field(default=None, ge=0)
    error: str | None = None


class AgentGeneration(BaseModel):
    """Every repeat of one query."""

    model_config = ConfigDict(extra="ignore")

    case_id: str
    calls: list[AgentCall] = Field(default_factory=list)
    error: str | None = None
