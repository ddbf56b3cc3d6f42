"""Pure parts of the resident worker's child (``flows/warm_worker.py``): it ends with the status
the interpreter would have given, and shows again a warning the worker already showed. The worker
with real runs is ``tests/flows/test_warm_worker.py``."""

from __future__ import annotations

import warnings

import pytest

from assay.flows.warm_worker import _forget_warnings, _status_of


@pytest.mark.parametrize("code, status", [(None, 0), (0, 0), (5, 5), (143, 143), (256 + 3, 3), ("bye", 1)])
def test_exit_status_as_the_interpreter_makes_it(code, status, capsys):
    assert _status_of(code) == status
    assert capsys.readouterr().err == ("bye\n" if code == "bye" else "")


def warn_here() -> None:
    warnings.warn("seen once per place", UserWarning, stacklevel=1)


def test_a_warning_the_worker_showed_shows_again_in_a_child():
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("default")
        warn_here()
        warn_here()  # "default": once per place
        assert len(shown) == 1
        _forget_warnings()
        warn_here()
        assert len(shown) == 2


def _deferred_models(module_name: str):
    """Two models in a fresh module of that name: one whose forward reference is defined after
    it (deferred, buildable later), one whose reference is never defined."""
    import sys
    import types

    module = types.ModuleType(module_name)
    sys.modules[module_name] = module
    exec(  # noqa: S102 - the module's own source, as a file would hold it
        "from pydantic import BaseModel\n"
        "class Outer(BaseModel):\n    inner: 'Inner'\n"
        "class Broken(BaseModel):\n    missing: 'NeverDefined'\n"
        "class Inner(BaseModel):\n    x: int\n",
        module.__dict__,
    )
    return module


def test_deferred_models_are_built_before_the_worker_forks():
    from assay.flows.warm_worker import complete_deferred_models

    module = _deferred_models("assay._deferred_models_for_a_test")
    try:
        assert not module.Outer.__pydantic_complete__ and not module.Broken.__pydantic_complete__
        assert complete_deferred_models(("assay",)) >= 1
        assert module.Outer.__pydantic_complete__  # built from its module's own names
        assert module.Outer.model_validate({"inner": {"x": 1}}).inner.x == 1
        assert not module.Broken.__pydantic_complete__  # cannot be built: left as it was, no error
        with pytest.raises(Exception, match="not fully defined"):
            module.Broken.model_validate({"missing": 1})
    finally:
        import sys

        del sys.modules["assay._deferred_models_for_a_test"]


def test_models_of_other_packages_are_left_to_their_first_use():
    from assay.flows.warm_worker import complete_deferred_models

    module = _deferred_models("elsewhere_deferred_models_for_a_test")
    try:
        complete_deferred_models(("assay",))
        assert not module.Outer.__pydantic_complete__
    finally:
        import sys

        del sys.modules["elsewhere_deferred_models_for_a_test"]
