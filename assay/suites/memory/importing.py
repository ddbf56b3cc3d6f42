"""Importing a memory dataset from a table of evaluation queries, one row per query.

Fields and the columns they are found under (first match wins; ``--map field=column`` overrides):
query (query, question, input, user_input), and optionally id, session_id (session_id, session,
conversation_id, thread_id), scenario (continuous, topic_switch, update or noise; default
continuous), expected_facts and stale_facts, conversation (conversation, turns, messages,
history, dialogue), memory (memory, stored_memory, summary, actual_output, output), entities and
title.

A fact cell is a JSON list whose items are ``{"fact": …, "keywords": [...]}`` or plain texts (a
text is its own keyword). A conversation cell is a JSON list of ``{"role", "text"}`` (or OpenAI's
``{"role", "content"}``) or a transcript with one ``user: …`` / ``assistant: …`` line per turn.

Rows that share a session id are queries of one conversation: the conversation, memory,
entities, scenario and title may be given on any of them, but where two rows both give one they
must agree. The table becomes ``cases.jsonl``, plus ``sessions.jsonl`` when it has
conversations (needed for ``--replay live``) and ``memories.jsonl`` when it has stored memories
(the recorded replay).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from assay.schemas import JsonObject, RowProblem
from assay.suites.memory.dataset import CASES_FILE, MEMORIES_FILE, SESSIONS_FILE
from assay.suites.memory.schema import FactSpec, MemoryCase, Session
from assay.validation.tables import ImportField, SharedFields, TableRow, cell, model_problems, problem_at

FIELDS = (
    ImportField("id", ("id", "case_id", "query_id")),
    ImportField("session_id", ("session_id", "session", "conversation_id", "thread_id")),
    ImportField("scenario", ("scenario", "scenario_type")),
    ImportField("query", ("query", "question", "input", "user_input"), required=True),
    ImportField("expected_facts", ("expected_facts", "facts", "expected"), kind="json"),
    ImportField("stale_facts", ("stale_facts", "superseded_facts", "outdated_facts"), kind="json"),
    # Read by _turns itself: a JSON list of messages or a plain transcript.
    ImportField("conversation", ("conversation", "turns", "messages", "history", "dialogue"), kind="raw"),
    ImportField("memory", ("memory", "stored_memory", "summary", "actual_output", "output")),
    ImportField("entities", ("entities",), kind="keywords"),
    ImportField("title", ("title", "session_title")),
)
TRANSCRIPT_LINE = re.compile(r"^\s*(user|assistant|system|사용자|어시스턴트|시스템)\s*[:：]\s*(.*)$", re.IGNORECASE)
ROLE_NAMES = {"사용자": "user", "어시스턴트": "assistant", "시스템": "system"}


class MemoryImporter:
    fields = FIELDS

    def records(
        self, rows: list[TableRow], mapping: dict[str, str], file: str
    ) -> tuple[dict[str, list[JsonObject]], list[RowProblem]]:
        problems: list[RowProblem] = []
        cases: list[JsonObject] = []
        case_rows: dict[str, int] = {}
        shared = SharedFields("session")
        unreadable: set[str] = set()  # sessions whose conversation cell was already named as a problem
        by_name = {f.name: f for f in FIELDS if f.kind != "raw"}
        for row in rows:
            v = {name: cell(row, f, mapping.get(name), problems, file) for name, f in by_name.items()}
            v["conversation"] = _present(row.values.get(mapping["conversation"])) if "conversation" in mapping else None
            case_id = v["id"] or f"m{row.number:04d}"

            problem = problem_at(problems, mapping, file, row.number, row.line)

            if case_id in case_rows:
                problem("id", f"id {case_id!r} already used by row {case_rows[case_id]}")
            case_rows.setdefault(case_id, row.number)
            session_id = v["session_id"] or case_id
            turns = _turns(v["conversation"], problem) if v["conversation"] is not None else None
            if v["conversation"] is not None and turns is None:
                unreadable.add(session_id)
            values = {
                "scenario": v["scenario"].strip().lower() if v["scenario"] else None,
                "conversation": turns,
                "memory": v["memory"],
                "entities": v["entities"],
                "title": v["title"],
            }
            session = shared.add(session_id, row.number, values, problem)
            case = {
                "id": case_id,
                "session_id": session_id,
                "scenario": values["scenario"],  # the session's, filled in below when this row has none
                "query": v["query"],
                "expected_facts": _facts(v["expected_facts"], "expected_facts", problem),
                "stale_facts": _facts(v["stale_facts"], "stale_facts", problem),
            }
            cases.append(case)
            model_problems(MemoryCase, {**case, "scenario": case["scenario"] or session.get("scenario") or "continuous"},
                           problem, skip=case)
        sessions = shared.groups
        for case in cases:
            case["scenario"] = sessions[case["session_id"]].get("scenario") or "continuous"
        files: dict[str, list[JsonObject]] = {CASES_FILE: cases}
        if "conversation" in mapping:
            files[SESSIONS_FILE] = [
                {"id": sid, "scenario": s.get("scenario") or "continuous", "title": s.get("title") or "",
                 "turns": s.get("conversation") or []}
                for sid, s in sessions.items()
            ]
            for sid, s in sessions.items():
                if not s.get("conversation") and sid not in unreadable:
                    problem_at(problems, mapping, file, shared.first_row[sid])(
                        "conversation", f"session {sid!r} has no conversation in any of its rows")
        if "memory" in mapping:
            files[MEMORIES_FILE] = [
                {"session_id": sid, "memory": s.get("memory") or "", "entities": s.get("entities") or []}
                for sid, s in sessions.items()
            ]
        return files, problems


def _facts(value: Any, field: str, problem: Any) -> list[JsonObject]:
    """A facts cell as ``[{"fact", "keywords"}]``; a plain text item is its own keyword."""
    if value is None:
        return []
    if not isinstance(value, list):
        problem(field, f"expected a JSON list of facts, got {json.dumps(value, ensure_ascii=False)[:80]}")
        return []
    facts: list[JsonObject] = []
    for n, item in enumerate(value):
        if isinstance(item, str) and item.strip():
            item = {"fact": item.strip(), "keywords": [item.strip()]}
        try:
            facts.append(FactSpec.model_validate(item).model_dump())
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            problem(field, f"fact {n + 1}: {error['msg']}" + (f" (at {where})" if where else "")
                           + f"; got {json.dumps(item, ensure_ascii=False)[:80]}")
    return facts


def _present(value: Any) -> Any:
    return None if value is None or (isinstance(value, str) and not value.strip()) else value


def _turns(value: Any, problem: Any) -> list[JsonObject] | None:
    """A conversation as ``[{"role", "text"}]``: from a JSON list of messages or a transcript."""
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            problem("conversation", f"expected a JSON list of messages, got {value.strip()[:80]!r} "
                                    f"({exc.msg} at character {exc.pos})")
            return None
    elif isinstance(value, str):
        value = _transcript(value, problem)
        if value is None:
            return None
    if not isinstance(value, list) or not value:
        problem("conversation", "expected a non-empty JSON list of {role, text} messages or a transcript "
                                "of 'user: …' / 'assistant: …' lines")
        return None
    turns = []
    for n, message in enumerate(value, start=1):
        if isinstance(message, dict) and "text" not in message and "content" in message:
            message = {"role": message.get("role"), "text": message.get("content")}
        try:
            turns.append(_turn(message))
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"][2:])  # drop the ("turns", 0) of _turn
            problem("conversation", f"message {n}: {error['msg']}" + (f" (at {where})" if where else "")
                                    + f"; got {json.dumps(message, ensure_ascii=False)[:80]}")
            return None
    return turns


def _turn(message: Any) -> JsonObject:
    return Session.model_validate({"id": "-", "scenario": "continuous", "turns": [message]}).turns[0].model_dump()


def _transcript(text: str, problem: Any) -> list[JsonObject] | None:
    """``user: …`` lines; a line with no role continues the turn before it."""
    turns: list[JsonObject] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        match = TRANSCRIPT_LINE.match(line)
        if match:
            role = match.group(1).lower()
            turns.append({"role": ROLE_NAMES.get(role, role), "text": match.group(2).strip()})
        elif turns:
            turns[-1]["text"] += "\n" + line.strip()
        else:
            problem("conversation", f"transcript line {number} names no role (user:, assistant: or system:); "
                                    f"got {line.strip()[:80]!r}")
            return None
    return turns

