"""A suite's formulas moved into its folder; the old public path stays a thin lazy re-export:
every name the old module defined is importable from it and is the suite module's own object,
and importing the old module imports no suite until a name is used."""

from __future__ import annotations

import pytest

from tests.support.module_names import assert_reexports, imports_before_and_after_first_use

# old module -> the suite's module it re-exports
MOVED = {
    "assay.metrics.report": "assay.suites.report.formulas",
    "assay.metrics.agent": "assay.suites.agent.formulas",
    "assay.metrics.retrieval": "assay.suites.rag_qa.retrieval_metrics",
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_every_moved_name_is_importable_from_the_old_path_and_is_the_same_object(old, new):
    assert_reexports(old, new)


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_importing_the_old_path_imports_no_suite_until_a_name_is_used(old, new):
    assert imports_before_and_after_first_use(old, new) == ["False", "True"]
