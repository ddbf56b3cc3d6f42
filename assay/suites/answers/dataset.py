"""Reading an answers dataset directory and shaping it for the Great Expectations gate.

Layout: ``cases.jsonl`` (one AnswerCase per line) and ``generations.jsonl`` (one
AnswerGeneration per line, the contexts inline; optional with ``--replay live``). Each frame
keeps ``_line`` and its row id so the gate can name rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assay.schemas import JsonObject, LoadedDataset
from assay.suites.answers.schema import AnswerCase, AnswerGeneration
from assay.validation.frames import as_id, frame, scalar, schema_errors, text_length
from assay.validation.jsonl import load_cases_and_generations

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd

SUITE = "answers"
CASES_FILE = "cases.jsonl"
GENERATIONS_FILE = "generations.jsonl"

# Fields with their own expectation: schema_errors leaves these out so one mistake is reported once.
_CASE_FIELDS_CHECKED = {"id", "input"}
_GENERATION_FIELDS_CHECKED = {"case_id", "output"}

CASE_COLUMNS = ["id", "_line", "input", "group", "input_length", "reference_length", "schema_errors"]
GENERATION_COLUMNS = ["case_id", "_line", "output", "output_length", "n_contexts", "has_error", "schema_errors"]


def load_answers_dataset(root: Path) -> LoadedDataset:
    """Read a dataset directory; bad rows become ``parse_problems``, never exceptions."""
    return load_cases_and_generations(root, SUITE, CASES_FILE, GENERATIONS_FILE)


def validation_frames(data: LoadedDataset) -> dict[str, pd.DataFrame]:
    cases = [
        {
            "id": as_id(rec.get("id")),
            "_line": rec["_line"],
            "input": scalar(rec.get("input")),
            "group": scalar(rec.get("group")),
            "input_length": text_length(rec.get("input")),
            "reference_length": text_length(rec.get("reference")),
            "schema_errors": schema_errors(rec, AnswerCase, _CASE_FIELDS_CHECKED),
        }
        for rec in data.records
    ]
    generations = [
        {
            "case_id": as_id(rec.get("case_id")),
            "_line": rec["_line"],
            "output": scalar(rec.get("output")),
            "output_length": text_length(rec.get("output")),
            "n_contexts": len(rec["contexts"]) if isinstance(rec.get("contexts"), list) else 0,
            "has_error": bool(rec.get("error")),
            "schema_errors": schema_errors(rec, AnswerGeneration, _GENERATION_FIELDS_CHECKED),
        }
        for rec in data.generations
    ]
    return {
        "cases": frame(cases, CASES_FILE, CASE_COLUMNS),
        "generations": frame(generations, GENERATIONS_FILE, GENERATION_COLUMNS),
    }


def validation_parameters(data: LoadedDataset) -> JsonObject:
    return {"case_ids": sorted({i for r in data.records if (i := as_id(r.get("id"))) is not None})}
