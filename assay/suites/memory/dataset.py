"""Reading a memory dataset directory and shaping it for the Great Expectations gate.

Layout: ``cases.jsonl`` (one MemoryCase per line: an evaluation query of a session),
``sessions.jsonl`` (the conversations, needed for live replay) and ``memories.jsonl``
(optional: what a summarizer stored per session, the recorded replay).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assay.schemas import JsonObject, LoadedDataset
from assay.suites.memory.schema import SCENARIOS, MemoryCase, Session
from assay.validation.frames import as_id, frame, scalar, schema_errors, text_length
from assay.validation.jsonl import load_cases_and_generations, read_extra_file

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd

SUITE = "memory"
CASES_FILE, SESSIONS_FILE, MEMORIES_FILE = "cases.jsonl", "sessions.jsonl", "memories.jsonl"

CASE_COLUMNS = ["id", "_line", "session_id", "scenario", "query", "query_length", "n_expected_facts", "schema_errors"]
SESSION_COLUMNS = ["id", "_line", "scenario", "n_turns", "schema_errors"]
# Memories are keyed by session; the id column lets the gate name the session of a bad row.
MEMORY_COLUMNS = ["id", "_line", "memory", "n_entities", "schema_errors"]


def load_memory_dataset(root: Path) -> LoadedDataset:
    """Read a dataset directory; bad lines become ``parse_problems``, never exceptions."""
    data = load_cases_and_generations(root, SUITE, CASES_FILE, MEMORIES_FILE)
    if "generations" in data.files:  # a snapshot names files by logical name: "memories" -> memories.jsonl
        data.files["memories"] = data.files.pop("generations")
    read_extra_file(data, SESSIONS_FILE, "sessions")
    return data


def memory_validation_frames(data: LoadedDataset) -> dict[str, pd.DataFrame]:
    """The tables the GX suites in ``rules/expectations/`` run on."""
    cases = [
        {
            "id": as_id(rec.get("id")),
            "_line": rec["_line"],
            "session_id": as_id(rec.get("session_id")),
            "scenario": scalar(rec.get("scenario")),
            "query": scalar(rec.get("query")),
            "query_length": text_length(rec.get("query")),
            "n_expected_facts": len(rec["expected_facts"]) if isinstance(rec.get("expected_facts"), list) else 0,
            "schema_errors": schema_errors(rec, MemoryCase, {"id", "session_id", "scenario", "query"}),
        }
        for rec in data.records
    ]
    sessions = [
        {
            "id": as_id(rec.get("id")),
            "_line": rec["_line"],
            "scenario": scalar(rec.get("scenario")),
            "n_turns": len(rec["turns"]) if isinstance(rec.get("turns"), list) else None,
            "schema_errors": schema_errors(rec, Session, {"id", "scenario"}),
        }
        for rec in data.extras.get("sessions", [])
    ]
    memories = [
        {
            "id": as_id(rec.get("session_id")),
            "_line": rec["_line"],
            "memory": scalar(rec.get("memory")),
            "n_entities": len(rec["entities"]) if isinstance(rec.get("entities"), list) else 0,
            "schema_errors": _memory_errors(rec),
        }
        for rec in data.generations
    ]
    return {
        "cases": frame(cases, CASES_FILE, CASE_COLUMNS),
        "sessions": frame(sessions, SESSIONS_FILE, SESSION_COLUMNS),
        "memories": frame(memories, MEMORIES_FILE, MEMORY_COLUMNS),
    }


def _memory_errors(rec: JsonObject) -> str | None:
    problems = []
    if not isinstance(rec.get("memory", ""), str):
        problems.append("memory: must be text")
    entities = rec.get("entities", [])
    if not isinstance(entities, list) or not all(isinstance(e, str) for e in entities):
        problems.append("entities: must be a list of strings")
    return "; ".join(problems) or None


def memory_validation_parameters(data: LoadedDataset) -> JsonObject:
    if "sessions" in data.files:
        sessions = {i for r in data.extras.get("sessions", []) if (i := as_id(r.get("id"))) is not None}
    else:  # no conversations shipped (recorded replay only): the cases name the sessions
        sessions = {i for r in data.records if (i := as_id(r.get("session_id"))) is not None}
    return {"scenarios": list(SCENARIOS), "session_ids": sorted(sessions)}


def readable_sessions(records: list[JsonObject]) -> dict[str, Session]:
    """The sessions that validate, by id (an unreadable one is named by the gate; its cases
    get "session could not be read")."""
    out = {}
    for record in records:
        try:
            session = Session.model_validate(record)
        except ValueError:
            continue  # named by the gate; its cases get "session could not be read"
        out[session.id] = session
    return out
