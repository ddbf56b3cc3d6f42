"""Tables to import (CSV, JSONL, JSON, Parquet): reading them, matching columns to a suite's fields,
converting each cell, naming every problem by row and column. ``assay.importing`` drives it.

Columns are matched to the suite's fields by name — the suite lists the names Ragas and
DeepEval users already have (``user_input``, ``retrieved_contexts``, ``expected_output``…) —
or by ``--map field=column``. Every value is checked on the way in; every problem is named by
row and column, and nothing is written while any is left, so a dataset directory written here
is one the validation gate has no parse problems with.
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.schemas import JsonObject, RowProblem

FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".parquet": "parquet", ".pq": "parquet"}


class ImportError_(ValueError):  # noqa: N801 - "ImportError" is a builtin
    """An import that cannot start (unknown format, unknown field in --map, missing column)."""


@dataclass(frozen=True)
class ImportField:
    """One field of a suite's records and the column names it is found under, in preference order."""

    name: str
    aliases: tuple[str, ...]
    required: bool = False
    # text | list (a JSON/Python list, or one text) | keywords (a list, or comma-separated)
    # | json (a JSON value, or a cell holding one as text) | number
    # | raw (the cell as read, converted by the suite's importer itself; ``cell`` does not take it)
    kind: str = "text"
    help: str = ""  # said when a required column is missing: why the suite needs it


@dataclass
class TableRow:
    number: int  # 1-based data row, the header not counted
    values: JsonObject
    line: int | None = None  # JSONL: the file's line (blank and broken lines make them differ)


@dataclass
class ImportResult:
    mapping: dict[str, str]  # field -> column
    unused: list[str]
    files: dict[str, int] = field(default_factory=dict)  # file written -> records
    problems: list[RowProblem] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"mapped {name} <- {column}" for name, column in self.mapping.items()]
        if self.unused:
            out.append(f"not imported: {', '.join(self.unused)}")
        out += [f"wrote {n} records to {name}" for name, n in self.files.items()]
        return out


# -- reading a table ------------------------------------------------------------------------
def read_table(path: Path) -> tuple[list[str], list[TableRow], list[RowProblem]]:
    """Columns, rows and unreadable rows of a CSV, JSONL, JSON (an array of records, as
    DeepEval's ``save_as(file_type="json")`` writes) or Parquet file: the one reader every
    suite's import uses."""
    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ImportError_(f"{path}: unknown format {path.suffix!r}; use .csv, .jsonl, .json or .parquet")
    if not path.is_file():
        raise ImportError_(f"{path}: no such file")
    if fmt == "jsonl":
        return _read_jsonl(path)
    if fmt == "json":
        return _read_json_array(path)
    import pandas as pd

    try:
        frame = (pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig") if fmt == "csv"
                 else pd.read_parquet(path))
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        raise ImportError_(f"{path}: cannot read it as {fmt}: {exc}") from None
    columns = [str(c) for c in frame.columns]
    rows, problems = [], []
    for i, record in enumerate(frame.to_dict(orient="records"), start=1):
        row = TableRow(i, {str(k): _plain(v) for k, v in record.items()})
        found = _limit_problems(row, path.name)  # a JSONL row is checked as it is read
        problems += found
        if not found:
            rows.append(row)
    return columns, rows, problems


def _limit_problems(row: TableRow, file: str) -> list[RowProblem]:
    """A CSV or Parquet row's values against the input limits (``assay.validation.limits``):
    a Parquet cell may hold Infinity, a CSV cell any length of text."""
    from assay.validation.limits import InputLimits, value_problems

    return [RowProblem(row=f"row {row.number}", file=file, column=p.column, expectation=p.expectation,
                       detail=p.inner_detail)
            for p in value_problems(row.values, InputLimits.from_env())]


def _read_jsonl(path: Path) -> tuple[list[str], list[TableRow], list[RowProblem]]:
    from assay.validation.jsonl import read_jsonl

    records, problems = read_jsonl(path, path.name)
    columns: list[str] = []
    rows = []
    for number, record in enumerate(records, start=1):
        line = record.pop("_line")
        columns += [c for c in record if c not in columns]
        rows.append(TableRow(number, record, line))
    columns += [p.column for p in problems if p.column and p.column not in columns]  # a refused row's field
    return columns, rows, problems


