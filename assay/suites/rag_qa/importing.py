"""Importing a rag_qa dataset from a Ragas-, DeepEval- or promptfoo-style table.

Fields and the columns they are found under (first match wins; ``--map field=column`` overrides):
question (question, user_input, input, query), reference_answer (ground_truth, reference,
expected_output, …; optional: a case without one is judged reference-free), answer (answer, response, actual_output), contexts (contexts,
retrieved_contexts, retrieval_context), and optionally id, category, keywords, source_docs.
A table with answers becomes ``cases.jsonl`` + ``generations.jsonl`` (contexts inline, scored
with ``--replay recorded``); one without becomes ``cases.jsonl`` alone, for ``--replay live``.
"""

from __future__ import annotations

from assay.schemas import JsonObject, RowProblem
from assay.suites.rag_qa.dataset import CASES_FILE, GENERATIONS_FILE
from assay.validation.tables import ImportField, TableRow, cell, problem_at

FIELDS = (
    ImportField("id", ("id", "case_id", "question_id", "query_id")),
    ImportField("question", ("question", "user_input", "input", "query", "prompt"), required=True),
    ImportField("reference_answer", ("ground_truth", "reference", "expected_output", "reference_answer",
                                     "ground_truths", "expected_answer")),
    ImportField("answer", ("answer", "response", "actual_output", "output")),
    ImportField("contexts", ("contexts", "retrieved_contexts", "retrieval_context", "context"), kind="list"),
    ImportField("category", ("category", "question_type", "evolution_type", "synthesizer_name")),
    ImportField("keywords", ("keywords",), kind="keywords"),
    ImportField("source_docs", ("source_docs", "relevant_docs", "source_ids"), kind="keywords"),
)


class RagImporter:
    fields = FIELDS

    def records(
        self, rows: list[TableRow], mapping: dict[str, str], file: str
    ) -> tuple[dict[str, list[JsonObject]], list[RowProblem]]:
        problems: list[RowProblem] = []
        cases, generations = [], []
        seen: dict[str, int] = {}
        by_name = {f.name: f for f in FIELDS}
        for row in rows:
            v = {name: cell(row, f, mapping.get(name), problems, file) for name, f in by_name.items()}
            case_id = v["id"] or f"q{row.number:04d}"
            if case_id in seen:
                problem_at(problems, mapping, file, row.number, row.line)(
                    "id", f"id {case_id!r} already used by row {seen[case_id]}")
            seen.setdefault(case_id, row.number)
            case: JsonObject = {"id": case_id, "question": v["question"]}
            if v["reference_answer"]:  # none: judged reference-free
                case["reference_answer"] = v["reference_answer"]
            case.update({k: v[k] for k in ("category", "keywords", "source_docs") if v[k]})
            cases.append(case)
            if "answer" in mapping:
                generations.append({"case_id": case_id, "answer": v["answer"] or "",
                                    "retrieved": [{"text": text} for text in v["contexts"] or []],
                                    **({} if v["answer"] else {"error": "no answer in the imported table"})})
        return {CASES_FILE: cases, GENERATIONS_FILE: generations}, problems
