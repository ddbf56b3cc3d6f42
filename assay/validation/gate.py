"""The validation gate: run a suite's Great Expectations suites on its dataset's tables.

Great Expectations takes seconds to import, so it is imported inside :func:`run_gate` only;
importing this module (or the rest of ``assay.validation``) stays cheap.

Conventions a suite's validation frames follow (see ``Suite.validation_frames``):
- each frame names its rows with an ``id`` or ``case_id`` column, plus ``_line``;
- ``frame.attrs["file"]`` is the dataset file the rows came from (for the report);
- ``<expectations_dir>/<table>.json`` is a GX suite in GX's own JSON format, whose
  ``{"$PARAMETER": name}`` placeholders are filled from ``Suite.validation_parameters``.
An expectation's ``meta.why`` (optional) is appended to each problem it reports.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from assay.schemas import JsonObject, LoadedDataset, RowProblem
from assay.validation.gx_session import session
from assay.validation.report import ExpectationOutcome, ValidationReport

if TYPE_CHECKING:
    import pandas as pd

ROW_ID_COLUMNS = ("id", "case_id")
LINE_COLUMN = "_line"
_SAMPLE = 10  # unexpected values kept per expectation in the summary (GX results keep all)


class GatedSuite(Protocol):
    """What the gate reads of a suite (``assay.suites.kit.Suite`` has it; validation sits below
    the suites, so it names only this)."""

    @property
    def name(self) -> str: ...

    @property
    def expectations_dir(self) -> Path: ...

    def validation_frames(self, data: LoadedDataset) -> dict[str, pd.DataFrame]: ...

    def validation_parameters(self, data: LoadedDataset) -> JsonObject: ...


def run_gate(suite: GatedSuite, data: LoadedDataset) -> ValidationReport:
    """Validate ``data`` with ``suite``'s expectation files; never raises on bad rows.

    Raises only when the suite itself is misconfigured (missing or unreadable expectation
    file, unknown parameter), since that is a bug to fix, not bad input to report.
    """
    frames = suite.validation_frames(data)
    params = suite.validation_parameters(data)
    specs = {table: _load_suite_json(suite.expectations_dir, table, params) for table in frames}

    problems: list[RowProblem] = list(data.parse_problems)
    outcomes: list[ExpectationOutcome] = []
    failed_ids: set[str] = set()
    gx_results: list[JsonObject] = []
    # The context, data source, assets and built suites are this process's, kept between
    # validations (gx_session); only the frames and the parameters are this validation's.
    with session(f"assay_{suite.name}") as gx_now:
        for table, frame in frames.items():
            spec = specs[table]
            path = Path(suite.expectations_dir) / f"{table}.json"
            expectation_suite = gx_now.suite(path, spec.get("name") or f"{suite.name}.{table}", spec, _build_expectations)
            batch = gx_now.batch(table, frame)
            id_column = next((c for c in ROW_ID_COLUMNS if c in frame.columns), None)
            index_columns = [c for c in (id_column, LINE_COLUMN) if c and c in frame.columns]
            result = batch.validate(
                expectation_suite,
                expectation_parameters=params,
                result_format={
                    "result_format": "COMPLETE",
                    "unexpected_index_column_names": index_columns,
                    "return_unexpected_index_query": False,
                },
            )
            result_json = _jsonable(result.to_json_dict())
            result_json["table"] = table
            gx_results.append(result_json)
            for res in result_json["results"]:
                outcome, row_problems, ids = _read_result(res, table, frame, id_column)
                outcomes.append(outcome)
                problems.extend(row_problems)
                failed_ids |= ids
        gx_version = gx_now.gx.__version__

    failed_lines: dict[str, set[int]] = {}
    for p in problems:
        if p.file and p.line is not None:
            failed_lines.setdefault(p.file, set()).add(p.line)
    return ValidationReport(
        suite=suite.name,
        success=not problems and all(o.success for o in outcomes),
        tables={table: len(frame) for table, frame in frames.items()},
        problems=problems,
        expectations=outcomes,
        failed_row_ids=failed_ids,
        failed_lines={f: sorted(lines) for f, lines in failed_lines.items()},
        gx_version=gx_version,
        gx_results=gx_results,
    )


def _load_suite_json(directory: Path, table: str, params: JsonObject) -> JsonObject:
    path = Path(directory) / f"{table}.json"
    if not path.is_file():
        raise FileNotFoundError(f"no expectation suite for table {table!r}: {path}")
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"expectation suite {path} is not valid JSON: {exc}") from exc
    if not isinstance(spec, dict) or not isinstance(spec.get("expectations"), list):
        raise ValueError(f"expectation suite {path} needs an 'expectations' list")
    missing = sorted(_placeholders(spec["expectations"]) - params.keys())
    if missing:
        raise ValueError(f"expectation suite {path} uses parameters the suite does not provide: {missing}")
    return spec


def _build_expectations(spec: JsonObject, path: Path) -> list[Any]:
    """GX objects for the file's expectations, raising on the first invalid one.

    ExpectationSuite(expectations=[dicts]) only logs invalid entries and drops them, which
    would turn a typo in an expectation file into a gate that silently checks less.
    """
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

    built = []
    for i, entry in enumerate(spec["expectations"]):
        try:
            config = ExpectationConfiguration(
                type=entry["type"], kwargs=entry.get("kwargs") or {}, meta=entry.get("meta") or None
            )
            built.append(config.to_domain_obj())
        except Exception as exc:  # unknown type, bad kwargs: a bug in the suite's data
            raise ValueError(f"expectation suite {path}: expectation #{i + 1} is invalid: {exc}") from exc
    return built


def _placeholders(value: Any) -> set[str]:
    if isinstance(value, dict):
        if set(value) == {"$PARAMETER"}:
            return {str(value["$PARAMETER"])}
        return set().union(*(_placeholders(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_placeholders(v) for v in value)) if value else set()
    return set()


def _read_result(
    res: JsonObject, table: str, frame: pd.DataFrame, id_column: str | None
) -> tuple[ExpectationOutcome, list[RowProblem], set[str]]:
    """One GX expectation result -> its summary, the row problems it names, the failed ids."""
    config = res["expectation_config"]
    etype, kwargs = config["type"], config.get("kwargs") or {}
    column = kwargs.get("column") or (", ".join(kwargs["column_list"]) if kwargs.get("column_list") else None)
    result = res.get("result") or {}
    file = frame.attrs.get("file")
    reason = (config.get("meta") or {}).get("why")  # GX carries the file's meta into results
    error = _exception_message(res.get("exception_info"))

    outcome = ExpectationOutcome(
        type=etype,
        table=table,
        column=column,
        success=bool(res["success"]),
        unexpected_count=result.get("unexpected_count"),
        unexpected_sample=list(result.get("partial_unexpected_list") or result.get("unexpected_list") or [])[
            :_SAMPLE
        ],
        detail=f"could not run: {error}" if error else _observed(result),
    )
    if outcome.success:
        return outcome, [], set()

    index_list = result.get("unexpected_index_list")
    if error or not index_list:
        # Table-level failure (missing column, GX error, aggregate expectation): every row
        # of the table is suspect, so all of them are quarantined.
        detail = outcome.detail or "failed"
        problem = RowProblem(
            row=f"table {table}",
            file=file,
            expectation=etype,
            column=column,
            detail=f"{detail}; {reason}" if reason else detail,
        )
        ids = set(frame[id_column].dropna().astype(str)) if id_column else set()
        return outcome, [problem], ids

    problems: list[RowProblem] = []
    ids: set[str] = set()
    for entry in index_list:
        row_id = entry.get(id_column) if id_column else None
        line = entry.get(LINE_COLUMN)
        line = int(line) if isinstance(line, (int, float)) and not _isnan(line) else None
        has_id = isinstance(row_id, str)
        if has_id:
            ids.add(row_id)
        value = (
            entry.get(kwargs.get("column"))
            if kwargs.get("column")
            else {c: entry.get(c) for c in kwargs.get("column_list", [])}
        )
        detail = _describe_failure(etype, kwargs, value)
        problem = RowProblem(
            row=row_id if has_id else f"line {line}",
            line=line,
            file=file,
            expectation=etype,
            column=column,
            detail=f"{detail}; {reason}" if reason else detail,
        )
        # A long table can repeat a row (one case listing a doc twice): report it once.
        if problem not in problems:
            problems.append(problem)
    return outcome, problems, ids


def _describe_failure(etype: str, kwargs: JsonObject, value: Any) -> str:
    """Why one value failed, in words a dataset author understands."""
    if etype == "expect_column_values_to_not_be_null":
        return "missing or null"
    if etype == "expect_column_values_to_be_null":
        return str(value)  # e.g. schema_errors: the message itself is the explanation
    if etype == "expect_compound_columns_to_be_unique" and isinstance(value, dict):
        return "duplicate " + ", ".join(f"{k}={v!r}" for k, v in value.items())
    if etype in ("expect_column_values_to_be_unique", "expect_compound_columns_to_be_unique"):
        return f"duplicate {value!r}"
    if etype == "expect_column_values_to_be_in_set":
        allowed = kwargs.get("value_set") or []
        listed = f" ({', '.join(map(str, allowed))})" if 0 < len(allowed) <= 10 else ""
        return f"{value!r} not in allowed set{listed}"
    if etype in ("expect_column_values_to_be_between", "expect_column_value_lengths_to_be_between"):
        low, high = kwargs.get("min_value"), kwargs.get("max_value")
        bounds = f"[{_num(low) if low is not None else '-inf'}, {_num(high) if high is not None else 'inf'}]"
        what = f"length of {value!r}" if etype.endswith("lengths_to_be_between") else _num(value)
        return f"{what} outside {bounds}"
    return f"unexpected value {value!r}"


def _exception_message(info: Any) -> str | None:
    """GX reports exceptions either flat or keyed by metric id; return the first message."""
    if not isinstance(info, dict):
        return None
    if info.get("raised_exception"):
        return info.get("exception_message") or "exception"
    for nested in info.values():
        if isinstance(nested, dict) and nested.get("raised_exception"):
            return nested.get("exception_message") or "exception"
    return None


def _observed(result: JsonObject) -> str | None:
    return f"observed {result['observed_value']!r}" if "observed_value" in result else None


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _isnan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _jsonable(value: Any) -> Any:
    """GX result dicts may still hold numpy scalars and NaN; make them plain JSON."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalar
        try:
            value = value.item()
        except (TypeError, ValueError):
            return str(value)
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
