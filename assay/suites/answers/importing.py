"""Importing an answers dataset from a DeepEval-, Ragas- or promptfoo-style table.

Fields and the columns they are found under (first match wins; ``--map field=column`` overrides):
input (input, user_input, question, query, prompt, vars.question, …), output (actual_output,
response, output, answer, …), and optionally reference (expected_output, reference,
ground_truth, vars.expected, …), contexts (retrieval_context, retrieved_contexts, contexts,
context, vars.context), id, group and metadata (a JSON object). A table without a reference
column is a reference-free evaluation; one without an output column becomes ``cases.jsonl``
alone, for ``--replay live --target``.
"""

from __future__ import annotations

from assay.schemas import JsonObject, RowProblem
from assay.suites.answers.dataset import CASES_FILE, GENERATIONS_FILE
from assay.suites.answers.schema import DEFAULT_GROUP
from assay.validation.tables import ImportField, TableRow, cell, problem_at

FIELDS = (
    ImportField("id", ("id", "case_id", "question_id", "query_id", "name", "vars.id")),
    ImportField("input", ("input", "user_input", "question", "query", "prompt", "vars.question", "vars.query",
                          "vars.input", "vars.prompt"), required=True,
                help="every case needs what the system was asked"),
    ImportField("output", ("actual_output", "response", "output", "answer", "response.output", "generated_answer")),
    ImportField("reference", ("expected_output", "reference", "ground_truth", "reference_answer", "expected_answer",
                              "ground_truths", "vars.expected", "vars.reference", "vars.expected_output",
                              "vars.ground_truth")),
    ImportField("contexts", ("retrieval_context", "retrieved_contexts", "contexts", "context", "vars.context",
                             "vars.contexts"), kind="list"),
    ImportField("group", ("group", "category", "question_type", "evolution_type", "synthesizer_name", "vars.group",
                          "vars.category")),
    ImportField("metadata", ("metadata", "additional_metadata"), kind="json"),
)


class AnswersImporter:
    fields = FIELDS

    def records(
        self, rows: list[TableRow], mapping: dict[str, str], file: str
    ) -> tuple[dict[str, list[JsonObject]], list[RowProblem]]:
        problems: list[RowProblem] = []
        cases, generations = [], []
        seen: dict[str, int] = {}
        for row in rows:
            v = {f.name: cell(row, f, mapping.get(f.name), problems, file) for f in FIELDS}
            problem = problem_at(problems, mapping, file, row.number, row.line)
            case_id = v["id"] or f"a{row.number:04d}"
            if case_id in seen:
                problem("id", f"id {case_id!r} already used by row {seen[case_id]}")
            seen.setdefault(case_id, row.number)
            case: JsonObject = {"id": case_id, "input": v["input"], "group": v["group"] or DEFAULT_GROUP}
            if v["reference"]:
                case["reference"] = v["reference"]
            metadata = v["metadata"]
            if metadata is not None:
                if isinstance(metadata, dict) and all(_scalar(x) for x in metadata.values()):
                    case["metadata"] = metadata
                else:
                    problem("metadata", "expected a JSON object of texts, numbers or booleans")
            cases.append(case)
            if "output" in mapping:
                generations.append({"case_id": case_id, "output": v["output"] or "",
                                    "contexts": [{"text": text} for text in v["contexts"] or []],
                                    **({} if v["output"] else {"error": "no output in the imported table"})})
        return {CASES_FILE: cases, GENERATIONS_FILE: generations}, problems


def _scalar(value: object) -> bool:
    return value is None or isinstance(value, str | int | float | bool)
