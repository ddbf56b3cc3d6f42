"""Ingest (JSONL reading, rag_qa dataset loading) and the Great Expectations gate.

The gate tests run real GX validations on tiny datasets written into tmp_path. GX takes a few
seconds to import, so the two gate runs on the small datasets are shared module fixtures.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from assay.paths import datasets_dir, project_root
from assay.schemas import RowProblem
from assay.suites.kit import Suite
from assay.suites.rag_qa import dataset as rag_dataset
from assay.validation.jsonl import read_jsonl
from assay.validation.report import ExpectationOutcome, ValidationReport


class GateOnlySuite(Suite):
    """Just the rag_qa ingest and validation hooks, so these tests do not depend on metrics."""

    name = "rag_qa"
    title = seed = description = ""
    case_model = generation_model = None  # type: ignore[assignment]
    rules_dir = project_root() / "assay" / "suites" / "rag_qa" / "rules"  # the real suite's rules

    def load_dataset(self, root: Path):
        return rag_dataset.load_rag_dataset(root)

    def validation_frames(self, data):
        return rag_dataset.rag_validation_frames(data)

    def validation_parameters(self, data):
        return rag_dataset.rag_validation_parameters(data)

    def parse_cases(self, data, skip_ids=frozenset()):  # pragma: no cover - not used here
        raise NotImplementedError

    def metric_families(self):  # pragma: no cover
        return []

    def aggregate(self, rows, cases, params):  # pragma: no cover
        raise NotImplementedError

    def report_sections(self, scores, summary, cases, generations):  # pragma: no cover
        return []


def case(case_id: str, **over: Any) -> dict[str, Any]:
    base = {
        "id": case_id,
        "question": f"What is in {case_id}?",
        "keywords": ["alpha", "beta"],
        "reference_answer": "Alpha and beta.",
        "category": "direct_fact",
        "source_docs": ["company/overview.md"],
    }
    base.update(over)
    return base


def generation(case_id: str, **over: Any) -> dict[str, Any]:
    base = {
        "case_id": case_id,
        "answer": "Alpha and beta.",
        "retrieved": [{"source": "company/overview.md", "text": "alpha beta", "score": 0.9}],
    }
    base.update(over)
    return base


def write_dataset(root: Path, case_lines: list[Any], generation_lines: list[Any] | None) -> Path:
    """Lines are dicts (dumped as JSON) or raw strings / bytes written as they are."""
    (root / "kb" / "company").mkdir(parents=True)
    (root / "kb" / "product").mkdir()
    (root / "kb" / "company" / "overview.md").write_text("# Overview\nalpha beta\n", encoding="utf-8")
    (root / "kb" / "product" / "pricing.md").write_text("# 가격\n", encoding="utf-8")

    def dump(lines: list[Any]) -> bytes:
        out = b""
        for line in lines:
            if isinstance(line, dict):
                line = json.dumps(line, ensure_ascii=False)
            out += (line if isinstance(line, bytes) else line.encode("utf-8")) + b"\n"
        return out

    (root / "cases.jsonl").write_bytes(dump(case_lines))
    if generation_lines is not None:
        (root / "generations.jsonl").write_bytes(dump(generation_lines))
    return root


CLEAN_CASES = [
    case("q001"),
    case("q002", category="numerical", source_docs=["../data/knowledge_base/product/pricing.md"]),
    case("q003", category="comparative", source_docs=["company/overview.md", "product/pricing.md"]),
]
CLEAN_GENERATIONS = [
    generation("q001"),
    generation("q002", retrieved=[]),
    generation("q003", answer="", error="timeout"),
]

# Line numbers matter: the tests below name them.
BAD_CASES = [
    case("q001"),  # line 1: fine
    case("q002"),  # line 2: first of a duplicate id
    '{"id": "q003", "question": "unterminated',  # line 3: malformed JSON
    case("q002", reference_answer="dup"),  # line 4: duplicate id
    case("q005", category="p" * 101),  # line 5: a category label longer than 100 characters
    case("q006", question=None),  # line 6: missing question
    case("q007", source_docs=["company/overview.md", "hr/missing.md"]),  # line 7: unknown source doc
    "",  # line 8: blank, skipped
    case("q009"),  # line 9: fine
]
BAD_GENERATIONS = [generation("q001"), generation("q404")]  # q404: no such case


@pytest.fixture(scope="module")
def clean_report(tmp_path_factory) -> ValidationReport:
    from assay.validation.gate import run_gate

    root = write_dataset(tmp_path_factory.mktemp("clean"), CLEAN_CASES, CLEAN_GENERATIONS)
    suite = GateOnlySuite()
    return run_gate(suite, suite.load_dataset(root))


@pytest.fixture(scope="module")
def bad_report(tmp_path_factory) -> ValidationReport:
    from assay.validation.gate import run_gate

    root = write_dataset(tmp_path_factory.mktemp("bad"), BAD_CASES, BAD_GENERATIONS)
    suite = GateOnlySuite()
    return run_gate(suite, suite.load_dataset(root))


def problems_for(report: ValidationReport, row: str) -> list[RowProblem]:
    return [p for p in report.problems if p.row == row]


# --- read_jsonl ---------------------------------------------------------------------------


def test_read_jsonl_collects_bad_lines_instead_of_raising(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(
        b'\xef\xbb\xbf{"id": "a"}\n'  # BOM on line 1 is tolerated
        b"\n"
        b'{"id": "b", }\n'
        b"[1, 2]\n"
        b'"just a string"\n'
        b'{"id": "\xff"}\n'
        b'{"id": "c"}\r\n'
    )
    records, problems = read_jsonl(path, "x.jsonl")
    assert [(r["id"], r["_line"]) for r in records] == [("a", 1), ("c", 7)]
    assert [(p.row, p.line, p.file, p.expectation) for p in problems] == [
        ("line 3", 3, "x.jsonl", "valid JSON object"),
        ("line 4", 4, "x.jsonl", "valid JSON object"),
        ("line 5", 5, "x.jsonl", "valid JSON object"),
        ("line 6", 6, "x.jsonl", "valid JSON object"),
    ]
    assert "invalid JSON" in problems[0].detail
    assert "array" in problems[1].detail
    assert "UTF-8" in problems[3].detail


def test_read_jsonl_missing_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nope.jsonl"):
        read_jsonl(tmp_path / "nope.jsonl", "cases.jsonl")


# --- load_rag_dataset / frames ------------------------------------------------------------


def test_load_rag_dataset_lists_files_and_kb(tmp_path: Path) -> None:
    root = write_dataset(tmp_path, CLEAN_CASES, CLEAN_GENERATIONS)
    data = rag_dataset.load_rag_dataset(root)
    assert [r["id"] for r in data.records] == ["q001", "q002", "q003"]
    assert len(data.generations) == 3
    assert data.parse_problems == []
    assert data.extras["kb_documents"] == ["company/overview.md", "product/pricing.md"]
    assert data.generations_missing is False and data.generations_file == "generations.jsonl"
    assert set(data.files) == {"cases", "generations", "kb/company/overview.md", "kb/product/pricing.md"}
    assert data.files["kb/product/pricing.md"] == root / "kb" / "product" / "pricing.md"


def test_load_rag_dataset_without_generations(tmp_path: Path) -> None:
    data = rag_dataset.load_rag_dataset(write_dataset(tmp_path, CLEAN_CASES, None))
    assert data.generations == []
    assert data.generations_missing is True
    assert "generations" not in data.files
    frames = rag_dataset.rag_validation_frames(data)
    assert len(frames["generations"]) == 0 and "case_id" in frames["generations"].columns


def test_load_rag_dataset_missing_root_or_cases(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nowhere"):
        rag_dataset.load_rag_dataset(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="cases.jsonl"):
        rag_dataset.load_rag_dataset(tmp_path / "empty")


def test_frames_and_parameters(tmp_path: Path) -> None:
    data = rag_dataset.load_rag_dataset(write_dataset(tmp_path, CLEAN_CASES, CLEAN_GENERATIONS))
    frames = rag_dataset.rag_validation_frames(data)
    cases = frames["cases"]
    assert list(cases["id"]) == ["q001", "q002", "q003"]
    assert list(cases["_line"]) == [1, 2, 3]
    assert list(cases["n_keywords"]) == [2, 2, 2]
    sources = frames["case_sources"]
    # normalised like retrieved chunk sources, one row per listed doc
    assert list(zip(sources["id"], sources["source_doc"], strict=True)) == [
        ("q001", "company/overview.md"),
        ("q002", "product/pricing.md"),
        ("q003", "company/overview.md"),
        ("q003", "product/pricing.md"),
    ]
    assert list(frames["generations"]["n_retrieved"]) == [1, 0, 1]
    assert frames["cases"].attrs["file"] == "cases.jsonl"
    params = rag_dataset.rag_validation_parameters(data)
    assert params == {
        "kb_documents": ["company/overview.md", "product/pricing.md"],
        "case_ids": ["q001", "q002", "q003"],
    }


# --- the gate -----------------------------------------------------------------------------


def test_clean_dataset_passes(clean_report: ValidationReport) -> None:
    assert clean_report.success, clean_report.to_text()
    assert clean_report.problems == []
    assert clean_report.failed_row_ids == set()
    assert clean_report.tables == {"cases": 3, "case_sources": 4, "generations": 3}
    assert clean_report.expectations and all(e.success for e in clean_report.expectations)
    assert clean_report.gx_version and clean_report.gx_version.startswith("1.")
    assert "PASSED" in clean_report.to_text()
    # every table's full GX result is kept, and it is plain JSON
    assert [r["table"] for r in clean_report.gx_results] == ["cases", "case_sources", "generations"]
    json.dumps(clean_report.gx_results)


def test_corrupted_dataset_names_every_problem(bad_report: ValidationReport) -> None:
    report = bad_report
    assert not report.success

    malformed = problems_for(report, "line 3")
    assert [(p.line, p.file, p.expectation) for p in malformed] == [(3, "cases.jsonl", "valid JSON object")]

    duplicate = [
        p
        for p in report.problems
        if p.expectation == "expect_column_values_to_be_unique" and p.column == "id"
    ]
    assert sorted((p.row, p.line) for p in duplicate) == [("q002", 2), ("q002", 4)]

    category = problems_for(report, "q005")
    assert [(p.line, p.column, p.expectation) for p in category] == [
        (5, "category", "expect_column_value_lengths_to_be_between")
    ]

    question = problems_for(report, "q006")
    assert [(p.line, p.column, p.expectation) for p in question] == [
        (6, "question", "expect_column_values_to_not_be_null")
    ]

    source = problems_for(report, "q007")
    assert [(p.line, p.column, p.expectation) for p in source] == [
        (7, "source_doc", "expect_column_values_to_be_in_set")
    ]
    assert "hr/missing.md" in source[0].detail

    unknown_case = problems_for(report, "q404")
    assert [(p.file, p.line, p.column) for p in unknown_case] == [("generations.jsonl", 2, "case_id")]

    assert not problems_for(report, "q001") and not problems_for(report, "q009")


def test_failed_row_ids_and_lines(bad_report: ValidationReport) -> None:
    assert bad_report.failed_row_ids == {"q002", "q005", "q006", "q007", "q404"}
    assert bad_report.failed_lines == {"cases.jsonl": [2, 3, 4, 5, 6, 7], "generations.jsonl": [2]}


def test_to_text_names_rows_and_expectations(bad_report: ValidationReport) -> None:
    text = bad_report.to_text()
    assert "FAILED" in text
    assert "Traceback" not in text
    for needle in [
        "line 3: valid JSON object",
        "q002 (line 2) [id]: expect_column_values_to_be_unique",
        "q002 (line 4) [id]: expect_column_values_to_be_unique",
        "q005 (line 5) [category]: expect_column_value_lengths_to_be_between",
        "q006 (line 6) [question]: expect_column_values_to_not_be_null",
        "q007 (line 7) [source_doc]: expect_column_values_to_be_in_set — 'hr/missing.md'",
        "q404 (line 2) [case_id]: expect_column_values_to_be_in_set",
    ]:
        assert needle in text, f"{needle!r} not in:\n{text}"
    # problems are grouped by file, in line order
    assert text.index("cases.jsonl:") < text.index("line 3:") < text.index("generations.jsonl:")
    assert text.index("q002 (line 2)") < text.index("line 3:") < text.index("q005 (line 5)")
    truncated = bad_report.to_text(max_rows=2)
    assert "more (see the full validation report)" in truncated and "q007" not in truncated.split("Failed")[0]


def test_report_round_trips_through_json(bad_report: ValidationReport) -> None:
    again = ValidationReport.model_validate_json(bad_report.model_dump_json())
    assert again.problems == bad_report.problems
    assert again.failed_row_ids == bad_report.failed_row_ids


def test_wrong_types_and_bounds_are_caught_by_the_gate(tmp_path: Path) -> None:
    """Rows that pass the gate must also parse as RagCase / RagGeneration downstream."""
    from assay.validation.gate import run_gate

    cases = [
        case("q001", keywords="alpha"),  # not a list
        case("q002", keywords=[f"k{i}" for i in range(21)]),  # more than 20
        case("q003", question="x" * 1001),  # too long
        case("q004", source_docs=["company/overview.md", "company/overview.md"]),  # listed twice
        case("q005"),
    ]
    generations = [
        generation("q005", retrieved=[{"source": "company/overview.md"}]),  # chunk without text
    ]
    suite = GateOnlySuite()
    report = run_gate(suite, suite.load_dataset(write_dataset(tmp_path, cases, generations)))
    by_row = {p.row: p for p in report.problems}
    assert by_row["q001"].column == "schema_errors" and "keywords" in by_row["q001"].detail
    assert by_row["q002"].column == "n_keywords"
    assert by_row["q003"].column == "question_length" and "1001 outside [1, 1000]" in by_row["q003"].detail
    assert by_row["q004"].expectation == "expect_compound_columns_to_be_unique"
    assert by_row["q005"].file == "generations.jsonl" and "text" in by_row["q005"].detail
    assert report.failed_row_ids == {"q001", "q002", "q003", "q004", "q005"}


def test_dataset_without_generations_passes(tmp_path: Path) -> None:
    """Live replay datasets have no recorded generations; an empty table is not an error."""
    from assay.validation.gate import run_gate

    suite = GateOnlySuite()
    report = run_gate(suite, suite.load_dataset(write_dataset(tmp_path, CLEAN_CASES, None)))
    assert report.success, report.to_text()
    assert report.tables["generations"] == 0


def test_missing_expectation_file_is_a_clear_error(tmp_path: Path, monkeypatch) -> None:
    from assay.validation.gate import run_gate

    monkeypatch.setattr(GateOnlySuite, "rules_dir", tmp_path / "no-rules")
    suite = GateOnlySuite()
    data = suite.load_dataset(write_dataset(tmp_path / "d", CLEAN_CASES, None))
    with pytest.raises(FileNotFoundError, match="cases.json"):
        run_gate(suite, data)


def test_invalid_expectation_is_an_error_not_silently_dropped(tmp_path: Path, monkeypatch) -> None:
    """GX's ExpectationSuite only logs an unknown expectation type; the gate must refuse it."""
    from assay.validation.gate import run_gate

    bundled = GateOnlySuite().expectations_dir
    exp_dir = tmp_path / "rules" / "expectations"
    exp_dir.mkdir(parents=True)
    for f in bundled.glob("*.json"):
        (exp_dir / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    spec = json.loads((exp_dir / "cases.json").read_text(encoding="utf-8"))
    spec["expectations"].append({"type": "expect_column_values_to_be_unqiue", "kwargs": {"column": "id"}})
    (exp_dir / "cases.json").write_text(json.dumps(spec), encoding="utf-8")
    monkeypatch.setattr(GateOnlySuite, "rules_dir", tmp_path / "rules")

    suite = GateOnlySuite()
    data = suite.load_dataset(write_dataset(tmp_path / "d", CLEAN_CASES, None))
    with pytest.raises(ValueError, match="cases.json.*expect_column_values_to_be_unqiue"):
        run_gate(suite, data)


def test_outcome_describe() -> None:
    outcome = ExpectationOutcome(
        type="expect_column_values_to_be_in_set",
        table="cases",
        column="category",
        success=False,
        unexpected_count=2,
        unexpected_sample=["politics", "sports"],
    )
    assert (
        outcome.describe()
        == "cases: expect_column_values_to_be_in_set [category] — 2 unexpected, e.g. 'politics', 'sports'"
    )


def test_pure_modules_do_not_import_great_expectations() -> None:
    code = (
        "import sys\n"
        "import assay.validation.jsonl, assay.validation.report, assay.validation.gate\n"
        "import assay.suites.rag_qa.dataset\n"
        "print('great_expectations' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=project_root(), check=True
    )
    assert out.stdout.strip() == "False", out.stderr


# --- the bundled dataset --------------------------------------------------------------------


@pytest.mark.skipif(
    not (datasets_dir() / "rag_qa" / "cases.jsonl").is_file(), reason="bundled rag_qa dataset not built yet"
)
def test_bundled_rag_qa_dataset_passes_the_gate() -> None:
    from assay.validation.gate import run_gate

    suite = GateOnlySuite()
    report = run_gate(suite, suite.load_dataset(suite.default_dataset))
    assert report.success, report.to_text()
    assert report.tables["cases"] > 0


def test_read_jsonl_names_rows_that_would_break_later_steps(tmp_path: Path) -> None:
    """Non-finite numbers (publish writes strict JSON), over-long texts (the offline jury's time
    grows with them) and deep nesting (Python's reader stops near 1,000 levels) are named by row
    and field, never raised, never passed on."""
    path = tmp_path / "g.jsonl"
    path.write_text(
        '{"case_id": "a", "latency_s": 1e999}\n'
        '{"case_id": "b", "score": NaN, "x": [1, {"y": -Infinity}]}\n'
        + "[" * 100_000 + "]" * 100_000 + "\n"
        + '{"case_id": "c", "answer": "' + "x" * 100_001 + '"}\n'
        + '{"case_id": "d", "deep": ' + "[" * 70 + "]" * 70 + "}\n"
        + '{"case_id": "e", "n": 1' + "0" * 400 + "}\n"
        + '{"case_id": "ok", "answer": "' + "x" * 100_000 + '", "latency_s": 1.5e3}\n',
        encoding="utf-8",
    )
    records, problems = read_jsonl(path, "g.jsonl")
    assert [r["case_id"] for r in records] == ["ok"]
    described = [p.describe() for p in problems]
    assert described == [
        "a (line 1) [latency_s]: finite numbers — not a finite number (reads as Infinity)",
        "b (line 2) [score]: finite numbers — not a finite number (reads as NaN)",
        "b (line 2) [x]: finite numbers — at x[1].y: not a finite number (reads as -Infinity)",
        "line 3: input limits — nested too deep to read (limit 64 levels, ASSAY_MAX_JSON_DEPTH)",
        "c (line 4) [answer]: input limits — a text of 100,001 characters; the limit is 100,000 (ASSAY_MAX_TEXT_CHARS)",
        described[5],  # below: its path, cut short
        "e (line 6) [n]: finite numbers — an integer beyond a float's range (1.8e308)",
    ]
    assert "d (line 5) [deep]: input limits — at deep[0][0]" in described[5] and "nested more than 64" in described[5]


def test_input_limits_are_set_in_the_environment(tmp_path: Path, monkeypatch) -> None:
    from assay.preflight import problems as preflight_problems
    from assay.spec import RunSpec

    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "a", "q": "0123456789"}\n{"id": "b", "q": [[["x"]]]}\n', encoding="utf-8")
    assert not read_jsonl(path, "c.jsonl")[1]
    monkeypatch.setenv("ASSAY_MAX_TEXT_CHARS", "9")
    monkeypatch.setenv("ASSAY_MAX_JSON_DEPTH", "3")
    assert [(p.row, p.column) for p in read_jsonl(path, "c.jsonl")[1]] == [("a", "q"), ("b", "q")]
    monkeypatch.setenv("ASSAY_MAX_JSON_DEPTH", "deep")
    assert preflight_problems(RunSpec(suite="rag_qa")) == [
        "ASSAY_MAX_JSON_DEPTH='deep': give a positive whole number (default 64)"]
