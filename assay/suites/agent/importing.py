"""Importing an agent dataset from a table of test queries, with or without recorded calls.

Fields and the columns they are found under (first match wins; ``--map field=column`` overrides):
query (query, input, user_input, question, prompt), expected_intent (expected_intent, intent,
intent_label, expectedIntent), and optionally id, expected_result (expected_result,
expected_output, expectedResult), latency_class (SINGLE or MULTI), checks (a JSON list of
``{"path", "op", "value"}``), and for the recorded replay response (raw, response, output,
actual_output: the agent's response body), response_time (seconds), repeat and error.

A table of queries becomes ``cases.jsonl``. With a response column each row is also one recorded
call in ``responses.jsonl``; rows that repeat an id are further calls of that query (numbered in
table order unless a repeat column says otherwise) and must repeat its query fields unchanged.
"""

from __future__ import annotations

from typing import Any

from assay.schemas import JsonObject, RowProblem
from assay.suites.agent.dataset import CASES_FILE, RESPONSES_FILE
from assay.suites.agent.schema import AgentCase
from assay.validation.tables import ImportField, TableRow, cell, model_problems, problem_at

FIELDS = (
    ImportField("id", ("id", "case_id", "query_id", "queryid")),
    ImportField("query", ("query", "input", "user_input", "question", "prompt"), required=True),
    ImportField("expected_intent", ("expected_intent", "intent", "intent_label", "expectedintent"), required=True),
    ImportField("expected_result", ("expected_result", "expected_output", "expectedresult", "expected")),
    ImportField("latency_class", ("latency_class", "latencyclass")),
    ImportField("checks", ("checks", "accuracy_checks", "accuracychecks"), kind="json"),
    ImportField("response", ("raw", "response", "output", "actual_output")),
    ImportField("response_time", ("responsetimesec", "response_time_sec", "response_time", "latency_sec"),
                kind="number"),
    ImportField("repeat", ("repeat",), kind="number"),
    ImportField("error", ("error",)),
)
CASE_FIELDS = ("query", "expected_intent", "expected_result", "latency_class", "checks")
CALL_FIELDS = ("response", "response_time", "repeat", "error")


class AgentImporter:
    fields = FIELDS

    def records(
        self, rows: list[TableRow], mapping: dict[str, str], file: str
    ) -> tuple[dict[str, list[JsonObject]], list[RowProblem]]:
        problems: list[RowProblem] = []
        cases: dict[str, JsonObject] = {}
        first_row: dict[str, int] = {}
        calls: list[JsonObject] = []
        repeats: dict[str, int] = {}
        seen_calls: dict[tuple[str, int], int] = {}
        records_calls = any(name in mapping for name in CALL_FIELDS)
        by_name = {f.name: f for f in FIELDS}
        for row in rows:
            v = {name: cell(row, f, mapping.get(name), problems, file) for name, f in by_name.items()}
            case_id = v["id"] or f"a{row.number:04d}"

            problem = problem_at(problems, mapping, file, row.number, row.line)

            case = _case(v)
            if case_id in cases:
                if not records_calls:
                    problem("id", f"id {case_id!r} already used by row {first_row[case_id]}")
                elif case != {k: cases[case_id].get(k) for k in case}:
                    changed = [k for k in case if case[k] != cases[case_id].get(k)]
                    problem(changed[0], f"row {first_row[case_id]} gave query {case_id!r} other values for "
                                        f"{', '.join(changed)}; a repeated id is another call of the same query")
            else:
                first_row[case_id] = row.number
                cases[case_id] = {"id": case_id, **case}
                model_problems(AgentCase, cases[case_id], problem, skip=cases[case_id])
            if records_calls:
                call = _call(case_id, v, repeats, problem)
                key = (case_id, call["repeat"])
                if key in seen_calls:
                    problem("repeat", f"query {case_id!r} repeat {call['repeat']} is also row {seen_calls[key]}")
                seen_calls.setdefault(key, row.number)
                calls.append(call)
        return {CASES_FILE: list(cases.values()), RESPONSES_FILE: calls}, problems


def _case(v: dict[str, Any]) -> JsonObject:
    case: JsonObject = {"query": v["query"], "expected_intent": (v["expected_intent"] or "").upper() or None}
    case.update({k: v[k] for k in ("expected_result", "checks") if v[k] not in (None, "")})
    if v["latency_class"]:
        case["latency_class"] = v["latency_class"].upper()
    return case


def _call(case_id: str, v: dict[str, Any], repeats: dict[str, int], problem: Any) -> JsonObject:
    """One recorded call; its repeat is the table's, or the next number for this query."""
    repeat = repeats.get(case_id, 0)
    if v["repeat"] is not None:
        if v["repeat"] < 0 or v["repeat"] != int(v["repeat"]):
            problem("repeat", f"expected a whole number >= 0, got {v['repeat']!r}")
        repeat = int(v["repeat"])
    repeats[case_id] = max(repeats.get(case_id, 0), repeat + 1)
    seconds = v["response_time"]
    if seconds is not None and seconds < 0:
        problem("response_time", f"expected seconds >= 0, got {seconds!r}")
    error = v["error"] or (None if v["response"] else "no response in the imported table")
    return {"case_id": case_id, "repeat": repeat, "raw": v["response"], "responseTimeSec": seconds, "error": error}
