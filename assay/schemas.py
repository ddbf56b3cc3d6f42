"""Typed records shared by every suite: score rows, problems found in input, datasets as read."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

JsonObject = dict[str, Any]
"""A JSON object as it is read from or written to a file or the wire: a dataset row before the
gate validates it, a judge's verdict before its schema does, a stored record, a request body.
Seams between modules pass typed records; this name marks the places where data is still raw JSON."""

NOT_APPLICABLE = "not_applicable"  # details flag of a row the dataset gives no basis for


class ScoreRow(BaseModel):
    """One score for one case and one metric.

    ``value`` is None when the metric could not be computed; ``unscored_reason`` then says
    why. A per-judge score carries the judge's name; ensemble and automatic scores have
    ``judge=None``. ``scale`` names the range, e.g. "0-1", "1-5", "0-10", "0-100".
    """

    model_config = ConfigDict(frozen=True)

    case_id: str
    metric: str
    family: str
    value: float | None
    scale: str
    judge: str | None = None
    unscored_reason: str | None = None
    details: JsonObject = Field(default_factory=dict)

    @classmethod
    def unscored(cls, case_id: str, metric: str, family: str, scale: str, reason: str, **kw: Any) -> ScoreRow:
        return cls(
            case_id=case_id, metric=metric, family=family, value=None, scale=scale, unscored_reason=reason, **kw
        )

    @classmethod
    def not_applicable(cls, case_id: str, metric: str, family: str, scale: str, reason: str, **kw: Any) -> ScoreRow:
        """Unscored because the dataset does not give what the metric needs (no relevance labels,
        no keywords): a property of the data, not a failure, so it never makes a run incomplete."""
        details = {**kw.pop("details", {}), NOT_APPLICABLE: True}
        return cls.unscored(case_id, metric, family, scale, reason, details=details, **kw)

    @property
    def is_not_applicable(self) -> bool:
        return self.value is None and bool(self.details.get(NOT_APPLICABLE))


class RowProblem(BaseModel):
    """A problem in the input, named by row so the user can fix it."""

    row: str = Field(description="the case id, or 'line N' when no id could be read")
    line: int | None = Field(default=None, description="1-based line number in the source file")
    file: str | None = None
    expectation: str = Field(description="which rule failed, e.g. 'valid JSON' or a GX expectation type")
    column: str | None = None
    detail: str = ""

    def describe(self) -> str:
        where = self.row if self.line is None or self.row.startswith("line") else f"{self.row} (line {self.line})"
        col = f" [{self.column}]" if self.column else ""
        return f"{where}{col}: {self.expectation} — {self.detail}".rstrip(" —")


@dataclass
class LoadedDataset:
    """Everything read from a dataset directory, including what could not be read.

    ``records`` are raw dicts (one per parseable JSONL line, with ``_line`` set to the 1-based
    line number), so the validation gate can name bad rows instead of failing on the first.
    ``files`` maps a logical name ("cases", "generations", "kb/<path>") to the file's path;
    the ingest step snapshots each into the artifact store.
    """

    suite: str
    root: Path
    records: list[JsonObject]
    parse_problems: list[RowProblem] = field(default_factory=list)
    generations: list[JsonObject] = field(default_factory=list)
    files: dict[str, Path] = field(default_factory=dict)
    generations_file: str | None = None  # where the recorded outputs are read from, e.g. "generations.jsonl"
    generations_missing: bool = False  # that file is absent: a recorded replay has nothing to score
    extras: JsonObject = field(default_factory=dict)  # a suite's own raw tables (e.g. memory sessions)
