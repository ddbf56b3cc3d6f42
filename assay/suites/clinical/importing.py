"""Importing a clinical dataset from a table with one row per dialogue turn.

Fields and the columns they are found under (first match wins; ``--map field=column`` overrides):
question (question, query, input, user_input) and the patient record (slots_truth,
patient_record, record, patient) are needed; optionally id, patient_id (patient_id, patient_key,
subject_id), turn (turn, turn_number; default: the row's place among its patient's rows),
required_slots (a JSON list or comma-separated: ``labs.egfr, medications``), title, and for the
recorded replay answer (answer, response, actual_output, output).

A record cell is a JSON object (``{"age": 67, "sex": "F", "primary_condition": …}``). Rows that
share a patient id are turns of one patient: the record and title may be given on any of them,
and where two rows both give one they must agree. The table becomes ``patients.jsonl`` and
``cases.jsonl``, plus ``answers.jsonl`` when it has an answer column.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from assay.schemas import JsonObject, RowProblem
from assay.suites.clinical.dataset import ANSWERS_FILE, CASES_FILE, PATIENTS_FILE
from assay.suites.clinical.formulas.checks import canonical_slot
from assay.suites.clinical.schema import PatientRecord, Turn
from assay.validation.tables import (
    ImportError_,
    ImportField,
    SharedFields,
    TableRow,
    cell,
    model_problems,
    problem_at,
)

FIELDS = (
    ImportField("id", ("id", "case_id", "turn_id")),
    ImportField("patient_id", ("patient_id", "patient_key", "subject_id")),
    ImportField("turn", ("turn", "turn_number", "turn_no"), kind="number"),
    ImportField("question", ("question", "query", "input", "user_input"), required=True),
    ImportField("record", ("slots_truth", "patient_record", "record", "patient"), kind="json"),
    ImportField("required_slots", ("required_slots", "slots", "required_context"), kind="keywords"),
    ImportField("title", ("title", "patient_title")),
    ImportField("answer", ("answer", "response", "actual_output", "output")),
)

MAX_TURN = 50  # the validation gate's bound (rules/expectations/cases.json): a scripted dialogue


class ClinicalImporter:
    fields = FIELDS

    def records(
        self, rows: list[TableRow], mapping: dict[str, str], file: str
    ) -> tuple[dict[str, list[JsonObject]], list[RowProblem]]:
        if "record" not in mapping:
            raise ImportError_("no column for the patient record (looked for "
                               f"{', '.join(FIELDS[4].aliases)}; give --map record=COLUMN)")
        problems: list[RowProblem] = []
        patients = SharedFields("patient")
        unreadable: set[str] = set()  # patients whose record cell was already named as a problem
        cases: list[JsonObject] = []
        answers: list[JsonObject] = []
        case_rows: dict[str, int] = {}
        turns_seen: dict[tuple[str, int], int] = {}
        by_name = {f.name: f for f in FIELDS}
        for row in rows:
            v = {name: cell(row, f, mapping.get(name), problems, file) for name, f in by_name.items()}

            problem = problem_at(problems, mapping, file, row.number, row.line)

            case_id = v["id"] or f"c{row.number:04d}"
            if case_id in case_rows:
                problem("id", f"id {case_id!r} already used by row {case_rows[case_id]}")
            case_rows.setdefault(case_id, row.number)
            patient_id = v["patient_id"] or case_id
            record = v["record"]
            raw = row.values.get(mapping["record"])
            if record is None and raw is not None and str(raw).strip():
                unreadable.add(patient_id)  # not JSON: named by cell() already
            elif record is not None and not _valid_record(record, problem):
                record = None
                unreadable.add(patient_id)
            patients.add(patient_id, row.number, {"record": record, "title": v["title"]}, problem)
            turn = _turn_number(v["turn"], patient_id, turns_seen, problem)
            turns_seen.setdefault((patient_id, turn), row.number)
            case = {"id": case_id, "patient_id": patient_id, "turn": turn, "question": v["question"],
                    "required_slots": v["required_slots"] or []}
            model_problems(Turn, case, problem, skip=case)
            cases.append(case)
            if "answer" in mapping:
                answers.append({"case_id": case_id, "answer": v["answer"] or "",
                                **({} if v["answer"] else {"error": "no answer in the imported table"})})
        _check_patients(cases, patients, unreadable, case_rows, problems, mapping, file)
        files: dict[str, list[JsonObject]] = {
            PATIENTS_FILE: [{"id": pid, "title": p.get("title") or "", "slots_truth": p["record"]}
                            for pid, p in patients.groups.items() if p.get("record") is not None],
            CASES_FILE: cases,
            ANSWERS_FILE: answers,
        }
        return files, problems


def _valid_record(record: Any, problem: Any) -> bool:
    if not isinstance(record, dict):
        problem("record", f"expected a JSON object (age, sex, primary_condition, …), got {str(record)[:80]!r}")
        return False
    try:
        PatientRecord.model_validate(record)
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"])
            problem("record", f"{where}: {error['msg']}; got {str(error.get('input'))[:80]!r}")
        return False
    return True


def _turn_number(given: float | None, patient_id: str, seen: dict[tuple[str, int], int], problem: Any) -> int:
    """The table's turn number, or the next one for this patient; a repeat is named."""
    if given is None:
        return 1 + max((t for p, t in seen if p == patient_id), default=0)
    if given < 1 or given > MAX_TURN or given != int(given):
        problem("turn", f"expected a whole number from 1 to {MAX_TURN}, got {given!r}")
        return 1
    turn = int(given)
    if (patient_id, turn) in seen:
        problem("turn", f"patient {patient_id!r} turn {turn} is also row {seen[(patient_id, turn)]}")
    return turn


def _check_patients(cases: list[JsonObject], patients: SharedFields, unreadable: set[str],
                    case_rows: dict[str, int], problems: list[RowProblem], mapping: dict[str, str],
                    file: str) -> None:
    """Every patient needs a record, and every required slot must be one the record holds."""
    for case in cases:
        record = patients.groups[case["patient_id"]].get("record")
        row = case_rows[case["id"]]

        problem = problem_at(problems, mapping, file, row)

        if record is None:
            first = row == patients.first_row[case["patient_id"]]
            if first and case["patient_id"] not in unreadable:
                problem("record", f"patient {case['patient_id']!r} has no record in any of its rows")
            continue
        slots = PatientRecord.model_validate(record).slots()
        unknown = [s for s in case["required_slots"] if not _holds(slots, s)]
        if unknown:
            problem("required_slots", f"not in patient {case['patient_id']!r}'s record: {', '.join(unknown)}")


def _holds(slots: JsonObject, slot: str) -> bool:
    try:
        canonical_slot(slot, slots)
    except ValueError:
        return False
    return True
