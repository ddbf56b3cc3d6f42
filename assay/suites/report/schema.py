"""report suite schemas: a benchmark query (seed 000 §2.1) and its recorded generation (§2.2).

Files: ``datasets/report/cases.jsonl`` (ReportCase per line) and
``datasets/report/generations.jsonl`` (ReportGeneration per line). Unknown fields are
rejected so that a misspelt column fails validation instead of being ignored.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

TEAM_TYPES: tuple[str, ...] = ("purchasing", "food_service", "marketing", "product_rnd", "default")
TeamTypeKey = Literal["purchasing", "food_service", "marketing", "product_rnd", "default"]


class ReportCase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, description="unique case id, e.g. 'mkt-01'")
    query: str = Field(min_length=1, description="the user's request to the multi-agent system")
    team_type: TeamTypeKey = Field(description="seed 000 §1.4.2 team type; selects the expected schema")
    required_sections: list[str] = Field(
        default_factory=list,
        description="§1.2 required sections; each entry lists '/'-separated alternatives, '본문' = any body section",
    )
    requirements: list[str] = Field(default_factory=list, description="§2.1 expected requirements of the query")


class Source(BaseModel):
    model_config = ConfigDict(extra="forbid")

    number: int = Field(ge=1, description="N of [SOURCE:N] tags in the report")
    title: str
    content: str = Field(description="text the agents retrieved; the jury checks claims against it")
    score: float = Field(ge=0, le=1, description="retriever relevance score, 0-1 (§1.7.1)")
    source_type: str = Field(min_length=1, description="search tool / source kind, e.g. 'news', 'academic_paper'")
    url: str | None = None


class StepResult(BaseModel):
    model_config = ConfigDict(extra="allow")  # agent frameworks attach their own fields

    step: str
    agent: str | None = None
    status: str = "success"
    duration_s: float | None = Field(default=None, ge=0)
    output: str | None = Field(default=None, description="short summary of what the step produced")


class ReportGeneration(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_id: str
    report: str = Field(description="final answer: Korean markdown report with [SOURCE:N] tags")
    sources: list[Source] = Field(default_factory=list)
    execution_log: list[str] = Field(default_factory=list)
    step_results: list[StepResult] = Field(default_factory=list)
    search_queries: list[str] = Field(default_factory=list, description="queries sent to search tools, in order")
    total_execution_time: float = Field(ge=0, description="seconds")
    input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)
    total_tokens: int = Field(ge=0)
    api_calls: int = Field(ge=0)
    estimated_cost: float = Field(ge=0, description="USD")
    model: str
    error: str | None = Field(default=None, description="why no report was produced (live replay)")

    @model_validator(mode="after")
    def _consistent(self) -> ReportGeneration:
        if self.total_tokens < self.input_tokens + self.output_tokens:
            raise ValueError(
                f"total_tokens {self.total_tokens} < input_tokens + output_tokens "
                f"{self.input_tokens + self.output_tokens}"
            )
        numbers = [s.number for s in self.sources]
        if len(numbers) != len(set(numbers)):
            raise ValueError(f"source numbers repeat: {sorted(numbers)}")
        return self
