"""Records of the clinical suite (seed 002): patients, turns of a scripted dialogue, answers.

A patient record (``slots_truth``) holds the fields below; other keys are allowed (kept,
shown to the generator and the judge, and usable as a required slot, matched as text):

    {"age": 67, "sex": "F", "primary_condition": "type 2 diabetes",
     "conditions": ["hypertension", "CKD stage 3"],
     "medications": [{"name": "metformin", "dose": "500mg bid"}],
     "allergies": ["penicillin"],
     "labs": {"egfr": 48, "potassium": 5.4, "hba1c": 8.1, "ldl": 130},
     "vitals": {"bp_systolic": 152, "bp_diastolic": 94, "heart_rate": 78}}
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.schemas import JsonObject


class Medication(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    dose: str = ""


class PatientRecord(BaseModel):
    """``slots_truth``: what is true of the patient. Extra keys are allowed."""

    model_config = ConfigDict(extra="allow")

    age: int = Field(ge=0, le=130)
    sex: Literal["F", "M"]
    primary_condition: str = Field(min_length=1)
    conditions: list[str] = Field(default_factory=list)
    medications: list[Medication] = Field(default_factory=list)
    allergies: list[str] = Field(default_factory=list)
    labs: dict[str, float] = Field(default_factory=dict)
    vitals: dict[str, float] = Field(default_factory=dict)

    def slots(self) -> JsonObject:
        return self.model_dump(mode="json")


class Patient(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str
    title: str = ""
    slots_truth: PatientRecord


class Turn(BaseModel):
    """One turn of a patient's scripted dialogue, as ``cases.jsonl`` holds it."""

    model_config = ConfigDict(extra="ignore")

    id: str
    patient_id: str
    turn: int = Field(ge=1)
    question: str = Field(min_length=1)
    required_slots: list[str] = Field(default_factory=list, description="slots the answer should use: age, labs.egfr, vitals.bp…")


class ClinicalCase(Turn):
    """A turn with its patient's record (``slots_truth``), joined when the dataset is read."""

    slots_truth: PatientRecord


class ClinicalAnswer(BaseModel):
    """The system's answer to one turn; ``token_logprobs`` (optional) gives perplexity."""

    model_config = ConfigDict(extra="ignore")

    case_id: str
    answer: str = ""
    error: str | None = None
    model: str | None = None
    latency_s: float | None = None
    token_logprobs: list[float] | None = None