def _read_json_array(path: Path) -> tuple[list[str], list[TableRow], list[RowProblem]]:
    """A JSON array of records; an element that is not an object is a problem named by its row."""
    try:
        data = json.loads(path.read_bytes().removeprefix(b"\xef\xbb\xbf"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ImportError_(f"{path}: cannot read it as JSON: {exc}") from None
    except RecursionError:
        raise ImportError_(f"{path}: cannot read it as JSON: nested too deeply") from None
    if not isinstance(data, list):
        raise ImportError_(f"{path}: a .json file must hold an array of records ([{{...}}, ...]), "
                           f"not a JSON {type(data).__name__}; JSON lines go in a .jsonl file")
    columns: list[str] = []
    rows, problems = [], []
    for number, record in enumerate(data, start=1):
        if not isinstance(record, dict):
            problems.append(RowProblem(row=f"row {number}", file=path.name, expectation="a JSON object (a record)",
                                       detail=f"got a JSON {type(record).__name__}"))
            continue
        columns += [str(c) for c in record if str(c) not in columns]
        rows.append(TableRow(number, {str(k): v for k, v in record.items()}))
    return columns, rows, problems


def _plain(value: Any) -> Any:
    """Parquet cells as plain Python: arrays as lists, NaN/None as missing."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


# -- matching columns to fields --------------------------------------------------------------
def resolve_columns(columns: Sequence[str], fields: Sequence[ImportField], explicit: Mapping[str, str]) -> dict[str, str]:
    """field -> column: ``--map`` first, then the first alias present (case-insensitive)."""
    known = {f.name for f in fields}
    for name, column in explicit.items():
        if name not in known:
            raise ImportError_(f"--map {name}={column}: no field {name!r}; fields: {', '.join(sorted(known))}")
        if column not in columns:
            raise ImportError_(f"--map {name}={column}: the file has no column {column!r}; columns: {', '.join(columns)}")
    by_lower = {c.lower(): c for c in columns}
    mapping: dict[str, str] = {}
    for f in fields:
        if f.name in explicit:
            mapping[f.name] = explicit[f.name]
            continue
        taken = set(mapping.values()) | set(explicit.values())
        found = next((by_lower[a] for a in f.aliases if a in by_lower and by_lower[a] not in taken), None)
        if found:
            mapping[f.name] = found
    missing = [f for f in fields if f.required and f.name not in mapping]
    if missing:
        raise ImportError_("; ".join(
            f"no column for {f.name} (looked for {', '.join(f.aliases)}; give --map {f.name}=COLUMN)" for f in missing
        ) + _why_needed(missing) + f". The file's columns: {', '.join(columns)}")
    return mapping


def _why_needed(missing: Sequence[ImportField]) -> str:
    """". a, b: <why>. c: <why>" for the missing fields that say why they are needed, each reason once."""
    reasons: dict[str, list[str]] = {}
    for f in missing:
        if f.help:
            reasons.setdefault(f.help, []).append(f.name)
    return "".join(f". {', '.join(names)}: {why}" for why, names in reasons.items())


def cell(row: TableRow, field_: ImportField, column: str | None, problems: list[RowProblem], file: str) -> Any:
    """The row's value for a field, converted to its kind; a problem (row, column) when it cannot be."""
    raw = row.values.get(column) if column else None
    missing = raw is None or (isinstance(raw, str) and not raw.strip())

    def problem(detail: str) -> None:
        problems.append(RowProblem(row=f"row {row.number}", line=row.line, file=file, column=column or field_.name,
                                   expectation=f"import {field_.name}", detail=detail))

    if missing:
        if field_.required:
            problem("empty; this field is required")
        return None
    if field_.kind == "text":
        if isinstance(raw, str | int | float) and not isinstance(raw, bool):
            return str(raw).strip()
        problem(f"expected text, got {type(raw).__name__}")
        return None
    if field_.kind == "json":
        if not isinstance(raw, str):
            return raw  # a JSONL or Parquet cell already holds the value
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            problem(f"expected JSON, got {raw[:80]!r} ({exc.msg} at character {exc.pos})")
            return None
    if field_.kind == "number":
        try:
            value = float(raw) if not isinstance(raw, bool) else math.nan
        except (TypeError, ValueError):
            value = math.nan
        if math.isfinite(value):
            return value
        problem(f"expected a number, got {str(raw)[:80]!r}")
        return None
    items = _as_list(raw, comma_separated=field_.kind == "keywords")
    if items is None or not all(isinstance(i, str | int | float) and not isinstance(i, bool) for i in items):
        problem(f"expected a list of texts (JSON ['a', 'b']), got {str(raw)[:80]!r}")
        return None
    return [str(i) for i in items]


def problem_at(problems: list[RowProblem], mapping: Mapping[str, str], file: str, row: int,
               line: int | None = None) -> Any:
    """``problem(field, detail)`` that names ``row`` (and its JSONL line) and the field's column."""

    def problem(field_name: str, detail: str) -> None:
        problems.append(RowProblem(row=f"row {row}", line=line, file=file, column=mapping.get(field_name, field_name),
                                   expectation=f"import {field_name}", detail=detail))

    return problem


def _as_list(raw: Any, comma_separated: bool) -> list[Any] | None:
    if isinstance(raw, list | tuple):
        return list(raw)
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    if text.startswith("["):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            try:  # Ragas' CSV export writes Python list literals: ['a', 'b'] (literals only, never code)
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                return None
        return list(value) if isinstance(value, list | tuple) else None
    if comma_separated:
        return [part.strip() for part in text.split(",") if part.strip()]
    return [text]


def parse_map(items: Sequence[str]) -> dict[str, str]:
    """``--map field=column`` options."""
    out = {}
    for item in items:
        name, sep, column = item.partition("=")
        if not sep or not name.strip() or not column.strip():
            raise ImportError_(f"--map {item!r}: write field=column, e.g. --map question=prompt")
        out[name.strip()] = column.strip()
    return out


def write_jsonl(path: Path, records: Sequence[Mapping[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


# -- rows that describe one shared thing (a session, a patient) -------------------------------------
class SharedFields:
    """Fields of a group that several rows belong to (a memory session, a clinical patient): any
    row may give them, and where two rows both give one they must agree."""

    def __init__(self, kind: str) -> None:
        self.kind = kind  # "session", "patient": how problems name the group
        self.groups: dict[str, JsonObject] = {}
        self.first_row: dict[str, int] = {}
        self._given_by: dict[tuple[str, str], int] = {}

    def add(self, group: str, row: int, values: Mapping[str, Any], problem: Any) -> JsonObject:
        """Record this row's non-empty values; ``problem(field, detail)`` for each disagreement."""
        shared = self.groups.setdefault(group, {})
        self.first_row.setdefault(group, row)
        for name, value in values.items():
            if value is None:
                continue
            if name not in shared:
                shared[name] = value
                self._given_by[(group, name)] = row
            elif shared[name] != value:
                problem(name, f"row {self._given_by[(group, name)]} gave {self.kind} {group!r} another {name}; "
                              f"rows of one {self.kind} must agree")
        return shared


def model_problems(model: Any, record: Mapping[str, Any], problem: Any, skip: Mapping[str, Any],
                   strip: int = 0) -> None:
    """``problem(field, detail)`` for each way ``record`` breaks the pydantic ``model``, named by the
    field it came from; a field that is None in ``skip`` (an empty required cell, already named by
    ``cell``) is passed over. ``strip`` drops that many leading parts of an error's location."""
    from pydantic import ValidationError

    try:
        model.model_validate(record)
    except ValidationError as exc:
        for error in exc.errors():
            loc = error["loc"][strip:]
            field_ = str(loc[0]) if loc else "record"
            if skip.get(field_, "") is None:
                continue
            where = ".".join(str(part) for part in loc[1:])
            problem(field_, f"{error['msg']}" + (f" (at {where})" if where else "")
                    + f"; got {str(error.get('input'))[:80]!r}")
