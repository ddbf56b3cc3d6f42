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
