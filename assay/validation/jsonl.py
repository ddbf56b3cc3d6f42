"""Read a JSONL file without stopping at the first bad line.

The validation gate must name every bad row, so a line that is not valid UTF-8, not valid
JSON, not a JSON object, or a value that breaks an input limit (a non-finite number, a text
too long, nesting too deep: ``assay.validation.limits``) becomes a :class:`RowProblem` instead
of an exception or a crash in a later step. Pure: no Great Expectations, no pandas.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay.schemas import JsonObject, LoadedDataset, RowProblem
from assay.validation.limits import InputLimits, RejectedValue, loads_checked

PARSE_EXPECTATION = "valid JSON object"


def read_jsonl(path: Path, file_label: str) -> tuple[list[JsonObject], list[RowProblem]]:
    """Parse ``path`` line by line.

    Returns the parsed objects, each with ``_line`` set to its 1-based line number, and one
    problem per unreadable line. Blank lines are skipped. ``file_label`` (e.g. "cases.jsonl")
    is what problems name as their file.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{file_label}: file not found: {path}")

    records: list[JsonObject] = []
    problems: list[RowProblem] = []
    limits = InputLimits.from_env()

    def problem(line_no: int, detail: str, expectation: str = PARSE_EXPECTATION, column: str | None = None,
                row: str | None = None) -> None:
        problems.append(
            RowProblem(
                row=row or f"line {line_no}",
                line=line_no,
                file=file_label,
                expectation=expectation,
                column=column,
                detail=detail,
            )
        )

    # Lines as bytes, not text: one line with invalid UTF-8 must not hide the rest of the file.
    # Read one at a time, so a large file (a 100,000-case generations file is ~700 MB) is never
    # held whole beside its parsed records.
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            _read_line(line_no, raw.removesuffix(b"\n"), records, problem, limits)
    return records, problems


def _read_line(line_no: int, raw: bytes, records: list[JsonObject], problem: Callable[..., None],
               limits: InputLimits) -> None:
    if line_no == 1 and raw.startswith(b"\xef\xbb\xbf"):  # editors on Windows add a BOM
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problem(line_no, f"invalid UTF-8 at byte {exc.start}")
        return
    if not text.strip():
        return
    try:
        value = loads_checked(text, limits)
    except json.JSONDecodeError as exc:
        problem(line_no, f"invalid JSON: {exc.msg} at column {exc.colno}")
        return
    except RejectedValue as exc:
        row = _row_id(exc.value)
        for p in exc.problems:
            problem(line_no, p.inner_detail, p.expectation, p.column, row)
        return
    if not isinstance(value, dict):
        problem(line_no, f"expected a JSON object, got {_json_type(value)}")
        return
    value["_line"] = line_no
    records.append(value)


def _row_id(value: Any) -> str | None:
    """The id a refused row gives, to name it by (the line number stays beside it)."""
    found = value.get("id", value.get("case_id")) if isinstance(value, dict) else None
    return found if isinstance(found, str) and found.strip() else None


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "null" if value is None else type(value).__name__


def load_cases_and_generations(
    root: Path, suite: str, cases_file: str = "cases.jsonl", generations_file: str = "generations.jsonl"
) -> LoadedDataset:
    """The common part of every suite's dataset: cases and (optional) recorded generations.

    Bad lines become ``parse_problems``; only a missing directory or cases file raises.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{suite} dataset directory not found: {root}")
    records, problems = read_jsonl(root / cases_file, cases_file)
    files: dict[str, Path] = {"cases": root / cases_file}
    generations: list[JsonObject] = []
    generations_path = root / generations_file
    if generations_path.is_file():
        generations, gen_problems = read_jsonl(generations_path, generations_file)
        problems += gen_problems
        files["generations"] = generations_path
    return LoadedDataset(
        suite=suite,
        root=root,
        records=records,
        parse_problems=problems,
        generations=generations,
        files=files,
        generations_file=generations_file,
        generations_missing=not generations_path.is_file(),
    )


def read_extra_file(data: LoadedDataset, file_name: str, name: str) -> list[JsonObject]:
    """An optional second table of a dataset (sessions, patients): its rows go to
    ``data.extras[name]`` ([] when the file is absent), its bad lines to ``parse_problems``, and
    the file to ``data.files[name]`` so the ingest step snapshots it."""
    path = data.root / file_name
    rows: list[JsonObject] = []
    if path.is_file():
        rows, problems = read_jsonl(path, file_name)
        data.parse_problems += problems
        data.files[name] = path
    data.extras[name] = rows
    return rows
