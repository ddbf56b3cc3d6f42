"""Reading a report dataset directory and shaping it for the Great Expectations gate.

Layout: ``cases.jsonl`` (one ReportCase per line) and ``generations.jsonl`` (optional, one
ReportGeneration per line). ``schema/`` and ``labels/`` are read by the schema matcher and
its benchmark, not by the gate.

Tables the expectation files in ``datasets/report/expectations/`` run on:

- ``cases``: one row per case line; list fields are checked through derived counts.
- ``generations``: one row per generation line; numbers (time, tokens, cost) as scalar
  columns, ``source_numbering`` says what is wrong when sources are not numbered 1..n.
- ``sources``: one row per (generation, source) with its score and type.

Every frame keeps ``_line`` and its row id (``id`` or ``case_id``) so the gate names rows,
and records its file in ``frame.attrs["file"]``. ``schema_errors`` carries the pydantic
errors that no dedicated expectation reports, so a row that passes the gate also parses.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from assay.schemas import JsonObject, LoadedDataset
from assay.suites.report.schema import ReportCase, ReportGeneration
from assay.validation.frames import as_id, frame, scalar, text_length
from assay.validation.jsonl import load_cases_and_generations

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd

SUITE = "report"
CASES_FILE = "cases.jsonl"
GENERATIONS_FILE = "generations.jsonl"

CASE_COLUMNS = [
    "id", "_line", "query", "team_type", "required_sections", "requirements",
    "query_length", "n_required_sections", "n_requirements", "n_blank_items", "schema_errors",
]  # fmt: skip
GENERATION_COLUMNS = [
    "case_id", "_line", "report", "report_length", "has_error", "n_sources", "source_numbering",
    "total_execution_time", "input_tokens", "output_tokens", "total_tokens", "api_calls", "estimated_cost",
    "schema_errors",
]  # fmt: skip
SOURCE_COLUMNS = ["case_id", "_line", "number", "score", "source_type"]

# Fields with their own expectation: schema_errors leaves out their missing / range / type
# errors so one mistake is reported once.
_CASE_CHECKED = {"id", "query", "team_type", "required_sections", "requirements"}
_NUMBER_FIELDS = ("total_execution_time", "input_tokens", "output_tokens", "total_tokens", "api_calls", "estimated_cost")
_GENERATION_CHECKED = {"case_id", "report", "sources.*.source_type"}
_NUMERIC_PATHS = {*_NUMBER_FIELDS, "sources.*.number", "sources.*.score"}
_RANGE_ERRORS = {"greater_than_equal", "less_than_equal", "greater_than", "less_than", "string_too_short"}


def load_report_dataset(root: Path) -> LoadedDataset:
    """Read a dataset directory; bad lines become ``parse_problems``, never exceptions."""
    return load_cases_and_generations(root, SUITE, CASES_FILE, GENERATIONS_FILE)


def team_type_spellings() -> list[str]:
    """Every accepted spelling of a team type: keys, Korean names and aliases as written in
    ``schema/team_types.yaml``, plus their lower-case and space-free forms."""
    from assay.suites.report.schema_match import load_team_types

    spellings: set[str] = set()
    for team in load_team_types().values():
        for name in (team.key, team.name, *team.aliases):
            spellings |= {name, name.casefold(), re.sub(r"\s+", "", name), re.sub(r"\s+", "", name).casefold()}
    return sorted(spellings)


def canonical_team_type(value: Any) -> Any:
    """The team type key for a known spelling; anything else unchanged (the gate names it)."""
    from assay.suites.report.schema_match import resolve_team_type

    if not isinstance(value, str) or not value.strip():
        return value
    try:
        return resolve_team_type(value).key
    except ValueError:
        return value


def report_validation_frames(data: LoadedDataset) -> dict[str, pd.DataFrame]:
    cases = []
    for rec in data.records:
        sections, reqs = rec.get("required_sections"), rec.get("requirements")
        lists = [x for x in (sections, reqs) if isinstance(x, list)]
        cases.append(
            {
                "id": as_id(rec.get("id")),
                "_line": rec["_line"],
                "query": scalar(rec.get("query")),
                "team_type": scalar(rec.get("team_type")),
                "required_sections": None if sections is None else True,
                "requirements": None if reqs is None else True,
                "query_length": text_length(rec.get("query")),
                "n_required_sections": len(sections) if isinstance(sections, list) else None,
                "n_requirements": len(reqs) if isinstance(reqs, list) else None,
                "n_blank_items": sum(1 for xs in lists for x in xs if isinstance(x, str) and not x.strip()),
                "schema_errors": _schema_errors(
                    {**rec, "team_type": canonical_team_type(rec.get("team_type"))}, ReportCase, _CASE_CHECKED
                ),
            }
        )

    generations, sources = [], []
    for rec in data.generations:
        case_id = as_id(rec.get("case_id"))
        srcs = rec.get("sources")
        srcs = srcs if isinstance(srcs, list) else []
        numbers = [s.get("number") for s in srcs if isinstance(s, dict)]
        numbering = None
        if numbers != list(range(1, len(srcs) + 1)):
            numbering = f"source numbers {numbers}, expected 1..{len(srcs)} in order (the N of [SOURCE:N])"
        report = rec.get("report")
        row = {
            "case_id": case_id,
            "_line": rec["_line"],
            "report": scalar(report),
            "report_length": text_length(report),
            "has_error": bool(rec.get("error")),
            "n_sources": len(srcs),
            "source_numbering": numbering,
            "schema_errors": _schema_errors(rec, ReportGeneration, _GENERATION_CHECKED),
        }
        row.update({name: _number(rec.get(name)) for name in _NUMBER_FIELDS})
        generations.append(row)
        for src in srcs:
            if isinstance(src, dict):
                sources.append(
                    {
                        "case_id": case_id,
                        "_line": rec["_line"],
                        "number": _number(src.get("number")),
                        "score": _number(src.get("score")),
                        "source_type": scalar(src.get("source_type")) or None,
                    }
                )

    return {
        "cases": frame(cases, CASES_FILE, CASE_COLUMNS),
        "generations": frame(generations, GENERATIONS_FILE, GENERATION_COLUMNS),
        "sources": frame(sources, GENERATIONS_FILE, SOURCE_COLUMNS),
    }


def report_validation_parameters(data: LoadedDataset) -> JsonObject:
    return {
        "team_types": team_type_spellings(),
        "case_ids": sorted({i for r in data.records if (i := as_id(r.get("id"))) is not None}),
    }


def parse_report_cases(data: LoadedDataset, skip_ids: set[str]) -> list[ReportCase]:
    """Typed cases; team type aliases ("마케팅 담당자") become their key ("marketing")."""
    fields = set(ReportCase.model_fields)
    out = []
    for record in data.records:
        case_id = record.get("id")
        if not isinstance(case_id, str) or not case_id or case_id in skip_ids:
            continue
        values = {k: v for k, v in record.items() if k in fields}
        values["team_type"] = canonical_team_type(values.get("team_type"))
        out.append(ReportCase.model_validate(values))
    return out


# --------------------------------------------------------------------------- helpers


def _number(value: Any) -> float | int | None:
    """A finite number as is; anything else None, so a not-null expectation names the row."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) else None


