"""assay.reexport.lazy_reexport: an old module path hands out the moved module's own objects,
importing it on first use only, and refuses names that did not move; and every public module that
moved into a suite's folder stays importable from its old path that way."""

from __future__ import annotations

import subprocess
import sys

import pytest

from assay.reexport import lazy_reexport, lazy_reexports
from tests.support.module_names import assert_reexports, imports_before_and_after_first_use

# old public module -> the suite's module it re-exports (only that suite uses the code)
MOVED = {
    "assay.metrics.report": "assay.suites.report.formulas",
    "assay.metrics.agent": "assay.suites.agent.formulas",
    "assay.metrics.retrieval": "assay.suites.rag_qa.retrieval_metrics",
    "assay.replay.chunking": "assay.suites.rag_qa.chunking",
    "assay.replay.embedding": "assay.suites.rag_qa.embedding",
}


def test_the_moved_names_are_the_new_modules_objects_and_nothing_else_is():
    getattr_, dir_ = lazy_reexport("old.path", "colorsys", ["rgb_to_hsv", "hsv_to_rgb"])
    import colorsys

    assert getattr_("rgb_to_hsv") is colorsys.rgb_to_hsv and dir_() == ["hsv_to_rgb", "rgb_to_hsv"]
    with pytest.raises(AttributeError, match="module 'old.path' has no attribute 'rgb_to_yiq'"):
        getattr_("rgb_to_yiq")  # in the new module, but not one of the moved names


def test_the_new_module_is_imported_on_first_use_not_before():
    code = ("import sys\nfrom assay.reexport import lazy_reexport\n"
            "g, _ = lazy_reexport('old', 'colorsys', ['rgb_to_hsv'])\n"
            "print('colorsys' in sys.modules)\ng('rgb_to_hsv')\nprint('colorsys' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_names_from_several_modules_come_each_from_its_own():
    getattr_, dir_ = lazy_reexports("old.package", {"colorsys": ["rgb_to_hsv"], "textwrap": ["dedent"]})
    import colorsys
    import textwrap

    assert getattr_("rgb_to_hsv") is colorsys.rgb_to_hsv and getattr_("dedent") is textwrap.dedent
    assert dir_() == ["dedent", "rgb_to_hsv"]
    with pytest.raises(AttributeError, match="module 'old.package' has no attribute 'wrap'"):
        getattr_("wrap")  # textwrap's, but not a moved name


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_every_moved_name_is_importable_from_the_old_path_and_is_the_same_object(old, new):
    assert_reexports(old, new)


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_importing_the_old_path_imports_no_suite_until_a_name_is_used(old, new):
    assert imports_before_and_after_first_use(old, new) == ["False", "True"]
