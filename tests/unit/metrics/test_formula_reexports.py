"""A suite's formulas moved into its folder; the old public path stays a thin lazy re-export:
every name the old module defined is importable from it and is the suite module's own object,
and importing the old module imports no suite until a name is used."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from tests.support.module_names import defined_public_names

# old module -> the suite's module it re-exports
MOVED = {
    "assay.metrics.report": "assay.suites.report.formulas",
    "assay.metrics.agent": "assay.suites.agent.formulas",
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_every_moved_name_is_importable_from_the_old_path_and_is_the_same_object(old, new):
    old_module, new_module = importlib.import_module(old), importlib.import_module(new)
    assert set(old_module.__all__) == defined_public_names(new), "the re-export's names and the suite module's differ"
    assert sorted(dir(old_module)) == sorted(old_module.__all__)
    for name in old_module.__all__:
        assert getattr(old_module, name) is getattr(new_module, name), name
    namespace: dict[str, object] = {}
    exec(f"from {old} import *", namespace)  # noqa: S102 - the star import a user may write
    assert {k for k in namespace if k != "__builtins__"} == set(old_module.__all__)
    with pytest.raises(AttributeError, match="no attribute 'not_a_formula'"):
        old_module.not_a_formula  # noqa: B018


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_importing_the_old_path_imports_no_suite_until_a_name_is_used(old, new):
    code = (
        f"import sys, {old} as m; before = {new!r} in sys.modules; m.__all__ and getattr(m, m.__all__[0]); "
        f"print(before, {new!r} in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"], out.stderr
