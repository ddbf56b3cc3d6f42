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


def test_a_refused_fork_sends_the_run_back_to_its_client(tmp_path, monkeypatch):
    import os
    import socket

    from assay.flows import warm_worker
    from assay.worker_client import read_message, send_message

    def refused() -> int:  # filelock's fork guard while another thread changes a lock
        raise RuntimeError("os.fork is unsafe while filelock is changing descriptor ownership")

    monkeypatch.setattr(warm_worker.os, "fork", refused)
    worker = warm_worker.Worker(tmp_path, "token", "server-token", "")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(tmp_path / "s"))
    listener.listen(1)
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(str(tmp_path / "s"))
    read_end, write_end = os.pipe()
    try:
        send_message(client, {"identity": worker.identity, "argv": []}, fds=[read_end, write_end, write_end])
        worker._accept(listener)  # noqa: SLF001
        assert read_message(client) == {"refused": "the worker could not fork (RuntimeError)"}
        assert worker.children == {}  # nothing started: the client runs it (a refused reply)
    finally:
        for sock in (client, listener):
            sock.close()
        os.close(read_end)
        os.close(write_end)
