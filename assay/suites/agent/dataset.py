"""Reading an agent dataset directory and shaping it for the Great Expectations gate.

Layout: ``cases.jsonl`` (one AgentCase per line) and ``responses.jsonl`` (optional, the recorded
replay: one line per call, ``{case_id, repeat, raw, responseTimeSec, error}``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.schemas import JsonObject, LoadedDataset
from assay.suites.agent.schema import AgentCase
from assay.validation.frames import as_id, frame, scalar, schema_errors, text_length
from assay.validation.jsonl import load_cases_and_generations

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd

SUITE = "agent"
CASES_FILE, RESPONSES_FILE = "cases.jsonl", "responses.jsonl"
CASE_COLUMNS = ["id", "_line", "query", "query_length", "latency_class", "expected_intent", "n_checks", "schema_errors"]
RESPONSE_COLUMNS = ["id", "_line", "call", "repeat", "schema_errors"]
LATENCY_CLASSES = ["SINGLE", "MULTI"]
INTENT_LABELS = ["ADD", "UPDATE", "DELETE", "VIEW", "MOVE", "CLARIFY", "ERROR", "OTHER"]


# The seed's own field names are accepted too, and read as ours.
CASE_ALIASES = {"latencyClass": "latency_class", "accuracyChecks": "checks", "expectedIntent": "expected_intent",
                "intent_label": "expected_intent", "expectedResult": "expected_result", "query_id": "id", "queryId": "id"}
RESPONSE_ALIASES = {"query_id": "case_id", "queryId": "case_id", "response_time_sec": "responseTimeSec",
                    "latencySec": "responseTimeSec"}
RESPONSE_FIELDS = ("assistantMessage", "dataUIList", "setting", "filterType", "aggregates")


def load_agent_dataset(root: Path) -> LoadedDataset:
    """Read a dataset directory; bad lines become ``parse_problems``, never exceptions."""
    data = load_cases_and_generations(root, SUITE, CASES_FILE, RESPONSES_FILE)
    if "generations" in data.files:  # a snapshot names files by logical name: "responses" -> responses.jsonl
        data.files["responses"] = data.files.pop("generations")
    data.records = [_renamed(r, CASE_ALIASES) for r in data.records]
    repeats: dict[Any, int] = {}
    responses = []
    for rec in data.generations:
        rec = _renamed(rec, RESPONSE_ALIASES)
        if "latency_ms" in rec and "responseTimeSec" not in rec:
            ms = rec.pop("latency_ms")
            rec["responseTimeSec"] = ms / 1000 if isinstance(ms, int | float) and not isinstance(ms, bool) else ms
        if "raw" not in rec and any(f in rec for f in RESPONSE_FIELDS):  # parsed fields only: the body is them
            rec["raw"] = json.dumps({f: rec[f] for f in RESPONSE_FIELDS if f in rec}, ensure_ascii=False)
        if "repeat" not in rec:  # repeats numbered in file order per query
            key = json.dumps(rec.get("case_id"))
            rec["repeat"] = repeats.get(key, 0)
            repeats[key] = rec["repeat"] + 1
        responses.append(rec)
    data.generations = responses
    return data


def _renamed(rec: JsonObject, aliases: dict[str, str]) -> JsonObject:
    return {aliases.get(k, k) if aliases.get(k, k) not in rec or k == aliases.get(k, k) else k: v for k, v in rec.items()}


def agent_validation_frames(data: LoadedDataset) -> dict[str, pd.DataFrame]:
    cases = [
        {
            "id": as_id(rec.get("id")),
            "_line": rec["_line"],
            "query": scalar(rec.get("query")),
            "query_length": text_length(rec.get("query")),
            "latency_class": scalar(rec.get("latency_class", "SINGLE")),
            "expected_intent": scalar(rec.get("expected_intent")),
            "n_checks": len(rec["checks"]) if isinstance(rec.get("checks"), list) else 0,
            "schema_errors": schema_errors(rec, AgentCase, {"id", "query", "latency_class", "expected_intent"}),
        }
        for rec in data.records
    ]
    responses = [
        {
            "id": as_id(rec.get("case_id")),
            "_line": rec["_line"],
            "call": f"{rec.get('case_id')}#{rec.get('repeat')}",
            "repeat": rec.get("repeat"),
            "schema_errors": _response_errors(rec),
        }
        for rec in data.generations
    ]
    return {"cases": frame(cases, CASES_FILE, CASE_COLUMNS), "responses": frame(responses, RESPONSES_FILE, RESPONSE_COLUMNS)}


def _response_errors(rec: JsonObject) -> str | None:
    problems = []
    if not isinstance(rec.get("repeat"), int) or isinstance(rec.get("repeat"), bool) or rec["repeat"] < 0:
        problems.append("repeat: must be a whole number >= 0")
    if rec.get("raw") is not None and not isinstance(rec.get("raw"), str):
        problems.append("raw: must be the response body as text (or null)")
    seconds = rec.get("responseTimeSec")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0):
        problems.append("responseTimeSec: must be a number of seconds >= 0 (or null)")
    if rec.get("error") is not None and not isinstance(rec.get("error"), str):
        problems.append("error: must be text (or null)")
    return "; ".join(problems) or None


def agent_validation_parameters(data: LoadedDataset) -> JsonObject:
    case_ids = sorted({i for r in data.records if (i := as_id(r.get("id"))) is not None})
    return {"latency_classes": LATENCY_CLASSES, "intent_labels": INTENT_LABELS, "case_ids": case_ids}