def _schema_errors(record: JsonObject, model: type[BaseModel], checked: set[str]) -> str | None:
    """Pydantic errors no dedicated expectation reports (wrong types, unknown fields, token sums)."""
    clean = {k: v for k, v in record.items() if k != "_line"}
    try:
        model.model_validate(clean)
        return None
    except ValidationError as exc:
        messages = []
        for err in exc.errors():
            path = ".".join("*" if isinstance(p, int) else str(p) for p in err["loc"])
            if _covered(path, err["type"], _lookup(clean, err["loc"]), checked):
                continue  # reported by its own expectation (not null, in set, between)
            if "source numbers repeat" in str(err.get("msg", "")):
                continue  # reported by source_numbering
            where = ".".join(str(p) for p in err["loc"])
            messages.append(f"{where}: {err['msg']}" if where else str(err["msg"]))
        return "; ".join(messages) or None


def _covered(path: str, kind: str, value: Any, checked: set[str]) -> bool:
    """Whether a dedicated expectation already reports this pydantic error."""
    if path in _NUMERIC_PATHS:
        # The frame's numeric column is None unless the value is a finite number (not-null
        # names the row) and range errors are "between" failures; 3.5 tokens stays here.
        return _number(value) is None or kind in _RANGE_ERRORS
    return path in checked and (value is None or kind in {"missing", "literal_error", *_RANGE_ERRORS})


def _lookup(record: Any, loc: tuple[Any, ...]) -> Any:
    for part in loc:
        try:
            record = record[part]
        except (KeyError, IndexError, TypeError):
            return None
    return record
