"""The validation gate's verdict, readable by people (``to_text``) and by the flow (fields).

Pure pydantic: importing this module must not import Great Expectations, so the CLI and the
report step can read a stored report without paying GX's import time.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pydantic import BaseModel, Field

from assay.schemas import JsonObject, RowProblem


class ExpectationOutcome(BaseModel):
    """One expectation run on one table, summarised."""

    type: str
    table: str
    column: str | None = None
    success: bool
    unexpected_count: int | None = None
    unexpected_sample: list[Any] = Field(default_factory=list, description="first few unexpected values")
    detail: str | None = Field(default=None, description="observed value, or why GX could not run it")

    def describe(self) -> str:
        col = f" [{self.column}]" if self.column else ""
        text = f"{self.table}: {self.type}{col}"
        if self.unexpected_count:
            sample = ", ".join(_short(v) for v in self.unexpected_sample[:3])
            text += f" — {self.unexpected_count} unexpected" + (f", e.g. {sample}" if sample else "")
        elif self.detail:
            text += f" — {self.detail}"
        return text


class ValidationReport(BaseModel):
    suite: str
    success: bool
    tables: dict[str, int] = Field(default_factory=dict, description="table validated -> row count")
    problems: list[RowProblem] = Field(default_factory=list, description="every failing row x expectation")
    expectations: list[ExpectationOutcome] = Field(default_factory=list)
    failed_row_ids: set[str] = Field(default_factory=set, description="ids of rows that failed anything")
    failed_lines: dict[str, list[int]] = Field(
        default_factory=dict,
        description="file -> failing line numbers; also covers rows that have no usable id",
    )
    gx_version: str | None = None
    gx_results: list[JsonObject] = Field(
        default_factory=list, repr=False, description="full GX suite results (JSON), one per table"
    )

    @property
    def failed_expectations(self) -> list[ExpectationOutcome]:
        return [e for e in self.expectations if not e.success]

    def to_text(self, max_rows: int = 50) -> str:
        """A terminal-friendly summary: verdict, tables, then problems grouped by file."""
        verdict = "PASSED" if self.success else "FAILED"
        gx = f" (great_expectations {self.gx_version})" if self.gx_version else ""
        lines = [f"Validation {verdict} for suite {self.suite!r}{gx}"]
        if self.tables:
            lines.append("Tables: " + ", ".join(f"{t} {n} rows" for t, n in self.tables.items()))
        passed = sum(e.success for e in self.expectations)
        lines.append(f"Expectations: {passed} met, {len(self.expectations) - passed} failed")
        if self.problems:
            n_rows = len({(p.file, p.line, p.row) for p in self.problems})
            lines.append("")
            lines.append(f"Problems: {len(self.problems)} in {n_rows} rows")
            shown = 0
            for file, problems in _group_by_file(self.problems).items():
                if shown >= max_rows:
                    break
                lines.append(f"  {file}:")
                for p in problems:
                    if shown >= max_rows:
                        break
                    lines.append(f"    {p.describe()}")
                    shown += 1
            if shown < len(self.problems):
                lines.append(f"  ... and {len(self.problems) - shown} more (see the full validation report)")
        failed = self.failed_expectations
        if failed:
            lines.append("")
            lines.append("Failed expectations:")
            lines.extend(f"  {e.describe()}" for e in failed)
        return "\n".join(lines)


def _group_by_file(problems: list[RowProblem]) -> dict[str, list[RowProblem]]:
    """Problems per file, each file's problems in line order (rows without a line last)."""
    groups: dict[str, list[RowProblem]] = defaultdict(list)
    for p in problems:
        groups[p.file or "(dataset)"].append(p)
    return {
        file: sorted(ps, key=lambda p: (p.line is None, p.line or 0, p.row, p.expectation))
        for file, ps in groups.items()
    }


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
