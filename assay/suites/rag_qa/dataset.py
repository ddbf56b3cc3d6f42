"""Reading a rag_qa dataset directory and shaping it for the Great Expectations gate.

Layout: ``cases.jsonl`` (one RagCase per line), ``generations.jsonl`` (optional, one
RagGeneration per line; the retrieved contexts inline) and ``kb/**.md`` (optional: the knowledge
base the cases cite, needed only by the built-in pipeline's live replay).

Nested lists (keywords, source_docs, retrieved) are awkward to validate in GX, so the frames
carry derived scalar columns (counts, lengths) and a long ``case_sources`` table instead.
Each frame keeps ``_line`` and its row id (``id`` or ``case_id``) so the gate can name rows,
and records its source file in ``frame.attrs["file"]``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.schemas import JsonObject, LoadedDataset
from assay.suites.rag_qa.schema import RagCase, RagGeneration, normalize_source
from assay.validation.frames import as_id, frame, scalar, schema_errors, text_length
from assay.validation.jsonl import load_cases_and_generations

if TYPE_CHECKING:  # annotations only: looking a suite up loads no pandas
    import pandas as pd

SUITE = "rag_qa"
CASES_FILE = "cases.jsonl"
GENERATIONS_FILE = "generations.jsonl"
KB_DIR = "kb"

# Fields with their own expectation (not-null, in-set): schema_errors leaves these out so
# one mistake is reported once.
_CASE_FIELDS_CHECKED = {"id", "question", "reference_answer"}
_GENERATION_FIELDS_CHECKED = {"case_id", "answer", "retrieved"}

# Fixed column lists: an empty table still has every column an expectation names.
CASE_COLUMNS = [
    "id", "_line", "question", "reference_answer", "category", "keywords", "source_docs",
    "question_length", "reference_answer_length", "n_keywords", "schema_errors",
]  # fmt: skip
CASE_SOURCE_COLUMNS = ["id", "_line", "source_doc"]
GENERATION_COLUMNS = [
    "case_id", "_line", "answer", "retrieved", "answer_length", "n_retrieved", "has_error", "schema_errors",
]  # fmt: skip


def load_rag_dataset(root: Path) -> LoadedDataset:
    """Read a dataset directory; bad rows become ``parse_problems``, never exceptions."""
    data = load_cases_and_generations(root, SUITE, CASES_FILE, GENERATIONS_FILE)
    kb_root = data.root / KB_DIR
    kb_paths = sorted(p for p in kb_root.rglob("*.md") if p.is_file()) if kb_root.is_dir() else []
    kb_docs = [p.relative_to(kb_root).as_posix() for p in kb_paths]
    for rel, path in zip(kb_docs, kb_paths, strict=True):
        data.files[f"kb/{rel}"] = path
    data.extras["kb_documents"] = kb_docs
    data.extras["has_kb"] = kb_root.is_dir()
    return data


def rag_validation_frames(data: LoadedDataset) -> dict[str, pd.DataFrame]:
    """The tables the GX suites in ``datasets/rag_qa/expectations/`` run on."""
    cases = []
    sources = []
    for rec in data.records:
        case_id = as_id(rec.get("id"))
        keywords, source_docs = rec.get("keywords"), rec.get("source_docs")
        cases.append(
            {
                "id": case_id,
                "_line": rec["_line"],
                "question": scalar(rec.get("question")),
                "reference_answer": scalar(rec.get("reference_answer")),
                "category": scalar(rec.get("category")),
                # Only null-ness is checked on the list columns; their contents are
                # validated through the derived columns below.
                "keywords": _present(keywords),
                "source_docs": _present(source_docs),
                "question_length": text_length(rec.get("question")),
                "reference_answer_length": text_length(rec.get("reference_answer")),
                "n_keywords": len(keywords) if isinstance(keywords, list) else None,
                "schema_errors": schema_errors(rec, RagCase, _CASE_FIELDS_CHECKED),
            }
        )
        if isinstance(source_docs, list):
            # Non-string entries are reported by schema_errors on the cases table.
            sources.extend(
                {"id": case_id, "_line": rec["_line"], "source_doc": normalize_source(doc)}
                for doc in source_docs
                if isinstance(doc, str)
            )

    generations = []
    for rec in data.generations:
        answer, retrieved, error = rec.get("answer"), rec.get("retrieved"), rec.get("error")
        generations.append(
            {
                "case_id": as_id(rec.get("case_id")),
                "_line": rec["_line"],
                "answer": scalar(answer),
                "retrieved": _present(retrieved),
                "answer_length": text_length(answer),
                "n_retrieved": len(retrieved) if isinstance(retrieved, list) else None,
                "has_error": bool(error),
                "schema_errors": schema_errors(rec, RagGeneration, _GENERATION_FIELDS_CHECKED),
            }
        )

    return {
        "cases": frame(cases, CASES_FILE, CASE_COLUMNS),
        "case_sources": frame(sources, CASES_FILE, CASE_SOURCE_COLUMNS),
        "generations": frame(generations, GENERATIONS_FILE, GENERATION_COLUMNS),
    }


def rag_validation_parameters(data: LoadedDataset) -> JsonObject:
    """Values for the ``$PARAMETER`` placeholders in the rag_qa expectation files."""
    documents = list(data.extras.get("kb_documents", []))
    if not data.extras.get("has_kb"):
        # Without a kb/ tree the source docs are the ids the system returns with its contexts:
        # there is no list to check them against (only duplicates are checked).
        documents = sorted({normalize_source(d) for r in data.records for d in _strings(r.get("source_docs"))})
    return {
        "kb_documents": documents,
        "case_ids": sorted({i for r in data.records if (i := as_id(r.get("id"))) is not None}),
    }


def _present(value: Any) -> bool | None:
    """A stand-in for a list column: None when absent, so not-null checks name the row."""
    return None if value is None else True


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
