"""bench/layout_figures.py: the suite-only-lines and typed-seams figures, and the project holding them at zero."""

from __future__ import annotations

from bench.layout_figures import SUITES, any_in_public_signatures, suite_only_lines
from tests.conftest import ROOT


def test_an_any_in_a_public_signature_is_counted_and_a_private_one_is_not(tmp_path):
    kit = tmp_path / "assay" / "suites" / "kit"
    kit.mkdir(parents=True)
    (tmp_path / "flows").mkdir()
    (tmp_path / "tasks").mkdir()
    (tmp_path / "assay" / "pipeline.py").write_text(
        "from typing import Any\n\n"
        "def load(rows: list[Any]) -> int: ...\n"
        "def _private(x: Any) -> Any: ...\n"
        "def typed(x: int) -> str: ...\n",
        encoding="utf-8",
    )
    (kit / "families.py").write_text("def family(score: dict[str, Any]) -> Any: ...\n", encoding="utf-8")
    assert any_in_public_signatures(tmp_path) == 3


def test_no_public_signature_of_flows_tasks_pipeline_or_the_kit_says_any():
    """Issue 38: every seam between these modules has a named type."""
    assert any_in_public_signatures(ROOT) == 0


def _tree(root, files: dict[str, str]) -> None:
    for top in ("assay", "flows", "tasks"):
        (root / top).mkdir(exist_ok=True)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_suite_only_code_is_what_one_suite_alone_imports_or_names(tmp_path):
    _tree(tmp_path, {
        # imported by one suite alone: that suite's (two lines)
        "assay/metrics/retrieval.py": "X = 1\nY = 2\n",
        "assay/suites/rag_qa/metrics.py": "from assay.metrics import retrieval\nfrom assay.judges.prompts.rag import P\n",
        # imported by two suites: shared
        "assay/judges/prompts/rag.py": "P = 1\n",
        "assay/suites/answers/metrics.py": "from assay.judges.prompts.rag import P\n",
        # named after a suite but imported by shared code (the gate's report, a shared answer core): shared
        "assay/validation/report.py": "R = 1\n",
        "assay/validation/gate.py": "from assay.validation.report import R\n",
        "assay/judges/offline/answer_core.py": "A = 1\n",
        "assay/judges/offline/base.py": "from assay.judges.offline import answer_core\n",
        "assay/suites/report/metrics.py": "from assay.judges.offline import answer_core\n",
        # named after a suite and imported by nothing: that suite's (three lines)
        "assay/metrics/answers_extra.py": "A = 1\nB = 2\nC = 3\n",
    })
    lines = suite_only_lines(tmp_path)
    assert lines["rag_qa"] == 2 and lines["answers"] == 3
    assert lines["report"] == 0 and sum(lines.values()) == 5


def test_no_suite_has_code_outside_its_folder():
    """Issue 38: what only one suite uses lives in its folder (old paths are lazy re-exports)."""
    assert suite_only_lines(ROOT) == dict.fromkeys(SUITES, 0)
