"""Importing a report dataset from a table with one row per query and its recorded report.

Fields and the columns they are found under (first match wins; ``--map field=column`` overrides):

- the case: query (query, question, input, user_input, prompt), required_sections (an entry may
  list '/'-separated alternatives) and requirements, each a JSON list or comma-separated, are
  needed; optionally id and team_type (a key, Korean name or alias of ``rules/team_types.yaml``;
  default ``default``);
- the recorded run: report (report, answer, response, actual_output, output), sources (a JSON
  list of ``{"title", "content", "score", "source_type"[, "number", "url"]}``, numbered 1..n in
  list order when no number is given), search_queries, execution_log, step_results and error;
- what the efficiency metric (seed 000 §1.6) is computed from, all needed: total_execution_time
  (seconds), input_tokens, output_tokens, api_calls, estimated_cost (USD) and model;
  total_tokens defaults to input + output.

The efficiency figures are required rather than defaulted: a missing time or cost filled with 0
would be a perfect efficiency score nobody measured. The table becomes ``cases.jsonl`` and
``generations.jsonl``.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from assay.schemas import JsonObject, RowProblem
from assay.suites.report.dataset import CASES_FILE, GENERATIONS_FILE, canonical_team_type
from assay.suites.report.schema import ReportCase, ReportGeneration, Source
from assay.validation.tables import ImportField, TableRow, cell, model_problems, problem_at

EFFICIENCY = "the efficiency score is computed from these, and a missing one is never filled in"
FIELDS = (
    ImportField("id", ("id", "case_id", "query_id")),
    ImportField("query", ("query", "question", "input", "user_input", "prompt"), required=True),
    ImportField("team_type", ("team_type", "team", "audience")),
    ImportField("required_sections", ("required_sections", "sections", "expected_sections"),
                required=True, kind="keywords"),
    ImportField("requirements", ("requirements", "expected_requirements", "criteria"), required=True,
                kind="keywords"),
    ImportField("report", ("report", "answer", "response", "actual_output", "output")),
    ImportField("sources", ("sources", "retrieved_sources", "references"), kind="json"),
    ImportField("search_queries", ("search_queries", "queries"), kind="list"),
    ImportField("execution_log", ("execution_log", "log", "logs"), kind="list"),
    ImportField("step_results", ("step_results", "steps"), kind="json"),
    ImportField("total_execution_time", ("total_execution_time", "execution_time", "execution_time_s",
                                         "duration_s", "latency_s", "latency"), required=True, kind="number", help=EFFICIENCY),
    ImportField("input_tokens", ("input_tokens", "prompt_tokens"), required=True, kind="number", help=EFFICIENCY),
    ImportField("output_tokens", ("output_tokens", "completion_tokens"), required=True, kind="number",
                help=EFFICIENCY),
    ImportField("total_tokens", ("total_tokens", "tokens"), kind="number"),
    ImportField("api_calls", ("api_calls", "llm_calls", "num_calls"), required=True, kind="number", help=EFFICIENCY),
    ImportField("estimated_cost", ("estimated_cost", "cost_usd", "cost", "total_cost"), required=True, kind="number",
                help=EFFICIENCY),
    ImportField("model", ("model", "model_name"), required=True, help="the efficiency details name the model"),
    ImportField("error", ("error",)),
)
WHOLE_NUMBERS = ("input_tokens", "output_tokens", "total_tokens", "api_calls")


class ReportImporter:
    fields = FIELDS

    def records(
        self, rows: list[TableRow], mapping: dict[str, str], file: str
    ) -> tuple[dict[str, list[JsonObject]], list[RowProblem]]:
        problems: list[RowProblem] = []
        cases: list[JsonObject] = []
        generations: list[JsonObject] = []
        first_row: dict[str, int] = {}
        by_name = {f.name: f for f in FIELDS}
        for row in rows:
            v = {name: cell(row, f, mapping.get(name), problems, file) for name, f in by_name.items()}

            problem = problem_at(problems, mapping, file, row.number, row.line)

            case_id = v["id"] or f"r{row.number:04d}"
            if case_id in first_row:
                problem("id", f"id {case_id!r} already used by row {first_row[case_id]}; one report per query")
            first_row.setdefault(case_id, row.number)
            case = _case(case_id, v, problem)
            model_problems(ReportCase, case, problem, skip=case)
            cases.append(case)
            generation = _generation(case_id, v, problem)
            model_problems(ReportGeneration, generation, problem, skip=generation)
            generations.append(generation)
        return {CASES_FILE: cases, GENERATIONS_FILE: generations}, problems


def _case(case_id: str, v: dict[str, Any], problem: Any) -> JsonObject:
    sections, requirements = v["required_sections"], v["requirements"]
    for name, items in (("required_sections", sections), ("requirements", requirements)):
        if items is not None and not [i for i in items if i.strip()]:
            problem(name, "empty list; give at least one (an empty list would count as all met)")
    team = canonical_team_type(v["team_type"] or "default")
    return {"id": case_id, "query": v["query"], "team_type": team,
            "required_sections": sections, "requirements": requirements}


def _generation(case_id: str, v: dict[str, Any], problem: Any) -> JsonObject:
    for name in WHOLE_NUMBERS:
        if v[name] is not None and v[name] != int(v[name]):
            problem(name, f"expected a whole number, got {v[name]!r}")
    counts = {name: int(v[name]) if v[name] is not None else None for name in WHOLE_NUMBERS}
    parts = None if None in (counts["input_tokens"], counts["output_tokens"]) else (
        counts["input_tokens"] + counts["output_tokens"])
    if counts["total_tokens"] is None:
        counts["total_tokens"] = parts
    elif parts is not None and counts["total_tokens"] < parts:
        problem("total_tokens", f"{counts['total_tokens']} is less than input + output tokens ({parts})")
        counts["total_tokens"] = None  # named here; the model's own check would only repeat it
    if not v["report"] and not v["error"]:
        problem("report", "empty; give the report, or an error saying why there is none")
    generation: JsonObject = {
        "case_id": case_id, "report": v["report"] or "", "sources": _sources(v["sources"], problem),
        "search_queries": v["search_queries"] or [], "execution_log": v["execution_log"] or [],
        "step_results": v["step_results"] or [], "total_execution_time": v["total_execution_time"],
        **counts, "estimated_cost": v["estimated_cost"], "model": v["model"],
    }
    if v["error"]:
        generation["error"] = v["error"]
    return generation


def _sources(sources: Any, problem: Any) -> list[Any] | None:
    """The sources as given, each numbered by its place when it has no number of its own; None
    (the problems named, counted from 1) when any source is not one."""
    if sources is None:
        return []
    if not isinstance(sources, list):
        problem("sources", f"expected a JSON list of sources, got {str(sources)[:80]!r}")
        return None
    out, broken = [], False
    for place, source in enumerate(sources, start=1):
        if not isinstance(source, dict):
            problem("sources", f"source {place}: expected an object with title, content, score (0-1) and "
                               f"source_type, got {str(source)[:80]!r}")
            broken = True
            continue
        numbered = {"number": place, **source}
        try:
            Source.model_validate(numbered)
        except ValidationError as exc:
            broken = True
            for error in exc.errors():
                where = ".".join(str(part) for part in error["loc"])
                problem("sources", f"source {place}: {where}: {error['msg']}; got {str(error.get('input'))[:80]!r}")
        out.append(numbered)
    return None if broken else out
