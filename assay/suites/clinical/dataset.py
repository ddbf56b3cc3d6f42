"""Reading a clinical dataset directory and shaping it for the Great Expectations gate.

Layout: ``patients.jsonl`` (one Patient per line: id, title, slots_truth), ``cases.jsonl``
(one turn per line: id, patient_id, turn, question, required_slots) and ``answers.jsonl``
(optional: the recorded answer per turn, the recorded replay). ``labels.jsonl`` (what is
planted in each recorded answer) is read by the tests and the bench, not by a run.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from assay.schemas import JsonObject, LoadedDataset
from assay.suites.clinical.formulas.checks import canonical_slot
from assay.suites.clinical.schema import ClinicalAnswer, Patient, PatientRecord, Turn
from assay.validation.frames import as_id, frame, scalar, schema_errors, text_length
from assay.validation.jsonl import load_cases_and_generations, read_extra_file

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd

SUITE = "clinical"
CASES_FILE, PATIENTS_FILE, ANSWERS_FILE = "cases.jsonl", "patients.jsonl", "answers.jsonl"
CASE_COLUMNS = ["id", "_line", "patient_id", "turn", "question", "question_length", "n_required_slots", "schema_errors"]
PATIENT_COLUMNS = ["id", "_line", "age", "sex", "n_medications", "schema_errors"]
ANSWER_COLUMNS = ["case_id", "_line", "answer", "schema_errors"]


def load_clinical_dataset(root: Path) -> LoadedDataset:
    """Read a dataset directory; each turn carries its patient's record as ``slots_truth``."""
    data = load_cases_and_generations(root, SUITE, CASES_FILE, ANSWERS_FILE)
    if "generations" in data.files:  # a snapshot names files by logical name
        data.files["answers"] = data.files.pop("generations")
    patients = read_extra_file(data, PATIENTS_FILE, "patients")
    records = {as_id(p.get("id")): p.get("slots_truth") for p in patients}
    for case in data.records:
        truth = records.get(as_id(case.get("patient_id")))
        if truth is not None and "slots_truth" not in case:
            case["slots_truth"] = truth
    return data


def clinical_validation_frames(data: LoadedDataset) -> dict[str, pd.DataFrame]:
    cases = [
        {
            "id": as_id(rec.get("id")),
            "_line": rec["_line"],
            "patient_id": as_id(rec.get("patient_id")),
            "turn": float(rec["turn"]) if isinstance(rec.get("turn"), int) and not isinstance(rec["turn"], bool) else None,
            "question": scalar(rec.get("question")),
            "question_length": text_length(rec.get("question")),
            "n_required_slots": len(rec["required_slots"]) if isinstance(rec.get("required_slots"), list) else 0,
            "schema_errors": _case_errors(rec),
        }
        for rec in data.records
    ]
    patients = []
    for rec in data.extras.get("patients", []):
        truth = rec.get("slots_truth") if isinstance(rec.get("slots_truth"), dict) else {}
        age = truth.get("age")
        patients.append({
            "id": as_id(rec.get("id")),
            "_line": rec["_line"],
            "age": float(age) if isinstance(age, int | float) and not isinstance(age, bool) else None,
            "sex": scalar(truth.get("sex")),
            "n_medications": _count(truth.get("medications")),
            "schema_errors": schema_errors(rec, Patient, {"id"}),
        })
    answers = [
        {
            "case_id": as_id(rec.get("case_id")),
            "_line": rec["_line"],
            "answer": scalar(rec.get("answer")),
            "schema_errors": schema_errors(rec, ClinicalAnswer, {"case_id"}),
        }
        for rec in data.generations
    ]
    return {
        "cases": frame(cases, CASES_FILE, CASE_COLUMNS),
        "patients": frame(patients, PATIENTS_FILE, PATIENT_COLUMNS),
        "answers": frame(answers, ANSWERS_FILE, ANSWER_COLUMNS),
    }


def _count(value: Any) -> int:
    return len(value) if isinstance(value, list) else 0


def _case_errors(rec: JsonObject) -> str | None:
    """Schema problems, a missing patient record, and required slots the record does not hold."""
    if "slots_truth" not in rec:
        return f"patient_id: no patient {rec.get('patient_id')!r} in {PATIENTS_FILE}"
    errors = schema_errors({k: v for k, v in rec.items() if k != "slots_truth"}, Turn, {"id", "patient_id", "question"})
    if errors:
        return errors
    try:
        slots = PatientRecord.model_validate(rec["slots_truth"]).slots()
    except ValidationError:
        return f"patient_id: the record of patient {rec.get('patient_id')!r} is invalid (named in {PATIENTS_FILE})"
    unknown = [s for s in Turn.model_validate(rec).required_slots if not _has_slot(slots, s)]
    return f"required_slots: not in the patient record: {', '.join(unknown)}" if unknown else None


def _has_slot(slots: JsonObject, slot: str) -> bool:
    try:
        canonical_slot(slot, slots)
    except ValueError:
        return False
    return True


def clinical_validation_parameters(data: LoadedDataset) -> JsonObject:
    patients = {i for r in data.extras.get("patients", []) if (i := as_id(r.get("id"))) is not None}
    cases = {i for r in data.records if (i := as_id(r.get("id"))) is not None}
    return {"patient_ids": sorted(patients), "case_ids": sorted(cases)}
