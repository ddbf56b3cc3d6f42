"""How one case reads in the report's explorer: its input, the system's output, the contexts.

A suite supplies a ``CaseView`` per case through ``Suite.case_view`` (the suite kit); the
default, ``default_case_view``, lists every field of the case record as input and every field
of the generation as output, so a new suite is readable before it writes its own view.
Values are plain text: the page renders them with ``textContent``, never as markup.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

GROUP_FIELDS = ("category", "team_type", "scenario", "group")  # what a default view groups by


class CaseField(BaseModel):
    label: str
    text: str


class CaseContext(BaseModel):
    """A retrieved chunk, a cited source, a conversation turn: evidence the output drew on."""

    title: str
    text: str
    score: float | None = None


class CaseView(BaseModel):
    group: str | None = Field(default=None, description="the suite's grouping: category, team, scenario")
    inputs: list[CaseField] = Field(default_factory=list)
    outputs: list[CaseField] = Field(default_factory=list)
    contexts: list[CaseContext] = Field(default_factory=list)

    def headline(self) -> str:
        """The case's first input on one line (a question, a query): how a list names it."""
        return " ".join(self.inputs[0].text.split()) if self.inputs else ""


def as_text(value: Any) -> str:
    """A field value as readable text: strings as they are, lists one item a line, the rest JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value)
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False, indent=1, default=str)
    return str(value)


def labelled(*pairs: tuple[str, str | None]) -> list[CaseField]:
    """Fields from (label, text) pairs, in order; empty ones left out."""
    return [CaseField(label=label, text=text) for label, text in pairs if text]


def record_fields(record: BaseModel | None, skip: set[str]) -> list[CaseField]:
    """Every set field of a record but ``skip``, in declaration order."""
    if record is None:
        return []
    return [
        CaseField(label=name, text=as_text(getattr(record, name)))
        for name in type(record).model_fields
        if name not in skip and getattr(record, name) not in (None, "", [], {})
    ]


def default_case_view(case: BaseModel, generation: BaseModel | None) -> CaseView:
    group = next((str(getattr(case, f)) for f in GROUP_FIELDS if getattr(case, f, None)), None)
    return CaseView(
        group=group,
        inputs=record_fields(case, {"id", *GROUP_FIELDS}),
        outputs=record_fields(generation, {"case_id"}),
    )
