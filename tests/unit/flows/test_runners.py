"""Task runners by name, and the name of the runner a flow run has (flows/runners.py)."""

import importlib
import sys

import pytest
from prefect.task_runners import ThreadPoolTaskRunner
from prefect_dask import DaskTaskRunner

from assay.flows.runners import runner_in_use, task_runner_for


def test_each_runner_name_gives_that_runner_and_is_named_back():
    assert task_runner_for("threads") is None  # Prefect's default thread runner
    assert runner_in_use(ThreadPoolTaskRunner()) == "threads"
    local = task_runner_for("dask")
    assert isinstance(local, DaskTaskRunner) and local.address is None
    assert runner_in_use(local) == "dask"
    remote = task_runner_for("dask=tcp://10.0.0.5:8786")
    assert remote.address == "tcp://10.0.0.5:8786"
    assert runner_in_use(remote) == "dask=tcp://10.0.0.5:8786"
    assert runner_in_use(remote.duplicate()) == "dask=tcp://10.0.0.5:8786"  # what a flow run holds


def test_the_dask_entrypoint_takes_its_cluster_from_the_environment(monkeypatch):
    monkeypatch.setenv("ASSAY_DASK_RUNNER", "dask=tcp://10.0.0.7:8786")
    sys.modules.pop("assay.flows.on_dask", None)
    on_dask = importlib.import_module("assay.flows.on_dask")
    assert runner_in_use(on_dask.evaluate_on_dask.task_runner) == "dask=tcp://10.0.0.7:8786"
    assert on_dask.evaluate_on_dask.name == "assay-evaluate"  # deployments: assay-evaluate/NAME

    monkeypatch.setenv("ASSAY_DASK_RUNNER", "threads")
    sys.modules.pop("assay.flows.on_dask", None)
    with pytest.raises(ValueError, match="this entrypoint runs on Dask"):
        importlib.import_module("assay.flows.on_dask")
    sys.modules.pop("assay.flows.on_dask", None)
