"""bench/layout_figures.py: the typed-seams figure, and the project holding it at zero."""

from __future__ import annotations

from bench.layout_figures import any_in_public_signatures
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
